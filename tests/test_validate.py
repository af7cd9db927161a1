"""The students' self-check (make check, grading.check from inside a notebook): the released tests only, in the
sandbox, saying what it checked and what is graded later."""
import json
import os
import subprocess
import sys

import nbformat
import pytest
from grading_helpers import ASSIGNMENT, ROOT, fill, make_course, reference_bodies, with_written_answers
from nbgrader import utils

from grading.sandbox import sandbox_mode

pytestmark = pytest.mark.skipif(sandbox_mode() == "off", reason="GRADING_SANDBOX=off")

REF = reference_bodies()
TIMEOUT = 10


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    from grading.autograde import release

    course = make_course(tmp_path_factory.mktemp("validate"))
    release(course, ASSIGNMENT)
    return course


def _released(course):
    return nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)


def _save(nb, folder):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{ASSIGNMENT}.ipynb"
    nbformat.write(nb, path)
    return path


def _check(path, cwd, *extra):
    return subprocess.run([sys.executable, "-m", "grading", "check", str(path), "--timeout", str(TIMEOUT), *extra],
                          capture_output=True, text=True, cwd=cwd)


def test_forged_test_cells_do_not_run_the_released_tests_do(course, tmp_path):
    """A TA checks a student's notebook whose test cells were replaced, checksums recomputed: that code never runs
    (here it would write a file), and the real visible tests fail on what the student did not implement."""
    marker = tmp_path / "the-forged-test-ran"
    nb = _released(course)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade") and not cell.metadata["nbgrader"].get("solution"):
            cell.source = f"open({str(marker)!r}, 'w').write('ran outside the sandbox')"
            cell.metadata.nbgrader["checksum"] = utils.compute_checksum(cell)
    path = _save(nb, tmp_path / "student" / ASSIGNMENT)
    out = _check(path, course)
    assert out.returncode == 1, out.stdout[-3000:]
    assert not marker.exists()
    assert "0 of 12 visible test cells passed" in out.stdout, out.stdout[-3000:]
    assert "predict-classifies-by-sign-of-score: FAILED — not done yet" in out.stdout
    assert out.stdout.count("differs from the released one; the released tests ran") == 12


def test_the_summary_says_what_was_checked_and_what_is_graded_later(course, tmp_path):
    nb = with_written_answers(fill(_released(course), REF))
    out = _check(_save(nb, tmp_path / "ok" / ASSIGNMENT), course)
    assert out.returncode == 0, out.stdout[-3000:]
    last = out.stdout.strip().splitlines()[-1]
    assert last.endswith("12 of 12 visible test cells passed; 12 more tests and 1 question are graded later"), last
    assert "all the tests" not in out.stdout and "Success" not in out.stdout
    # a wrong quiz answer passes its visible test (1 to 4): the summary does not claim more than that
    # (asked as the Validate button asks: --json)
    wrong = with_written_answers(fill(_released(course), dict(REF, **{"funtime1-answer": "answer_1 = 2"})))
    out = _check(_save(wrong, tmp_path / "wrong" / ASSIGNMENT), course, "--json")
    report = _report(out)
    assert out.returncode == 0 and report["status"] == "passed", report
    assert report["headline"] == "12 of 12 visible test cells passed; 12 more tests and 1 question are graded later"
    assert report["failures"] == [] and report["problems"] == [] and "all the tests" not in json.dumps(report)


def test_a_lecture_has_nothing_to_check():
    out = _check(ROOT / "notebooks" / "02-2-pla.ipynb", ROOT)
    assert out.returncode == 0, out.stderr
    assert "there is nothing to check" in out.stdout and "passed" not in out.stdout
    lecture = _report(_check(ROOT / "notebooks" / "02-2-pla.ipynb", ROOT, "--json"))
    assert lecture["status"] == "nothing" and lecture["headline"].startswith("This notebook has no tests")
    assert lecture["headline"].endswith("there is nothing to check")


def test_a_notebook_edited_in_place_in_release_is_checked_against_the_course_s_own_version(course, tmp_path):
    """Editing release/ps1_perceptron/ps1_perceptron.ipynb itself (forging its test cells) changes nothing: the tests
    then come from source/, with the hidden tests cut out."""
    import shutil

    copy = tmp_path / "course"
    shutil.copytree(course, copy)
    path = copy / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade") and not cell.metadata["nbgrader"].get("solution"):
            cell.source = "pass"
            cell.metadata.nbgrader["checksum"] = utils.compute_checksum(cell)
    nbformat.write(nb, path)
    out = _check(path, copy)
    assert out.returncode == 1 and "0 of 12 visible test cells passed" in out.stdout, out.stdout[-3000:]


def test_one_exercise_is_checked_from_inside_the_notebook_with_the_same_engine(course, tmp_path):
    """``grading.check("radius")`` in the notebook's kernel: the notebook as saved, up to the radius tests, in the
    sandbox with the assignment's withheld functions; the kernel finds its notebook through JPY_SESSION_NAME."""
    answers = dict(REF, **{"radius-solution": ("cell", "import course_lib as cl\ndef radius(X):\n"
                                                       "    return cl.radius(X)")})
    folder = course / "students" / "ada" / ASSIGNMENT          # inside the course: its release/ and source/ are found
    path = _save(fill(_released(course), answers), folder)
    code = ("import grading\nreport = grading.check('radius')\nprint(repr(report))\n"
            "print('PASSED' if report.passed else 'NOT PASSED')\n"
            "print(repr(grading.check('margin')))")
    env = dict(os.environ, JPY_SESSION_NAME=str(path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=folder, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "radius-longest-example-with-x0: FAILED" in out.stdout, out.stdout
    assert "`course_lib.radius` is not available while ps1_perceptron is graded" in out.stdout
    assert "exercise 'radius': 0 of 1 visible test cells passed; 1 more test is graded later" in out.stdout
    assert "NOT PASSED" in out.stdout
    assert "exercise 'margin': 1 of 1 visible test cells passed; 1 more test is graded later" in out.stdout
    assert "predict" not in out.stdout                            # other exercises are not reported


def test_an_unknown_exercise_is_named_with_the_known_ones(course, tmp_path):
    from grading.validate import check_exercise

    path = _save(_released(course), course / "students" / "bob" / ASSIGNMENT)
    from grading.course import CourseError
    with pytest.raises(CourseError, match="has no exercise 'perceptron': its exercises are predict, pla, radius"):
        check_exercise("perceptron", notebook=path)


def test_the_summary_reads_in_the_singular_and_the_plural():
    from grading.validate import CheckReport

    one = CheckReport("nb", tests=[("a-b", None)], hidden=1)
    assert one.headline() == "1 of 1 visible test cells passed; 1 more test is graded later"
    none = CheckReport("nb", tests=[("a-b", "wrong")], hidden=0, by_hand=2)
    assert none.headline() == "0 of 1 visible test cells passed; 2 questions are graded later"
    unknown = CheckReport("nb", tests=[("a-b", None)], hidden=None, by_hand=1)
    assert unknown.headline().endswith("the hidden tests these cells may hold and 1 question are graded later")
    assert json.dumps(CheckReport("nb", lecture=True).passed) == "false"


# -- python -m grading check --json: the report the Validate button shows -----------------------------
def _report(out):
    reports = json.loads(out.stdout.strip().splitlines()[-1])
    assert isinstance(reports, list) and len(reports) == 1, out.stdout[-2000:]
    return reports[0]


def test_the_json_report_leads_with_each_failing_tests_message(course, tmp_path):
    """What the Validate dialog shows first: the message of each failing test (what was expected, what came back),
    in notebook order, then the test's code and traceback; the written answer left as released is a problem."""
    answers = dict(REF, **{"radius-solution": "return 0.5\n",
                           "bound-solution": "raise ValueError('rho must be positive\\nsecond line')\n"})
    path = _save(fill(_released(course), answers), tmp_path / "two-wrong" / ASSIGNMENT)
    out = _check(path, course, "--json")
    assert out.returncode == 1, out.stderr[-2000:]
    report = _report(out)
    assert report["status"] == "failed"
    assert report["headline"] == "10 of 12 visible test cells passed; 12 more tests and 1 question are graded later"
    assert [f["grade_id"] for f in report["failures"]] == ["radius-longest-example-with-x0",
                                                           "bound-novikoff-r2-over-rho2"]
    radius, bound = report["failures"]
    assert radius["message"].startswith("AssertionError: radius(X) for X = ") and "returned 0.500000" in \
        radius["message"], radius
    assert "def " not in radius["message"] and "radius(X_example)" in radius["test"]
    # a student's exception: the line that names it, not the student's traceback (that is in "traceback")
    assert bound["message"] == "StudentCodeError: novikoff_bound(...) raised ValueError: rho must be positive", bound
    assert "second line" in bound["traceback"]
    assert report["problems"] == ["explain-cosine-bound-on-updates: not answered yet (graded by hand)"]
    assert any("not full marks" in n for n in report["notes"]) and "\x1b[" not in json.dumps(report)
    assert "Summary" not in out.stdout                             # JSON only


def test_where_the_sandbox_cannot_start_validate_runs_without_it_and_says_so_make_check_refuses(course, tmp_path):
    """No bwrap on PATH (macOS, say): --sandbox preferred (a student's Validate button) checks and says it ran
    without the sandbox; the default (make check, an instructor's Validate) refuses, naming the cause."""
    path = _save(fill(_released(course), dict(REF, **{"radius-solution": "return 0.5\n"})), tmp_path / "nb" / ASSIGNMENT)
    empty = tmp_path / "no-tools"
    empty.mkdir()
    env = dict(os.environ, PATH=str(empty))
    run = lambda *extra: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "grading", "check", str(path), "--json", *extra], capture_output=True, text=True,
        cwd=course, env=env)
    refused = _report(run())
    assert refused["status"] == "error" and "`bwrap` is not installed" in refused["error"], refused
    checked = run("--sandbox", "preferred")
    report = _report(checked)
    assert checked.returncode == 1 and report["status"] == "failed", report
    assert [f["grade_id"] for f in report["failures"]] == ["radius-longest-example-with-x0"]
    assert any("without the grading sandbox" in n and "bwrap" in n for n in report["notes"]), report["notes"]
