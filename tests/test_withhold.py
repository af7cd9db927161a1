"""Withheld course_lib functions: no route reaches them from the student's process, the rest stays.

Each case is a submission whose ``pla`` delegates to ``course_lib.pla`` by another route; run
by the real engine in the sandbox with ps1's list withheld, the test must fail with the
message naming the function, while an honest ``pla`` and the rest of ``course_lib`` work.
"""
import nbformat
import numpy as np
import pytest
from grading_helpers import ROOT

from grading.engine import execute_submission
from grading.withhold import FILE, message, parse_withheld, withheld_copy, withheld_names

ASSIGNMENT = "ps1_perceptron"
WITHHELD = withheld_names(ROOT / "source" / ASSIGNMENT)
TEST = '''
import numpy as np
X = np.array([[1.0, 2.0, 1.0], [1.0, -1.0, -2.0], [1.0, 3.0, 0.5]])
y = np.array([1.0, -1.0, 1.0])
w, n = pla(X, y)
assert np.all(np.sign(X @ np.asarray(w, dtype=float)) == y)
'''
HONEST = '''
import numpy as np
def pla(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    w, n = np.zeros(X.shape[1]), 0
    while True:
        wrong = np.flatnonzero(np.where(X @ w > 0, 1.0, -1.0) != y)
        if wrong.size == 0:
            return w, n
        w, n = w + y[wrong[0]] * X[wrong[0]], n + 1
'''
ROUTES = {
    "attribute": "import course_lib as cl\ndef pla(X, y):\n    r = cl.pla(X, y)\n    return r.w, r.n_updates",
    "getattr_reversed": "import course_lib as cl\ndef pla(X, y):\n    r = getattr(cl, ''.join(reversed('alp')))(X, y)\n"
                        "    return r.w, r.n_updates",
    "importlib": "import importlib\ndef pla(X, y):\n    m = importlib.import_module('course_lib.perceptron')\n"
                 "    r = m.pla(X, y)\n    return r.w, r.n_updates",
    "exec": "def pla(X, y):\n    scope = {}\n    exec('from course_lib import pla as p', scope)\n"
            "    r = scope['p'](X, y)\n    return r.w, r.n_updates",
    "helper_file": "from helper import pla",
    "reads_the_files": "import glob, os, course_lib\n"
                       "def pla(X, y):\n"
                       "    here = os.path.dirname(course_lib.__file__)\n"
                       "    for path in glob.glob(here + '/**/*', recursive=True):\n"
                       "        if path.endswith('.pyc'):\n"
                       "            raise AssertionError('compiled code of course_lib is visible: ' + path)\n"
                       "    scope = {'__name__': 'course_lib.perceptron', '__package__': 'course_lib'}\n"
                       "    exec(open(here + '/perceptron.py').read(), scope)\n"
                       "    r = scope['pla'](X, y)\n"
                       "    return r.w, r.n_updates",
}
HELPER = b"import course_lib\ndef pla(X, y):\n    r = course_lib.pla(X, y)\n    return r.w, r.n_updates\n"
META = {"grade": True, "solution": False, "locked": True, "points": 1, "grade_id": "pla-test", "schema_version": 3}


def _run(answer, *extra, withheld=WITHHELD):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(answer), *extra,
                                         nbformat.v4.new_code_cell(TEST, metadata={"nbgrader": META})])
    done, report = execute_submission(nb, files={"helper.py": HELPER}, tests={"pla-test": TEST},
                                      assignment=ASSIGNMENT, student="s", withheld=withheld, timeout=30)
    return done.cells[-1], report["cells"][-1]["outcome"]


def test_the_list_of_ps1_names_its_exercises():
    assert {"pla", "pocket", "predict", "radius", "margin", "novikoff_bound"} <= set(WITHHELD)
    assert (ROOT / "release" / ASSIGNMENT / FILE).read_text() == (ROOT / "source" / ASSIGNMENT / FILE).read_text()


@pytest.mark.slow
@pytest.mark.parametrize("route", sorted(ROUTES))
def test_every_route_to_the_implementation_finds_nothing(route):
    cell, outcome = _run(ROUTES[route])
    assert outcome == "error"
    assert message("pla", ASSIGNMENT) in cell.outputs[-1]["evalue"]


@pytest.mark.slow
def test_a_fake_test_cell_with_an_unknown_grade_id_is_the_students_code_and_finds_nothing():
    fake = nbformat.v4.new_code_cell("import course_lib\nstolen = course_lib.pla", metadata={"nbgrader": dict(
        META, grade_id="extra-credit", points=100)})
    cell, outcome = _run("def pla(X, y):\n    r = stolen(X, y)\n    return r.w, r.n_updates", fake)
    assert outcome == "error" and message("pla", ASSIGNMENT) in cell.outputs[-1]["evalue"]


@pytest.mark.slow
def test_honest_work_and_the_rest_of_course_lib_are_untouched():
    _, outcome = _run(HONEST + "import course_lib as cl\nassert cl.add_bias([[2.0]]).tolist() == [[1.0, 2.0]]")
    assert outcome == "ok"
    _, outcome = _run(ROUTES["attribute"], withheld=())   # nothing withheld: the reference itself passes
    assert outcome == "ok"


def test_the_copy_replaces_only_the_listed_functions(tmp_path):
    from pathlib import Path

    import course_lib

    copy = withheld_copy(["pla"], ASSIGNMENT, tmp_path / "course_lib", source=Path(course_lib.__file__).parent)
    text = (copy / "perceptron.py").read_text()
    assert message("pla", ASSIGNMENT) in text and "def pocket(" in text
    assert not list(copy.rglob("*.pyc"))
    with pytest.raises(ValueError, match="no_such_function"):
        withheld_copy(["no_such_function"], ASSIGNMENT, tmp_path / "other", source=Path(course_lib.__file__).parent)


def test_a_bad_line_is_named():
    with pytest.raises(ValueError, match="line 2"):
        parse_withheld("pla\ncourse_lib.pla\n")
    assert np.array_equal(parse_withheld("pla # x\n\npla"), ["pla"])


@pytest.mark.slow
def test_the_validate_button_withholds_the_same_functions(tmp_path, monkeypatch):
    """nbgrader's Validator (the Validate button) with the course's configuration, in a released folder."""
    from jupyter_core.paths import jupyter_config_path
    from nbgrader.apps import NbGrader
    from nbgrader.validator import Validator

    folder = tmp_path / ASSIGNMENT
    folder.mkdir()
    (folder / FILE).write_text("pla\n")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(ROUTES["attribute"]),
                                         nbformat.v4.new_code_cell(TEST, metadata={"nbgrader": META})])
    nbformat.write(nb, folder / f"{ASSIGNMENT}.ipynb")
    monkeypatch.chdir(ROOT)
    app = NbGrader()                                   # what ValidateAssignmentHandler.load_config does
    app.config_file_paths.append([str(ROOT)] + jupyter_config_path())
    app.load_config_file()
    result = Validator(config=app.config).validate(str(folder / f"{ASSIGNMENT}.ipynb"))
    assert result.get("failed"), result
    assert message("pla", ASSIGNMENT) in result["failed"][0]["error"]


ASSIGNMENTS = sorted(p.name for p in (ROOT / "source").iterdir() if (p / FILE).is_file())
CALL_EVERY_HELPER = '''
import importlib, inspect, pkgutil, sys
import course_lib
helpers, refused = sys.argv[1].split(","), []
for info in pkgutil.iter_modules(course_lib.__path__):
    module = importlib.import_module("course_lib." + info.name)
    for name in helpers:
        f = module.__dict__.get(name)
        if not inspect.isfunction(f) or f.__module__ != module.__name__:
            continue
        params = inspect.signature(f).parameters.values()
        args = [None for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
        kwargs = {p.name: None for p in params if p.kind == p.KEYWORD_ONLY and p.default is p.empty}
        try:
            f(*args, **kwargs)
        except NotImplementedError as exc:
            if "is not available while" in str(exc):
                refused.append(name)
print(",".join(sorted(set(refused))))
'''


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_private_helpers_doing_a_withheld_functions_work_are_withheld_too(assignment, tmp_path):
    """``cl.perceptron._pocket_core`` or ``cl.svm._solve_dual`` would run the exercise's algorithm for the student."""
    import subprocess
    import sys
    from pathlib import Path

    import course_lib
    from grading.withhold import SHARED_HELPERS, withheld_closure

    listed = withheld_names(ROOT / "source" / assignment)
    helpers = sorted(withheld_closure(listed) - set(listed))
    assert all(h.startswith("_") and not h.startswith("_check") for h in helpers)
    withheld_copy(listed, assignment, tmp_path / "course_lib", source=Path(course_lib.__file__).parent)
    out = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
                          + CALL_EVERY_HELPER, ",".join(helpers + listed)],
                         capture_output=True, text=True, check=True, cwd=tmp_path).stdout.split()
    assert set(out[0].split(",") if out else []) == set(helpers + listed)
    assert "_sign" in SHARED_HELPERS


def test_the_helpers_that_solve_exercises_are_in_the_closure():
    from grading.withhold import withheld_closure

    assert {"_pocket_one", "_pocket_core", "_dual_updates"} <= withheld_closure(["pocket", "pocket_runs", "perceptron_dual"])
    assert {"_sgd_pass", "_sgd_pass_one", "_ein_and_gradient"} <= withheld_closure(
        ["logistic_sgd_epoch", "logistic_sgd_runs", "logistic_regression"])
    assert {"_solve_dual", "_b_from_kkt"} <= withheld_closure(["fit_svm"])
    assert not {"_sign", "_check_Xy_real", "_cycle_order"} & withheld_closure(["pocket", "logistic_regression"])
