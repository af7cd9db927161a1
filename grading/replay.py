"""``make regrade-check``: run one student's test cells again, exactly as the autograder did.

The hidden tests draw their random data from a generator seeded by the course's secret,
(assignment, student, test cell) and the submission's digest (see :mod:`grading.context`),
and their limits count CPU time, not the machine's load; so running a submission's tests
again — prepared by the very steps ``make autograde`` runs (:func:`grading.jobs.prepare_job`:
nbgrader's sanitizing, the gradebook's test cells, the same :class:`grading.limits.GradingLimits`)
— gives the same data, the same verdicts and the same messages as its grading. This is how a
disputed grade is looked at: the instructor replays the cell named in the feedback and sees
the test fail (or pass) the same way, with the seed it used. Nothing is written: the
gradebook, the autograded notebooks and the feedback stay as they are.
"""
from .context import course_secret, seed_for
from .course import Course, CourseError

__all__ = ["regrade_check", "graded_seed"]


def _secret(course):
    from .preprocessors import CourseExecute

    path = CourseExecute(config=course.config).secret_path()
    try:
        return course_secret(path)
    except (FileNotFoundError, ValueError) as exc:
        raise CourseError(str(exc)) from None


def graded_seed(root, assignment, student, cell):
    """The seed the grader gives test cell ``cell`` of the submission in ``submitted/<student>/<assignment>/``.

    Examples
    --------
    A test that checks the seed named in a failing test's message::

        assert f"seed {graded_seed(course, 'ps2_hoeffding', 'ada', cell)}" in message
    """
    from .plan import submission_digest

    course = Course(root)
    return seed_for(assignment, student, cell, submission=submission_digest(course.submitted_dir / student / assignment),
                    secret=_secret(course))


def regrade_check(root, assignment, student, cell=None, *, echo=None):
    """Run the tests of ``student``'s ``assignment`` again; report ``cell`` (or every test cell).

    Parameters
    ----------
    root : path
        The course directory.
    assignment, student : str
        Whose submission (``submitted/<student>/<assignment>/``).
    cell : str, optional
        The grade_id of one test cell (as in the feedback); default every test cell.
    echo : callable, optional
        Where the lines go (default: print).

    Returns
    -------
    dict
        ``{grade_id: (seed, None or the failing test's message)}`` of the reported cells.
    """
    from nbformat import from_dict

    from .engine import execute_submission
    from .jobs import prepare_job
    from .plan import submission_digest

    echo = echo or print
    course = Course(root)
    course.check_assignment(assignment)
    folder = course.submitted_dir / student / assignment
    if not folder.is_dir():
        raise CourseError(f"no submission of {assignment!r} by {student!r}: expected {folder}")
    secret = _secret(course)
    digest = submission_digest(folder)
    graded = (course.read_status(assignment).get(student) or {}).get("digest")
    if graded and graded != digest:
        echo(f"{student}: {folder} changed since it was last graded; these are the tests of the submission as it is "
             "now (make autograde grades it)")
    cfg = course.nbgrader_config()
    cfg.CourseDirectory.assignment_id = assignment
    job = prepare_job(cfg, course, assignment, student, _notebooks_in(course, assignment, folder, student, echo))
    results, found = {}, False
    for spec in job["notebooks"].values():
        nb = _up_to(from_dict(spec["notebook"]), cell)
        if nb is None:
            continue
        found = True
        done, _ = execute_submission(nb, **spec["arguments"])
        for gid, error in _test_outcomes(done, cell):
            seed = seed_for(assignment, student, gid, submission=digest, secret=secret)
            message = error.get("evalue") if error else None
            results[gid] = (seed, message)
            if message is None:
                echo(f"{gid} (seed {seed}): passed")
            else:
                echo(f"{gid} (seed {seed}): FAILED\n  {error.get('ename')}: " + message.replace("\n", "\n  "))
    if cell is not None and not found:
        raise CourseError(f"{assignment} has no test cell {cell!r}")
    return results


def _notebooks_in(course, assignment, folder, student, echo):
    """The assignment's notebooks the submission has; each one it lacks is said."""
    notebooks = [n for n in course.notebooks(assignment) if (folder / f"{n}.ipynb").is_file()]
    for name in sorted(set(course.notebooks(assignment)) - set(notebooks)):
        echo(f"{student}: no {name}.ipynb in {folder}")
    return notebooks


def _up_to(nb, cell):
    """``nb`` up to its test cell ``cell`` (the cells below cannot change its verdict); None when it has no such cell.

    With ``cell`` None, the whole notebook.
    """
    from .cells import grade_id, is_test_cell

    if cell is None:
        return nb
    if cell not in [grade_id(c) for c in nb.cells if is_test_cell(c)]:
        return None
    last = max(i for i, c in enumerate(nb.cells) if grade_id(c) == cell)
    nb.cells = nb.cells[:last + 1]
    return nb


def _test_outcomes(done, cell):
    """``(grade_id, the first error output or None)`` of each test cell of the executed notebook (only ``cell``'s)."""
    from .cells import grade_id, is_test_cell

    for c in done.cells:
        gid = grade_id(c)
        if not is_test_cell(c) or (cell is not None and gid != cell):
            continue
        errors = [o for o in c.get("outputs", []) if o.get("output_type") == "error"]
        yield gid, errors[0] if errors else None
