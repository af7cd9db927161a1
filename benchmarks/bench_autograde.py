"""Autograding and notebook runs as whole processes, against what nbgrader and Jupyter do alone.

* ``make autograde`` (``python -m grading autograde``: the sandboxed student process, the
  separate test process, nbgrader's bookkeeping) grading one correct submission of the
  Lecture 2 assignment, against plain ``nbgrader autograde`` grading the same submission in a
  course with nbgrader's default settings. Goal: at most 1.5x.
* ``nbgrader autograde`` run in the course (so through the course's engine, registered in
  ``nbgrader_config.py``: sandbox, judge, withheld functions) against the same command in a
  course with nbgrader's default settings (its own ``Execute``), one correct submission.
  Goal: at most 1.5x. The sandbox is checked once per run, not per submission.
* A lecture notebook checked by ``make test NB=...`` (pytest with nbval, the maintainer's
  loop), against ``jupyter nbconvert --execute`` of the same notebook.
* The wall time of one ``make autograde`` of 30 correct submissions (no baseline).

Both sides are whole processes, started the same way, alternating (benchmarks/paired.py);
each run gets a fresh copy of a course prepared once (copied outside the timing), so
nothing graded is reused.
"""
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from benchmarks import paired

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

ASSIGNMENT = "ps1_perceptron"
NOTEBOOK = "notebooks/02-2-pla.ipynb"
RUNS = 3
# nbgrader's defaults: the course, its folders and the same cell timeout as the course.
PLAIN_CONFIG = '''c = get_config()
c.CourseDirectory.course_id = "ml-foundations"
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "release"
c.Execute.timeout = 10
'''


def _template(tmp, n_students, *, plain):
    """A course with ``n_students`` correct submissions; ``plain``: nbgrader's own settings."""
    from grading_helpers import fill, make_course, reference_bodies, submit

    from grading.autograde import release

    course = make_course(Path(tempfile.mkdtemp(dir=tmp)))
    release(course, ASSIGNMENT)
    if plain:
        (course / "nbgrader_config.py").write_text(PLAIN_CONFIG)
        (course / "gradebook.db").unlink(missing_ok=True)
        paired.process([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--force"],
                       cwd=course)()
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    filled = fill(released, reference_bodies())
    for i in range(n_students):
        submit(course, f"student{i:02d}", filled)
    return course


def _copy(template, tmp):
    """A fresh copy of a prepared course (nothing graded yet), made outside the timing."""
    dest = Path(tempfile.mkdtemp(dir=tmp)) / "course"
    shutil.copytree(template, dest)
    return dest


def _graded(course, n_students):
    """Every submission autograded, with full marks: a run that failed quickly would not be a fair time."""
    from nbgrader.api import Gradebook

    got = sorted(p.parent.parent.name for p in (course / "autograded").glob(f"*/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"))
    if len(got) != n_students:
        raise RuntimeError(f"{n_students} submissions, {len(got)} autograded in {course}")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student in got:
            # the test cells (answers graded by hand are left to the TA, here as with plain nbgrader)
            grades = [g for nb in gb.find_submission(ASSIGNMENT, student).notebooks for g in nb.grades
                      if g.cell_type == "code" and not g.needs_manual_grade and g.auto_score is not None]
            got, best = sum(g.auto_score for g in grades), sum(g.max_score for g in grades)
            if not grades or got + 1e-9 < best:
                raise RuntimeError(f"{student} scored {got} of the {best} points of the test cells in {course}: "
                                   "the reference should earn them all")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        ours, plain = _template(tmp, 1, plain=False), _template(tmp, 1, plain=True)

        def course_autograde():
            course = _copy(ours, tmp)
            took = paired.process([sys.executable, "-m", "grading", "--course", str(course), "autograde",
                                   ASSIGNMENT], cwd=course)()
            _graded(course, 1)
            return took

        def nbgrader_autograde():
            course = _copy(plain, tmp)
            took = paired.process([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT], cwd=course)()
            _graded(course, 1)
            return took

        timing = paired.alternate(course_autograde, nbgrader_autograde, runs=RUNS)
        paired.row("autograde 1 submission: make autograde vs nbgrader", timing, goal="<= 1.5x",
                   met=timing.ratio <= 1.5)

        env = dict(os.environ, PATH=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))

        def engine_in_nbgrader():
            course = _copy(ours, tmp)
            paired.process([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--force"],
                           cwd=course, env=env)()
            took = paired.process([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT], cwd=course, env=env)()
            _graded(course, 1)
            return took

        timing = paired.alternate(engine_in_nbgrader, nbgrader_autograde, runs=RUNS)
        paired.row("nbgrader autograde 1 submission: course engine vs nbgrader's Execute", timing, goal="<= 1.5x",
                   met=timing.ratio <= 1.5)

        def nbval():
            copy = Path(tempfile.mkdtemp(dir=tmp)) / Path(NOTEBOOK).name
            shutil.copy(ROOT / NOTEBOOK, copy)
            return paired.process([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
                                   "-o", "addopts=", "--nbval-lax", "--nbval-current-env", str(copy)], cwd=ROOT)()

        def nbconvert():
            out = Path(tempfile.mkdtemp(dir=tmp))
            return paired.process([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                                   "--output-dir", str(out), str(ROOT / NOTEBOOK)], cwd=ROOT)()

        paired.row(f"{Path(NOTEBOOK).stem}: make test NB= vs nbconvert --execute",
                   paired.alternate(nbval, nbconvert, runs=RUNS))

        course = _template(tmp, 30, plain=False)
        t0 = time.perf_counter()
        paired.process([sys.executable, "-m", "grading", "--course", str(course), "autograde", ASSIGNMENT],
                       cwd=course)()
        t_30 = time.perf_counter() - t0
        _graded(course, 30)
        paired.row("autograde 30 correct submissions (make autograde)", project=t_30,
                   note=f"{t_30 / 30:.2f} s each")


if __name__ == "__main__":
    main()
    paired.print_table()
