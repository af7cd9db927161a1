"""End-to-end grading of the regression assignment (ps4), in a throwaway copy of the course.

One autograde run, with real nbgrader and the real sandbox, grades the reference solution,
the untouched release, and known-wrong answers: for every exercise, typical mistakes and
an answer that calls course_lib's own implementation. Each must lose exactly the points of
its exercise and keep every other point. The hidden tests draw fresh random data, so this
file also checks that a correct answer passes them whatever the draw.
"""
import re

import nbformat
import pytest
from grading_helpers import (
    ROOT,
    autograde_class,
    fill,
    grade_id,
    make_course,
    public_lines,
    reference_bodies,
    released_notebook,
    self_check,
    submit,
    with_answers,
)

from grading.feedback import hidden_lines

ASSIGNMENT = "ps4_regression"
SOURCE_NB = ROOT / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
RELEASE_NB = ROOT / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
POINTS = {"linear": 3, "hat": 3, "crossentropy": 4, "sgd": 3}
TOTAL = sum(POINTS.values())
TIMEOUT = 5  # seconds per cell in these tests (the course default is 10)

REF = reference_bodies(ASSIGNMENT)

# -- known-wrong answers (solution bodies) -----------------------------------------------

LINEAR_WITHOUT_X0 = """
X = np.asarray(X, dtype=float)[:, 1:]                 # drops the x0 column: a fit through the origin
y = np.asarray(y, dtype=float)
return np.concatenate([[0.0], np.linalg.pinv(X) @ y])
"""

LINEAR_WITHOUT_INVERSE = """
X = np.asarray(X, dtype=float)
return X.T @ np.asarray(y, dtype=float)               # X^T y, without (X^T X)^{-1}
"""

HAT_INVERSE_ONLY = """
X = np.asarray(X, dtype=float)
return np.linalg.inv(X.T @ X)                         # (X^T X)^{-1} alone
"""

HAT_X_XT = """
X = np.asarray(X, dtype=float)
return X @ X.T                                        # forgets (X^T X)^{-1} in the middle
"""

GRADIENT_WRONG_SIGN = """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
s = y * (X @ np.asarray(w, dtype=float))
return (X.T @ (y / (1.0 + np.exp(s)))) / len(y)      # + instead of -
"""

GRADIENT_WITHOUT_MEAN = """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
s = y * (X @ np.asarray(w, dtype=float))
return -(X.T @ (y / (1.0 + np.exp(s))))               # the sum, not the mean
"""

ERROR_WRONG_SIGN_IN_EXPONENT = """
s = np.asarray(y, dtype=float) * (np.asarray(X, dtype=float) @ np.asarray(w, dtype=float))
return float(np.mean(np.log(1.0 + np.exp(s))))        # e^{+y w^T x}
"""

SGD_IGNORES_ORDER = """
w = np.array(w, dtype=float)
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
for n in range(len(y)):                               # always 0, 1, ..., N-1
    w = w + eta * y[n] * X[n] / (1.0 + np.exp(y[n] * (X[n] @ w)))
return w
"""

SGD_FULL_BATCH = """
w = np.array(w, dtype=float)
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
for n in order:                                       # one step per index, but on all examples
    s = y * (X @ w)
    w = w + eta * (X.T @ (y / (1.0 + np.exp(s)))) / len(y)
return w
"""

# -- answers that call course_lib's own implementation ------------------------------------

LINEAR_CALLS_COURSE_LIB = "return cl.linear_regression(X, y)\n"
HAT_CALLS_COURSE_LIB = "return cl.hat_matrix(X)\n"
ERROR_CALLS_COURSE_LIB = "return cl.cross_entropy_error(w, X, y)\n"
SGD_CALLS_COURSE_LIB = "return cl.logistic_sgd_epoch(w, X, y, eta=eta, order=order)\n"


def answers(**changes):
    return with_answers(REF, **changes)


def lost(*exercises):
    return TOTAL - sum(POINTS[e] for e in exercises)


# student -> (answers, exercises that must score 0)
CASES = {
    "reference": (answers(), ()),
    "linear_without_x0": (answers(linear_solution=LINEAR_WITHOUT_X0), ("linear",)),
    "linear_without_inverse": (answers(linear_solution=LINEAR_WITHOUT_INVERSE), ("linear",)),
    "hat_inverse_only": (answers(hat_solution=HAT_INVERSE_ONLY), ("hat",)),
    "hat_x_xt": (answers(hat_solution=HAT_X_XT), ("hat",)),
    "gradient_wrong_sign": (answers(crossentropy_gradient_solution=GRADIENT_WRONG_SIGN), ("crossentropy",)),
    "gradient_without_mean": (answers(crossentropy_gradient_solution=GRADIENT_WITHOUT_MEAN), ("crossentropy",)),
    "error_wrong_sign_in_exponent": (answers(crossentropy_error_solution=ERROR_WRONG_SIGN_IN_EXPONENT),
                                     ("crossentropy",)),
    "sgd_ignores_order": (answers(sgd_solution=SGD_IGNORES_ORDER), ("sgd",)),
    "sgd_full_batch": (answers(sgd_solution=SGD_FULL_BATCH), ("sgd",)),
    "linear_calls_course_lib": (answers(linear_solution=LINEAR_CALLS_COURSE_LIB), ("linear",)),
    "hat_calls_course_lib": (answers(hat_solution=HAT_CALLS_COURSE_LIB), ("hat",)),
    "error_calls_course_lib": (answers(crossentropy_error_solution=ERROR_CALLS_COURSE_LIB), ("crossentropy",)),
    "sgd_calls_course_lib": (answers(sgd_solution=SGD_CALLS_COURSE_LIB), ("sgd",)),
    "untouched": (None, tuple(POINTS)),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A course copy with every kind of submission, released, autograded and collected once."""
    course = make_course(tmp_path_factory.mktemp("grading_ps4"))
    released = released_notebook(course, ASSIGNMENT)
    for student, (ans, _) in CASES.items():
        submit(course, student, released if ans is None else fill(released, ans), assignment=ASSIGNMENT)
    return autograde_class(course, ASSIGNMENT, timeout=TIMEOUT)


# -- the assignment and its release ---------------------------------------------------

def test_points_per_exercise(graded):
    assert graded["exercises"] == POINTS


def test_every_exercise_has_signature_outside_and_a_visible_test():
    nb = nbformat.read(RELEASE_NB, as_version=4)
    for c in nb.cells:
        meta = c.metadata.get("nbgrader", {})
        if meta.get("solution"):
            assert re.search(r"^def \w+\(", c.source, re.M) and '"""' in c.source, grade_id(c)
            assert "raise NotImplementedError()" in c.source, grade_id(c)
    tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    for c in tests:
        assert "assert" in c.source, f"{grade_id(c)} has no visible test"
    assert {grade_id(c).split("-")[0] for c in tests} == set(POINTS)
    headings = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for n, pts in enumerate(POINTS.values(), start=1):
        assert re.search(rf"^## Exercise {n} .*\({pts} points\)$", headings, re.M), f"exercise {n}: {pts} points"


# -- grades ---------------------------------------------------------------------------

@pytest.mark.parametrize("student", sorted(CASES))
def test_grade(graded, student):
    _, zero = CASES[student]
    row = graded["rows"][student]
    assert row["status"] == "graded", row["reason"]
    assert row["score"] == lost(*zero), f"{student}: {row['parts']}"
    for ex, pts in POINTS.items():
        assert row["parts"][ex] == (0 if ex in zero else pts), f"{student}: {ex} scored {row['parts'][ex]}"


def _feedback_text(course, student):
    from grading.feedback import feedback
    page = course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html"
    if not page.exists():
        feedback(course, ASSIGNMENT, echo=lambda *a: None)
    import html
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))


def test_feedback_says_why_without_showing_hidden_tests(graded):
    course = graded["course"]
    source = nbformat.read(SOURCE_NB, as_version=4)
    secret = set()
    for c in source.cells:
        secret |= hidden_lines(c.source)
    secret = {s for s in secret - public_lines(source) if len(s) > 15}
    for student in ("reference", "error_wrong_sign_in_exponent", "sgd_ignores_order", "hat_calls_course_lib"):
        text = _feedback_text(course, student)
        shown = sorted(s for s in secret if s in text)
        assert not shown, f"{student}: hidden-test lines in feedback: {shown[:3]}"
    assert "course_lib.hat_matrix" in _feedback_text(course, "hat_calls_course_lib")
    assert "should step on example 2, then 0, then 1" in _feedback_text(course, "sgd_ignores_order")
    assert "should be 400.0" in _feedback_text(course, "error_wrong_sign_in_exponent")


def test_self_check_runs_the_visible_tests(graded):
    """`make check` (the Validate button's tests): the reference passes, a wrong answer is told why."""
    def check(student):
        return self_check(graded, student, ASSIGNMENT, timeout=TIMEOUT)

    ok = check("reference")
    assert ok.returncode == 0, ok.stdout[-2000:]
    untouched = check("untouched")
    assert untouched.returncode == 1 and "VALIDATION FAILED" in untouched.stdout
    wrong = check("hat_x_xt")
    assert wrong.returncode == 1 and "trace 2" in wrong.stdout, wrong.stdout[-2000:]
