"""End-to-end grading of the Lecture 2 assignment, in a throwaway copy of the course.

One autograde run grades a whole class of programmatic submissions — the reference
solution, the untouched release, a partial one, one known-wrong answer per exercise,
endless loops, a warning on stderr, a dying process, a broken file, deleted test cells,
an answer that calls course_lib — with real nbgrader and real kernels, and every grade
is checked. The real repository's submitted/, autograded/ and gradebook are never used.
"""
import csv
import html
import json
import re
import shutil
import subprocess
import sys

import nbformat
import pytest
from answer_bodies import ENDLESS as PLA_ENDLESS
from answer_bodies import POCKET_RETURNS_LAST, PREDICT_HARD_CODED, RADIUS_WITHOUT_X0
from grading_helpers import (
    ASSIGNMENT,
    ROOT,
    autograde_class,
    fill,
    grade_id,
    make_course,
    public_lines,
    reference_bodies,
    released_notebook,
    submit,
    with_answers,
    with_written_answers,
)
from traitlets.config import Config

from grading.autograde import autograde, release
from grading.course import CourseError
from grading.feedback import hidden_lines
from grading.report import collect, grades

SOURCE_NB = ROOT / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
RELEASE_NB = ROOT / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
ASSIGNMENTS = sorted(p.name for p in (ROOT / "source").iterdir() if p.is_dir() and any(p.glob("*.ipynb")))
# the exercises the tests grade (17 points), and the derivation graded by hand: 19 points in all.
# The submissions here leave the derivation as released, which nbgrader scores 0 at once
# (nothing for a grader to read), so they are graded out of 19 with at most 17.
POINTS = {"predict": 3, "pla": 4, "radius": 1, "margin": 1, "bound": 1, "pocket": 3,
          "funtime1": 1, "funtime2": 1, "funtime3": 1, "funtime4": 1}
BY_HAND = {"explain": 2}
TOTAL = sum(POINTS.values())
TIMEOUT = 5  # seconds per cell in these tests (the course default is 10)

REF = reference_bodies()

PLA_WITHOUT_BIAS = """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
n = len(y)
w = np.zeros(X.shape[1])
n_updates, i, clean = 0, 0, 0
while clean < n and n_updates < max_updates:
    if (1.0 if X[i, 1:] @ w[1:] > 0 else -1.0) != y[i]:
        w[1:] = w[1:] + y[i] * X[i, 1:]      # forgot x0: w0 never moves
        n_updates += 1
        clean = 0
    else:
        clean += 1
    i = (i + 1) % n
return w, n_updates
"""

PLA_ENDLESS_SWALLOWS_INTERRUPT = """
while True:
    try:
        while True:
            pass
    except KeyboardInterrupt:
        pass
"""

PLA_CALLS_COURSE_LIB = """
result = cl.pla(X, y, max_updates=max_updates)
return result.w, result.n_updates
"""

PREDICT_WITH_WARNINGS = """
import sys
import warnings
warnings.warn("predict: casting the inputs to float", RuntimeWarning)
print("predict was called", file=sys.stderr)
""" + REF["predict-solution"]

PLA_KILLS_KERNEL = """
import os
os._exit(1)
"""


def answers(**changes):
    return with_answers(REF, **changes)


def lost(*exercises):
    return TOTAL - sum(POINTS[e] for e in exercises)


# student -> (answers, expected total, exercises that must score 0)
CASES = {
    "reference": (answers(), TOTAL, ()),
    "partial": (answers(pla_solution=None, pocket_solution=None), lost("pla", "pocket"), ("pla", "pocket")),
    "pla_without_bias": (answers(pla_solution=PLA_WITHOUT_BIAS), lost("pla"), ("pla",)),
    "pocket_returns_last": (answers(pocket_solution=POCKET_RETURNS_LAST), lost("pocket"), ("pocket",)),
    "radius_without_x0": (answers(radius_solution=RADIUS_WITHOUT_X0), lost("radius"), ("radius",)),
    "funtime_off_by_one": (answers(funtime3_answer="answer_3 = 4"), lost("funtime3"), ("funtime3",)),
    "predict_hard_coded": (answers(predict_solution=PREDICT_HARD_CODED), lost("predict"), ("predict",)),
    "endless_loop": (answers(pla_solution=PLA_ENDLESS), lost("pla"), ("pla",)),
    "endless_loop_swallows_interrupt": (answers(pla_solution=PLA_ENDLESS_SWALLOWS_INTERRUPT), lost("pla"), ("pla",)),
    "warning_on_stderr": (answers(predict_solution=PREDICT_WITH_WARNINGS), TOTAL, ()),
    "calls_course_lib": (answers(pla_solution=PLA_CALLS_COURSE_LIB), lost("pla"), ("pla",)),
    # a death is a failure of the cell it happens in, like a timeout: the rest is graded
    "kernel_dies": (answers(pla_solution=PLA_KILLS_KERNEL), lost("pla"), ("pla",)),
}
UNGRADED = {"broken_json": "not valid JSON"}


def _released():
    return nbformat.read(RELEASE_NB, as_version=4)


def _tampered(nb):
    """Delete the radius and one PLA test cell and gut the other PLA test cell."""
    nb.cells = [c for c in nb.cells if grade_id(c) not in ("radius-longest-example-with-x0", "pla-stops-after-max-updates")]
    for c in nb.cells:
        if grade_id(c) == "pla-halts-with-no-training-mistake":
            c.source = "pass"
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A course copy with every kind of submission, released, autograded and exported once."""
    course = make_course(tmp_path_factory.mktemp("grading"))
    released = released_notebook(course)
    for student, (ans, _, _) in CASES.items():
        submit(course, student, fill(released, ans))
    submit(course, "untouched", released)
    submit(course, "broken_json", raw=nbformat.writes(fill(released, REF))[:-200])
    submit(course, "deleted_test_cells_reference", _tampered(fill(released, REF)))
    submit(course, "deleted_test_cells_wrong",
           _tampered(fill(released, answers(pla_solution=PLA_WITHOUT_BIAS, radius_solution=RADIUS_WITHOUT_X0))))
    return autograde_class(course, timeout=TIMEOUT)


# -- the assignment and its release ---------------------------------------------------

def test_points_per_exercise(graded):
    assert graded["exercises"] == {**POINTS, **BY_HAND}


def test_every_assignment_in_source_is_released():
    released = sorted(p.name for p in (ROOT / "release").iterdir() if p.is_dir())
    assert ASSIGNMENT in ASSIGNMENTS
    assert released == ASSIGNMENTS, "release/ and source/ hold different assignments: run `make release`"


@pytest.mark.slow  # runs nbgrader
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_is_up_to_date_with_source(tmp_path, assignment):
    fresh = release(ROOT, assignment, dest=tmp_path)
    committed_dir = ROOT / "release" / assignment
    assert committed_dir.is_dir(), f"release/{assignment} is missing: run `make release` and commit release/"
    for nb in sorted(fresh.glob("*.ipynb")):
        want = json.loads(nb.read_text())
        have = json.loads((committed_dir / nb.name).read_text())
        assert have == want, f"release/{assignment}/{nb.name} is stale: run `make release` and commit release/"
    committed = sorted(p.name for p in committed_dir.iterdir())
    assert committed == sorted(p.name for p in fresh.iterdir())


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_has_no_solution_and_no_hidden_test(assignment):
    source_nb = ROOT / "source" / assignment / f"{assignment}.ipynb"
    release_nb = ROOT / "release" / assignment / f"{assignment}.ipynb"
    text = release_nb.read_text()
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
        assert marker not in text
    released = "\n".join(c.source for c in nbformat.read(release_nb, as_version=4).cells)
    source = nbformat.read(source_nb, as_version=4)
    secret = set()
    for c in source.cells:
        secret |= hidden_lines(c.source)
    for body in reference_bodies(assignment).values():
        secret |= {line.strip() for line in body.splitlines() if len(line.strip()) > 15}
    public = public_lines(source)
    leaked = sorted(s for s in secret - public if len(s) > 15 and s in released)
    assert not leaked, f"solution or hidden-test lines in release/{assignment}: {leaked[:5]}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_exercise_has_signature_outside_and_a_visible_test(assignment):
    nb = nbformat.read(ROOT / "release" / assignment / f"{assignment}.ipynb", as_version=4)
    stubs = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code"]
    for c in stubs:
        if grade_id(c).endswith("-solution"):
            assert re.search(r"^def \w+\(", c.source, re.M) and '"""' in c.source, grade_id(c)
    tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"]
    for c in tests:
        assert "assert" in c.source, f"{grade_id(c)} has no visible test"
    if assignment == ASSIGNMENT:
        assert {g.split("-")[0] for g in map(grade_id, tests)} == set(POINTS)
    for c in stubs:                                   # every exercise has its tests
        assert any(grade_id(t).split("-")[0] == grade_id(c).split("-")[0] for t in tests), grade_id(c)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_test_cells_take_from_the_student_only_what_the_student_defines(assignment):
    """Test cells import what they use; the grader gives them only the student's own functions and answers."""
    import ast

    from grading.judge import student_names
    nb = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    defined = set()
    for c in nb.cells:
        if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution"):
            tree = ast.parse(c.source)
            defined |= {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
            defined |= {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets
                        if isinstance(t, ast.Name)}
    for c in nb.cells:
        meta = c.metadata.get("nbgrader", {})
        if c.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            extra = student_names(c.source) - defined
            assert not extra, f"{assignment}, {grade_id(c)} reads {sorted(extra)}, which no solution cell defines"


# -- grades ---------------------------------------------------------------------------

@pytest.mark.parametrize("student", sorted(CASES))
def test_grade(graded, student):
    _, total, zero = CASES[student]
    row = graded["rows"][student]
    assert row["status"] == "final", row["reason"]
    assert row["score"] == total, f"{student}: {row['parts']}"
    assert row["max_score"] == TOTAL + sum(BY_HAND.values())
    for ex, pts in POINTS.items():
        assert row["parts"][ex] == (0 if ex in zero else pts), f"{student}: {ex} scored {row['parts'][ex]}"
    assert all(row["parts"][ex] == 0 for ex in BY_HAND), row["parts"]


def test_untouched_release_scores_zero_on_every_test(graded):
    row = graded["rows"]["untouched"]
    assert row["status"] == "final"
    assert row["score"] == 0 and all(v == 0 for v in row["parts"].values()), row["parts"]


def test_deleted_and_edited_test_cells_are_restored_and_graded(graded):
    ok = graded["rows"]["deleted_test_cells_reference"]
    assert ok["status"] == "final" and ok["score"] == TOTAL, ok
    bad = graded["rows"]["deleted_test_cells_wrong"]
    assert bad["status"] == "final" and bad["score"] == lost("pla", "radius"), bad["parts"]
    nb = nbformat.read(graded["course"] / "autograded" / "deleted_test_cells_wrong" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    ids = [grade_id(c) for c in nb.cells]
    assert "radius-longest-example-with-x0" in ids and "pla-stops-after-max-updates" in ids


@pytest.mark.parametrize("student", sorted(UNGRADED))
def test_failed_submissions_are_ungraded_not_zero(graded, student):
    row = graded["rows"][student]
    assert row["status"] == "ungraded" and row["score"] is None
    assert UNGRADED[student] in row["reason"], row["reason"]


def test_grades_csv_and_summary(graded):
    course = graded["course"]
    lines = []
    out = grades(course, ASSIGNMENT, echo=lines.append)
    assert out.name == f"grades-{ASSIGNMENT}.csv"
    rows = {r["student_id"]: r for r in csv.DictReader(out.open())}
    assert rows["reference"]["status"] == "final" and rows["reference"]["score"] == str(TOTAL)
    assert rows["untouched"]["score"] == "0"
    for student in UNGRADED:
        assert rows[student]["status"] == "ungraded" and rows[student]["score"] == ""
        assert rows[student]["pla (/4)"] == "" and rows[student]["reason"]
    summary = "\n".join(lines)
    graded_rows = [r for r in graded["rows"].values() if r["status"] == "final"]
    full_pla = sum(r["parts"]["pla"] == 4 for r in graded_rows)
    assert re.search(rf"^pla\s+4\s+[\d.]+\s+{full_pla}\s", summary, re.M), summary
    for student in UNGRADED:
        assert re.search(rf"^  {student}: ungraded: .+", summary, re.M), summary


# -- feedback -------------------------------------------------------------------------

def _text(path):
    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text()))


def _assert_no_hidden_test_in(pages, graded):
    source = nbformat.read(SOURCE_NB, as_version=4)
    secret = set()
    for c in source.cells:
        secret |= hidden_lines(c.source)
    secret = {s for s in secret - public_lines(source) if len(s) > 15} | {"BEGIN HIDDEN TESTS", "END HIDDEN TESTS"}
    graded_students = sorted(s for s, r in graded["rows"].items() if r["status"] in ("final", "provisional"))
    assert [p.parents[1].name for p in pages] == graded_students
    for page in pages:
        text = _text(page)
        shown = sorted(s for s in secret if s in text)
        assert not shown, f"{page.parents[1].name}: hidden-test lines in feedback: {shown[:3]}"


def test_feedback_shows_no_hidden_test(graded):
    from grading.feedback import feedback
    course = graded["course"]
    feedback(course, ASSIGNMENT, echo=lambda *a: None)
    _assert_no_hidden_test_in(sorted((course / "feedback").glob(f"*/{ASSIGNMENT}/{ASSIGNMENT}.html")), graded)
    # hidden tests failed for these, and the feedback says why in words
    assert "on random data" in _text(course / "feedback" / "predict_hard_coded" / ASSIGNMENT / f"{ASSIGNMENT}.html")
    assert "course_lib.pla" in _text(course / "feedback" / "calls_course_lib" / ASSIGNMENT / f"{ASSIGNMENT}.html")
    assert "did not finish within" in _text(
        course / "feedback" / "endless_loop_swallows_interrupt" / ASSIGNMENT / f"{ASSIGNMENT}.html")


@pytest.mark.slow
def test_nbgrader_generate_feedback_hides_the_hidden_tests_too(graded):
    """The Formgrader's Generate Feedback button and `nbgrader generate_feedback` use nbgrader_config.py."""
    course = graded["course"]
    out = subprocess.run([sys.executable, "-m", "nbgrader", "generate_feedback", ASSIGNMENT, "--force",
                          "--CourseDirectory.feedback_directory=feedback-cli"],
                         cwd=course, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    _assert_no_hidden_test_in(sorted((course / "feedback-cli").glob(f"*/{ASSIGNMENT}/{ASSIGNMENT}.html")), graded)


# -- re-runs and bad input --------------------------------------------------------------

@pytest.mark.slow  # autogrades (nbgrader, kernels)
def test_rerun_leaves_no_stale_score(tmp_path):
    course = make_course(tmp_path)
    release(course, ASSIGNMENT)
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    submit(course, "alice", fill(released, REF))
    submit(course, "bob", fill(released, REF))
    quiet = dict(overrides=Config({"Execute": {"timeout": TIMEOUT}}), echo=lambda *a: None)
    autograde(course, ASSIGNMENT, **quiet)
    _, rows = collect(course, ASSIGNMENT)
    assert [r["score"] for r in rows] == [TOTAL, TOTAL]
    submit(course, "alice", raw="{ not json")                       # alice resubmits a broken file
    submit(course, "bob", fill(released, answers(radius_solution=RADIUS_WITHOUT_X0)))
    autograde(course, ASSIGNMENT, **quiet)
    _, rows = collect(course, ASSIGNMENT)
    by = {r["student"]: r for r in rows}
    assert by["alice"]["status"] == "ungraded" and by["alice"]["score"] is None
    assert by["bob"]["score"] == lost("radius")
    assert not (course / "autograded" / "alice" / ASSIGNMENT).exists()


@pytest.mark.slow  # autogrades (nbgrader, kernels)
def test_autograde_without_submissions_says_what_it_expected(tmp_path):
    course = make_course(tmp_path)
    with pytest.raises(CourseError, match=r"no submissions of 'ps1_perceptron'.*submitted/<student>/ps1_perceptron"):
        autograde(course, ASSIGNMENT)
    with pytest.raises(CourseError, match=r"unknown assignment 'ps9'.*expected one of ps1_perceptron"):
        autograde(course, "ps9")
    cli = subprocess.run([sys.executable, "-m", "grading", "--course", str(course), "autograde", "ps9"],
                         capture_output=True, text=True)
    assert cli.returncode == 2 and "unknown assignment 'ps9'" in cli.stderr


# -- the students' self-check and the Validate button -----------------------------------

def _check(path, cwd):
    return subprocess.run([sys.executable, "-m", "grading", "check", str(path), "--timeout", str(TIMEOUT)],
                          capture_output=True, text=True, cwd=cwd)


def test_self_check_exit_status(graded, tmp_path):
    course = graded["course"]
    sub = course / "submitted"
    untouched = _check(sub / "untouched" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", course)
    assert untouched.returncode == 1 and "VALIDATION FAILED" in untouched.stdout
    wrong = _check(sub / "radius_without_x0" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", course)
    assert wrong.returncode == 1 and "sqrt(1 + 9 + 16)" in wrong.stdout
    for student in ("reference", "warning_on_stderr"):
        # as submitted, the derivation graded by hand is left as released: the self-check says so
        left = _check(sub / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", course)
        assert left.returncode == 1 and "You did not provide a response" in left.stdout, left.stdout[-2000:]
        ok = _check(_answered_copy(sub / student, tmp_path / student), course)
        assert ok.returncode == 0, ok.stdout[-2000:]


def _answered_copy(student_folder, dest):
    """The student's notebook with its answers graded by hand written, in ``dest``/<assignment>/."""
    folder = dest / ASSIGNMENT
    shutil.copytree(student_folder / ASSIGNMENT, folder)
    path = folder / f"{ASSIGNMENT}.ipynb"
    nbformat.write(with_written_answers(nbformat.read(path, as_version=4)), path)
    return path


def test_lab_validate_button_uses_the_course_configuration(graded, monkeypatch, tmp_path):
    """The Validate button's server handler loads nbgrader_config.py from the lab's working directory."""
    from jupyter_core.paths import jupyter_config_path
    from nbgrader.apps import NbGrader
    from nbgrader.validator import Validator
    course = graded["course"]
    monkeypatch.chdir(course)
    app = NbGrader()                                   # what ValidateAssignmentHandler.load_config does
    app.config_file_paths.append([str(course)] + jupyter_config_path())
    app.load_config_file()
    assert app.config.Execute.timeout == 10
    sub = course / "submitted"
    result = Validator(config=app.config).validate(str(_answered_copy(sub / "warning_on_stderr", tmp_path)))
    assert not result.get("failed"), result
    result = Validator(config=app.config).validate(str(sub / "untouched" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"))
    assert result.get("failed")


def test_self_check_and_validate_work_on_the_students_working_copies(graded):
    """make lab copies release/ into my-assignments/ (outside git); make check and the Validate button work there."""
    import importlib.util

    from jupyter_core.paths import jupyter_config_path
    from nbgrader.apps import NbGrader
    from nbgrader.validator import Validator

    from grading.validate_button import lead_with_message

    course = graded["course"]
    spec = importlib.util.spec_from_file_location("lecture_copies", ROOT / "scripts" / "lecture_copies.py")
    copies = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copies)
    copies.sync(course)
    copy = course / "my-assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    untouched = _check(copy, course)
    assert untouched.returncode == 1 and "not done yet" in untouched.stdout, untouched.stdout[-2000:]
    app = NbGrader()                                   # what the Validate button's handler does
    app.config_file_paths.append([str(course)] + jupyter_config_path())
    app.load_config_file()
    result = lead_with_message(Validator(config=app.config).validate(str(copy)))
    assert result["failed"]
    for failure in result["failed"]:                   # the dialog's first block: what went wrong
        assert re.match(r"(\w+Error: \S|You did not provide)", failure["source"]), failure
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    nbformat.write(with_written_answers(fill(released, REF)), copy)
    answered = _check(copy, course)
    assert answered.returncode == 0, answered.stdout[-2000:]


@pytest.mark.slow
def test_a_gradebook_that_goes_away_mid_run_gives_one_message_and_loses_nothing_graded(tmp_path):
    import threading

    course = make_course(tmp_path)
    released = released_notebook(course)
    for student in ("ada", "bea", "cy"):
        submit(course, student, fill(released, REF))
    done = threading.Event()

    def pull_the_plug():                 # waits for "one graded, the next begun", then deletes the gradebook
        while not done.is_set():
            if sum((course / "autograded" / s).exists() for s in ("ada", "bea", "cy")) >= 2:
                (course / "gradebook.db").unlink()
                return
            done.wait(0.05)

    thread = threading.Thread(target=pull_the_plug)
    thread.start()
    try:
        with pytest.raises(CourseError, match="went away") as exc:
            # one at a time, so that "one graded, the next begun" is a state the run passes through
            autograde(course, ASSIGNMENT, overrides=Config({"Execute": {"timeout": TIMEOUT}}), echo=lambda *a: None,
                      jobs=1)
    finally:
        done.set()
        thread.join()
    assert len(str(exc.value).splitlines()) == 1
    from grading.course import Course
    from grading.status import StatusBook
    status = StatusBook(Course(course), ASSIGNMENT).all()
    graded = [s for s, r in status.items() if r.final]
    assert graded, f"nothing graded before the gradebook went away was kept: {status}"
    for student in graded:               # what was graded before is kept, notebook and all
        assert (course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file()


@pytest.mark.parametrize("raw, message", [
    ("Traceback ...\n\x1b[31mAssertionError\x1b[39m: with w = [1, 2], predict should be [1]; it returned [-1]",
     "AssertionError: with w = [1, 2], predict should be [1]; it returned [-1]"),
    ("Cell In[3], line 2\n      1 x = 1\n----> 2 f()\nNotImplementedError: ", "NotImplementedError: not done yet"),
    ("ValueError: X must have 3 columns\nAnother line of the message", "ValueError: X must have 3 columns\nAnother line"),
    ("You did not provide a response.", "You did not provide a response."),
])
def test_the_validate_button_leads_each_failure_with_its_message(raw, message):
    from grading.validate_button import lead_with_message

    result = lead_with_message({"failed": [{"source": "assert f() == 1", "error": "<pre>tb</pre>", "raw_error": raw}]})
    failure = result["failed"][0]
    assert failure["source"].startswith(message)
    assert failure["error"].startswith("assert f() == 1")
    if raw.startswith(("You did not", "ValueError")):   # no traceback beyond the message: it is not repeated
        assert failure["error"] == "assert f() == 1"
    else:
        assert failure["error"].endswith("<pre>tb</pre>")
