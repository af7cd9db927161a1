"""course_lib.tradeoff: bias and variance against numerical integration, learning curves against closed forms.

The references for Example 2.8 are computed here by two-dimensional quadrature over the two
inputs (scipy.integrate.dblquad): E_D[a], E_D[b] and E_D[E_out(g^(D))] for each model. The
Monte Carlo averages of course_lib must lie within 5 standard errors of them (a correct
implementation fails with probability below 1e-6 per comparison).
"""
import math

import numpy as np
import pytest
from scipy import integrate

import course_lib as cl
from course_lib import tradeoff


def fit_one(model, x1, x2):
    """(a, b) of the least-squares fit to the two points (x1, sin pi x1), (x2, sin pi x2)."""
    y1, y2 = math.sin(math.pi * x1), math.sin(math.pi * x2)
    if model == "constant":
        return 0.0, (y1 + y2) / 2
    if model == "line_through_origin":
        s = x1 * x1 + x2 * x2
        return ((x1 * y1 + x2 * y2) / s if s > 0 else 0.0), 0.0
    a = (y2 - y1) / (x2 - x1) if x2 != x1 else math.pi * math.cos(math.pi * x1)
    return a, y1 - a * x1


def expectation(model, g):
    value, _ = integrate.dblquad(lambda x2, x1: g(*fit_one(model, x1, x2)) / 4, -1, 1, -1, 1, epsabs=1e-10,
                                 epsrel=1e-10)
    return value


def e_out_exact(a, b, n_grid=200_001):
    """E_x[(a x + b - sin(pi x))^2] by the trapezoidal rule on a fine grid (an independent route)."""
    x = np.linspace(-1, 1, n_grid)
    return float(np.trapezoid((a * x + b - np.sin(np.pi * x)) ** 2, x) / 2)


@pytest.fixture(scope="module")
def references():
    out = {}
    for model in tradeoff.BIAS_VARIANCE_MODELS:
        a_bar = expectation(model, lambda a, b: a)
        b_bar = expectation(model, lambda a, b: b)
        e_out = expectation(model, lambda a, b: a * a / 3 + b * b - 2 * a / math.pi + 0.5)
        bias = e_out_exact(a_bar, b_bar)
        out[model] = {"a_bar": a_bar, "b_bar": b_bar, "bias": bias, "variance": e_out - bias, "e_out": e_out}
    return out


@pytest.mark.parametrize("model", tradeoff.BIAS_VARIANCE_MODELS)
def test_bias_variance_within_monte_carlo_error_of_quadrature(model, references):
    ref = references[model]
    n = 200_000
    r = cl.bias_variance(model, n_datasets=n, rng=11)
    assert r.e_out == pytest.approx(r.bias + r.variance, abs=1e-10)            # the decomposition, exactly
    assert abs(r.e_out - ref["e_out"]) <= 5 * r.e_out_se
    se_a = r.coefficients[:, 0].std() / math.sqrt(n)
    se_b = r.coefficients[:, 1].std() / math.sqrt(n)
    assert abs(r.g_bar[0] - ref["a_bar"]) <= 5 * se_a + 1e-12
    assert abs(r.g_bar[1] - ref["b_bar"]) <= 5 * se_b + 1e-12
    # bias is a smooth function of (a_bar, b_bar): its error is at most |d bias / d a| 5 se_a + |d bias / d b| 5 se_b
    slope_a = abs(2 * ref["a_bar"] / 3 - 2 / math.pi) + 1e-3
    slope_b = abs(2 * ref["b_bar"]) + 1e-3
    assert abs(r.bias - ref["bias"]) <= 5 * (slope_a * se_a + slope_b * se_b) + 1e-6
    assert abs(r.variance - ref["variance"]) <= abs(r.e_out - ref["e_out"]) + abs(r.bias - ref["bias"]) + 1e-9


def test_example_2_8_figures(references):
    # the constant: exactly bias 1/2, variance 1/4 (b = (sin pi x1 + sin pi x2) / 2 has mean 0, variance 1/4)
    assert references["constant"]["bias"] == pytest.approx(0.5, abs=1e-9)
    assert references["constant"]["variance"] == pytest.approx(0.25, abs=1e-9)
    # the line: the book prints bias 0.21, variance 1.69, E_out 1.90; the integrals give 0.207, 1.676, 1.883
    line = references["line"]
    assert round(line["bias"], 2) == 0.21
    assert line["variance"] == pytest.approx(1.676, abs=5e-4) and line["e_out"] == pytest.approx(1.883, abs=5e-4)
    # h(x) = a x: a_bar 1.43, bias 0.27, variance 0.24
    origin = references["line_through_origin"]
    assert (round(origin["a_bar"], 2), round(origin["bias"], 2), round(origin["variance"], 2)) == (1.43, 0.27, 0.24)


def test_fits_agree_with_numpy_least_squares():
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, size=(50, 5))
    y = np.sin(np.pi * x) + 0.1 * rng.standard_normal((50, 5))
    for model, columns in [("constant", lambda v: np.ones((len(v), 1))), ("line_through_origin", lambda v: v[:, None]),
                           ("line", lambda v: np.column_stack([v, np.ones(len(v))]))]:
        coef = tradeoff.fit_models(model, x, y)
        for row in range(50):
            w, *_ = np.linalg.lstsq(columns(x[row]), y[row], rcond=None)
            want = {"constant": (0.0, w[0]), "line_through_origin": (w[0], 0.0), "line": tuple(w)}[model]
            np.testing.assert_allclose(coef[row], want, atol=1e-12)


def test_e_in_of_the_line_through_two_points_is_zero_and_the_band_is_the_variance():
    r = cl.bias_variance("line", n_datasets=5000, rng=3)
    assert r.e_in == pytest.approx(0.0, abs=1e-20)
    x = np.linspace(-1, 1, 7)
    g = r.coefficients[:, :1] * x + r.coefficients[:, 1:]
    np.testing.assert_allclose(r.spread(x), g.std(axis=0), rtol=1e-9)
    np.testing.assert_allclose(r.average_hypothesis(x), g.mean(axis=0), atol=1e-12)
    # the variance is the band's square averaged over x uniform on [-1, 1]
    grid = np.linspace(-1, 1, 20_001)
    assert np.trapezoid(r.spread(grid) ** 2, grid) / 2 == pytest.approx(r.variance, rel=1e-6)


def test_bias_variance_is_reproducible_and_uses_rng():
    a = cl.bias_variance("line", n_datasets=100, rng=5)
    b = cl.bias_variance("line", n_datasets=100, rng=np.random.default_rng(5))
    c = cl.bias_variance("line", n_datasets=100, rng=6)
    assert np.array_equal(a.coefficients, b.coefficients) and not np.array_equal(a.coefficients, c.coefficients)


def test_more_points_lower_the_variance_of_the_line_below_that_of_the_constant():
    small = {m: cl.bias_variance(m, n_datasets=20_000, n_points=2, rng=7) for m in ("constant", "line")}
    large = {m: cl.bias_variance(m, n_datasets=20_000, n_points=20, rng=8) for m in ("constant", "line")}
    assert small["line"].e_out > small["constant"].e_out
    assert large["line"].e_out < large["constant"].e_out
    assert large["line"].variance < small["line"].variance / 10


def test_linear_learning_curve_against_sigma_squared_times_one_plus_minus_d_plus_1_over_n():
    curve = cl.linear_learning_curve([6, 12, 40, 200], d=3, sigma=0.7, n_datasets=6000, rng=9)
    # E[E_in] = sigma^2 (1 - (d+1)/N) exactly
    assert np.all(np.abs(curve.e_in - curve.e_in_reference()) <= 5 * curve.e_in_se)
    # E[E_out] lies above sigma^2 (1 + (d+1)/N) and approaches it
    assert np.all(curve.e_out >= curve.e_out_reference() - 5 * curve.e_out_se)
    excess = (curve.e_out - curve.e_out_reference()) / curve.sigma**2
    assert excess[-1] < 0.01 < excess[0]


def test_linear_learning_curve_e_out_is_the_error_on_fresh_points():
    """E_out(w) = sigma^2 + (w - w*)^T S (w - w*) against a large test set, for one fit (scikit-learn's)."""
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(10)
    d, sigma, w_star = 2, 0.5, np.array([0.3, -1.0, 2.0])
    X = rng.uniform(-1, 1, size=(15, d))
    y = w_star[0] + X @ w_star[1:] + sigma * rng.standard_normal(15)
    fit = LinearRegression().fit(X, y)
    w = np.concatenate([[fit.intercept_], fit.coef_])
    S = np.diag([1.0, 1 / 3, 1 / 3])
    formula = sigma**2 + (w - w_star) @ S @ (w - w_star)
    Xt = rng.uniform(-1, 1, size=(2_000_000, d))
    yt = w_star[0] + Xt @ w_star[1:] + sigma * rng.standard_normal(len(Xt))
    assert np.mean((fit.predict(Xt) - yt) ** 2) == pytest.approx(formula, rel=5e-3)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="model must be one of"):
        cl.bias_variance("quadratic", n_datasets=10)
    with pytest.raises(ValueError, match="n_points must be at least 2"):
        cl.bias_variance("line", n_datasets=10, n_points=1)
    with pytest.raises(ValueError, match="above d \\+ 1"):
        cl.linear_learning_curve([3, 10], d=2, sigma=1.0, n_datasets=10)
