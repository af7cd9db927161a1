"""``make regrade-check``: run one student's test cells again, exactly as the autograder did.

The hidden tests draw their random data from a generator seeded by (assignment, student,
test cell) (see :mod:`grading.context`), so running a submission's tests again gives the
same data, the same verdicts and the same messages as its grading. This is how a disputed
grade is looked at: the instructor replays the cell named in the feedback and sees the test
fail (or pass) the same way, with the seed it used. Nothing is written: the gradebook, the
autograded notebooks and the feedback stay as they are.
"""
from pathlib import Path

from .context import seed_for
from .course import Course, CourseError

__all__ = ["regrade_check"]


def regrade_check(root, assignment, student, cell=None, *, echo=None):
    """Run the tests of ``student``'s ``assignment`` again; report ``cell`` (or every test cell).

    Parameters
    ----------
    root : path
        The course directory.
    assignment, student : str
        Whose submission (``autograded/<student>/<assignment>/`` if it was autograded, else
        ``submitted/<student>/<assignment>/``).
    cell : str, optional
        The grade_id of one test cell (as in the feedback); default every test cell.
    echo : callable, optional
        Where the lines go (default: print).

    Returns
    -------
    dict
        ``{grade_id: (seed, None or the failing test's message)}`` of the reported cells.
    """
    import nbformat

    from .cells import grade_id, is_test_cell
    from .engine import execute_submission
    from .preprocessors import CourseExecute, trusted_cells
    from .withhold import withheld_names

    echo = echo or print
    course = Course(root)
    course.check_assignment(assignment)
    folder = course.autograded_dir / student / assignment
    if not folder.is_dir():
        folder = course.submitted_dir / student / assignment
    if not folder.is_dir():
        raise CourseError(f"no submission of {assignment!r} by {student!r}: expected "
                          f"{course.submitted_dir / student / assignment}")
    timeout = CourseExecute(config=course.config).cell_timeout(assignment)
    results, found = {}, False
    for name in course.notebooks(assignment):
        path = Path(folder) / f"{name}.ipynb"
        if not path.is_file():
            echo(f"{student}: no {path.name} in {folder}")
            continue
        nb = nbformat.read(str(path), as_version=4)
        if cell is not None and cell not in [grade_id(c) for c in nb.cells if is_test_cell(c)]:
            continue
        found = True
        tests, setups = trusted_cells(course.db_url, name, assignment)      # the gradebook's, never the file's
        done, _ = execute_submission(nb, files=folder, tests=tests, setups=setups, assignment=assignment,
                                     student=student, timeout=timeout,
                                     withheld=withheld_names(course.source_dir / assignment))
        for c in done.cells:
            gid = grade_id(c)
            if not is_test_cell(c) or (cell is not None and gid != cell):
                continue
            errors = [o for o in c.get("outputs", []) if o.get("output_type") == "error"]
            message = errors[0].get("evalue") if errors else None
            seed = seed_for(assignment, student, gid)
            results[gid] = (seed, message)
            if message is None:
                echo(f"{gid} (seed {seed}): passed")
            else:
                echo(f"{gid} (seed {seed}): FAILED\n  {errors[0].get('ename')}: " + message.replace("\n", "\n  "))
    if cell is not None and not found:
        raise CourseError(f"{assignment} has no test cell {cell!r}")
    return results
