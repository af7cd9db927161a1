"""The course's grading records: typed, one file per student, and manual work never silently re-opened or hidden.

The end-to-end test walks a TA's week with one student (real nbgrader, sandbox, gradebook):
the written answer is graded by hand, the student resubmits a changed answer, the class is
regraded (also by a run that is interrupted), and the change stays listed — in the summary, the
exports and the Formgrader's flag — until a grader looks at it again.
"""
import json
import warnings

import pytest
from grading_helpers import ASSIGNMENT, fill, grade_id, make_course, reference_bodies, released_notebook, submit

from grading.course import Course
from grading.gradebook import ManualMark
from grading.status import StatusBook, StudentStatus

WRITTEN = "explain-cosine-bound-on-updates"


def test_records_round_trip_one_file_per_student_any_name(tmp_path):
    course = make_course(tmp_path)
    book = StatusBook(Course(course), ASSIGNMENT)
    odd = ["=1+2", "@SUM(1+1)", "a b", "ünï", ".dot", "x%2Fy"]
    for s in odd:
        book.write(StudentStatus(s, status="graded", cells={"nb": {"g": "1"}}, review=("g",),
                                 review_basis={"g": ManualMark((1.0, None, "ok"), False).to_list()},
                                 before={"g": ManualMark((1.0, None, "ok"), True)}))
    got = book.all()
    assert sorted(got) == sorted(odd)
    assert got["=1+2"].before["g"] == ManualMark((1.0, None, "ok"), True)
    assert got["a b"].final and got["a b"].review == ("g",)
    book.remove("a b")
    assert "a b" not in book.all() and book.read("a b") is None
    assert all(not p.name.startswith(".") or p.name == ".assignment.json" or p.name.startswith("%2E")
               for p in book.folder.iterdir())


def test_records_of_the_single_file_of_earlier_versions_are_still_read(tmp_path):
    course = make_course(tmp_path)
    (course / "autograded").mkdir()
    (course / "autograded" / "grading-status.json").write_text(json.dumps(
        {ASSIGNMENT: {"ada": {"status": "ungraded", "reason": "broken"}, "bob": {"status": "graded"}}}))
    book = StatusBook(Course(course), ASSIGNMENT)
    assert book.read("ada").reason == "broken" and book.all()["bob"].final
    book.write(StudentStatus("bob", status="graded", interrupted=True))
    assert not book.read("bob").final


def test_open_review_ends_when_the_grader_changes_the_work_or_clears_the_flag():
    flagged = StudentStatus("s", status="graded", review=("a", "b"),
                            review_basis={"a": ManualMark((1.0, None, ""), True).to_list(),
                                          "b": ManualMark((None, None, "see lecture"), None).to_list()})
    same = {"a": ManualMark((1.0, None, ""), True), "b": ManualMark((None, None, "see lecture"), None)}
    assert flagged.open_review(same) == ["a", "b"]
    assert flagged.open_review({**same, "a": ManualMark((1.0, None, ""), False)}) == ["b"]      # saved again
    assert flagged.open_review({**same, "b": ManualMark((None, None, "fine now"), None)}) == ["a"]


def _gb(course):
    from nbgrader.api import Gradebook
    c = Course(course)
    return Gradebook(c.db_url, c.course_id)


def _grade(course, points, comment=None):
    with warnings.catch_warnings(), _gb(course) as gb:
        warnings.simplefilter("ignore")
        g = gb.find_grade(WRITTEN, ASSIGNMENT, ASSIGNMENT, "ada")
        g.manual_score, g.needs_manual_grade = points, False
        if comment is not None:
            gb.find_comment(WRITTEN, ASSIGNMENT, ASSIGNMENT, "ada").manual_comment = comment
        gb.db.commit()


def _flag(course):
    with warnings.catch_warnings(), _gb(course) as gb:
        warnings.simplefilter("ignore")
        return gb.find_grade(WRITTEN, ASSIGNMENT, ASSIGNMENT, "ada").needs_manual_grade


def _answer(released, text):
    nb = fill(released, reference_bodies())
    for cell in nb.cells:
        if grade_id(cell) == WRITTEN:
            cell.source = text
    return nb


@pytest.mark.slow
def test_a_changed_answer_stays_listed_until_a_grader_looks_again(tmp_path):
    from traitlets.config import Config

    from grading.autograde import autograde
    from grading.classrun import ClassRun
    from grading.exporters import class_rows

    course = make_course(tmp_path)
    released = released_notebook(course)
    submit(course, "ada", _answer(released, "First try: T <= R/rho."))
    quiet = dict(overrides=Config({"Execute": {"timeout": 10}}), progress=False, jobs=1)
    autograde(course, ASSIGNMENT, echo=lambda *a: None, **quiet)
    c = Course(course)

    def row():
        return next(r for r in class_rows(c, ASSIGNMENT) if r.student == "ada")

    assert row().status == "provisional" and row().pending == [WRITTEN]
    _grade(course, 1.0, "Half: the square is missing.")
    assert row().status == "final" and row().score == 18.0

    # a regrade of the same answer keeps the grader's "done": no flag, still final
    autograde(course, ASSIGNMENT, echo=lambda *a: None, force=True, **quiet)
    assert _flag(course) is False and row().status == "final"

    # the student changes the answer: listed, flagged for the Formgrader, provisional in every export
    submit(course, "ada", _answer(released, "Second try: T <= R^2/rho^2, from the two inequalities."))
    lines = []
    autograde(course, ASSIGNMENT, echo=lines.append, **quiet)
    assert "  ada: " + WRITTEN in lines, lines
    assert _flag(course) is True and row().status == "provisional" and row().review == [WRITTEN]
    assert row().score == 18.0                                   # the grader's 1 point is kept meanwhile

    # any later regrade, and one that is interrupted, keeps it listed
    autograde(course, ASSIGNMENT, echo=lambda *a: None, force=True, **quiet)
    assert row().review == [WRITTEN] and _flag(course) is True
    ClassRun(c, ASSIGNMENT).begin("ada", [ASSIGNMENT])          # a run that died after it began ada's grading
    assert row().status == "not autograded"
    autograde(course, ASSIGNMENT, echo=lambda *a: None, **quiet)   # the next run grades it again
    assert row().review == [WRITTEN] and row().status == "provisional"

    # the grader looks again and saves a score in the Formgrader: done
    _grade(course, 2.0)
    assert row().review == [] and row().status == "final" and row().score == 19.0
    autograde(course, ASSIGNMENT, echo=lambda *a: None, force=True, **quiet)
    assert row().review == [] and _flag(course) is False


def test_make_reviewed_names_what_it_clears(tmp_path):
    from grading.classrun import ClassRun
    from grading.course import CourseError

    course = make_course(tmp_path)
    c = Course(course)
    book = StatusBook(c, ASSIGNMENT)
    book.write(StudentStatus("ada", status="graded", review=("pla-solution", "radius-solution")))
    run = ClassRun(c, ASSIGNMENT)
    with pytest.raises(CourseError, match=r"'ada' has no cell pocket-solution to review .* pla-solution, radius-sol"):
        run.reviewed("ada", ["pocket-solution"])
    assert run.reviewed("ada", ["pla-solution"]) == ["pla-solution"]
    assert book.read("ada").review == ("radius-solution",)
    assert run.reviewed("ada") == ["radius-solution"] and book.read("ada").review == ()
