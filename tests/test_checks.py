"""grading.checks: what hidden tests call."""
import re

import numpy as np
import pytest

from grading.checks import python_source, refuse_reference, test_rng
from grading.context import test_cell


def test_refuse_reference_checks_nothing_now_that_course_lib_functions_are_withheld():
    import course_lib as cl

    def lazy(X, y):
        return cl.pla(X, y).w
    assert refuse_reference(lazy, "pla", forbidden=("pla",)) is None


def test_each_test_cell_of_each_student_gets_its_own_reproducible_data():
    def draw(student, cell):
        with test_cell(assignment="ps1_perceptron", student=student, cell=cell):
            return test_rng().random(4)
    assert np.array_equal(draw("ada", "pla-halts"), draw("ada", "pla-halts"))
    assert not np.array_equal(draw("ada", "pla-halts"), draw("bob", "pla-halts"))
    assert not np.array_equal(draw("ada", "pla-halts"), draw("ada", "pla-stops"))


def test_ipython_syntax_becomes_python():
    assert "run_line_magic" in python_source("%matplotlib inline")


# -- the comparison every test cell uses ------------------------------------------------

@pytest.mark.parametrize("bad, message", [
    ([1.0, float("nan")], "holds nan at index 1"),
    ([float("-inf")], "holds -inf at index 0"),
    (float("nan"), "holds nan: every value"),
    ("0.5", "should be numbers; it is the text"),
    ([True, False], "True/False values"),
    ([[1.0, 2.0], [3.0]], "should be numbers"),
    (None, "should be numbers"),
])
def test_numbers_refuses_what_is_not_a_finite_number(bad, message):
    from grading.checks import numbers
    with pytest.raises(AssertionError, match=re.escape(message)):
        numbers(bad, "answer")


def test_assert_close_refuses_nan_that_a_plain_comparison_lets_through():
    import numpy as np

    from grading.checks import assert_close
    got, want = np.array([np.nan, 1.0]), np.array([0.5, 1.0])
    assert not np.any(np.abs(got - want) > 1e-9)          # the comparison the helper replaces passes NaN
    with pytest.raises(AssertionError, match="holds nan"):
        assert_close(got, want, "intensity(images)", atol=1e-9)
    with pytest.raises(AssertionError, match=r"should have shape \(2,\); it has shape \(2, 1\)"):
        assert_close(want[:, None], want, "intensity(images)", atol=1e-9)
    with pytest.raises(AssertionError, match=r"entry 0 is off by 0\.1"):
        assert_close([0.6, 1.0], want, "intensity(images)", atol=1e-9)
    assert assert_close([0.5 + 1e-12, 1.0], want, "intensity(images)", atol=1e-9).dtype == float
    assert assert_close(2.0000001, 2.0, "bound", rtol=1e-6).shape == ()
