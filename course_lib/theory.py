"""Why PLA halts: the quantities of Novikoff's proof and a step-by-step check of it.

Machine Learning Foundations, Lecture 2 ("Guarantee of PLA"): if a perfect w_f
separates the data, with

    R^2 = max_n ||x_n||^2        rho = min_n y_n w_f^T x_n / ||w_f||,

then PLA started at w_0 = 0 makes at most T <= R^2 / rho^2 corrections, because

1. w_f^T w_{t+1} >= w_f^T w_t + min_n y_n w_f^T x_n      (the inner product climbs),
2. ||w_{t+1}||^2 <= ||w_t||^2 + max_n ||x_n||^2          (but grows slowly: mistakes only),
3. so after T corrections  w_f^T w_T / (||w_f|| ||w_T||) >= sqrt(T) rho / R,
   and the left side is a cosine, at most 1.

With a learning rate eta the two increments are scaled by eta and eta^2 and
inequality 3 is unchanged. :func:`check_novikoff` checks every inequality along an
actual PLA trajectory.
"""
from typing import NamedTuple

import numpy as np

from ._validation import check_matrix, check_real, check_weights, check_Xy

__all__ = ["radius", "margin", "novikoff_bound", "bias_form_bound", "check_novikoff", "NovikoffCheck"]

_RTOL = 1e-9  # slack for floating-point rounding in the checks


def radius(X):
    """R = max_n ||x_n||: the length of the longest example (x0 included if present).

    Parameters
    ----------
    X : array-like of shape (N, d)
        The examples (with x0 = 1 in the first column, if it is there).

    Examples
    --------
    >>> float(radius([[1.0, 3.0, 4.0], [1.0, 0.0, 1.0]]))
    5.0990195135927845
    """
    X = check_matrix(X, "X")
    return float(np.sqrt(np.max(np.einsum("ij,ij->i", X, X))))


def margin(w_f, X, y):
    """rho = min_n y_n w_f^T x_n / ||w_f||: how safely the worst example is separated by w_f.

    Positive exactly when w_f separates the data (with sign(0) = -1, a point on the
    boundary gives rho = 0).

    Parameters
    ----------
    w_f : array-like of shape (d + 1,)
        Weights of a separating perceptron (the target's, say).
    X : array-like of shape (N, d + 1)
        Inputs with the constant coordinate x0 = 1.
    y : array-like of shape (N,)
        Labels +1 or -1.

    Examples
    --------
    >>> float(margin([0.0, 1.0, 0.0], [[1.0, 2.0, 5.0], [1.0, -0.5, 1.0]], [1, -1]))
    0.5
    """
    X, y = check_Xy(X, y)
    w_f = check_weights(w_f, X.shape[1], "w_f")
    norm = np.linalg.norm(w_f)
    if norm == 0:
        raise ValueError("w_f must not be the zero vector")
    return float(np.min(y * (X @ w_f)) / norm)


def novikoff_bound(X, y, w_f):
    """The bound R^2 / rho^2 on the number of PLA corrections (w_f must separate the data).

    Parameters
    ----------
    X : array-like of shape (N, d + 1)
        Inputs with the constant coordinate x0 = 1.
    y : array-like of shape (N,)
        Labels +1 or -1.
    w_f : array-like of shape (d + 1,)
        Weights of a separating perceptron (the target's, say).

    Examples
    --------
    >>> round(novikoff_bound([[1.0, 2.0, 0.0], [1.0, -2.0, 0.0]], [1, -1], [0.0, 1.0, 0.0]), 6)
    1.25
    """
    X, y = check_Xy(X, y)
    rho = margin(w_f, X, y)
    if rho <= 0:
        raise ValueError(f"w_f does not separate the data (rho = {rho:.3g} <= 0): the bound needs a perfect w_f")
    return radius(X) ** 2 / rho**2


def bias_form_bound(X, y, w, b):
    """Novikoff's bound (2R / gamma)^2 for the perceptron with a separate bias.

    For raw inputs X (no x0 column), R = max ||x_i|| and gamma is the margin of a
    separating (w, b) rescaled so that ||w|| = 1:
    gamma = min_i y_i (w^T x_i + b) / ||w||. The bound holds when |b| / ||w|| <= R,
    which is true of any (w, b) whose boundary passes through the data's ball.

    Parameters
    ----------
    X : array-like of shape (N, d)
        Raw inputs (no x0 column).
    y : array-like of shape (N,)
        Labels +1 or -1.
    w : array-like of shape (d,)
        Weights of a separating hyperplane.
    b : float
        Its bias.

    Examples
    --------
    >>> round(bias_form_bound([[1.0, 1.0], [-1.0, -1.0]], [1, -1], [1.0, 1.0], 0.0), 6)
    4.0
    """
    X, y = check_Xy(X, y)
    w = check_weights(w, X.shape[1])
    b = check_real(b, "b")
    norm = np.linalg.norm(w)
    if norm == 0:
        raise ValueError("w must not be the zero vector")
    gamma = float(np.min(y * (X @ w + b)) / norm)
    if gamma <= 0:
        raise ValueError(f"(w, b) does not separate the data (gamma = {gamma:.3g} <= 0)")
    return (2 * radius(X) / gamma) ** 2


class NovikoffCheck(NamedTuple):
    """Every quantity of the proof along one PLA trajectory (arrays over t = 0..T)."""

    inner: np.ndarray
    """w_f^T w_t / ||w_f||."""
    inner_lower: np.ndarray
    """Lower bound on ``inner[t]`` from step 1: inner[t-1] + eta rho (inner[0] itself at t = 0)."""
    norm_sq: np.ndarray
    """||w_t||^2."""
    norm_sq_upper: np.ndarray
    """Upper bound on ``norm_sq[t]`` from step 2: norm_sq[t-1] + eta^2 R^2."""
    cosine: np.ndarray
    """w_f^T w_t / (||w_f|| ||w_t||) (0 where w_t = 0)."""
    cosine_lower: np.ndarray
    """sqrt(t) rho / R, the lower bound of step 3."""
    was_mistake: np.ndarray
    """For each update t: y_n w_t^T x_n <= 0 for the example n(t) it corrected."""
    bound: float
    """R^2 / rho^2."""

    @property
    def inner_ok(self):
        """Step 1 holds at every t."""
        return bool(np.all(self.inner >= self.inner_lower - _RTOL * (1 + np.abs(self.inner_lower))))

    @property
    def norm_ok(self):
        """Step 2 holds at every t."""
        return bool(np.all(self.norm_sq <= self.norm_sq_upper + _RTOL * (1 + self.norm_sq_upper)))

    @property
    def cosine_ok(self):
        """Step 3 holds at every t."""
        return bool(np.all(self.cosine >= self.cosine_lower - _RTOL))

    @property
    def within_bound(self):
        """T <= R^2 / rho^2."""
        return len(self.inner) - 1 <= self.bound * (1 + _RTOL)

    @property
    def holds(self):
        """Every inequality of the proof holds along the trajectory."""
        return bool(np.all(self.was_mistake)) and self.inner_ok and self.norm_ok and self.cosine_ok and self.within_bound


def check_novikoff(trajectory, corrected, X, y, w_f, *, eta=1.0):
    """Check every inequality of Novikoff's proof along a PLA trajectory.

    Parameters
    ----------
    trajectory : array-like of shape (T + 1, d + 1)
        The weights w_0 = 0, w_1, ..., w_T (``pla(...).trajectory``).
    corrected : array-like of shape (T,)
        Index of the example each update corrected (``pla(...).corrected``).
    X, y : the training data (X with the x0 column).
    w_f : array-like of shape (d + 1,)
        A perfect separator of (X, y).
    eta : float, default=1.0
        The learning rate PLA used.

    Returns
    -------
    NovikoffCheck
        The quantities and bounds over t; ``.holds`` is True when all steps hold.

    Examples
    --------
    >>> from course_lib import make_separable, add_bias, pla
    >>> X, y, w_f = make_separable(40, 2, margin=0.1, rng=3)
    >>> X = add_bias(X)
    >>> run = pla(X, y)
    >>> check = check_novikoff(run.trajectory, run.corrected, X, y, w_f)
    >>> check.holds, run.n_updates <= check.bound
    (True, True)
    """
    X, y = check_Xy(X, y)
    w_f = check_weights(w_f, X.shape[1], "w_f")
    eta = check_real(eta, "eta", low=0.0, low_open=True)
    W = check_matrix(trajectory, "trajectory")
    if W.shape[1] != X.shape[1]:
        raise ValueError(f"trajectory has {W.shape[1]} columns but X has {X.shape[1]}")
    if np.any(W[0] != 0):
        raise ValueError("trajectory[0] must be the zero vector: the proof starts PLA from w_0 = 0")
    idx = np.asarray(corrected)
    if idx.shape != (W.shape[0] - 1,) or (idx.size and not np.issubdtype(idx.dtype, np.integer)):
        raise ValueError(f"corrected must hold {W.shape[0] - 1} integer indices (one per update); got shape {idx.shape}")
    if idx.size and (idx.min() < 0 or idx.max() >= X.shape[0]):
        raise ValueError(f"corrected holds an index outside 0..{X.shape[0] - 1}")
    rho = margin(w_f, X, y)
    if rho <= 0:
        raise ValueError(f"w_f does not separate the data (rho = {rho:.3g} <= 0)")
    R = radius(X)
    unit = w_f / np.linalg.norm(w_f)
    t = np.arange(W.shape[0])

    inner = W @ unit
    norm_sq = np.einsum("ij,ij->i", W, W)
    inner_lower = np.concatenate([[inner[0]], inner[:-1] + eta * rho])
    norm_sq_upper = np.concatenate([[norm_sq[0]], norm_sq[:-1] + eta**2 * R**2])
    norms = np.sqrt(norm_sq)
    cosine = np.divide(inner, norms, out=np.zeros_like(inner), where=norms > 0)
    cosine_lower = np.sqrt(t) * rho / R
    was_mistake = y[idx] * np.einsum("ij,ij->i", W[:-1], X[idx]) <= 0
    return NovikoffCheck(inner, inner_lower, norm_sq, norm_sq_upper, cosine, cosine_lower, was_mistake, R**2 / rho**2)
