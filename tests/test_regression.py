"""course_lib.regression against numpy, scikit-learn, closed forms, finite differences and the book's experiments."""
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.metrics import log_loss
from sklearn.preprocessing import PolynomialFeatures

import course_lib as cl
from course_lib import regression as rg

SEEDS = [0, 1, 2]


def regression_data(rng, n=40, d=3, noise=0.3):
    X = cl.add_bias(rng.normal(size=(n, d)))
    w = rng.normal(size=d + 1)
    return X, X @ w + noise * rng.normal(size=n)


# --- linear regression -------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_linear_regression_equals_lstsq_and_sklearn(seed):
    X, y = regression_data(np.random.default_rng(seed))
    w = cl.linear_regression(X, y)
    np.testing.assert_allclose(w, np.linalg.lstsq(X, y, rcond=None)[0], rtol=1e-10, atol=1e-12)
    sk = LinearRegression(fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(w, sk.coef_, rtol=1e-8, atol=1e-10)
    # the normal equations hold: the gradient of E_in vanishes
    np.testing.assert_allclose(X.T @ (X @ w - y), 0.0, atol=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lam", [0.01, 1.0, 25.0])
def test_weight_decay_equals_ridge_and_the_closed_form(seed, lam):
    # Ridge minimises ||Xw - y||^2 + alpha ||w||^2; dividing by N gives
    # (1/N)||Xw - y||^2 + (lambda/N)||w||^2 with lambda = alpha: the same minimiser.
    X, y = regression_data(np.random.default_rng(seed))
    w = cl.linear_regression(X, y, weight_decay=lam)
    ridge = Ridge(alpha=lam, fit_intercept=False, solver="svd").fit(X, y)
    np.testing.assert_allclose(w, ridge.coef_, rtol=1e-8, atol=1e-10)
    closed = np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T @ y)
    np.testing.assert_allclose(w, closed, rtol=1e-8, atol=1e-10)


def test_weight_decay_shrinks_the_weights():
    X, y = regression_data(np.random.default_rng(3))
    norms = [np.linalg.norm(cl.linear_regression(X, y, weight_decay=lam)) for lam in (0.0, 0.1, 1.0, 10.0, 100.0)]
    assert all(a > b for a, b in zip(norms, norms[1:], strict=False)), norms


@pytest.mark.parametrize("seed", SEEDS)
def test_rank_deficient_X_gives_the_minimum_norm_solution(seed):
    rng = np.random.default_rng(seed)
    X, y = regression_data(rng, n=30, d=3)
    Xdup = np.column_stack([X, X[:, 2]])                 # a column repeated: X^T X is singular
    w = cl.linear_regression(Xdup, y)
    np.testing.assert_allclose(w, np.linalg.pinv(Xdup) @ y, rtol=1e-8, atol=1e-10)
    assert w[2] == pytest.approx(w[-1], rel=1e-8)        # the shared weight is split evenly
    # same predictions as the full-rank fit, and no other least-squares solution is shorter
    np.testing.assert_allclose(Xdup @ w, X @ cl.linear_regression(X, y), atol=1e-9)
    other = w + 0.3 * np.array([0, 0, 1, 0, -1])         # also a least-squares solution
    np.testing.assert_allclose(Xdup @ other, Xdup @ w, atol=1e-9)
    assert np.linalg.norm(other) > np.linalg.norm(w)


def test_fewer_examples_than_weights_gives_the_minimum_norm_interpolant():
    rng = np.random.default_rng(4)
    X, y = cl.add_bias(rng.normal(size=(3, 6))), rng.normal(size=3)
    w = cl.linear_regression(X, y)
    np.testing.assert_allclose(X @ w, y, atol=1e-10)
    np.testing.assert_allclose(w, np.linalg.pinv(X) @ y, atol=1e-10)


def test_pseudo_inverse_is_the_left_inverse_for_full_rank():
    X, _ = regression_data(np.random.default_rng(5))
    P = cl.pseudo_inverse(X)
    np.testing.assert_allclose(P @ X, np.eye(X.shape[1]), atol=1e-10)
    np.testing.assert_allclose(P, np.linalg.solve(X.T @ X, X.T), atol=1e-10)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 25), d=st.integers(0, 6), seed=st.integers(0, 2**32 - 1), dup=st.booleans())
def test_hat_matrix_properties(n, d, seed, dup):
    rng = np.random.default_rng(seed)
    X = cl.add_bias(rng.normal(size=(n, d))) if d else np.ones((n, 1))
    if dup:
        X = np.column_stack([X, X[:, -1]])
    y = rng.normal(size=n)
    H = cl.hat_matrix(X)
    eye = np.eye(n)
    assert H.shape == (n, n)
    np.testing.assert_allclose(H, H.T, atol=1e-10)                      # symmetric
    np.testing.assert_allclose(H @ H, H, atol=1e-10)                    # idempotent
    np.testing.assert_allclose((eye - H) @ (eye - H), eye - H, atol=1e-10)
    assert np.trace(H) == pytest.approx(np.linalg.matrix_rank(X), abs=1e-8)
    if np.linalg.matrix_rank(X) == X.shape[1]:                          # full column rank: d + 1
        assert np.trace(H) == pytest.approx(X.shape[1], abs=1e-8)
    y_hat = H @ y
    np.testing.assert_allclose(y_hat, X @ cl.linear_regression(X, y), atol=1e-8)
    np.testing.assert_allclose(X.T @ (y - y_hat), 0.0, atol=1e-8)       # residual orthogonal to the columns


def test_hat_matrix_equals_the_textbook_formula_for_full_rank():
    X, _ = regression_data(np.random.default_rng(6), n=12, d=2)
    np.testing.assert_allclose(cl.hat_matrix(X), X @ np.linalg.inv(X.T @ X) @ X.T, atol=1e-10)


def test_squared_error_and_its_expected_in_sample_value():
    X, y = regression_data(np.random.default_rng(7))
    w = np.arange(X.shape[1], dtype=float)
    assert cl.squared_error(w, X, y) == pytest.approx(np.mean((X @ w - y) ** 2))
    # E_in of the fit is ||(I - H) y||^2 / N
    H = cl.hat_matrix(X)
    assert cl.squared_error(cl.linear_regression(X, y), X, y) == pytest.approx(np.sum(((np.eye(len(y)) - H) @ y) ** 2) / len(y))


def test_expected_ein_of_linear_regression_matches_the_noise_formula():
    # Learning From Data, Exercise 3.4: for y = w*^T x + noise of variance s^2,
    # E[E_in(w_lin)] = s^2 (1 - (d + 1)/N). Average over 400 noise draws with X fixed.
    rng = np.random.default_rng(8)
    n, d, s = 20, 4, 0.5
    X = cl.add_bias(rng.normal(size=(n, d)))
    w_star = rng.normal(size=d + 1)
    eins = [cl.squared_error(cl.linear_regression(X, y), X, y)
            for y in X @ w_star + s * rng.normal(size=(400, n))]
    expected = s**2 * (1 - (d + 1) / n)
    # n E_in / s^2 is chi-squared with n - d - 1 = 15 degrees of freedom (variance 30), so the mean of
    # 400 draws has standard deviation s^2/n * sqrt(30/400) = 0.0034; 0.02 is about six of them.
    assert np.mean(eins) == pytest.approx(expected, abs=0.02)


# --- linear regression for classification -------------------------------------------------

def test_linear_classifier_is_the_regression_on_labels():
    X, y, _ = cl.make_noisy(60, 3, noise=0.1, rng=9)
    Xb = cl.add_bias(X)
    np.testing.assert_allclose(cl.linear_classifier(Xb, y), np.linalg.lstsq(Xb, y, rcond=None)[0], atol=1e-10)


def test_linear_classifier_on_the_random_line_target_like_the_book():
    # Learning From Data, Problem set 2 (N = 100): E_in about 0.04 and E_out a little higher.
    # Over 300 runs each error rate has a standard deviation near 0.03 per run, 0.002 for the
    # mean; the bounds below are ten of those away.
    rng = np.random.default_rng(10)
    ein, eout = [], []
    for _ in range(300):
        X, y, w_f = cl.make_random_line_data(100, rng=rng)
        w = cl.linear_classifier(cl.add_bias(X), y)
        ein.append(cl.error_rate(w, cl.add_bias(X), y))
        Xt = rng.uniform(-1, 1, size=(1000, 2))
        eout.append(cl.error_rate(w, cl.add_bias(Xt), np.where(w_f[0] + Xt @ w_f[1:] > 0, 1.0, -1.0)))
    assert 0.02 < np.mean(ein) < 0.06
    assert np.mean(ein) < np.mean(eout) < 0.07


def test_linear_regression_is_a_good_start_for_pla():
    # N = 10: from w_lin PLA usually has nothing left to correct (median 0 updates, against
    # about 5 from zero); the medians of 300 runs are far apart.
    rng = np.random.default_rng(11)
    from_zero, from_lin = [], []
    for _ in range(300):
        X, y, _ = cl.make_random_line_data(10, rng=rng)
        Xb = cl.add_bias(X)
        from_zero.append(cl.pla(Xb, y).n_updates)
        run = cl.pla(Xb, y, w0=cl.linear_classifier(Xb, y))
        assert run.halted
        from_lin.append(run.n_updates)
    assert np.median(from_lin) < np.median(from_zero)


def test_linear_start_helps_pocket():
    X, y, _ = cl.make_noisy(200, 2, noise=0.1, rng=12)
    Xb = cl.add_bias(X)
    w_lin = cl.linear_classifier(Xb, y)
    run = cl.pocket(Xb, y, max_updates=20, w0=w_lin, rng=13)
    assert run.ein_pocket[0] == pytest.approx(cl.error_rate(w_lin, Xb, y))
    assert run.ein_pocket[-1] <= cl.error_rate(w_lin, Xb, y)


# --- nonlinear transforms ----------------------------------------------------------------------

def test_poly_transform_degree_two_in_the_books_order():
    X = np.array([[2.0, 3.0], [-1.0, 0.5]])
    x1, x2 = X[:, 0], X[:, 1]
    expected = np.column_stack([np.ones(2), x1, x2, x1 * x2, x1**2, x2**2])
    np.testing.assert_allclose(cl.poly_transform(X), expected)
    assert rg.poly_feature_names(2) == ["1", "x1", "x2", "x1*x2", "x1^2", "x2^2"]


@pytest.mark.parametrize("d, q", [(1, 1), (1, 4), (2, 3), (3, 2), (3, 4), (4, 3)])
def test_poly_transform_has_the_same_columns_as_sklearn(d, q):
    X = np.random.default_rng(d * 10 + q).uniform(-1, 1, size=(7, d))
    sk = PolynomialFeatures(degree=q).fit(X)
    ours = cl.poly_transform(X, degree=q)
    powers = rg.poly_powers(d, q)
    assert ours.shape == (7, math.comb(d + q, q)) == sk.transform(X).shape
    # every column is one of sklearn's monomials, each used once, and the values agree
    where = [int(np.flatnonzero((sk.powers_ == p).all(axis=1))[0]) for p in powers]
    assert sorted(where) == list(range(len(powers)))
    np.testing.assert_allclose(ours, sk.transform(X)[:, where], rtol=1e-12)
    degrees = powers.sum(axis=1)
    assert np.all(np.diff(degrees) >= 0)           # grouped by total degree


def test_circle_data_flips_exactly_the_noise_fraction_and_is_reproducible():
    X, y = cl.make_circle_data(500, noise=0.1, rng=14)
    assert X.shape == (500, 2) and np.all(np.abs(X) <= 1)
    assert int(np.sum(y != cl.circle_target(X))) == 50
    X2, y2 = cl.make_circle_data(500, noise=0.1, rng=14)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    np.testing.assert_array_equal(cl.circle_target(X), np.where(X[:, 0] ** 2 + X[:, 1] ** 2 > 0.6, 1.0, -1.0))


def test_nonlinear_transform_on_the_circle_like_the_book():
    # Learning From Data, Problem set 2, Q8-Q10 (N = 1000, 10 % noise): a line is wrong about
    # half the time; on (1, x1, x2, x1x2, x1^2, x2^2) the error drops near the noise level, with
    # weights close to (-1, 0, 0, 0, 1.5, 1.5). Standard deviations per run: 0.04 and 0.01;
    # means over 40 runs are well inside the bounds.
    rng = np.random.default_rng(15)
    lin, quad, weights = [], [], []
    for _ in range(40):
        X, y = cl.make_circle_data(1000, rng=rng)
        Xb, Z = cl.add_bias(X), cl.poly_transform(X)
        lin.append(cl.error_rate(cl.linear_classifier(Xb, y), Xb, y))
        v = cl.linear_classifier(Z, y)
        quad.append(cl.error_rate(v, Z, y))
        weights.append(v)
    assert 0.4 < np.mean(lin) < 0.6
    assert 0.09 < np.mean(quad) < 0.16
    np.testing.assert_allclose(np.mean(weights, axis=0), [-1.0, 0, 0, 0, 1.55, 1.55], atol=0.1)


# --- the logistic function and the cross-entropy error ----------------------------------------

@pytest.fixture
def no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            yield


def test_theta_matches_the_formula_and_its_symmetry():
    s = np.linspace(-30, 30, 121)
    np.testing.assert_allclose(cl.theta(s), [1 / (1 + math.exp(-v)) for v in s], rtol=1e-14)
    np.testing.assert_allclose(cl.theta(-s), 1 - cl.theta(s), atol=1e-15)
    assert cl.theta(0.0) == 0.5


def test_theta_has_exact_limits_without_warnings(no_warnings):
    s = np.array([-1e4, -1e3, -800.0, -745.0, -700.0, 700.0, 745.0, 800.0, 1e3, 1e4])
    out = cl.theta(s)
    assert np.all(np.isfinite(out)) and np.all((out >= 0) & (out <= 1))
    assert cl.theta(-1e4) == 0.0
    assert cl.theta(1e4) == 1.0
    assert np.all(np.diff(out) >= 0)


@pytest.mark.parametrize("seed", SEEDS)
def test_cross_entropy_equals_sklearn_log_loss(seed):
    rng = np.random.default_rng(seed)
    X, y, _ = cl.make_noisy(80, 3, noise=0.2, rng=rng)
    Xb, w = cl.add_bias(X), rng.normal(size=4)
    p = 1 / (1 + np.exp(-(Xb @ w)))
    assert cl.cross_entropy_error(w, Xb, y) == pytest.approx(log_loss(y, p, labels=[-1, 1]), rel=1e-10)
    np.testing.assert_allclose(cl.predict_probability(w, Xb), p, rtol=1e-12)


def test_cross_entropy_and_gradient_for_huge_signals(no_warnings):
    # one example with signal s and label +1: the error is ln(1 + e^{-s})
    for s, err in [(-1e4, 1e4), (-800.0, 800.0), (1e4, 0.0), (800.0, 0.0)]:
        assert cl.cross_entropy_error([s], [[1.0]], [1]) == pytest.approx(err, rel=1e-12, abs=1e-300)
    # ln(1 + e^{-s}) = -s + ln(1 + e^{s}), so for s = -1e4 it is -s up to e^{-1e4}
    assert cl.cross_entropy_error([-1e4], [[1.0]], [1]) == 1e4
    X = np.array([[1.0, 2.0], [1.0, -3.0]])
    for w in ([5e3, 5e3], [-5e3, 2e3], [1e4, -1e4]):
        g = cl.cross_entropy_gradient(w, X, [1, -1])
        assert np.all(np.isfinite(g))
        e = cl.cross_entropy_error(w, X, [1, -1])
        assert np.isfinite(e) and e >= 0
    # a confidently wrong example pulls with its full weight: gradient -(1/N) y x
    np.testing.assert_allclose(cl.cross_entropy_gradient([-1e4], [[1.0]], [1]), [-1.0])
    np.testing.assert_allclose(cl.cross_entropy_gradient([1e4], [[1.0]], [1]), [0.0])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 5), scale=st.sampled_from([0.1, 1.0, 5.0]))
def test_gradient_matches_central_differences(seed, d, scale):
    rng = np.random.default_rng(seed)
    X = cl.add_bias(rng.normal(size=(30, d)))
    y = np.where(rng.random(30) < 0.5, 1.0, -1.0)
    w = scale * rng.normal(size=d + 1)
    h = 1e-6
    numeric = np.array([(cl.cross_entropy_error(w + h * e, X, y) - cl.cross_entropy_error(w - h * e, X, y)) / (2 * h)
                        for e in np.eye(d + 1)])
    np.testing.assert_allclose(cl.cross_entropy_gradient(w, X, y), numeric, atol=1e-7, rtol=1e-6)


# --- logistic regression: gradient descent and SGD --------------------------------------------

def sklearn_logistic(X, y):
    # no penalty (C = infinity; penalty=None is deprecated since scikit-learn 1.8), no intercept:
    # the minimiser of the same cross-entropy error
    model = LogisticRegression(C=np.inf, fit_intercept=False, tol=1e-12, max_iter=100_000)
    return model.fit(X, y).coef_[0]


@pytest.mark.parametrize("seed", SEEDS)
def test_gradient_descent_reaches_sklearns_solution(seed):
    X, y, _ = cl.make_noisy(100, 2, noise=0.15, rng=seed)      # not separable: a finite minimum
    Xb = cl.add_bias(X)
    fit = cl.logistic_regression(Xb, y, method="gd", eta=1.0, tol=1e-9, max_epochs=50_000)
    assert fit.converged
    assert len(fit.ein) == fit.n_epochs + 1
    assert np.all(np.diff(fit.ein) <= 1e-15)                     # a small enough step never goes uphill
    # a step below 1e-9 at eta = 1 means a gradient below 1e-9; the Hessian's smallest
    # eigenvalue here is above 0.01, so w is within 1e-7 of the minimiser: 1e-6 is safe.
    np.testing.assert_allclose(fit.w, sklearn_logistic(Xb, y), atol=1e-6)


def test_sgd_with_a_small_step_gets_close_to_sklearns_solution():
    X, y, _ = cl.make_noisy(100, 2, noise=0.15, rng=16)
    Xb = cl.add_bias(X)
    fit = cl.logistic_regression(Xb, y, method="sgd", eta=0.01, tol=1e-9, max_epochs=300, rng=17)
    w_star = sklearn_logistic(Xb, y)
    # with a fixed eta SGD ends in a cloud around the minimiser whose size is of order eta;
    # with ||w*|| about 2-4 it lands within 0.01 in trials, 0.05 leaves room.
    assert np.linalg.norm(fit.w - w_star) < 0.05
    assert fit.ein[-1] - cl.cross_entropy_error(w_star, Xb, y) < 1e-3


def test_sgd_epoch_equals_a_plain_loop():
    X, y, _ = cl.make_noisy(30, 3, noise=0.1, rng=18)
    Xb = cl.add_bias(X)
    order = np.random.default_rng(19).permutation(30)
    w = np.zeros(4)
    for i in order:
        w = w + 0.3 * y[i] * Xb[i] / (1 + math.exp(y[i] * (Xb[i] @ w)))
    np.testing.assert_allclose(cl.logistic_sgd_epoch(np.zeros(4), Xb, y, eta=0.3, order=order), w, rtol=1e-12)


def test_sgd_runs_equal_single_runs_with_the_spawned_generators():
    rng = np.random.default_rng(20)
    sets = [cl.make_random_line_data(40, rng=rng) for _ in range(5)]
    X = np.stack([cl.add_bias(x) for x, _, _ in sets])
    y = np.stack([t for _, t, _ in sets])
    runs = cl.logistic_sgd_runs(X, y, eta=0.05, tol=0.01, max_epochs=500, rng=21)
    gens = np.random.default_rng(21).spawn(5)
    for r in range(5):
        one = cl.logistic_regression(X[r], y[r], method="sgd", eta=0.05, tol=0.01, max_epochs=500, rng=gens[r])
        assert one.n_epochs == runs.n_epochs[r] and one.converged == runs.converged[r]
        np.testing.assert_allclose(one.w, runs.w[r], rtol=1e-10, atol=1e-12)


def test_sgd_experiment_of_the_book():
    # Learning From Data, Problem set 5 (N = 100, eta = 0.01, stop below 0.01): about 340 epochs,
    # E_out (cross-entropy) about 0.1. Per run the epochs vary with a standard deviation near 40
    # and E_out near 0.03, so means of 30 runs sit within about 7 and 0.006: the bounds are wide.
    rng = np.random.default_rng(22)
    sets = [cl.make_random_line_data(100, rng=rng) for _ in range(30)]
    X = np.stack([cl.add_bias(x) for x, _, _ in sets])
    y = np.stack([t for _, t, _ in sets])
    runs = cl.logistic_sgd_runs(X, y, eta=0.01, tol=0.01, rng=23)
    assert runs.converged.all()
    assert 280 < runs.n_epochs.mean() < 400
    eout = []
    for (_, _, w_f), w in zip(sets, runs.w, strict=True):
        Xt = rng.uniform(-1, 1, size=(2000, 2))
        eout.append(cl.cross_entropy_error(w, cl.add_bias(Xt), np.where(w_f[0] + Xt @ w_f[1:] > 0, 1.0, -1.0)))
    assert 0.07 < np.mean(eout) < 0.14


def test_sgd_is_reproducible_and_free_of_warnings(no_warnings):
    X, y, _ = cl.make_noisy(50, 2, noise=0.1, rng=24)
    Xb = cl.add_bias(X)
    a = cl.logistic_regression(Xb, y, method="sgd", eta=0.1, max_epochs=20, rng=25)
    b = cl.logistic_regression(Xb, y, method="sgd", eta=0.1, max_epochs=20, rng=25)
    np.testing.assert_array_equal(a.w, b.w)
    np.testing.assert_array_equal(a.ein, b.ein)
    c = cl.logistic_regression(Xb, y, method="sgd", eta=0.1, max_epochs=20, rng=26)
    assert not np.array_equal(a.w, c.w)


def test_separable_data_with_huge_steps_stay_finite(no_warnings):
    # separable data: the weights grow without bound, the signals become huge; nothing overflows
    X, y, _ = cl.make_separable(40, 2, margin=0.2, rng=27)
    Xb = cl.add_bias(X)
    for method in ("gd", "sgd"):
        fit = cl.logistic_regression(Xb, y, method=method, eta=1e4, max_epochs=50, rng=28)
        assert np.all(np.isfinite(fit.w)) and np.all(np.isfinite(fit.ein))
        assert np.all(np.sign(Xb @ fit.w) == y)


def test_gd_from_a_given_start():
    X, y, _ = cl.make_noisy(60, 2, noise=0.1, rng=29)
    Xb = cl.add_bias(X)
    w0 = np.array([0.5, -1.0, 2.0])
    fit = cl.logistic_regression(Xb, y, eta=0.5, max_epochs=1, w0=w0)
    np.testing.assert_allclose(fit.w, w0 - 0.5 * cl.cross_entropy_gradient(w0, Xb, y))
    assert fit.n_epochs == 1 and not fit.converged
    assert fit.ein[0] == pytest.approx(cl.cross_entropy_error(w0, Xb, y))


# --- bad input -----------------------------------------------------------------------------------

X3 = cl.add_bias([[0.1, 0.2], [0.3, -0.4], [-0.5, 0.6]])
Y3 = np.array([1.0, -1.0, 1.0])


@pytest.mark.parametrize("call, name", [
    (lambda: cl.linear_regression(X3, [1.0, 2.0]), "y"),
    (lambda: cl.linear_regression(X3[0], Y3), "X"),
    (lambda: cl.linear_regression(X3, Y3, weight_decay=-1.0), "weight_decay"),
    (lambda: cl.linear_regression(X3, [1.0, np.nan, 2.0]), "y"),
    (lambda: cl.linear_classifier(X3, [1.0, 0.0, 1.0]), "y"),
    (lambda: cl.squared_error([1.0, 2.0], X3, Y3), "w"),
    (lambda: cl.hat_matrix([1.0, 2.0]), "X"),
    (lambda: cl.poly_transform([1.0, 2.0]), "X"),
    (lambda: cl.poly_transform([[1.0, 2.0]], degree=0), "degree"),
    (lambda: cl.circle_target([[1.0, 2.0, 3.0]]), "X"),
    (lambda: cl.make_circle_data(0), "n_samples"),
    (lambda: cl.make_circle_data(10, noise=1.5), "noise"),
    (lambda: cl.theta([0.0, np.nan]), "s"),
    (lambda: cl.theta("abc"), "s"),
    (lambda: cl.cross_entropy_error([0.0, 0.0, 0.0], X3, [1.0, 2.0, 1.0]), "y"),
    (lambda: cl.cross_entropy_gradient([0.0], X3, Y3), "w"),
    (lambda: cl.logistic_regression(X3, Y3, method="newton"), "method"),
    (lambda: cl.logistic_regression(X3, Y3, eta=0.0), "eta"),
    (lambda: cl.logistic_regression(X3, Y3, tol=-1.0), "tol"),
    (lambda: cl.logistic_regression(X3, Y3, max_epochs=0), "max_epochs"),
    (lambda: cl.logistic_regression(X3, Y3, w0=[0.0]), "w0"),
    (lambda: cl.logistic_sgd_epoch([0.0, 0.0, 0.0], X3, Y3, eta=0.1, order=[0, 3]), "order"),
    (lambda: cl.logistic_sgd_epoch([0.0, 0.0, 0.0], X3, Y3, eta=0.1, order=[0.5]), "order"),
    (lambda: cl.logistic_sgd_runs(X3, Y3), "X"),
    (lambda: cl.logistic_sgd_runs(X3[None], Y3), "y"),
    (lambda: cl.logistic_sgd_runs(X3[None], [[1.0, 3.0, 1.0]]), "y"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        call()


# --- pictures ------------------------------------------------------------------------------------

def test_regression_pictures_draw_and_check_their_input():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from course_lib import plotting

    rng = np.random.default_rng(30)
    x = rng.uniform(-1, 1, size=(20, 2))
    y = 1 + x @ [2.0, -1.0] + 0.1 * rng.normal(size=20)
    w = cl.linear_regression(cl.add_bias(x), y)
    ax3 = plotting.plot_regression_fit(x, y, w)
    assert ax3.name == "3d" and len(ax3.lines) == 20                 # one residual per point
    ax1 = plotting.plot_regression_fit(cl.add_bias(x[:, :1]), y, [1.0, 2.0])
    assert len(ax1.lines) == 1
    with pytest.raises(ValueError, match="w"):
        plotting.plot_regression_fit(x, y, [1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match="ax"):
        plotting.plot_regression_fit(x, y, w, ax=plt.subplots()[1])
    with pytest.raises(ValueError, match="curves"):
        plotting.plot_learning_curves([0.5, 0.4])
    with pytest.raises(ValueError, match="prob"):
        plotting.plot_probability_histogram([0.5, 1.5], [1, -1])
    X, yc = cl.make_circle_data(50, rng=31)
    ax = plotting.plot_probability_map(X, yc, [-1.0, 0, 0, 0, 1.5, 1.5], transform=cl.poly_transform)
    assert ax.get_xlabel() == "$x_1$"
    with pytest.raises(ValueError, match="w has 3 weights"):
        plotting.plot_probability_map(X, yc, [0.0, 1.0, 1.0], transform=cl.poly_transform)
    plt.close("all")


# -- statements of the regression notebooks, checked ---------------------------------------

def test_on_the_circle_target_the_least_squares_line_is_no_better_than_a_constant():
    # 04-2: on average, and on most data sets, a line does worse than always answering the majority label
    line, constant = [], []
    for seed in range(60):
        X, y = cl.make_circle_data(1000, noise=0.1, rng=seed)
        Xb = cl.add_bias(X)
        w = cl.linear_classifier(Xb, y)
        line.append(np.mean(np.where(Xb @ w > 0, 1, -1) != y))
        constant.append(min(np.mean(y > 0), np.mean(y < 0)))
    line, constant = np.array(line), np.array(constant)
    assert line.mean() > constant.mean() + 0.015
    assert np.mean(line > constant) > 0.5
    assert line.min() > 0.3                                  # and never anywhere near good
    # and the quadratic transform does far better than both
    w2 = cl.linear_classifier(cl.poly_transform(X), y)
    assert np.mean(np.where(cl.poly_transform(X) @ w2 > 0, 1, -1) != y) < 0.2


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), fraction=st.floats(0.1, 0.99))
def test_gradient_descent_lowers_the_cross_entropy_at_every_step_below_two_over_l(seed, fraction):
    # 04-3: with theta' <= 1/4 the curvature is at most L = lambda_max(X^T X / N) / 4; any eta < 2/L descends
    rng = np.random.default_rng(seed)
    X = cl.add_bias(rng.uniform(-1, 1, size=(60, 2)) * rng.uniform(0.5, 3))
    y = np.where(rng.random(60) < 0.5, 1.0, -1.0)
    L = np.linalg.eigvalsh(X.T @ X / len(y)).max() / 4
    fit = cl.logistic_regression(X, y, eta=fraction * 2 / L, tol=0.0, max_epochs=50)
    assert np.all(np.diff(fit.ein) <= 1e-12)


def test_on_separable_data_the_cross_entropy_has_no_minimiser():
    # 04-3: E_in keeps falling and the weights keep growing; the gradient never vanishes
    X, y, _ = cl.make_separable(50, 2, margin=0.1, rng=2)
    X = cl.add_bias(X)
    fits = [cl.logistic_regression(X, y, eta=1.0, tol=0.0, max_epochs=k) for k in (500, 2000, 8000)]
    norms = [np.linalg.norm(f.w) for f in fits]
    eins = [f.ein[-1] for f in fits]
    assert norms[0] < norms[1] < norms[2] and eins[0] > eins[1] > eins[2] > 0
    assert not any(f.converged for f in fits)
    w = fits[-1].w
    assert cl.cross_entropy_error(2 * w, X, y) < cl.cross_entropy_error(w, X, y)   # longer is always better


def test_descent_paths_repeat_the_fits_step_by_step():
    from course_lib.regression import gradient_descent_path, sgd_path

    rng = np.random.default_rng(4)
    X = cl.add_bias(rng.uniform(-1, 1, size=(30, 2)))
    y = np.where(rng.random(30) < 0.5, 1.0, -1.0)
    path = gradient_descent_path(X, y, eta=0.7, n_steps=12)
    for k in (1, 5, 12):
        np.testing.assert_allclose(path[k], cl.logistic_regression(X, y, eta=0.7, tol=0.0, max_epochs=k).w)
    orders = np.array([rng.permutation(30) for _ in range(3)])
    steps = sgd_path(X, y, eta=0.3, orders=orders)
    w = np.zeros(3)
    for e, order in enumerate(orders):
        w = cl.logistic_sgd_epoch(w, X, y, eta=0.3, order=order)
        np.testing.assert_allclose(steps[(e + 1) * 30], w)
    with pytest.raises(ValueError, match="order"):
        sgd_path(X, y, eta=0.3, orders=[[0, 99]])
