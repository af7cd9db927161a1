"""course_lib.regularization against scikit-learn's Ridge and Lasso, an explicit hat matrix, SciPy's
constrained optimiser, the optimality conditions of the L1 problem, and Hypothesis properties."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import Lasso, Ridge

import course_lib as cl
from course_lib.regularization import constrained_regression, d_eff, l1_regression, weight_decay_path

seeds = st.integers(0, 2**32 - 1)


def problem(seed, n=30, d=6):
    rng = np.random.default_rng(seed)
    Z = np.column_stack([np.ones(n), rng.normal(size=(n, d - 1))])
    return Z, Z @ rng.normal(size=d) + rng.normal(size=n)


def test_the_path_is_weight_decay_at_every_lambda():
    Z, y = problem(1)
    lambdas = [0.0, 1e-3, 0.1, 1.0, 30.0, 1e4]
    W = weight_decay_path(Z, y, lambdas)
    assert W.shape == (6, 6)
    for w, lam in zip(W, lambdas, strict=True):
        np.testing.assert_allclose(w, cl.linear_regression(Z, y, weight_decay=lam), rtol=1e-9, atol=1e-12)
        if lam > 0:
            np.testing.assert_allclose(w, Ridge(alpha=lam, fit_intercept=False, solver="svd").fit(Z, y).coef_,
                                       rtol=1e-9, atol=1e-12)


def test_the_path_at_zero_is_the_minimum_norm_fit_for_dependent_columns():
    Z, y = problem(2, d=4)
    Z = np.column_stack([Z, Z[:, 1]])                    # a repeated feature
    np.testing.assert_allclose(weight_decay_path(Z, y, [0.0])[0], np.linalg.pinv(Z) @ y, atol=1e-10)


def explicit_d_eff(Z, lam):
    return float(np.trace(Z @ np.linalg.solve(Z.T @ Z + lam * np.eye(Z.shape[1]), Z.T)))


@pytest.mark.parametrize("lam", [0.0, 0.01, 1.0, 100.0])
def test_d_eff_is_the_trace_of_the_hat_matrix(lam):
    Z, _ = problem(3)
    assert d_eff(Z, lam) == pytest.approx(explicit_d_eff(Z, lam), rel=1e-10)
    assert d_eff(Z, 0.0) == pytest.approx(6.0, rel=1e-12)             # six independent columns
    np.testing.assert_allclose(d_eff(Z, [lam, 2 * lam]), [d_eff(Z, lam), d_eff(Z, 2 * lam)])


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(1, 25), d=st.integers(1, 8),
       lams=st.lists(st.floats(0.0, 1e6), min_size=2, max_size=6, unique=True))
def test_d_eff_falls_from_the_rank_towards_zero_as_lambda_grows(seed, n, d, lams):
    Z = np.random.default_rng(seed).normal(size=(n, d))
    lams = np.sort(lams)
    values = d_eff(Z, lams)
    assert np.all(np.diff(values) <= 1e-12)
    assert np.all(values <= np.linalg.matrix_rank(Z) + 1e-9) and np.all(values >= 0)
    if lams[0] == 0.0:
        assert values[0] == pytest.approx(np.linalg.matrix_rank(Z))


def test_a_binding_budget_is_weight_decay_with_the_matching_lambda():
    from scipy.optimize import minimize

    Z, y = problem(4)
    w_lin = np.linalg.lstsq(Z, y, rcond=None)[0]
    lambdas = []
    for share in (0.8, 0.3, 0.05):
        C = share * float(w_lin @ w_lin)
        fit = constrained_regression(Z, y, budget=C)
        assert fit.w @ fit.w == pytest.approx(C, rel=1e-9)
        np.testing.assert_allclose(fit.w, cl.linear_regression(Z, y, weight_decay=fit.weight_decay), rtol=1e-8,
                                   atol=1e-10)
        # an independent solver of the constrained problem itself
        res = minimize(lambda w: np.mean((Z @ w - y) ** 2), np.zeros(6), method="SLSQP",
                       constraints=[{"type": "ineq", "fun": lambda w, C=C: C - w @ w}], options={"ftol": 1e-14})
        assert np.mean((Z @ fit.w - y) ** 2) <= np.mean((Z @ res.x - y) ** 2) + 1e-9
        np.testing.assert_allclose(fit.w, res.x, atol=1e-4)
        lambdas.append(fit.weight_decay)
    assert lambdas[0] < lambdas[1] < lambdas[2]                       # a tighter budget, a larger lambda
    loose = constrained_regression(Z, y, budget=2 * float(w_lin @ w_lin))
    assert loose.weight_decay == 0.0 and np.allclose(loose.w, w_lin)


@settings(max_examples=25, deadline=None)
@given(seed=seeds, lam=st.floats(0.01, 50.0))
def test_l1_regression_is_scikit_learns_lasso(seed, lam):
    Z, y = problem(seed, n=25, d=5)
    w = l1_regression(Z, y, penalty=lam)
    ref = Lasso(alpha=lam / (2 * len(y)), fit_intercept=False, tol=1e-13, max_iter=1_000_000).fit(Z, y).coef_
    np.testing.assert_allclose(w, ref, atol=1e-6)


@pytest.mark.parametrize("lam", [0.5, 5.0, 40.0])
def test_l1_regression_meets_the_optimality_conditions(lam):
    """0 is in the subgradient: 2 z_q^T (Z w - y) = -lam sign(w_q) where w_q != 0, |2 z_q^T (Z w - y)| <= lam where 0."""
    Z, y = problem(8, n=40, d=8)
    w = l1_regression(Z, y, penalty=lam)
    g = 2 * Z.T @ (Z @ w - y)
    nz = w != 0
    np.testing.assert_allclose(g[nz], -lam * np.sign(w[nz]), atol=1e-6 * lam)
    assert np.all(np.abs(g[~nz]) <= lam * (1 + 1e-9))


def test_l1_zeroes_weights_that_l2_only_shrinks():
    rng = np.random.default_rng(12)
    n = 60
    Z = np.column_stack([np.ones(n), rng.normal(size=(n, 9))])
    y = Z[:, :3] @ [1.0, 2.0, -1.5] + 0.3 * rng.normal(size=n)    # only three features matter
    w1 = l1_regression(Z, y, penalty=20.0)
    w2 = cl.linear_regression(Z, y, weight_decay=20.0)
    assert np.count_nonzero(w1[3:]) <= 3 and np.all(w1[:3] != 0)
    assert np.count_nonzero(w2) == 10


@pytest.mark.parametrize("call, match", [
    (lambda Z, y: d_eff(Z, -1.0), "weight_decay must be a finite number >= 0"),
    (lambda Z, y: constrained_regression(Z, y, budget=0.0), "budget must be > 0"),
    (lambda Z, y: l1_regression(Z, y[:-1], penalty=1.0), "Z and y must have the same number of examples"),
    (lambda Z, y: weight_decay_path(Z, y, [[1.0]]), "weight_decays must be a 1-D array"),
])
def test_bad_input_is_named(call, match):
    Z, y = problem(0)
    with pytest.raises(ValueError, match=match):
        call(Z, y)
