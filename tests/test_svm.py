"""course_lib.svm: the dual and primal quadratic programs against libsvm (scikit-learn's SVC) and KKT."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

import course_lib as cl
from course_lib.svm import NotSeparableError, fit_svm, fit_svm_primal, kkt_violation

seeds = st.integers(0, 2**32 - 1)


def libsvm(X, y, **kw):
    """libsvm's answer, with alpha*y spread over all examples (0 off the support)."""
    svc = SVC(**{"tol": 1e-10, **kw}).fit(X, y)
    ay = np.zeros(len(y))
    ay[svc.support_] = svc.dual_coef_[0]
    return svc, ay


def noisy(seed, n, d):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    return X, y


@settings(max_examples=25, deadline=None)
@given(seed=seeds, n=st.integers(4, 40), d=st.integers(1, 4))
def test_hard_margin_matches_libsvm_and_the_primal(seed, n, d):
    X, y, _ = cl.make_separable(n, d, margin=0.05, rng=seed)
    res = fit_svm(X, y)
    svc, ay = libsvm(X, y, kernel="linear", C=1e8)
    np.testing.assert_allclose(res.w, svc.coef_[0], rtol=1e-4, atol=1e-4 * np.abs(res.w).max())
    assert res.b == pytest.approx(svc.intercept_[0], rel=1e-4, abs=1e-4)
    np.testing.assert_array_equal(res.predict(X), y)
    primal = fit_svm_primal(X, y)
    np.testing.assert_allclose(primal.w, res.w, rtol=1e-5, atol=1e-5 * np.abs(res.w).max())
    assert primal.b == pytest.approx(res.b, rel=1e-5, abs=1e-5)
    # w from the dual is sum alpha_n y_n x_n, and every example lies on or outside the margin
    np.testing.assert_allclose(res.w, (res.alpha * y) @ X)
    assert np.all(y * res.decision_function(X) >= 1 - 1e-6)
    assert kkt_violation(res) < 1e-5


@settings(max_examples=25, deadline=None)
@given(seed=seeds, n=st.integers(6, 40), d=st.integers(1, 4), C=st.sampled_from([0.05, 0.5, 1.0, 10.0]))
def test_soft_margin_matches_libsvm_and_the_primal(seed, n, d, C):
    X, y = noisy(seed, n, d)
    res = fit_svm(X, y, C=C)
    # On a few tiny sets (6 points in 1 or 2 dimensions) libsvm's SMO cycles for millions of
    # steps without meeting tol, whatever tol is; it is stopped after 10^6 and, not having
    # converged (fit_status_ 1), is not a reference there: the primal below still is.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        svc, ay = libsvm(X, y, kernel="linear", C=C, max_iter=10**6)
    if svc.fit_status_ == 0:
        # alpha itself need not be unique (X X^T has rank d < N), but w and the optimum are
        libsvm_objective = ay @ y - 0.5 * (ay @ X) @ (ay @ X)
        assert res.alpha.sum() - 0.5 * res.w @ res.w == pytest.approx(libsvm_objective, abs=1e-6)
        np.testing.assert_allclose(res.w, svc.coef_[0], atol=1e-4 * max(1.0, np.abs(res.w).max()))
    assert np.all((res.alpha >= 0) & (res.alpha <= C))
    assert kkt_violation(res) < 1e-4
    primal = fit_svm_primal(X, y, C=C)
    np.testing.assert_allclose(primal.w, res.w, atol=1e-5 * max(1.0, np.abs(res.w).max()))
    # the dual optimum equals the primal optimum (strong duality)
    dual_obj = res.alpha.sum() - 0.5 * res.w @ res.w
    primal_obj = 0.5 * primal.w @ primal.w + C * primal.xi.sum()
    assert dual_obj == pytest.approx(primal_obj, rel=1e-5, abs=1e-6)
    free = (res.alpha > 1e-6 * C) & (res.alpha < C * (1 - 1e-6))
    if free.any() and svc.fit_status_ == 0:  # b is unique only when a support vector is free
        assert res.b == pytest.approx(svc.intercept_[0], abs=1e-4)


@settings(max_examples=20, deadline=None)
@given(seed=seeds, n=st.integers(6, 40), gamma=st.sampled_from([0.3, 1.0, 4.0]), C=st.sampled_from([0.5, 5.0]))
def test_rbf_and_polynomial_kernels_match_libsvm(seed, n, gamma, C):
    X, y = noisy(seed, n, 2)
    for kw in ({"kernel": "rbf", "gamma": gamma}, {"kernel": "poly", "degree": 3, "gamma": gamma, "coef0": 1.0}):
        res = fit_svm(X, y, C=C, **kw)
        svc, ay = libsvm(X, y, C=C, **kw)
        K = cl.kernel_matrix(X, **kw)
        dual = 0.5 * (res.alpha * y) @ K @ (res.alpha * y) - res.alpha.sum()
        assert dual == pytest.approx(0.5 * ay @ K @ ay - np.abs(ay).sum(), rel=1e-6, abs=1e-8)
        if kw["kernel"] == "rbf":  # a strictly positive definite Gram matrix: alpha is unique
            np.testing.assert_allclose(res.alpha * y, ay, atol=1e-4 * C)
        Xt = np.random.default_rng(seed + 1).normal(size=(30, 2))
        np.testing.assert_allclose(res.decision_function(Xt), svc.decision_function(Xt), rtol=5e-3, atol=1e-3 * max(1.0, C))
        assert res.w is None
        assert kkt_violation(res) < 1e-5


@settings(max_examples=25, deadline=None)
@given(seed=seeds, n=st.integers(4, 40), d=st.integers(1, 4))
def test_the_svm_margin_is_at_least_any_perceptrons(seed, n, d):
    X, y, _ = cl.make_separable(n, d, margin=0.02, rng=seed)
    res = fit_svm(X, y)
    svm_margin = np.min(y * (X @ res.w + res.b)) / np.linalg.norm(res.w)
    assert svm_margin == pytest.approx(res.margin, rel=1e-5)
    assert svm_margin == pytest.approx(1 / np.linalg.norm(res.w), rel=1e-5)
    p = cl.perceptron_with_bias(X, y)
    assert p.halted
    assert svm_margin >= np.min(y * (X @ p.w + p.b)) / np.linalg.norm(p.w) - 1e-9


def test_support_vectors_determine_the_solution():
    X, y = noisy(7, 60, 2)
    res = fit_svm(X, y, C=1.0)
    again = fit_svm(X[res.support], y[res.support], C=1.0)
    np.testing.assert_allclose(again.w, res.w, atol=1e-5)
    assert set(res.support) == set(np.flatnonzero(res.alpha > 0))
    # examples off the support lie outside the margin
    off = np.setdiff1d(np.arange(len(y)), res.support)
    assert np.all(y[off] * res.decision_function(X[off]) >= 1 - 1e-6)


def test_two_norm_soft_margin_is_the_hard_margin_of_a_shifted_kernel():
    X, y = noisy(11, 30, 2)
    C = 2.0
    res = fit_svm(X, y, C=C, penalty="l2")
    hard = fit_svm(X, y, kernel=lambda A, B: A @ B.T + (np.eye(len(A)) / C if A is B else 0.0))
    np.testing.assert_allclose(res.alpha, hard.alpha, atol=1e-6)
    assert np.all(res.alpha >= 0)


def test_hard_margin_on_inseparable_data_says_what_to_do():
    X = [[0.0], [1.0], [2.0]]
    with pytest.raises(NotSeparableError, match="pass C"):
        fit_svm(X, [1, -1, 1])
    with pytest.raises(NotSeparableError, match="pass C"):
        fit_svm_primal(X, [1, -1, 1])
    assert np.array_equal(fit_svm(X, [1, -1, 1], C=1.0).predict(X).shape, (3,))


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="C must be"):
        fit_svm([[0.0], [1.0]], [1, -1], C=0)
    with pytest.raises(ValueError, match="both labels"):
        fit_svm([[0.0], [1.0]], [1, 1])
    with pytest.raises(ValueError, match="kernel must be one of"):
        fit_svm([[0.0], [1.0]], [1, -1], kernel="gauss")
    with pytest.raises(ValueError, match="penalty"):
        fit_svm([[0.0], [1.0]], [1, -1], C=1.0, penalty="l3")
    with pytest.raises(ValueError, match="y must contain only"):
        fit_svm([[0.0], [1.0]], [1, 0])


@settings(max_examples=15, deadline=None)
@given(seed=seeds, n=st.integers(30, 120), C=st.sampled_from([None, 0.1, 10.0]),
       kernel=st.sampled_from(["linear", "rbf"]))
def test_chunked_dual_gives_the_direct_answer(seed, n, C, kernel):
    import course_lib.svm as svm_module

    if C is None:
        X, y, _ = cl.make_separable(n, 2, margin=0.05, rng=seed)
    else:
        X, y = noisy(seed, n, 2)
    direct = fit_svm(X, y, C=C, kernel=kernel, gamma=2.0)
    saved = svm_module._DIRECT_UP_TO
    svm_module._DIRECT_UP_TO = 5  # force chunks, starting from 10 examples and adding 10 at a time
    try:
        chunked = svm_module._solve_dual_in_chunks
        svm_module._solve_dual_in_chunks = lambda Q, y_, upper: chunked(Q, y_, upper, start=10, add=10)
        try:
            res = fit_svm(X, y, C=C, kernel=kernel, gamma=2.0)
        finally:
            svm_module._solve_dual_in_chunks = chunked
    finally:
        svm_module._DIRECT_UP_TO = saved
    np.testing.assert_allclose(res.decision_function(X), direct.decision_function(X), atol=1e-5)
    assert set(res.support) == set(direct.support)
    assert kkt_violation(res) < 1e-5
