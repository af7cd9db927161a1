"""course_lib.svm_variants: the LPs against the same programs solved by Clarabel, the reduced SVM against liblinear."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.svm import LinearSVC

import course_lib as cl
from course_lib.svm import _solve_qp
from course_lib.svm_variants import fit_lp_svm, fit_reduced_svm, fit_robust_lp

seeds = st.integers(0, 2**32 - 1)


def noisy(seed, n, d, relevant=2, noise=0.1):
    """n points in d dimensions whose label depends on the first ``relevant`` features only, some flipped."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    w = rng.normal(size=relevant)
    y = np.where(X[:, :relevant] @ w + 0.1 > 0, 1.0, -1.0)
    y[rng.random(n) < noise] *= -1
    if np.all(y == y[0]):
        y[0] = -y[0]
    return X, y


def clarabel_lp(X, y, C):
    """min ||w||_1 + C 1^T xi (C=None: min 1^T xi) as a conic program for Clarabel, over (w, s, b, xi) with |w| <= s."""
    n, d = X.shape
    nv = 2 * d + 1 + n
    c = np.r_[np.zeros(d), np.ones(d) if C is not None else np.zeros(d), 0.0, (C if C is not None else 1.0) * np.ones(n)]
    rows, rhs = [], []
    for i in range(n):                                   # -y_i (x_i^T w + b) - xi_i <= -1
        r = np.zeros(nv)
        r[:d], r[2 * d], r[2 * d + 1 + i] = -y[i] * X[i], -y[i], -1.0
        rows.append(r)
        rhs.append(-1.0)
    for j in range(d):                                   # w_j - s_j <= 0, -w_j - s_j <= 0
        for sign in (1.0, -1.0):
            r = np.zeros(nv)
            r[j], r[d + j] = sign, -1.0
            rows.append(r)
            rhs.append(0.0)
    for i in range(n):                                   # -xi_i <= 0
        r = np.zeros(nv)
        r[2 * d + 1 + i] = -1.0
        rows.append(r)
        rhs.append(0.0)
    x, status = _solve_qp(np.zeros((nv, nv)), c, np.array(rows), np.array(rhs), 0, len(rows))
    assert status == "Solved", status
    return float(c @ x)


@settings(max_examples=25, deadline=None)
@given(seed=seeds, n=st.integers(6, 40), d=st.integers(1, 6), C=st.sampled_from([0.1, 1.0, 10.0]))
def test_the_one_norm_svm_reaches_the_optimum_of_the_same_program_solved_by_clarabel(seed, n, d, C):
    X, y = noisy(seed, n, d, relevant=min(2, d))
    res = fit_lp_svm(X, y, C=C)
    # feasible, and the slacks are the violations of (w, b)
    np.testing.assert_allclose(res.xi, np.maximum(0.0, 1 - y * res.decision_function(X)), atol=1e-7)
    objective = np.abs(res.w).sum() + C * res.xi.sum()
    assert objective == pytest.approx(clarabel_lp(X, y, C), rel=1e-6, abs=1e-6)


@settings(max_examples=25, deadline=None)
@given(seed=seeds, n=st.integers(6, 40), d=st.integers(1, 5))
def test_the_robust_lp_reaches_the_least_total_slack(seed, n, d):
    X, y = noisy(seed, n, d, relevant=min(2, d), noise=0.2)
    res = fit_robust_lp(X, y)
    np.testing.assert_allclose(res.xi, np.maximum(0.0, 1 - y * res.decision_function(X)), atol=1e-7)
    assert res.xi.sum() == pytest.approx(clarabel_lp(X, y, None), rel=1e-6, abs=1e-6)
    # no separator (w, b) has less total slack: the soft-margin SVM's, say
    svm = cl.fit_svm(X, y, C=1.0)
    assert res.xi.sum() <= np.maximum(0.0, 1 - y * svm.decision_function(X)).sum() + 1e-7


def test_on_separable_data_the_robust_lp_separates_with_no_slack():
    X, y, _ = cl.make_separable(50, 3, margin=0.05, rng=1)
    res = fit_robust_lp(X, y)
    assert np.all(res.xi == 0) and np.all(y * res.decision_function(X) >= 1 - 1e-9)


def test_the_one_norm_svm_leaves_out_irrelevant_features_and_the_usual_svm_does_not():
    X, y = noisy(3, 200, 30, relevant=2, noise=0.05)   # 28 of the 30 features are noise
    sparse = fit_lp_svm(X, y, C=0.1)
    dense = cl.fit_svm(X, y, C=0.1)
    assert np.count_nonzero(sparse.w) <= 4 and np.all(sparse.w[:2] != 0)
    assert np.count_nonzero(np.abs(dense.w) > 1e-6) == 30


@settings(max_examples=15, deadline=None)
@given(seed=seeds, n=st.integers(20, 120), m=st.integers(1, 15), C=st.sampled_from([0.1, 1.0, 30.0]),
       kernel=st.sampled_from(["rbf", "poly", "linear"]))
def test_the_reduced_svm_solves_rsvms_program(seed, n, m, C, kernel):
    import warnings

    rng = np.random.default_rng(seed)
    X, y = cl.make_spirals(n, noise=0.05, rng=rng)
    m = min(m, n)
    res = fit_reduced_svm(X, y, n_columns=m, C=C, kernel=kernel, gamma=2.0, degree=2, rng=rng)
    assert len(set(res.columns.tolist())) == m and np.all(np.diff(res.columns) > 0)
    Z = cl.kernel_matrix(X, X[res.columns], kernel=kernel, gamma=2.0, degree=2)
    np.testing.assert_allclose(res.decision_function(X), Z @ res.u + res.b, atol=1e-10)

    def objective(u, b):
        slack = np.maximum(0.0, 1 - y * (Z @ u + b))
        return 0.5 * (u @ u + b * b) + 0.5 * C * slack @ slack

    # optimal: the gradient of the (differentiable, convex) objective vanishes there
    slack = np.maximum(0.0, 1 - y * (Z @ res.u + res.b))
    grad = np.r_[res.u, res.b] - C * np.column_stack([Z, np.ones(n)]).T @ (slack * y)
    assert np.linalg.norm(grad) <= 1e-7 * max(1.0, np.linalg.norm(np.r_[res.u, res.b]))
    # liblinear's L2-loss SVM regularises the intercept as a feature and charges C xi^2 (no 1/2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                      # its convergence is checked below
        ref = LinearSVC(C=C / 2, loss="squared_hinge", intercept_scaling=1.0, tol=1e-12, max_iter=200_000,
                        dual=True).fit(Z, y)
    assert objective(res.u, res.b) <= objective(ref.coef_[0], ref.intercept_[0]) + 1e-9
    if ref.n_iter_ < 200_000:                                # liblinear reached its own optimum: the same one
        np.testing.assert_allclose(res.u, ref.coef_[0], atol=1e-5 * max(1.0, np.abs(ref.coef_).max()))
        assert res.b == pytest.approx(ref.intercept_[0], abs=1e-5 * max(1.0, abs(ref.intercept_[0])))


@pytest.mark.parametrize("call, message", [
    (lambda: fit_lp_svm([[0.0], [1.0]], [1, 1]), "both labels"),
    (lambda: fit_lp_svm([[0.0], [1.0]], [1, -1], C=0), "C must be > 0"),
    (lambda: fit_lp_svm([[0.0], [1.0]], [1, -1], C=None), "C must be a number"),
    (lambda: fit_robust_lp([[0.0], [1.0]], [1, 2]), "labels"),
    (lambda: fit_reduced_svm([[0.0], [1.0]], [1, -1], n_columns=3), "n_columns must be at most"),
    (lambda: fit_reduced_svm([[0.0], [1.0]], [1, -1], n_columns=1, kernel="cubic"), "kernel must be one of"),
])
def test_bad_inputs_name_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_two_norm_primal_agrees_with_the_dual_with_k_plus_i_over_c():
    X, y = noisy(7, 60, 2, noise=0.15)
    for C in (0.1, 10.0):
        dual, primal = cl.fit_svm(X, y, C=C, penalty="l2"), cl.fit_svm_primal(X, y, C=C, penalty="l2")
        np.testing.assert_allclose(dual.w, primal.w, atol=1e-6)
        assert dual.b == pytest.approx(primal.b, abs=1e-6)
        np.testing.assert_allclose(dual.alpha, C * primal.xi, atol=1e-5)     # KKT: alpha_n = C xi_n
