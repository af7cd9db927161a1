"""grading.checks: what hidden tests call."""
import re

import numpy as np
import pytest

from grading.checks import arguments_unchanged, global_rng_unchanged, python_source, test_rng
from grading.context import test_cell


def test_arguments_unchanged_sees_every_change_in_place_and_nothing_else():
    w, xs, d = np.array([1.0, np.nan]), [[1, 2], 3], {"a": [1.0]}
    with arguments_unchanged("f", w=w, xs=xs, d=d):
        _ = (w * 2, xs + [4], dict(d, b=2))          # new objects: the arguments are untouched (NaN equals NaN)
    for change in (lambda: w.__setitem__(1, 0.0), lambda: xs[0].append(5), lambda: d["a"].__setitem__(0, -0.0)):
        before = (w.copy(), [list(xs[0]), xs[1]], {"a": list(d["a"])})
        with pytest.raises(AssertionError, match="f changed its argument (w|xs|d)"):
            with arguments_unchanged("f", w=w, xs=xs, d=d):
                change()
        w[:], xs[0][:], d["a"][:] = before[0], before[1][0], before[2]["a"]
    with pytest.raises(ZeroDivisionError):          # an error in the block goes through unchanged
        with arguments_unchanged("f", w=w):
            w[0] = 1 / 0


def test_global_rng_unchanged_in_the_tests_own_process_sees_seeding_and_drawing_and_restores_the_rest():
    """Outside the grader (a source notebook in Jupyter) the check watches the block itself."""
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    with global_rng_unchanged("f"):
        np.random.default_rng(5).random(3)              # a generator of its own: the global one is left alone
    assert np.array_equal(np.random.get_state()[1], before)
    for touch in (lambda: np.random.seed(0), lambda: np.random.rand(), lambda: np.random.permutation(4)):
        for _ in range(2):                               # a fixed seed is seen again on the second block
            with pytest.raises(AssertionError, match="f changed NumPy's global generator"):
                with global_rng_unchanged("f"):
                    touch()
    with pytest.raises(ZeroDivisionError):               # an error in the block goes through unchanged
        with global_rng_unchanged("f"):
            np.random.seed(1)
            _ = 1 / 0


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
