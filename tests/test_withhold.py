"""Withheld course_lib functions: no route reaches them from the student's process, the rest stays.

Each case is a submission whose ``pla`` delegates to ``course_lib.pla`` by another route; run
by the real engine in the sandbox with ps1's list withheld, the test must fail with the
message naming the function, while an honest ``pla`` and the rest of ``course_lib`` work.
"""
import importlib.util

import nbformat
import numpy as np
import pytest
from grading_helpers import ROOT

from grading.engine import execute_submission
from grading.limits import GradingLimits
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
    "reads_the_files": "import os, course_lib\n"
                       "def pla(X, y):\n"
                       "    here = os.path.dirname(course_lib.__file__)\n"
                       "    scope = {'__name__': 'course_lib.perceptron', '__package__': 'course_lib'}\n"
                       "    exec(open(here + '/perceptron.py').read(), scope)\n"
                       "    r = scope['pla'](X, y)\n"
                       "    return r.w, r.n_updates",
    "loads_the_bytecode": "import glob, marshal, os, course_lib\n"
                          "def pla(X, y):\n"
                          "    here = os.path.dirname(course_lib.__file__)\n"
                          "    scope = {'__name__': 'course_lib.perceptron', '__package__': 'course_lib'}\n"
                          "    for path in glob.glob(here + '/__pycache__/perceptron.*.pyc'):\n"
                          "        exec(marshal.loads(open(path, 'rb').read()[16:]), scope)\n"
                          "    r = scope['pla'](X, y)\n"
                          "    return r.w, r.n_updates",
}
HELPER = b"import course_lib\ndef pla(X, y):\n    r = course_lib.pla(X, y)\n    return r.w, r.n_updates\n"
META = {"grade": True, "solution": False, "locked": True, "points": 1, "grade_id": "pla-test", "schema_version": 3}


def _run(answer, *extra, withheld=WITHHELD):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(answer), *extra,
                                         nbformat.v4.new_code_cell(TEST, metadata={"nbgrader": META})])
    done, report = execute_submission(nb, files={"helper.py": HELPER}, tests={"pla-test": TEST},
                                      assignment=ASSIGNMENT, student="s", withheld=withheld,
                                      limits=GradingLimits(timeout=30))
    return done.cells[-1], report.cells[-1].outcome.value


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


FROM_THE_ENVIRONMENT = '''
import glob, importlib.util, sys
def pla(X, y):
    for root in sys.path + glob.glob("/sandbox/*"):
        for path in glob.glob(root + "/course_lib/perceptron.py"):
            if not path.startswith("/sandbox/course/"):
                spec = importlib.util.spec_from_file_location("course_lib.perceptron", path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                r = module.pla(X, y)
                return r.w, r.n_updates
    raise AssertionError("no other course_lib on " + str(sys.path))
'''


@pytest.mark.slow
def test_a_course_lib_installed_in_the_environment_is_withheld_there_too(tmp_path, monkeypatch):
    """As the hub installs it (not an editable checkout): course_lib sits in the environment's site-packages,
    which the sandbox shows at /sandbox/packages; the withheld copy must cover it there as well."""
    import dataclasses
    import shutil
    from pathlib import Path

    import course_lib
    from grading import sandbox

    site = tmp_path / "site-packages"
    shutil.copytree(Path(course_lib.__file__).parent, site / "course_lib",
                    ignore=shutil.ignore_patterns("__pycache__"))
    real = sandbox.layout()
    binds = tuple((site / "course_lib" if inside.name == "course_lib" else outside, inside)
                  for outside, inside in real.binds) + ((site, Path(sandbox.INSIDE, "packages-installed")),)
    installed = dataclasses.replace(real, binds=binds)
    monkeypatch.setattr(sandbox, "layout", lambda: installed)
    monkeypatch.setattr(sandbox, "package_dirs", lambda names=("course_lib",): {"course_lib": site / "course_lib"})
    cell, outcome = _run(FROM_THE_ENVIRONMENT)
    assert outcome == "error" and message("pla", ASSIGNMENT) in cell.outputs[-1]["evalue"], cell.outputs
    _, outcome = _run(FROM_THE_ENVIRONMENT, withheld=())     # nothing withheld: the route itself works
    assert outcome == "ok"


def test_the_copy_replaces_only_the_listed_functions(tmp_path):
    from pathlib import Path

    import course_lib

    copy = withheld_copy(["pla"], ASSIGNMENT, tmp_path / "course_lib", source=Path(course_lib.__file__).parent)
    text = (copy / "perceptron.py").read_text()
    assert message("pla", ASSIGNMENT) in text and "def pocket(" in text
    # the bytecode beside it (the student's process cannot write there) is compiled from the copy, checked by hash
    compiled = list(copy.rglob("*.pyc"))
    assert len(compiled) == len(list(copy.rglob("*.py")))
    for pyc in compiled:
        source = pyc.parent.parent / (pyc.name.split(".")[0] + ".py")
        header = pyc.read_bytes()[:16]
        assert int.from_bytes(header[4:8], "little") == 0b11                      # checked against the hash
        assert header[8:16] == importlib.util.source_hash(source.read_bytes())
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
        owner, _, attr = name.rpartition(".")
        holder = module.__dict__.get(owner).__dict__ if owner in module.__dict__ else {}
        f = holder.get(attr) if owner else module.__dict__.get(name)
        f = f.fget if isinstance(f, property) else f
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
    assert all(h.rpartition(".")[2].startswith("_") and not h.startswith("_check") for h in helpers)
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


# Public functions outside the first lists that did an exercise's work. Each route's code solves the
# exercise with the full course_lib (checked against an honest version written here) and must meet
# the withheld message in the assignment's copy.
SIDE_DOORS = {
    "ps1_perceptron: pla by pla_runs' core on the naive order": ("ps1_perceptron", "_pla_core", '''
import numpy as np
from course_lib.perceptron import _pla_core
def route(X, y, max_updates=10_000):
    w, k, _ = _pla_core(X, y, np.arange(len(y))[None], max_updates, 1.0, np.zeros((1, X.shape[1])))
    return w[0], int(k[0])
def honest(X, y, max_updates=10_000):
    w, k, pos, n = np.zeros(X.shape[1]), 0, 0, len(y)
    while k < max_updates:
        wrong = [(pos + i) % n for i in range(n) if np.where(X[(pos + i) % n] @ w > 0, 1.0, -1.0) != y[(pos + i) % n]]
        if not wrong:
            break
        w, k, pos = w + y[wrong[0]] * X[wrong[0]], k + 1, (wrong[0] + 1) % n
    return w, k
rng = np.random.default_rng(3)
X = np.column_stack([np.ones(40), rng.uniform(-1, 1, size=(40, 2))])
y = np.where(X @ [0.1, 1.0, -0.7] > 0, 1.0, -1.0)
(w, k), (w_ref, k_ref) = route(X, y), honest(X, y)
assert k == k_ref > 1 and np.allclose(w, w_ref), (w, k, w_ref, k_ref)
'''),
    "ps3_digits: pocket from PLA's weights on a random order": ("ps3_digits", "_pla_core", '''
import numpy as np
from course_lib.perceptron import _pla_core
rng = np.random.default_rng(4)
X = np.column_stack([np.ones(30), rng.normal(size=(30, 2))])
y = np.where(rng.random(30) < 0.5, 1.0, -1.0)
order = np.random.default_rng(7).permutation(30)
mistakes = lambda w: int(np.sum(np.where(X @ w > 0, 1.0, -1.0) != y))
path = [_pla_core(X, y, order[None], t, 1.0, np.zeros((1, 3)))[0][0] for t in range(12)]
w, pos = np.zeros(3), 0
for t in range(1, 12):
    j = next(int(order[(pos + i) % 30]) for i in range(30)
             if np.where(X[order[(pos + i) % 30]] @ w > 0, 1.0, -1.0) != y[order[(pos + i) % 30]])
    w, pos = w + y[j] * X[j], (int(np.flatnonzero(order == j)[0]) + 1) % 30
    assert np.allclose(path[t], w), (t, path[t], w)
best = min(range(12), key=lambda t: (mistakes(path[t]), t))
assert mistakes(path[best]) < mistakes(np.zeros(3))
'''),
    "ps2_hoeffding: deviation_probability as the mean of deviates": ("ps2_hoeffding", "deviates", '''
import numpy as np
from course_lib.hoeffding import deviates
nu = np.random.default_rng(5).binomial(10, 0.4, size=1000) / 10
for eps in (0.05, 0.1, 0.2, 0.3):
    assert np.mean(deviates(nu, 0.4, eps)) == sum(abs(v - 0.4) > eps + 1e-12 for v in nu) / len(nu)
'''),
    "ps4_regression: sgd_epoch as the last row of sgd_path": ("ps4_regression", "sgd_path", '''
import math
import numpy as np
from course_lib.regression import sgd_path
rng = np.random.default_rng(6)
X = np.column_stack([np.ones(25), rng.normal(size=(25, 2))])
y = np.where(rng.random(25) < 0.5, 1.0, -1.0)
w0, order = rng.normal(size=3), rng.permutation(25)
w = w0.copy()
for n in order:
    w = w + 0.1 * y[n] * X[n] / (1 + math.exp(y[n] * (X[n] @ w)))
assert np.allclose(sgd_path(X, y, eta=0.1, orders=order[None], w0=w0)[-1], w)
'''),
    "ps1_perceptron: predict by the shared sign": ("ps1_perceptron", "_sign", '''
import numpy as np
from course_lib.perceptron import _sign
scores = np.array([-2.0, -0.0, 0.0, 1e-300, 3.0])
assert _sign(scores).tolist() == [-1.0, -1.0, -1.0, 1.0, 1.0]
'''),
    "ps1_perceptron: predict by PrimalSVMResult.predict": ("ps1_perceptron", "_sign", '''
import numpy as np
from course_lib.svm import PrimalSVMResult
rng = np.random.default_rng(9)
X, w = rng.normal(size=(30, 3)), rng.normal(size=3)
X[0] = 0.0                                          # a score of exactly 0 is labelled -1
assert np.array_equal(PrimalSVMResult(w, 0.0, None).predict(X), np.where(X @ w > 0, 1.0, -1.0))
'''),
    "ps3_digits: train_and_test_errors from predict": ("ps3_digits", "predict", '''
import numpy as np
import course_lib as cl
rng = np.random.default_rng(10)
X, w = np.column_stack([np.ones(50), rng.normal(size=(50, 2))]), rng.normal(size=3)
y = np.where(rng.random(50) < 0.5, 1.0, -1.0)
assert np.mean(cl.predict(w, X) != y) == sum((1.0 if x @ w > 0 else -1.0) != t for x, t in zip(X, y)) / 50
'''),
    "ps5_svm: svm_predict by SVMResult.predict with w = alpha * y on K.T": ("ps5_svm", "_sign", '''
import numpy as np
from course_lib.svm import SVMResult
rng = np.random.default_rng(11)
K, y, alpha, b = rng.normal(size=(20, 7)), np.where(rng.random(20) < 0.5, 1.0, -1.0), rng.random(20), 0.3
labels = SVMResult(alpha, b, None, w=alpha * y).predict(K.T)
assert np.array_equal(labels, [1.0 if sum(alpha[n] * y[n] * K[n, j] for n in range(20)) + b > 0 else -1.0
                               for j in range(7)])
'''),
    "ps5_svm: standardize by Standardizer.transform": ("ps5_svm", "Standardizer.transform", '''
import numpy as np
from course_lib.neighbors import Standardizer
rng = np.random.default_rng(12)
X_train, X = rng.normal(3.0, 2.0, size=(40, 3)), rng.normal(size=(9, 3))
mean, scale = X_train.mean(axis=0), X_train.std(axis=0)
assert np.allclose(Standardizer(mean, scale).transform(X), [[(x[j] - mean[j]) / scale[j] for j in range(3)] for x in X])
'''),
    "ps4_regression: cross_entropy_error by the shared, overflow-free log-logistic": ("ps4_regression", "_log_expit", '''
import math
import numpy as np
from course_lib.regression import _log_expit
rng = np.random.default_rng(13)
X, w = np.column_stack([np.ones(30), rng.normal(size=(30, 2))]), rng.normal(size=3) * 400.0
y = np.where(rng.random(30) < 0.5, 1.0, -1.0)
s = y * (X @ w)                                    # signals of hundreds: exp(-s) overflows in a naive formula
reference = sum(-t if t < 0 else 0.0 for t in s) / 30 + sum(math.log1p(math.exp(-abs(t))) for t in s) / 30
assert np.isclose(-np.mean(_log_expit(s)), reference, rtol=1e-12)
'''),
    "ps6_generalization: count_dichotomies by separating_weights over every labeling": (
        "ps6_generalization", "separating_weights", '''
import itertools
import numpy as np
from course_lib.generalization import separating_weights
X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 2.0]])
count = sum(separating_weights(X, np.array(y)) is not None for y in itertools.product((-1.0, 1.0), repeat=5))
assert count == 20, count          # five points, three of them on the diagonal
'''),
    "ps6_generalization: vc_sample_size by bisection on vc_bound": ("ps6_generalization", "vc_bound", '''
from course_lib.generalization import vc_bound
lo, hi = 1, 2**20
while hi - lo > 1:
    mid = (lo + hi) // 2
    lo, hi = (lo, mid) if vc_bound(mid, d_vc=3, delta=0.1) <= 0.1 else (mid, hi)
assert hi == 29_300, hi
'''),
    "ps6_generalization: separability by fit_svm's hard margin": ("ps6_generalization", "fit_svm", '''
import numpy as np
from course_lib.svm import NotSeparableError, fit_svm
X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
def separable(y):
    try:
        fit_svm(X, np.array(y), C=None)
        return True
    except NotSeparableError:
        return False
assert separable([1.0, 1.0, -1.0]) and not separable([1.0, -1.0, 1.0])
'''),
    "ps7_validation: weight_decay by the stacked fits of the Legendre experiment, on centred data": (
        "ps7_validation", "_fit_runs", '''
import numpy as np
from course_lib.overfitting import _fit_runs
rng = np.random.default_rng(14)
F = rng.normal(size=(30, 3)) + 2.0
y = 5.0 + F @ [1.0, -2.0, 0.5] + rng.normal(size=30)
Fc, yc = F - F.mean(axis=0), y - y.mean()
slopes = _fit_runs(Fc[None], yc[None], 3.0)[0]
w = np.concatenate([[y.mean() - F.mean(axis=0) @ slopes], slopes])
Z = np.column_stack([np.ones(30), F])
assert np.allclose(w, np.linalg.solve(Z.T @ Z + 3.0 * np.diag([0.0, 1.0, 1.0, 1.0]), Z.T @ y))
'''),
    "ps7_validation: make_folds by fold_indices with a generator": ("ps7_validation", "fold_indices", '''
import numpy as np
from course_lib.validation import fold_indices
folds = fold_indices(23, 5, rng=np.random.default_rng(3))
assert sorted(np.concatenate(folds).tolist()) == list(range(23))
assert max(map(len, folds)) - min(map(len, folds)) <= 1
'''),
    "ps4_regression: cross_entropy_gradient from one step of gradient_descent_path": (
        "ps4_regression", "gradient_descent_path", '''
import numpy as np
from course_lib.regression import gradient_descent_path
rng = np.random.default_rng(8)
X = np.column_stack([np.ones(25), rng.normal(size=(25, 2))])
y = np.where(rng.random(25) < 0.5, 1.0, -1.0)
w0 = rng.normal(size=3)
path = gradient_descent_path(X, y, eta=1.0, n_steps=1, w0=w0)
gradient = -np.mean((y / (1 + np.exp(y * (X @ w0))))[:, None] * X, axis=0)
assert np.allclose(path[0] - path[1], gradient)
'''),
}


@pytest.mark.parametrize("route", sorted(SIDE_DOORS))
def test_a_public_function_that_does_an_exercises_work_is_withheld_too(route, tmp_path):
    """The route solves the exercise with the full course_lib and finds the withheld message in the assignment's copy."""
    import subprocess
    import sys
    from pathlib import Path

    import course_lib

    assignment, refused, code = SIDE_DOORS[route]
    full = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert full.returncode == 0, full.stderr
    withheld_copy(withheld_names(ROOT / "source" / assignment), assignment, tmp_path / "course_lib",
                  source=Path(course_lib.__file__).parent)
    copy = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n" + code],
                          capture_output=True, text=True, cwd=tmp_path)
    assert copy.returncode != 0 and message(refused, assignment) in copy.stderr, copy.stderr


def test_a_method_is_listed_as_class_dot_method(tmp_path):
    """The copy stubs the method in its class (decorators kept); the class and its other methods still work."""
    import subprocess
    import sys
    from pathlib import Path

    import course_lib

    assert parse_withheld("Standardizer.transform  # (X - mean) / scale\nSVMResult.margin\n") == [
        "Standardizer.transform", "SVMResult.margin"]
    for bad in ("course_lib.Standardizer.transform", "Standardizer.", ".transform", "neighbors.Standardizer"):
        with pytest.raises(ValueError, match="line 1"):
            parse_withheld(bad)
    with pytest.raises(ValueError, match="Standardizer.fit"):
        withheld_copy(["Standardizer.fit"], "ps5_svm", tmp_path / "other", source=Path(course_lib.__file__).parent)
    withheld_copy(["Standardizer.transform", "SVMResult.margin"], "ps5_svm", tmp_path / "course_lib",
                  source=Path(course_lib.__file__).parent)
    script = f"""import sys; sys.path.insert(0, {str(tmp_path)!r})
import numpy as np, course_lib as cl
s = cl.neighbors.Standardizer(np.zeros(2), np.ones(2))
r = cl.svm.SVMResult(np.ones(2), 0.0, np.arange(2), w=np.array([1.0, -1.0]))
assert r.predict(np.array([[2.0, 1.0]])).tolist() == [1.0]       # other methods untouched
for call in (lambda: s.transform(np.ones((1, 2))), lambda: r.margin):  # margin stays a property
    try:
        call()
    except NotImplementedError as exc:
        print(exc)
"""
    out = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [message("Standardizer.transform", "ps5_svm"),
                                       message("SVMResult.margin", "ps5_svm")]


def test_the_validate_button_withholds_a_listed_method(tmp_path):
    """install_in_kernel (the Validate button's kernel) replaces a listed method and a listed property too."""
    import subprocess
    import sys

    (tmp_path / FILE).write_text("Standardizer.transform\nSVMResult.margin\n")
    script = f"""import numpy as np, course_lib as cl
from grading.withhold import install_in_kernel
install_in_kernel({str(tmp_path)!r}, "ps5_svm")
r = cl.svm.SVMResult(np.ones(2), 0.0, np.arange(2), w=np.array([1.0, -1.0]))
assert r.predict(np.array([[2.0, 1.0]])).tolist() == [1.0]
for call in (lambda: cl.neighbors.Standardizer(np.zeros(2), np.ones(2)).transform(np.ones((1, 2))), lambda: r.margin):
    try:
        call()
    except NotImplementedError as exc:
        print(exc)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [message("Standardizer.transform", "ps5_svm"),
                                       message("SVMResult.margin", "ps5_svm")]
