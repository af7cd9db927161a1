"""Autograding against plain execution, measured in one run.

Goal: autograding one correct submission of the Lecture 2 assignment (the sandboxed
student process, the separate test process, nbgrader's bookkeeping) takes at most 1.5x
the time of simply executing the same notebook with ``jupyter nbconvert --execute``.
Also printed: the wall time to grade 30 submissions in one ``make autograde``.
"""
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

ASSIGNMENT = "ps1_perceptron"


def _course(tmp, n_students):
    from grading.autograde import release
    from grading_helpers import fill, make_course, reference_bodies, submit

    course = make_course(Path(tmp))
    release(course, ASSIGNMENT)
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    filled = fill(released, reference_bodies())
    for i in range(n_students):
        submit(course, f"student{i:02d}", filled)
    return course


def _autograde(course):
    from grading.autograde import autograde

    t0 = time.perf_counter()
    status = autograde(course, ASSIGNMENT, echo=lambda *a: None)
    elapsed = time.perf_counter() - t0
    assert all(v["status"] == "graded" for v in status.values()), status
    return elapsed


def _nbconvert(notebook, out_dir):
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                    "--output-dir", str(out_dir), str(notebook)], check=True, capture_output=True)
    return time.perf_counter() - t0


def main(repeats=3):
    import warnings
    warnings.filterwarnings("ignore")
    one, plain = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            course = _course(tmp, 1)
            notebook = course / "submitted" / "student00" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
            plain.append(_nbconvert(notebook, Path(tmp) / "executed"))
            one.append(_autograde(course))
    t_one, t_plain = statistics.median(one), statistics.median(plain)
    print(f"execute one correct submission (jupyter nbconvert --execute): {t_plain:6.2f} s (median of {repeats})")
    print(f"autograde the same submission (make autograde):              {t_one:6.2f} s "
          f"= {t_one / t_plain:.2f}x  (goal: at most 1.5x)")
    with tempfile.TemporaryDirectory() as tmp:
        course = _course(tmp, 30)
        t_30 = _autograde(course)
    print(f"autograde 30 correct submissions:                             {t_30:6.2f} s "
          f"({t_30 / 30:.2f} s each)")


if __name__ == "__main__":
    main()
