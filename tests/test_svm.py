"""course_lib.svm: the dual and primal quadratic programs against libsvm (scikit-learn's SVC) and KKT."""
import contextlib
import os
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

import course_lib as cl
import course_lib.svm as svm_module
from course_lib.data import DATA_DIR_ENV
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
        f = res.decision_function(Xt)
        # libsvm stops on an absolute tolerance for the gradient, so with a cubic kernel's large values
        # (gamma = 4) its decision values are off in proportion to their size: measured 0.013 of 16
        np.testing.assert_allclose(f, svc.decision_function(Xt), atol=1e-3 * max(1.0, C) * max(1.0, np.abs(f).max()))
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
    X, y = noisy(3, 200, 2)  # a large problem, for SMO: its kernel columns check the parameters too
    for bad in ({"gamma": "1"}, {"gamma": -1.0}, {"degree": 2.5}, {"coef0": -1.0}):
        with pytest.raises(ValueError, match=f"{next(iter(bad))} must be"):
            fit_svm(X, y, C=1.0, kernel="poly", **bad)


@contextlib.contextmanager
def route(*, direct_up_to, smo_steps=None):
    """Force fit_svm's route: Clarabel on the whole dual up to ``direct_up_to`` examples, above it SMO
    (1-norm soft margin; ``smo_steps=0`` sends it on to the chunks at once) or the chunks."""
    saved = svm_module._DIRECT_UP_TO, svm_module._SMO_STEPS
    svm_module._DIRECT_UP_TO = direct_up_to
    svm_module._SMO_STEPS = saved[1] if smo_steps is None else smo_steps
    try:
        yield
    finally:
        svm_module._DIRECT_UP_TO, svm_module._SMO_STEPS = saved


@contextlib.contextmanager
def smo_must_answer():
    """Fail unless SMO (not the Clarabel route it falls back on) gave the answer."""
    solve = svm_module._solve_dual_smo
    answers = []

    def recording(*args):
        answers.append(solve(*args))
        return answers[-1]

    svm_module._solve_dual_smo = recording
    try:
        yield
    finally:
        svm_module._solve_dual_smo = solve
    assert answers and all(a is not None for a in answers)


def shaped(seed, n, shape):
    """Data for the SMO route: separable, noisy, one class much larger, or every point three times
    (with labels drawn for each copy, so that some copies of a point disagree)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    if shape == "duplicated":
        X = np.repeat(X[: max(2, n // 3)], 3, axis=0)
    if shape == "unbalanced":
        y = np.where(rng.random(len(X)) < 0.08, 1.0, -1.0)
    else:
        noise = 0.0 if shape == "separable" else 0.5
        y = np.where(X @ [1.0, -0.5] + noise * rng.normal(size=len(X)) > 0, 1.0, -1.0)
    y[0], y[-1] = 1.0, -1.0
    return X, y


KERNEL_CHOICES = [{"kernel": "rbf", "gamma": 2.0}, {"kernel": "linear"},
                  {"kernel": "poly", "degree": 3, "gamma": 0.5, "coef0": 1.0}]


def assert_same_support(alpha, other, C):
    """The same support vectors, up to multipliers so small (< 1e-5 C) that a solver's tolerance decides them."""
    def clear(a):
        return set(np.flatnonzero(np.abs(a) > 1e-5 * C))

    assert clear(alpha) <= set(np.flatnonzero(other)) and clear(other) <= set(np.flatnonzero(alpha))


def free_support(res):
    return np.flatnonzero((res.alpha > 1e-8 * res.C) & (res.alpha < res.C * (1 - 1e-8)))


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(12, 100), C=st.sampled_from([0.01, 0.3, 1.0, 10.0]),
       kw=st.sampled_from(KERNEL_CHOICES), shape=st.sampled_from(["separable", "noisy", "unbalanced", "duplicated"]))
def test_smo_gives_the_answer_of_the_quadratic_program(seed, n, C, kw, shape):
    X, y = shaped(seed, n, shape)
    with route(direct_up_to=10**6):
        qp = fit_svm(X, y, C=C, **kw)
    with route(direct_up_to=5, smo_steps=10**4), smo_must_answer():
        res = fit_svm(X, y, C=C, **kw)
    K = cl.kernel_matrix(X, **kw)
    dual = [a.sum() - 0.5 * (a * y) @ K @ (a * y) for a in (res.alpha, qp.alpha)]
    # the same optimum; where they differ at all, the interior-point answer is the one a little below it
    assert dual[1] - 1e-9 * max(1.0, dual[1]) <= dual[0] == pytest.approx(dual[1], rel=1e-6, abs=1e-10)
    # sum alpha_n y_n K(x_n, x) (w in feature space) is unique even where alpha is not (duplicates, rank of X X^T)
    np.testing.assert_allclose(res.decision_function(X) - res.b, qp.decision_function(X) - qp.b,
                               atol=1e-6 * max(1.0, C))
    if free_support(res).size:  # then every optimum has y_n (w^T z_n + b) = 1 there: b is unique
        assert res.b == pytest.approx(qp.b, abs=1e-6)
    if kw["kernel"] == "rbf" and shape != "duplicated":  # K positive definite: alpha is unique
        # (where polishing fails, the interior-point answer meets the KKT conditions to ~1e-9 only,
        # which left its alpha 1.7e-4 C off in one case found)
        np.testing.assert_allclose(res.alpha, qp.alpha, atol=1e-3 * C)
        assert_same_support(res.alpha, qp.alpha, C)
    # SMO's answer is exact: bounds hit exactly, and the KKT conditions hold to round-off
    assert np.all((res.alpha >= 0) & (res.alpha <= C))
    assert set(res.support) == set(np.flatnonzero(res.alpha > 0))
    assert kkt_violation(res) < 1e-8 * max(1.0, C)


@settings(max_examples=10, deadline=None)
@given(seed=seeds, n=st.integers(151, 260), C=st.sampled_from([0.5, 2.0]), gamma=st.sampled_from([1.0, 4.0]))
def test_large_problems_match_libsvm(seed, n, C, gamma):
    X, y = shaped(seed, n, "noisy")
    with smo_must_answer():
        res = fit_svm(X, y, C=C, kernel="rbf", gamma=gamma)
    svc, ay = libsvm(X, y, C=C, kernel="rbf", gamma=gamma)
    K = cl.kernel_matrix(X, kernel="rbf", gamma=gamma)
    objective = res.alpha.sum() - 0.5 * (res.alpha * y) @ K @ (res.alpha * y)
    assert objective == pytest.approx(np.abs(ay).sum() - 0.5 * ay @ K @ ay, rel=1e-9)
    # libsvm stops on its tolerance for the gradient; where the support vectors' Gram matrix is
    # nearly singular, that leaves its alpha up to ~1e-4 C off the optimum (its KKT violation ~1e-6)
    np.testing.assert_allclose(res.alpha * y, ay, atol=1e-3 * C)
    assert_same_support(res.alpha, ay, C)
    assert res.b == pytest.approx(svc.intercept_[0], abs=1e-3)
    Xt = np.vstack([X, np.random.default_rng(seed + 1).normal(size=(50, 2))])
    f = res.decision_function(Xt)
    np.testing.assert_allclose(f, svc.decision_function(Xt), atol=1e-3 * C)
    clear = np.abs(f) > 1e-2
    np.testing.assert_array_equal(res.predict(Xt)[clear], svc.predict(Xt)[clear])
    assert kkt_violation(res) < 1e-8 * max(1.0, C)
    with route(direct_up_to=10**6):  # the interior-point method on the whole dual: the same optimum
        qp = fit_svm(X, y, C=C, kernel="rbf", gamma=gamma)
    # (where its polishing fails, Clarabel's answer meets the KKT conditions only to ~1e-7, and a nearly
    # singular Gram matrix of the support vectors turns that into ~1e-5 in the decision function)
    np.testing.assert_allclose(res.decision_function(Xt), qp.decision_function(Xt), atol=1e-4 * C)


def test_large_problem_with_every_support_vector_at_the_bound_takes_b_in_the_middle_as_libsvm():
    X, y = shaped(5, 300, "noisy")
    with smo_must_answer():
        res = fit_svm(X, y, C=0.01, kernel="rbf", gamma=1.0)
    svc, ay = libsvm(X, y, C=0.01, kernel="rbf", gamma=1.0)
    assert np.all(res.alpha[res.support] == 0.01)  # no free support vector: b is an interval's middle
    np.testing.assert_allclose(res.alpha * y, ay, atol=1e-9)
    assert res.b == pytest.approx(svc.intercept_[0], abs=1e-7)
    assert kkt_violation(res) < 1e-10


def test_smo_with_a_cache_too_small_for_every_column_gives_the_same_answer():
    X, y = shaped(4, 400, "noisy")
    res = fit_svm(X, y, C=10.0, kernel="rbf", gamma=8.0)
    saved = svm_module._CACHE_BYTES
    svm_module._CACHE_BYTES = 0  # the 64 columns used last are kept, and the others computed again
    try:
        with smo_must_answer():
            small = fit_svm(X, y, C=10.0, kernel="rbf", gamma=8.0)
    finally:
        svm_module._CACHE_BYTES = saved
    assert res.support.size > 64
    np.testing.assert_allclose(small.alpha, res.alpha, atol=1e-12)
    assert small.b == pytest.approx(res.b, abs=1e-12)


def test_large_problem_with_one_small_class_and_duplicates():
    X, y = shaped(9, 240, "unbalanced")
    X, y = np.vstack([X, X[y > 0]]), np.r_[y, y[y > 0]]  # every example of the small class twice
    with route(direct_up_to=5, smo_steps=10**4), smo_must_answer():  # about 4,000 steps
        res = fit_svm(X, y, C=1.0, kernel="rbf", gamma=1.0)
    with route(direct_up_to=10**6):
        qp = fit_svm(X, y, C=1.0, kernel="rbf", gamma=1.0)
    np.testing.assert_allclose(res.decision_function(X), qp.decision_function(X), atol=1e-6)
    svc, ay = libsvm(X, y, C=1.0, kernel="rbf", gamma=1.0)
    np.testing.assert_allclose(res.decision_function(X), svc.decision_function(X), atol=1e-5)
    assert kkt_violation(res) < 1e-8


@pytest.mark.data
def test_the_digits_one_versus_five_as_libsvm():
    """The benchmark's problem: 1,561 digits, the RBF kernel; libsvm finds 31 support vectors, 18 at C."""
    if not os.environ.get(DATA_DIR_ENV):
        pytest.skip(f"{DATA_DIR_ENV} is not set; point it at the reference data folder (../shared/data) to run this test")
    train = cl.load_features("train")
    mask, y = cl.one_vs_one(train.digits, 1, 5)
    X = train.X[mask]
    with smo_must_answer():
        res = fit_svm(X, y, C=1.0, kernel="rbf", gamma=1.0)
    svc, ay = libsvm(X, y, C=1.0, kernel="rbf", gamma=1.0)
    assert set(res.support) == set(svc.support_)
    assert np.sum(res.alpha == 1.0) == np.sum(np.abs(ay) >= 1.0 - 1e-9)
    # libsvm stops on its tolerance for the gradient; alpha then lies within ~1e-5 of the optimum here
    np.testing.assert_allclose(res.alpha * y, ay, atol=2e-5)
    assert res.b == pytest.approx(svc.intercept_[0], abs=1e-6)
    assert kkt_violation(res) < 1e-9
    with route(direct_up_to=150, smo_steps=0):  # the interior-point method, in chunks: the same optimum
        qp = fit_svm(X, y, C=1.0, kernel="rbf", gamma=1.0)
    np.testing.assert_allclose(res.alpha, qp.alpha, atol=1e-9)
    assert res.b == pytest.approx(qp.b, abs=1e-9)


@settings(max_examples=15, deadline=None)
@given(seed=seeds, n=st.integers(30, 120), case=st.sampled_from(["hard", "l2", "l1 beyond SMO's budget"]),
       kernel=st.sampled_from(["linear", "rbf"]))
def test_chunked_dual_gives_the_direct_answer(seed, n, case, kernel):
    C, penalty = {"hard": (None, "l1"), "l2": (0.1, "l2"), "l1 beyond SMO's budget": (10.0, "l1")}[case]
    if C is None:
        X, y, _ = cl.make_separable(n, 2, margin=0.05, rng=seed)
    else:
        X, y = noisy(seed, n, 2)
    direct = fit_svm(X, y, C=C, kernel=kernel, gamma=2.0, penalty=penalty)
    chunked = svm_module._solve_dual_in_chunks
    # chunks from the start, starting from 10 examples and adding 10 at a time
    svm_module._solve_dual_in_chunks = lambda Q, y_, upper: chunked(Q, y_, upper, start=10, add=10)
    try:
        with route(direct_up_to=5, smo_steps=0):
            res = fit_svm(X, y, C=C, kernel=kernel, gamma=2.0, penalty=penalty)
    finally:
        svm_module._solve_dual_in_chunks = chunked
    np.testing.assert_allclose(res.decision_function(X), direct.decision_function(X), atol=1e-5)
    assert set(res.support) == set(direct.support)
    if penalty == "l1":
        assert kkt_violation(res) < 1e-5


@pytest.mark.parametrize("C, penalty", [(1.0, "l1"), (100.0, "l1"), (None, "l1"), (10.0, "l2")])
def test_the_whole_dual_by_clarabel_gives_the_auto_routes_answer(C, penalty):
    X, y = cl.make_spirals(220, noise=0.02, rng=4)     # above the size fit_svm hands to Clarabel whole by itself
    auto = fit_svm(X, y, C=C, kernel="rbf", gamma=10.0, penalty=penalty)
    whole = fit_svm(X, y, C=C, kernel="rbf", gamma=10.0, penalty=penalty, solver="clarabel")
    G = np.random.default_rng(0).uniform(-1, 1, size=(300, 2))
    np.testing.assert_allclose(whole.decision_function(G), auto.decision_function(G), atol=1e-6)
    with pytest.raises(ValueError, match="solver must be one of"):
        fit_svm(X, y, C=C, solver="smo-please")
