"""The late penalty follows every part of a grade, in whatever order the parts change.

A late submission's grade is made of its autograded cells, a written answer a TA grades by hand
in the Formgrader, the student's extension and the course's policy. Each order in which a TA can
meet these — autograde, manual grade, regrade, extension — is taken by one student of a real
class (real nbgrader, sandbox and gradebook); after every step, the exported grade must be what
the policy gives for the parts present then, and at the end the same for every student.
"""
import datetime as dt
import itertools
import math
import warnings

import pytest
from grading_helpers import ASSIGNMENT, fill, grade_id, make_course, reference_bodies, released_notebook, submit

from grading.course import Course
from grading.late import Policy, give_extension

DUE = dt.datetime(2026, 11, 20, 23, 59)
LATE = 34 * 3600                    # two started days late; one with the extension of a day
WRITTEN = "explain-cosine-bound-on-updates"
ORDERS = [("A",) + p for p in itertools.permutations("MRE")] + [("E", "A") + p for p in itertools.permutations("MR")]


def test_policy_explains_itself():
    p = Policy.from_config({"LatePenalty": {"percent_per_day": 25.0, "grace_minutes": 30}})
    assert p.penalty(20, 1799) == 0 and p.penalty(20, 1801) == 5.0 and p.days(86400 + 1800 + 1) == 2
    assert p.explain(20, 3600) == "1.0 h late: 1 started day at 25 % of the earned score each, 5 of 20 points"
    assert p.explain(20, 0) == "on time" and "within the grace period" in p.explain(20, 60)


def _gb(course):
    from nbgrader.api import Gradebook
    c = Course(course)
    return Gradebook(c.db_url, c.course_id)


def _manual_grade(course, student, points):
    """What the Formgrader does when a TA types a score: the manual score, and the flag cleared."""
    with warnings.catch_warnings(), _gb(course) as gb:
        warnings.simplefilter("ignore")
        g = gb.find_grade(WRITTEN, ASSIGNMENT, ASSIGNMENT, student)
        g.manual_score, g.needs_manual_grade = points, False
        gb.db.commit()


def _flag(course, student):
    with warnings.catch_warnings(), _gb(course) as gb:
        warnings.simplefilter("ignore")
        return gb.find_grade(WRITTEN, ASSIGNMENT, ASSIGNMENT, student).needs_manual_grade


def _check_grades(course, students, done, automatic, step):
    """Every exported grade is what the policy gives for the parts ``done`` (``automatic``: the autograded score)."""
    from grading.exporters import class_rows

    rows = {r.student: r for r in class_rows(Course(course), ASSIGNMENT)}
    for s, applied in done.items():
        if "A" not in applied:
            continue
        r = rows[s]
        raw = automatic + (2.0 if "M" in applied else 0.0)
        days = 1 if "E" in applied else 2
        assert math.isclose(r.raw_score, raw), (step, s, students[s], r)
        assert r.late_seconds == LATE - (86400 if "E" in applied else 0), (step, s, r)
        assert math.isclose(r.penalty, raw * 0.1 * days), (step, s, students[s], r.penalty)
        assert math.isclose(r.score, raw * (1 - 0.1 * days)), (step, s, r.score)
        assert r.status == ("final" if "M" in applied else "provisional"), (step, s, r.status, r.reason)
        if "M" in applied:                       # a regrade leaves the grader's "done" as it was
            assert _flag(course, s) is False, (step, s, students[s])
    # nbgrader's own record of the penalty (the Formgrader, nbgrader's feedback) agrees
    with warnings.catch_warnings(), _gb(course) as gb:
        warnings.simplefilter("ignore")
        for s, applied in done.items():
            if "A" in applied:
                stored = gb.find_submission(ASSIGNMENT, s).notebooks[0].late_submission_penalty
                assert math.isclose(stored, rows[s].penalty), (step, s, stored, rows[s].penalty)


@pytest.mark.slow
def test_every_order_of_autograde_manual_grade_regrade_and_extension_gives_the_same_grade(tmp_path):
    from traitlets.config import Config

    from grading.autograde import autograde
    from grading.exporters import class_rows

    course = make_course(tmp_path)
    released = released_notebook(course)
    nb = fill(released, reference_bodies())
    for cell in nb.cells:
        if grade_id(cell) == WRITTEN:
            cell.source = "T corrections give w_f^T w_T >= T rho and ||w_T||^2 <= T R^2."
    students = {f"o{n}": order for n, order in enumerate(ORDERS)}

    def hand_in(s):
        path = submit(course, s, nb)
        (path.parent / "timestamp.txt").write_text(f"{DUE + dt.timedelta(seconds=LATE):%Y-%m-%d %H:%M:%S} UTC\n")
    with warnings.catch_warnings(), _gb(course) as gb:
        warnings.simplefilter("ignore")
        gb.update_or_create_assignment(ASSIGNMENT, duedate=DUE)
    quiet = dict(overrides=Config({"Execute": {"timeout": 10}}), echo=lambda *a: None, progress=False)
    c = Course(course)
    done = {s: set() for s in students}
    automatic = None

    for step in range(4):
        todo = {s: order[step] for s, order in students.items()}
        handing_in = [s for s, op in todo.items() if op == "A"]
        if handing_in:                                       # hand in, then autograde what is new
            for s in handing_in:
                hand_in(s)
            autograde(course, ASSIGNMENT, jobs=1, **quiet)
            for s in handing_in:
                done[s].add("A")
            if automatic is None:
                automatic = next(r.raw_score for r in class_rows(c, ASSIGNMENT) if r.student == "o0")
                assert automatic == 17.0                     # every test passes; the written answer waits
        for s, op in todo.items():
            if op == "M":
                _manual_grade(course, s, 2.0)
            elif op == "E":
                give_extension(course, ASSIGNMENT, s, f"{DUE + dt.timedelta(days=1):%Y-%m-%d %H:%M} UTC", "a day")
            elif op == "R":
                autograde(course, ASSIGNMENT, jobs=1, student=s, force=True, **quiet)
            if op != "A":
                done[s].add(op)
        _check_grades(course, students, done, automatic, step)
    final = {r.student: (r.status, r.score) for r in class_rows(c, ASSIGNMENT)}
    assert all(st == "final" and math.isclose(v, 19 * 0.9) for st, v in final.values()), final
