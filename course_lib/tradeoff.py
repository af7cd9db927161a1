"""The approximation-generalization tradeoff: bias and variance, learning curves (*Learning From Data*, 2.3).

For squared error the expected out-of-sample error of the hypothesis g^(D) learned from a
random data set D splits into two parts,

    E_D[E_out(g^(D))] = E_x[(g_bar(x) - f(x))^2] + E_x[E_D[(g^(D)(x) - g_bar(x))^2]]
                      =            bias          +             variance,

where g_bar(x) = E_D[g^(D)(x)] is the average hypothesis. The book's Example 2.8 learns the
target f(x) = sin(pi x) on [-1, 1] from two points with a constant or a line; here also
with a line through the origin (h(x) = a x). Every model is linear in its parameters
(h(x) = a x + b), so every integral over x is done exactly with the moments of x uniform on
[-1, 1]: E[x] = 0, E[x^2] = 1/3, E[x sin(pi x)] = 1/pi, E[sin(pi x)] = 0, E[sin^2(pi x)] = 1/2.
Only the expectation over data sets is estimated, from ``n_datasets`` of them.

:func:`linear_learning_curve` gives the expected E_in and E_out of linear regression on
noisy data against N, to set beside sigma^2 (1 - (d+1)/N) and sigma^2 (1 + (d+1)/N).
"""
import math
from typing import NamedTuple

import numpy as np

from ._validation import check_choice, check_int, check_real

__all__ = ["BIAS_VARIANCE_MODELS", "target", "fit_models", "BiasVariance", "bias_variance", "bias_variance_exact",
           "LearningCurve", "linear_learning_curve"]

BIAS_VARIANCE_MODELS = ("constant", "line_through_origin", "line")

# E_x over x uniform on [-1, 1]
_EX2 = 1.0 / 3.0                 # E[x^2]
_EX_SIN = 1.0 / math.pi          # E[x sin(pi x)]
_E_SIN2 = 0.5                    # E[sin^2(pi x)]


def target(x):
    """The target of Example 2.8, f(x) = sin(pi x).

    Parameters
    ----------
    x : float or array-like
        Points of [-1, 1].

    Examples
    --------
    >>> float(target(0.5))
    1.0
    """
    return np.sin(np.pi * np.asarray(x, dtype=float))


def fit_models(model, x, y):
    """Least-squares fits of one model to many data sets at once.

    Parameters
    ----------
    model : {"constant", "line_through_origin", "line"}
        h(x) = b, h(x) = a x, or h(x) = a x + b.
    x, y : ndarray of shape (n_datasets, n_points)
        One data set per row.

    Returns
    -------
    ndarray of shape (n_datasets, 2)
        (a, b) of every fit. Where the least-squares problem has many solutions (all x of a
        data set equal), the one with a = 0 is taken.

    Examples
    --------
    >>> fit_models("line", np.array([[0.0, 1.0]]), np.array([[1.0, 3.0]])).tolist()
    [[2.0, 1.0]]
    """
    model = check_choice(model, "model", BIAS_VARIANCE_MODELS)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim != 2 or x.shape != y.shape:
        raise ValueError(f"x and y must be 2-D arrays of the same shape (n_datasets, n_points); got {x.shape} and {y.shape}")
    coef = np.zeros((x.shape[0], 2))
    if model == "constant":
        coef[:, 1] = y.mean(axis=1)
    elif model == "line_through_origin":
        sxx = np.sum(x * x, axis=1)
        coef[:, 0] = np.divide(np.sum(x * y, axis=1), sxx, out=np.zeros_like(sxx), where=sxx > 0)
    else:
        xc = x - x.mean(axis=1, keepdims=True)
        sxx = np.sum(xc * xc, axis=1)
        coef[:, 0] = np.divide(np.sum(xc * y, axis=1), sxx, out=np.zeros_like(sxx), where=sxx > 0)
        coef[:, 1] = y.mean(axis=1) - coef[:, 0] * x.mean(axis=1)
    return coef


def _e_out(a, b):
    """E_x[(a x + b - sin(pi x))^2] for x uniform on [-1, 1], exactly."""
    return a * a * _EX2 + b * b - 2 * a * _EX_SIN + _E_SIN2


class BiasVariance(NamedTuple):
    """What :func:`bias_variance` returns."""

    model: str
    """The model: "constant", "line_through_origin" or "line"."""
    n_points: int
    """N, the size of each data set."""
    coefficients: np.ndarray
    """(a, b) of g^(D) for every data set, shape (n_datasets, 2)."""
    g_bar: np.ndarray
    """(a_bar, b_bar): the average hypothesis g_bar(x) = a_bar x + b_bar."""
    bias: float
    """E_x[(g_bar(x) - f(x))^2]."""
    variance: float
    """E_x[E_D[(g^(D)(x) - g_bar(x))^2]]."""
    e_out: float
    """E_D[E_out(g^(D))], averaged over the data sets; equals bias + variance."""
    e_in: float
    """E_D[E_in(g^(D))], the average squared error of each fit on its own data set."""
    e_out_se: float
    """Standard error of ``e_out`` (the deviation of E_out(g^(D)) over sqrt(n_datasets))."""

    def average_hypothesis(self, x):
        """g_bar(x) at the inputs x."""
        return self.g_bar[0] * np.asarray(x, dtype=float) + self.g_bar[1]

    def spread(self, x):
        """sqrt(E_D[(g^(D)(x) - g_bar(x))^2]) at the inputs x: the width of the band around g_bar."""
        c = self.coefficients - self.g_bar
        x = np.asarray(x, dtype=float)
        var_x = np.mean(c[:, 0] ** 2) * x**2 + 2 * np.mean(c[:, 0] * c[:, 1]) * x + np.mean(c[:, 1] ** 2)
        return np.sqrt(np.maximum(var_x, 0.0))


def bias_variance(model, *, n_datasets, n_points=2, rng=None):
    """Bias, variance and E_out of a model learning f(x) = sin(pi x) from N noiseless points.

    Each of ``n_datasets`` data sets has ``n_points`` inputs uniform on [-1, 1] labelled
    y = sin(pi x); the model is fitted by least squares (:func:`fit_models`). The average
    hypothesis g_bar is the average of the fitted (a, b); the integrals over x are exact
    (module docstring), so

        bias     = a_bar^2 / 3 + b_bar^2 - 2 a_bar / pi + 1/2,
        variance = E_D[(a - a_bar)^2 / 3 + (b - b_bar)^2],

    and E_out(g^(D)) = a^2 / 3 + b^2 - 2a / pi + 1/2 for each data set. Only E_D is a Monte
    Carlo average. With two points the book finds bias 0.50, variance 0.25 for the constant
    and bias 0.21, variance 1.69 for the line (Example 2.8).

    Parameters
    ----------
    model : {"constant", "line_through_origin", "line"}
    n_datasets : int
        How many data sets to average over.
    n_points : int, default=2
        N, the points in each data set (at least 2 for "line").
    rng : None, int or numpy.random.Generator

    Returns
    -------
    BiasVariance

    Examples
    --------
    >>> r = bias_variance("constant", n_datasets=100_000, rng=0)
    >>> round(r.bias, 2), round(r.variance, 2), round(r.e_out, 2)
    (0.5, 0.25, 0.75)
    """
    model = check_choice(model, "model", BIAS_VARIANCE_MODELS)
    n_datasets = check_int(n_datasets, "n_datasets", minimum=2)
    n_points = check_int(n_points, "n_points", minimum=2 if model == "line" else 1)
    rng = np.random.default_rng(rng)
    x = rng.uniform(-1.0, 1.0, size=(n_datasets, n_points))
    y = target(x)
    coef = fit_models(model, x, y)
    a, b = coef[:, 0], coef[:, 1]
    a_bar, b_bar = float(a.mean()), float(b.mean())
    bias = float(_e_out(a_bar, b_bar))
    variance = float(np.mean((a - a_bar) ** 2 * _EX2 + (b - b_bar) ** 2))
    e_out_each = _e_out(a, b)
    e_in = float(np.mean((a[:, None] * x + b[:, None] - y) ** 2))
    return BiasVariance(model, n_points, coef, np.array([a_bar, b_bar]), bias, variance, float(e_out_each.mean()),
                        e_in, float(e_out_each.std(ddof=1) / math.sqrt(n_datasets)))


def bias_variance_exact(model):
    """Bias, variance and E_out of Example 2.8 (two points) by numerical integration, without sampling.

    With two inputs x_1, x_2 uniform on [-1, 1], every fit (a, b) is a function of (x_1, x_2),
    so E_D[a], E_D[b] and E_D[E_out(g^(D))] are integrals over the square [-1, 1]^2, computed
    with SciPy's adaptive quadrature (``dblquad``, tolerance 1e-10). The line through two
    points at the same x (a set of measure zero) is given the tangent's slope.

    Parameters
    ----------
    model : {"constant", "line_through_origin", "line"}

    Returns
    -------
    dict
        ``{"g_bar": (a_bar, b_bar), "bias": ..., "variance": ..., "e_out": ...}``.

    Examples
    --------
    >>> r = bias_variance_exact("constant")
    >>> round(r["bias"], 6), round(r["variance"], 6)
    (0.5, 0.25)
    """
    model = check_choice(model, "model", BIAS_VARIANCE_MODELS)
    from scipy import integrate

    def fit(x1, x2):
        y1, y2 = math.sin(math.pi * x1), math.sin(math.pi * x2)
        if model == "constant":
            return 0.0, (y1 + y2) / 2
        if model == "line_through_origin":
            s = x1 * x1 + x2 * x2
            return ((x1 * y1 + x2 * y2) / s if s > 0 else math.pi), 0.0
        a = (y2 - y1) / (x2 - x1) if x2 != x1 else math.pi * math.cos(math.pi * x1)
        return a, y1 - a * x1

    def mean(g):
        return integrate.dblquad(lambda x2, x1: g(*fit(x1, x2)) / 4, -1, 1, -1, 1, epsabs=1e-10, epsrel=1e-10)[0]

    a_bar, b_bar = mean(lambda a, b: a), mean(lambda a, b: b)
    e_out = mean(_e_out)
    bias = float(_e_out(a_bar, b_bar))
    return {"g_bar": (a_bar, b_bar), "bias": bias, "variance": e_out - bias, "e_out": e_out}


class LearningCurve(NamedTuple):
    """Expected E_in and E_out of linear regression against N (what :func:`linear_learning_curve` returns)."""

    n: np.ndarray
    """The sample sizes N, shape (K,)."""
    e_in: np.ndarray
    """E_in averaged over the data sets, shape (K,)."""
    e_out: np.ndarray
    """E_out averaged over the data sets, shape (K,)."""
    e_in_se: np.ndarray
    """Standard errors of ``e_in``."""
    e_out_se: np.ndarray
    """Standard errors of ``e_out``."""
    sigma: float
    """The noise's standard deviation."""
    d: int
    """The input dimension (the model has d + 1 weights)."""

    def e_in_reference(self):
        """sigma^2 (1 - (d+1)/N), the exact expectation of E_in."""
        return self.sigma**2 * (1 - (self.d + 1) / self.n)

    def e_out_reference(self):
        """sigma^2 (1 + (d+1)/N), what E_out approaches for large N."""
        return self.sigma**2 * (1 + (self.d + 1) / self.n)


def linear_learning_curve(n_values, *, d, sigma, n_datasets, rng=None):
    """Expected E_in and E_out of linear regression with noise, against the number of examples N.

    Inputs x = (1, x_1, ..., x_d) with x_i uniform on [-1, 1], a target y = w*^T x + noise,
    the noise normal with standard deviation ``sigma``, w* drawn once (standard normal; the
    errors of linear regression do not depend on it). For each N, ``n_datasets`` data sets are
    fitted by least squares. E_out(w) = sigma^2 + (w - w*)^T S (w - w*) with
    S = E[x x^T] = diag(1, 1/3, ..., 1/3), exactly: no test set is drawn.

    E_D[E_in] = sigma^2 (1 - (d+1)/N) exactly (*Learning From Data*, Exercise 3.4);
    E_D[E_out] = sigma^2 (1 + tr(S E[(X^T X)^{-1}])), which lies above
    sigma^2 (1 + (d+1)/N) (the inverse is convex) and approaches it as N grows.

    Close to N = d + 1 the averages are ruled by rare data sets whose inputs nearly lie on
    a hyperplane: there P(smallest eigenvalue of X^T X < t) falls only like t^((N-d)/2), as
    for Gaussian inputs. So E_D[E_out] is infinite for N = d + 2, and for N <= d + 4 the
    E_out of single data sets has an infinite variance: the average still converges (for
    N >= d + 3) but slowly and erratically, and ``e_out_se`` means little. Use N >= d + 5
    where the standard errors are to be trusted.

    Parameters
    ----------
    n_values : array-like of int
        The sample sizes, each > d + 1 (see above for N < d + 5).
    d : int
        Input dimension, >= 1.
    sigma : float
        Noise level, >= 0.
    n_datasets : int
    rng : None, int or numpy.random.Generator

    Returns
    -------
    LearningCurve

    Examples
    --------
    >>> curve = linear_learning_curve([10, 100], d=2, sigma=0.5, n_datasets=4000, rng=0)
    >>> bool(abs(curve.e_in[0] - 0.25 * (1 - 3 / 10)) < 4 * curve.e_in_se[0])
    True
    """
    n_values = np.asarray(n_values)
    d = check_int(d, "d", minimum=1)
    if n_values.ndim != 1 or n_values.size == 0 or not np.issubdtype(n_values.dtype, np.integer) \
            or n_values.min() <= d + 1:
        raise ValueError(f"n_values must be a 1-D array of whole numbers above d + 1 = {d + 1}; got {n_values!r}")
    sigma = check_real(sigma, "sigma", low=0.0)
    n_datasets = check_int(n_datasets, "n_datasets", minimum=2)
    rng = np.random.default_rng(rng)
    w_star = rng.standard_normal(d + 1)
    S = np.diag([1.0] + [1.0 / 3.0] * d)
    e_in, e_out, e_in_se, e_out_se = (np.empty(len(n_values)) for _ in range(4))
    for j, n in enumerate(n_values):
        X = np.concatenate([np.ones((n_datasets, int(n), 1)), rng.uniform(-1, 1, size=(n_datasets, int(n), d))], axis=2)
        y = X @ w_star + sigma * rng.standard_normal((n_datasets, int(n)))
        w = np.linalg.solve(np.swapaxes(X, 1, 2) @ X, np.einsum("snd,sn->sd", X, y)[..., None])[..., 0]
        ein = np.mean((np.einsum("snd,sd->sn", X, w) - y) ** 2, axis=1)
        dw = w - w_star
        eout = sigma**2 + np.einsum("sd,de,se->s", dw, S, dw)
        e_in[j], e_out[j] = ein.mean(), eout.mean()
        e_in_se[j], e_out_se[j] = ein.std(ddof=1) / math.sqrt(n_datasets), eout.std(ddof=1) / math.sqrt(n_datasets)
    return LearningCurve(n_values.astype(int), e_in, e_out, e_in_se, e_out_se, float(sigma), d)
