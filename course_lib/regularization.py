"""Regularization: weight decay seen three ways, and the L1 regularizer beside it.

Weight decay (``linear_regression(Z, y, weight_decay=lam)`` in :mod:`course_lib.regression`)
minimises the augmented error E_aug(w) = E_in(w) + (lambda / N) ||w||^2, whose minimiser is
w_reg = (Z^T Z + lambda I)^{-1} Z^T y. This module adds what the lecture needs around it:

* :func:`weight_decay_path` — w_reg for many lambda at once, from one SVD of Z;
* :func:`constrained_regression` — the same fit seen as minimising E_in under a budget
  ||w||^2 <= C, and the lambda that budget corresponds to;
* :func:`d_eff` — the effective number of parameters, trace of the hat matrix
  H(lambda) = Z (Z^T Z + lambda I)^{-1} Z^T;
* :func:`l1_regression` — the L1 regularizer (lambda / N) sum_q |w_q| in place of the
  squared one, whose minimisers have many weights exactly 0.

As everywhere in the course, every weight, w_0 included, is penalised (as in *Learning From
Data*), and Z holds the constant feature as its first column.
"""
from typing import NamedTuple

import numpy as np

from ._validation import check_int, check_matrix, check_real, check_vector

__all__ = ["weight_decay_path", "constrained_regression", "ConstrainedFit", "d_eff", "l1_regression"]


def _check_Zy(Z, y):
    Z = check_matrix(Z, "Z")
    y = check_vector(y, "y")
    if y.shape[0] != Z.shape[0]:
        raise ValueError(f"Z and y must have the same number of examples; Z has {Z.shape[0]} rows, y has {y.shape[0]} values")
    return Z, y


def _check_lambdas(weight_decay, name="weight_decay"):
    """lambda >= 0 as a float array (any shape) and whether it was a single number."""
    try:
        lam = np.asarray(weight_decay, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number >= 0 or an array of them; got {weight_decay!r}") from None
    if lam.size == 0 or not np.all(np.isfinite(lam)) or np.any(lam < 0):
        raise ValueError(f"{name} must be a finite number >= 0 or an array of them; got {weight_decay!r}")
    return lam, lam.ndim == 0


def _svd(Z):
    U, s, Vt = np.linalg.svd(Z, full_matrices=False)
    return U, s, Vt


def weight_decay_path(Z, y, weight_decays):
    """The weight-decay weights w_reg(lambda) = (Z^T Z + lambda I)^{-1} Z^T y for many lambda.

    With the singular value decomposition Z = U S V^T,
    w_reg(lambda) = V diag(s_i / (s_i^2 + lambda)) U^T y: one decomposition serves every
    lambda. At lambda = 0 the least-squares weights of smallest norm (directions with
    s_i = 0 get no weight), as :func:`course_lib.regression.linear_regression` returns.

    Parameters
    ----------
    Z : array-like of shape (N, d + 1)
    y : array-like of shape (N,)
    weight_decays : array-like of float, shape (L,)
        The lambdas, each >= 0.

    Returns
    -------
    ndarray of shape (L, d + 1)
        Row l is w_reg for ``weight_decays[l]``.

    Examples
    --------
    >>> from course_lib.regression import linear_regression
    >>> Z = [[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]
    >>> W = weight_decay_path(Z, [1.0, 2.0, 4.0], [0.0, 1.0])
    >>> bool(np.allclose(W[1], linear_regression(Z, [1.0, 2.0, 4.0], weight_decay=1.0)))
    True
    """
    Z, y = _check_Zy(Z, y)
    lam, _ = _check_lambdas(weight_decays, "weight_decays")
    lam = np.atleast_1d(lam)
    if lam.ndim != 1:
        raise ValueError(f"weight_decays must be a 1-D array of lambdas; got shape {lam.shape}")
    U, s, Vt = _svd(Z)
    tol = (s[0] if s.size else 0.0) * max(Z.shape) * np.finfo(float).eps
    uy = U.T @ y
    denom = s[None, :] ** 2 + lam[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(s[None, :] > tol, s[None, :] / denom, 0.0)
    return (factor * uy[None, :]) @ Vt


def d_eff(Z, weight_decay):
    """The effective number of parameters of weight decay: d_eff(lambda) = trace H(lambda).

    H(lambda) = Z (Z^T Z + lambda I)^{-1} Z^T maps the targets to the fitted values of
    weight decay, y_hat = H(lambda) y. At lambda = 0 it is the hat matrix of least squares,
    whose trace is the number of free parameters, rank(Z) (d + 1 for independent columns).
    With the singular values s_i of Z,

        d_eff(lambda) = sum_i s_i^2 / (s_i^2 + lambda),

    each direction counting for between 0 and 1: d_eff falls from rank(Z) towards 0 as
    lambda grows. It is the number of parameters the regularised model behaves as if it
    had (*Learning From Data*, section 4.2, where other definitions are discussed as well).

    Parameters
    ----------
    Z : array-like of shape (N, d + 1)
        The (transformed) inputs, the constant feature included.
    weight_decay : float or array-like of float
        lambda >= 0.

    Returns
    -------
    float, or ndarray of the shape of ``weight_decay``

    Examples
    --------
    >>> Z = [[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]
    >>> d_eff(Z, 0.0)
    2.0
    >>> bool(d_eff(Z, 1.0) < 2.0), d_eff(Z, [0.0, 1e12]).round(6).tolist()
    (True, [2.0, 0.0])
    """
    Z = check_matrix(Z, "Z")
    lam, scalar = _check_lambdas(weight_decay)
    s = np.linalg.svd(Z, compute_uv=False)
    tol = (s[0] if s.size else 0.0) * max(Z.shape) * np.finfo(float).eps
    s2 = s[s > tol] ** 2
    out = np.sum(s2 / (s2 + lam[..., None]), axis=-1)
    return float(out) if scalar else out


class ConstrainedFit(NamedTuple):
    """What :func:`constrained_regression` returns."""

    w: np.ndarray
    """The weights: the smallest E_in among all w with ||w||^2 <= budget."""
    weight_decay: float
    """The lambda whose weight decay gives the same w (0 when the budget does not bind)."""


def constrained_regression(Z, y, *, budget, tol=1e-12):
    """Least squares under a budget on the weights: minimise E_in(w) subject to ||w||^2 <= C.

    If the least-squares weights w_lin already satisfy ||w_lin||^2 <= C, they are the
    answer (and lambda = 0). Otherwise the constraint binds: at the solution the gradient of
    E_in points straight against w, grad E_in(w) = -(2 lambda / N) w for some lambda > 0,
    which is the condition for the minimum of the augmented error
    E_in(w) + (lambda / N) ||w||^2 (weight decay). ||w_reg(lambda)||^2 falls steadily as
    lambda grows, so the one lambda with ||w_reg(lambda)||^2 = C is found by bisection on
    log lambda. A smaller budget C means a larger lambda.

    Parameters
    ----------
    Z : array-like of shape (N, d + 1)
    y : array-like of shape (N,)
    budget : float
        C > 0.
    tol : float, default=1e-12
        Relative accuracy of ||w||^2 against C.

    Returns
    -------
    ConstrainedFit
        ``(w, weight_decay)``.

    Examples
    --------
    >>> Z = [[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]
    >>> fit = constrained_regression(Z, [1.0, 3.0, 5.0], budget=1.0)
    >>> round(float(fit.w @ fit.w), 9), bool(fit.weight_decay > 0)
    (1.0, True)
    """
    Z, y = _check_Zy(Z, y)
    C = check_real(budget, "budget", low=0.0, low_open=True)
    tol = check_real(tol, "tol", low=0.0, low_open=True)
    U, s, Vt = _svd(Z)
    cut = (s[0] if s.size else 0.0) * max(Z.shape) * np.finfo(float).eps
    keep = s > cut
    s, uy = s[keep], (U.T @ y)[keep]
    Vt = Vt[keep]

    def weights(lam):
        return (s * uy / (s * s + lam)) @ Vt

    def norm2(lam):
        return float(np.sum((s * uy / (s * s + lam)) ** 2))

    if norm2(0.0) <= C:
        return ConstrainedFit(weights(0.0), 0.0)
    lo, hi = -300.0, 1.0                                 # bracket log10(lambda): norm2 is decreasing in lambda
    while norm2(10.0 ** hi) > C:
        hi += 2.0
    while hi - lo > 1e-15 * max(1.0, abs(hi)):
        mid = 0.5 * (lo + hi)
        n2 = norm2(10.0 ** mid)
        if abs(n2 - C) <= tol * C:
            lo = hi = mid
            break
        lo, hi = (mid, hi) if n2 > C else (lo, mid)
    lam = 10.0 ** (0.5 * (lo + hi))
    return ConstrainedFit(weights(lam), float(lam))


def _l1_polish(G, c, w, lam):
    """The exact minimiser with w's signs, or None: solve on the support, then check every optimality condition.

    On the support S with signs s the optimum solves G_SS w_S = c_S - (lam / 2) s; it is
    the minimiser when those weights keep their signs and every weight held at 0 has
    |2 (G w - c)_j| <= lam.
    """
    S = np.flatnonzero(w)
    if S.size == 0:
        out = np.zeros_like(w)
    else:
        signs = np.sign(w[S])
        try:
            wS = np.linalg.solve(G[np.ix_(S, S)], c[S] - 0.5 * lam * signs)
        except np.linalg.LinAlgError:
            return None
        if np.any(np.sign(wS) != signs):
            return None
        out = np.zeros_like(w)
        out[S] = wS
    grad = 2.0 * (G @ out - c)
    slack = 1e-9 * max(lam, float(np.max(np.abs(2.0 * c))), 1e-300)
    off = np.ones(len(w), dtype=bool)
    off[S] = False
    if np.any(np.abs(grad[off]) > lam + slack):
        return None
    return out


def l1_regression(Z, y, *, penalty, tol=1e-10, max_steps=100_000):
    """The L1 regularizer: minimise (1/N) ||Z w - y||^2 + (penalty / N) sum_q |w_q|.

    The same augmented error as weight decay (``linear_regression(Z, y,
    weight_decay=lambda)`` minimises (1/N) ||Z w - y||^2 + (lambda / N) ||w||^2) with |w_q| in
    place of w_q^2. The absolute value has a corner at 0, and that corner holds many weights
    at exactly 0: the solution is *sparse*, it keeps only the features that pay for
    themselves. Every weight, w_0 included, is penalised.

    The objective is convex. It is minimised by accelerated proximal gradient steps (FISTA:
    a gradient step on the squared error, then every weight shrunk towards 0 by the same
    amount and set to 0 if it would cross it), and every 20 steps the guess is made exact:
    with the current nonzero weights and their signs, the optimum solves one linear system,
    and it is returned once it keeps those signs and every weight held at 0 meets the
    optimality condition |2 z_q^T (Z w - y)| <= penalty.

    It equals scikit-learn's ``Lasso(alpha=penalty / (2 N), fit_intercept=False)``.

    Parameters
    ----------
    Z : array-like of shape (N, d + 1)
    y : array-like of shape (N,)
    penalty : float
        lambda >= 0; at 0 the least-squares weights (when they are unique).
    tol : float, default=1e-10
        For data where the exact step fails (dependent features): stop when a step moves no
        weight by more than ``tol`` relative to the largest.
    max_steps : int, default=100_000

    Returns
    -------
    ndarray of shape (d + 1,)

    Raises
    ------
    RuntimeError
        When ``max_steps`` steps did not converge.

    Examples
    --------
    With orthogonal features each weight is shrunk by the same amount, and the small ones
    become exactly 0:

    >>> Z = np.array([[1.0, 1.0, 1.0], [1.0, -1.0, 1.0], [1.0, 1.0, -1.0], [1.0, -1.0, -1.0]])
    >>> l1_regression(Z, Z @ [2.0, 0.3, -1.0], penalty=2.0).round(9).tolist()
    [1.75, 0.05, -0.75]
    >>> l1_regression(Z, Z @ [2.0, 0.3, -1.0], penalty=4.0).round(9).tolist()
    [1.5, 0.0, -0.5]
    """
    Z, y = _check_Zy(Z, y)
    lam = check_real(penalty, "penalty", low=0.0)
    tol = check_real(tol, "tol", low=0.0, low_open=True)
    max_steps = check_int(max_steps, "max_steps", minimum=1)
    G, c = Z.T @ Z, Z.T @ y
    L = 2.0 * float(np.linalg.eigvalsh(G)[-1])           # the gradient 2 (G w - c) is L-Lipschitz
    d = Z.shape[1]
    if L == 0.0:
        return np.zeros(d)
    w = np.zeros(d)
    v, t = w.copy(), 1.0

    def objective(u):
        return float(u @ G @ u - 2.0 * c @ u + lam * np.sum(np.abs(u)))

    last = objective(w)
    for step in range(1, max_steps + 1):
        z = v - 2.0 * (G @ v - c) / L
        new = np.sign(z) * np.maximum(np.abs(z) - lam / L, 0.0)
        value = objective(new)
        if value > last + 1e-13 * abs(last):              # the momentum overshot: restart it from w
            v, t = w.copy(), 1.0
            continue
        t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        v = new + ((t - 1.0) / t_next) * (new - w)
        move = float(np.max(np.abs(new - w)))
        w, t, last = new, t_next, min(value, last)
        if step % 20 == 0 or move == 0.0:
            exact = _l1_polish(G, c, w, lam)
            if exact is not None:
                return exact
        if move <= tol * max(1.0, float(np.max(np.abs(w)))):
            return w
    raise RuntimeError(f"l1_regression did not converge in {max_steps} steps; raise max_steps or tol")
