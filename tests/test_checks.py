"""grading.checks: which answers count as calling course_lib's own implementation."""
import re

import pytest

import course_lib as cl
from course_lib import hoeffding
from course_lib.hoeffding import sample_nu as renamed
from grading.checks import reference_calls, refuse_reference


def via_top_level(mu, N, n_samples, rng=None):
    return cl.error_rate(mu, N, n_samples)


def via_submodule_attribute(mu, N, n_samples, rng=None):
    return cl.hoeffding.sample_nu(mu, N, n_samples=n_samples, rng=rng)


def via_imported_submodule(mu, N, n_samples, rng=None):
    return hoeffding.sample_nu(mu, N, n_samples=n_samples, rng=rng)


def via_renamed_function(mu, N, n_samples, rng=None):
    return renamed(mu, N, n_samples=n_samples, rng=rng)


def via_import_inside(mu, N, n_samples, rng=None):
    from course_lib.hoeffding import sample_nu
    return sample_nu(mu, N, n_samples=n_samples, rng=rng)


def via_own_helper(mu, N, n_samples, rng=None):
    def helper():
        return via_submodule_attribute(mu, N, n_samples, rng)
    return helper()


@pytest.mark.parametrize("func", [via_submodule_attribute, via_imported_submodule, via_renamed_function,
                                  via_import_inside, via_own_helper])
def test_every_way_of_calling_the_reference_is_found(func):
    assert reference_calls(func, ["sample_nu"]) == ["sample_nu"]
    with pytest.raises(AssertionError, match=r"course_lib\.sample_nu"):
        refuse_reference(func, "sample_nu", forbidden=("sample_nu",))


def test_top_level_names_are_found():
    assert reference_calls(via_top_level, ["error_rate"]) == ["error_rate"]


def error_rate(w, X, y):            # a student's own helper that shares the name of course_lib's function
    return 0.0


def errors_with_own_helper(w, X_train, y_train, X_test, y_test):
    return error_rate(w, cl.add_bias(X_train), y_train), error_rate(w, cl.add_bias(X_test), y_test)


def test_a_students_own_helper_with_a_forbidden_name_is_followed_not_refused():
    assert reference_calls(errors_with_own_helper, ["error_rate"]) == []
    refuse_reference(errors_with_own_helper, "train_and_test_errors", forbidden=("error_rate",))


def test_allowed_course_lib_functions_are_not_refused():
    def uses_add_bias(X):
        return cl.add_bias(X)
    assert reference_calls(uses_add_bias, ["pla", "pocket"]) == []


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
