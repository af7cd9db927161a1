"""The linear model for regression, for classification, and logistic regression.

Conventions (as in :mod:`course_lib.perceptron`):

* X already holds the constant coordinate x0 = 1 as its first column (use
  :func:`course_lib.perceptron.add_bias`, or :func:`poly_transform`, which adds it),
  so every hypothesis is one weight vector w = (w0, w1, ..., wd) and the *signal* is
  s = w^T x.
* Linear regression outputs s itself, linear classification sign(s) with
  sign(0) = -1, logistic regression theta(s), a number between 0 and 1 read as the
  probability that y = +1.
* Classification labels are +1 and -1; regression targets are any real numbers.

Every function that draws random numbers takes ``rng`` (None, a seed or a
``numpy.random.Generator``) and never touches NumPy's global random state.
"""
import itertools
import math
from typing import NamedTuple

import numpy as np

from ._validation import (
    check_choice,
    check_int,
    check_labels,
    check_matrix,
    check_real,
    check_vector,
    check_weights,
    check_Xy,
)

__all__ = [
    "linear_regression", "pseudo_inverse", "hat_matrix", "squared_error", "linear_classifier",
    "poly_powers", "poly_feature_names", "poly_transform", "circle_target", "make_circle_data",
    "theta", "predict_probability", "cross_entropy_error", "cross_entropy_gradient",
    "logistic_regression", "logistic_sgd_epoch", "logistic_sgd_runs", "gradient_descent_path", "sgd_path",
    "LogisticResult", "LogisticRunsResult", "homework_transform",
]


# --- Linear regression -------------------------------------------------------------------

def _check_Xy_real(X, y):
    """X of shape (N, d+1) and N real targets."""
    X = check_matrix(X, "X")
    y = check_vector(y, "y")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X and y must have the same number of examples; X has {X.shape[0]} rows, y has {y.shape[0]} values")
    return X, y


def linear_regression(X, y, *, weight_decay=0.0):
    """Least-squares weights w_lin = X^dagger y: the minimiser of E_in(w) = (1/N) ||X w - y||^2.

    Setting the gradient (2/N)(X^T X w - X^T y) to zero gives the normal equations
    X^T X w = X^T y. When X^T X is invertible their only solution is
    w = (X^T X)^{-1} X^T y = X^dagger y. The inverse is never formed here: the
    least-squares problem is solved from the singular value decomposition of X
    (``numpy.linalg.lstsq``), which loses far less accuracy when the columns of X are
    nearly dependent.

    When the columns of X are linearly dependent (rank-deficient X, e.g. a feature
    repeated, or fewer examples than weights), X^T X is singular and infinitely many
    w reach the smallest E_in; they all give the same predictions X w. This function
    then returns the one of smallest norm ||w||, which is exactly X^dagger y with the
    Moore-Penrose pseudo-inverse (``numpy.linalg.pinv``). Singular values below
    ``max(N, d+1) * eps * (largest singular value)`` count as zero.

    With ``weight_decay`` = lambda > 0 it minimises the augmented error
    (1/N) ||X w - y||^2 + (lambda/N) ||w||^2 instead, whose unique minimiser is
    w_reg = (X^T X + lambda I)^{-1} X^T y. It is computed as the least-squares
    solution of the taller system [X; sqrt(lambda) I] w = [y; 0], again without an
    inverse. Every weight, w0 included, is penalised (as in *Learning From Data*),
    so this equals scikit-learn's ``Ridge(alpha=lambda, fit_intercept=False)``.

    Parameters
    ----------
    X : array-like of shape (N, d + 1)
        Inputs with x0 = 1 in the first column.
    y : array-like of shape (N,)
        Real targets (or +1/-1 labels, see :func:`linear_classifier`).
    weight_decay : float, default=0.0
        lambda >= 0.

    Returns
    -------
    ndarray of shape (d + 1,)

    Examples
    --------
    Points on the line y = 1 + 2 x are fitted exactly:

    >>> from course_lib.perceptron import add_bias
    >>> X = add_bias([[0.0], [1.0], [2.0]])
    >>> linear_regression(X, [1.0, 3.0, 5.0]).round(6).tolist()
    [1.0, 2.0]

    A repeated column: the weight is shared equally (the minimum-norm solution).

    >>> linear_regression([[1.0, 1.0], [2.0, 2.0]], [2.0, 4.0]).round(6).tolist()
    [1.0, 1.0]
    """
    X, y = _check_Xy_real(X, y)
    lam = check_real(weight_decay, "weight_decay", low=0.0)
    if lam == 0.0:
        return np.linalg.lstsq(X, y, rcond=None)[0]
    d1 = X.shape[1]
    A = np.vstack([X, np.sqrt(lam) * np.eye(d1)])
    b = np.concatenate([y, np.zeros(d1)])
    return np.linalg.lstsq(A, b, rcond=None)[0]


def _column_basis(X):
    """Orthonormal basis U_r of the column space of X (from its SVD) and the rank r."""
    U, s, _ = np.linalg.svd(X, full_matrices=False)
    tol = (s[0] if s.size else 0.0) * max(X.shape) * np.finfo(float).eps
    r = int(np.sum(s > tol))
    return U[:, :r], r


def pseudo_inverse(X):
    """The Moore-Penrose pseudo-inverse X^dagger, of shape (d + 1, N).

    For X with independent columns X^dagger = (X^T X)^{-1} X^T, and X^dagger X = I.
    It is computed from the SVD (``numpy.linalg.pinv``), which also covers
    rank-deficient X. To *solve* a least-squares problem call
    :func:`linear_regression`, which does not build this matrix.

    Parameters
    ----------
    X : array-like of shape (N, d + 1)
        The data matrix, x0 = 1 in its first column.

    Examples
    --------
    >>> from course_lib.perceptron import add_bias
    >>> X = add_bias([[0.0], [1.0], [2.0]])
    >>> bool(np.allclose(pseudo_inverse(X) @ X, np.eye(2)))
    True
    """
    X = check_matrix(X, "X")
    return np.linalg.pinv(X)


def hat_matrix(X):
    """The hat matrix H = X (X^T X)^{-1} X^T, which "puts the hat on y": y_hat = H y.

    H is the orthogonal projection onto the column space of X (the predictions
    X w that any weights can produce). Its properties:

    * symmetric (H^T = H) and idempotent (H H = H): projecting twice changes nothing;
    * I - H is also a projection, onto the directions orthogonal to every column of
      X; the residual y - y_hat = (I - H) y is orthogonal to those columns;
    * trace(H) = rank(X), which is d + 1 when the columns of X are independent.

    It is built from an orthonormal basis U of the column space (the SVD of X) as
    H = U U^T, so rank-deficient X are handled as well (H = X X^dagger). H has
    N x N entries: use it for small N only.

    Parameters
    ----------
    X : array-like of shape (N, d + 1)

    Returns
    -------
    ndarray of shape (N, N)

    Examples
    --------
    >>> from course_lib.perceptron import add_bias
    >>> X = add_bias([[0.0], [1.0], [2.0], [4.0]])
    >>> H = hat_matrix(X)
    >>> bool(np.allclose(H, H.T)), bool(np.allclose(H @ H, H)), round(float(np.trace(H)), 9)
    (True, True, 2.0)
    >>> y = np.array([1.0, 2.0, 2.0, 5.0])
    >>> bool(np.allclose(H @ y, X @ linear_regression(X, y)))
    True
    """
    X = check_matrix(X, "X")
    U, _ = _column_basis(X)
    return U @ U.T


def squared_error(w, X, y):
    """In-sample squared error E_in(w) = (1/N) sum_n (w^T x_n - y_n)^2.

    Parameters
    ----------
    w : array-like of shape (d + 1,)
        Weights, w0 first.
    X : array-like of shape (N, d + 1)
        Inputs with the constant coordinate x0 = 1.
    y : array-like of shape (N,)
        Real targets.

    Examples
    --------
    >>> squared_error([0.0, 1.0], [[1.0, 1.0], [1.0, 2.0]], [1.0, 4.0])
    2.0
    """
    X, y = _check_Xy_real(X, y)
    w = check_weights(w, X.shape[1])
    r = X @ w - y
    return float(np.mean(r * r))


def linear_classifier(X, y, *, weight_decay=0.0):
    """Linear regression used for classification: fit the +1/-1 labels as numbers.

    The weights w_lin minimise the squared error to the labels, an easy problem
    (one least-squares solve), instead of the number of mistakes, a hard one. The
    classifier is then sign(w_lin^T x) with sign(0) = -1
    (:func:`course_lib.perceptron.predict`). Its E_in is usually small but not the
    smallest possible, so w_lin is also a good *starting point* for PLA or pocket
    (``cl.pla(X, y, w0=w_lin)``, ``cl.pocket(X, y, max_updates=..., w0=w_lin)``).

    Parameters
    ----------
    X : array-like of shape (N, d + 1)
        Inputs with x0 = 1 in the first column.
    y : array-like of shape (N,)
        Labels +1 or -1.
    weight_decay : float, default=0.0
        As in :func:`linear_regression`.

    Returns
    -------
    ndarray of shape (d + 1,)
        w_lin.

    Examples
    --------
    >>> from course_lib.perceptron import add_bias, predict
    >>> X = add_bias([[-2.0], [-1.0], [1.0], [3.0]])
    >>> w = linear_classifier(X, [-1, -1, 1, 1])
    >>> predict(w, X).tolist()
    [-1.0, -1.0, 1.0, 1.0]
    """
    X, y = check_Xy(X, y)
    return linear_regression(X, y, weight_decay=weight_decay)


# --- Nonlinear transforms ----------------------------------------------------------------

def poly_powers(n_features, degree=2):
    """The exponents of the monomials that :func:`poly_transform` computes, one row per column.

    Order: the constant 1; then, for each total degree k = 1, ..., ``degree``, first
    the products of two or more different variables (in lexicographic order of their
    indices), then the pure powers x1^k, ..., xd^k. For two inputs and degree 2 this is
    (1, x1, x2, x1 x2, x1^2, x2^2), the order of *Learning From Data*.

    Parameters
    ----------
    n_features : int
        d, the number of raw inputs (>= 1).
    degree : int, default=2
        Q >= 1.

    Returns
    -------
    ndarray of int, shape (n_columns, n_features)
        ``powers[j, i]`` is the exponent of x_{i+1} in column j. There are
        binomial(d + Q, Q) columns.

    Examples
    --------
    >>> poly_powers(2).tolist()
    [[0, 0], [1, 0], [0, 1], [1, 1], [2, 0], [0, 2]]
    """
    d = check_int(n_features, "n_features", minimum=1)
    q = check_int(degree, "degree", minimum=1)
    rows = [np.zeros(d, dtype=int)]
    for k in range(1, q + 1):
        mixed, pure = [], []
        for combo in itertools.combinations_with_replacement(range(d), k):
            p = np.bincount(combo, minlength=d)
            (pure if np.count_nonzero(p) == 1 else mixed).append(p)
        rows += mixed + pure
    return np.array(rows, dtype=int)


def poly_feature_names(n_features, degree=2):
    """Names of the columns of :func:`poly_transform`, e.g. ``"x1*x2"`` or ``"x1^2"``.

    Parameters
    ----------
    n_features : int
        Number of raw features d.
    degree : int, default=2
        Largest degree, as in :func:`poly_transform`.

    Examples
    --------
    >>> poly_feature_names(2)
    ['1', 'x1', 'x2', 'x1*x2', 'x1^2', 'x2^2']
    """
    names = []
    for p in poly_powers(n_features, degree):
        parts = [f"x{i + 1}" + (f"^{e}" if e > 1 else "") for i, e in enumerate(p) if e > 0]
        names.append("*".join(parts) if parts else "1")
    return names


def poly_transform(X, *, degree=2):
    """The polynomial feature transform Phi_Q: every monomial of the inputs up to degree Q.

    For two inputs and Q = 2 the transformed example is
    z = (1, x1, x2, x1 x2, x1^2, x2^2). A linear model in z is a quadratic curve in x,
    so a circle such as x1^2 + x2^2 = 0.6 becomes a line (a hyperplane) in z-space. The
    column order is given by :func:`poly_powers` (names: :func:`poly_feature_names`).

    Parameters
    ----------
    X : array-like of shape (N, d)
        Raw inputs *without* the constant column (the transform adds it).
    degree : int, default=2
        Q >= 1.

    Returns
    -------
    ndarray of shape (N, binomial(d + Q, Q))
        Z, with z0 = 1 first: ready for :func:`linear_regression`, ``pla`` and the rest.

    Examples
    --------
    >>> poly_transform([[2.0, 3.0]]).tolist()
    [[1.0, 2.0, 3.0, 6.0, 4.0, 9.0]]
    """
    X = check_matrix(X, "X")
    powers = poly_powers(X.shape[1], degree)
    table = np.empty((powers.max() + 1,) + X.shape)       # table[e] = X ** e, by repeated products
    table[0] = 1.0
    for e in range(1, table.shape[0]):
        table[e] = table[e - 1] * X
    Z = np.ones((X.shape[0], powers.shape[0]))
    for i in range(X.shape[1]):
        Z *= table[powers[:, i], :, i].T
    return Z


def circle_target(X, *, radius_squared=0.6):
    """The circular target of *Learning From Data*: f(x) = sign(x1^2 + x2^2 - 0.6).

    Points outside the circle of radius sqrt(0.6) (about 0.77) are +1, points inside
    (or exactly on it, sign(0) = -1) are -1. No line separates them, but in the
    space of :func:`poly_transform` they are linearly separable.

    Parameters
    ----------
    X : array-like of shape (N, 2)
        Raw points (no constant column).
    radius_squared : float, default=0.6

    Returns
    -------
    ndarray of shape (N,)

    Examples
    --------
    >>> circle_target([[0.0, 0.0], [1.0, 0.0]]).tolist()
    [-1.0, 1.0]
    """
    X = check_matrix(X, "X")
    if X.shape[1] != 2:
        raise ValueError(f"X must hold 2-D points, shape (N, 2) without the x0 column; got shape {X.shape}")
    r2 = check_real(radius_squared, "radius_squared", low=0.0, low_open=True)
    return np.where(np.sum(X * X, axis=1) - r2 > 0, 1.0, -1.0)


def make_circle_data(n_samples, *, noise=0.1, rng=None):
    """N points uniform on [-1, 1]^2 labelled by :func:`circle_target`, with noise.

    Exactly ``round(noise * n_samples)`` labels, chosen at random, are flipped (the
    book flips a random 10 %), so even the target itself has E_in about ``noise``.

    Parameters
    ----------
    n_samples : int
        N >= 1.
    noise : float, default=0.1
        Fraction of labels flipped, in [0, 1].
    rng : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
        The noisy labels.

    Examples
    --------
    >>> X, y = make_circle_data(1000, noise=0.1, rng=0)
    >>> int(np.sum(y != circle_target(X)))
    100
    """
    n = check_int(n_samples, "n_samples", minimum=1)
    noise = check_real(noise, "noise", low=0.0, high=1.0)
    rng = np.random.default_rng(rng)
    X = rng.uniform(-1.0, 1.0, size=(n, 2))
    y = circle_target(X)
    flip = rng.choice(n, size=int(round(noise * n)), replace=False)
    y[flip] *= -1
    return X, y


# --- Logistic regression -----------------------------------------------------------------
# The logistic function and its logarithm in NumPy, safe for any s (importing SciPy for them
# would cost every notebook about a second).

def _expit(s):
    """1 / (1 + e^{-s}) for an array, without overflow: e^{-|s|} is at most 1."""
    s = np.asarray(s, dtype=float)
    with np.errstate(under="ignore"):  # e^{-|s|} rounding to 0 is the right answer
        e = np.exp(-np.abs(s))
        return np.where(s >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _log_expit(s):
    """log(1 / (1 + e^{-s})) = -log(1 + e^{-s}), accurate for large |s| (logaddexp)."""
    with np.errstate(under="ignore"):
        return -np.logaddexp(0.0, -np.asarray(s, dtype=float))


def theta(s):
    """The logistic function theta(s) = e^s / (1 + e^s) = 1 / (1 + e^{-s}), a soft threshold.

    It rises from 0 (s very negative) through 1/2 (s = 0) to 1 (s very positive),
    and theta(-s) = 1 - theta(s). Computed so that it never overflows: theta(-1e4) is exactly 0
    and theta(1e4) exactly 1, without warnings.

    Parameters
    ----------
    s : float or array-like of float (no NaN)

    Returns
    -------
    float or ndarray of the same shape

    Examples
    --------
    >>> float(theta(0.0)), float(theta(-1e4)), float(theta(1e4))
    (0.5, 0.0, 1.0)
    >>> bool(np.isclose(theta(2.0), 1 - theta(-2.0)))
    True
    """
    try:
        arr = np.asarray(s, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"s must be a number or an array of numbers; got {type(s).__name__}: {exc}") from None
    if np.any(np.isnan(arr)):
        raise ValueError("s contains NaN")
    out = _expit(arr)
    return float(out) if out.ndim == 0 else out


def predict_probability(w, X):
    """Logistic regression's output theta(w^T x): the estimated probability that y = +1.

    Parameters
    ----------
    w : array-like of shape (d + 1,)
        Weights, w0 first.
    X : array-like of shape (N, d + 1)
        Inputs with the constant coordinate x0 = 1.

    Examples
    --------
    >>> predict_probability([0.0, 1.0], [[1.0, 0.0], [1.0, 50.0]]).tolist()
    [0.5, 1.0]
    """
    X = check_matrix(X, "X")
    w = check_weights(w, X.shape[1])
    return _expit(X @ w)


def _ein_and_gradient(w, X, y):
    """Cross-entropy E_in(w) and its gradient, from one pass over the data."""
    ys = y * (X @ w)
    ein = float(np.mean(-_log_expit(ys)))
    with np.errstate(under="ignore"):                   # tiny terms rounding to 0 is the right answer
        grad = -(X.T @ (y * _expit(-ys))) / len(y)
    return ein, grad


def cross_entropy_error(w, X, y):
    """Logistic regression's in-sample error E_in(w) = (1/N) sum_n ln(1 + e^{-y_n w^T x_n}).

    Minimising it maximises the likelihood of the labels under the model
    P(y | x) = theta(y w^T x). Each term is computed as ``logaddexp(0, -y w^T x)``, which
    is accurate and overflow-free for any signal: for a signal of -1e4 the term is
    1e4 (not infinity), for +1e4 it is 0.

    Parameters
    ----------
    w : array-like of shape (d + 1,)
    X : array-like of shape (N, d + 1)
        Inputs with x0 = 1 first.
    y : array-like of shape (N,)
        Labels +1 or -1.

    Returns
    -------
    float

    Examples
    --------
    >>> round(cross_entropy_error([0.0, 0.0], [[1.0, 2.0], [1.0, -1.0]], [1, -1]), 6)  # ln 2
    0.693147
    """
    X, y = check_Xy(X, y)
    w = check_weights(w, X.shape[1])
    return float(np.mean(-_log_expit(y * (X @ w))))


def cross_entropy_gradient(w, X, y):
    """Gradient of :func:`cross_entropy_error`: -(1/N) sum_n theta(-y_n w^T x_n) y_n x_n.

    Each example pulls w towards y_n x_n, weighted by theta(-y_n w^T x_n), the
    probability the current model gives to the *wrong* label: examples that are
    already confidently right hardly count.

    Parameters
    ----------
    w, X, y : as in :func:`cross_entropy_error`

    Returns
    -------
    ndarray of shape (d + 1,)

    Examples
    --------
    >>> cross_entropy_gradient([0.0, 0.0], [[1.0, 2.0], [1.0, -1.0]], [1, 1]).tolist()
    [-0.5, -0.25]
    """
    X, y = check_Xy(X, y)
    w = check_weights(w, X.shape[1])
    return _ein_and_gradient(w, X, y)[1]


class LogisticResult(NamedTuple):
    """What :func:`logistic_regression` returns (a named tuple)."""

    w: np.ndarray
    """The final weights."""
    n_epochs: int
    """Epochs run (gradient descent: one step per epoch; SGD: one pass over the data)."""
    ein: np.ndarray
    """Cross-entropy E_in after each epoch, with ``ein[0]`` at the start: length n_epochs + 1."""
    converged: bool
    """True when the weights moved less than ``tol`` in the last epoch (else max_epochs was reached)."""


class LogisticRunsResult(NamedTuple):
    """What :func:`logistic_sgd_runs` returns: one row per independent run."""

    w: np.ndarray
    """Final weights, shape (n_runs, d + 1)."""
    n_epochs: np.ndarray
    """Epochs each run took, shape (n_runs,)."""
    converged: np.ndarray
    """Whether each run stopped by ``tol`` (not by ``max_epochs``), shape (n_runs,)."""


# row-wise dot products: numpy.vecdot (NumPy >= 2.0) is the fastest way for short rows
_rowdot = getattr(np, "vecdot", None) or (lambda u, v: np.einsum("ad,ad->a", u, v))


def _sgd_pass(W, Xo, yo, eta):
    """One SGD epoch for A runs at once, in place.

    W : (A, d+1) weights; Xo : (N, A, d+1), Xo[k, a] the k-th example run a visits;
    yo : (N, A) its labels. Each step is w += eta * theta(-y w^T x) * y x for every
    run together, so the only Python loop is over the N examples of the epoch. The
    products -y x and eta y x are formed once per epoch, leaving four array
    operations per step.
    """
    yx = yo[:, :, None] * Xo
    neg_yx, step_yx = -yx, eta * yx
    for a, b in zip(neg_yx, step_yx, strict=True):
        W += _expit(_rowdot(W, a))[:, None] * b
    return W


def _sgd_pass_one(w, Xo, yo, eta):
    """One SGD epoch for a single run, in place: the same steps as :func:`_sgd_pass`.

    With one run there is nothing to vectorise across, so each step is kept to a dot
    product, a scalar logistic and one scaled addition.
    """
    for x, t in zip(Xo, yo, strict=True):
        z = t * float(x @ w)                            # theta(-z) = 1 / (1 + e^z), without overflow:
        if z > 0.0:
            e = math.exp(-z)
            p = e / (1.0 + e)
        else:
            p = 1.0 / (1.0 + math.exp(z))
        w += (eta * t * p) * x
    return w


def _check_order(order, n):
    order = np.asarray(order)
    if order.ndim != 1 or order.size == 0 or not np.issubdtype(order.dtype, np.integer):
        raise ValueError(f"order must be a 1-D array of example indices; got {order!r}")
    if order.min() < 0 or order.max() >= n:
        raise ValueError(f"order must hold indices in range({n}); got values from {order.min()} to {order.max()}")
    return order


def logistic_sgd_epoch(w, X, y, *, eta, order):
    """One epoch of stochastic gradient descent for logistic regression.

    For each example n in ``order`` in turn, one step against the gradient of that
    example's error e_n(w) = ln(1 + e^{-y_n w^T x_n}):
    ``w <- w + eta * theta(-y_n w^T x_n) * y_n x_n``.

    Parameters
    ----------
    w : array-like of shape (d + 1,)
        Weights at the start of the epoch (not changed).
    X : array-like of shape (N, d + 1)
    y : array-like of shape (N,)
        Labels +1 or -1.
    eta : float
        Learning rate (> 0).
    order : array-like of int
        The examples to visit, in order (usually a random permutation of range(N)).

    Returns
    -------
    ndarray of shape (d + 1,)
        The weights after the epoch.

    Examples
    --------
    From w = 0 every example has theta(0) = 1/2, so the first step adds eta/2 * y x:

    >>> logistic_sgd_epoch([0.0, 0.0], [[1.0, 2.0], [1.0, -1.0]], [1, -1], eta=0.1, order=[0]).tolist()
    [0.05, 0.1]
    """
    X, y = check_Xy(X, y)
    w = check_weights(w, X.shape[1])
    eta = check_real(eta, "eta", low=0.0, low_open=True)
    order = _check_order(order, X.shape[0])
    w = w.copy()
    with np.errstate(under="ignore"):
        return _sgd_pass_one(w, X[order], y[order], eta)


def _check_fit_options(eta, tol, max_epochs, w0, d1):
    eta = check_real(eta, "eta", low=0.0, low_open=True)
    tol = check_real(tol, "tol", low=0.0)
    max_epochs = check_int(max_epochs, "max_epochs", minimum=1)
    w0 = np.zeros(d1) if w0 is None else check_weights(w0, d1, "w0").copy()
    return eta, tol, max_epochs, w0


def logistic_regression(X, y, *, method="gd", eta=0.1, tol=1e-6, max_epochs=10_000, w0=None, rng=None):
    """Logistic regression: minimise the cross-entropy error by (stochastic) gradient descent.

    * ``method="gd"``: batch gradient descent, one step per epoch,
      w <- w - eta * grad E_in(w) (:func:`cross_entropy_gradient`).
    * ``method="sgd"``: stochastic gradient descent; each epoch visits the N examples
      in a fresh random order and steps on each one (:func:`logistic_sgd_epoch`).

    Both use a fixed learning rate eta and stop after the first epoch in which the
    weights moved less than ``tol`` (the Euclidean norm of w_after - w_before), or
    after ``max_epochs``. With a fixed eta SGD keeps jittering around the minimum on
    data that are not separable, so give it a looser ``tol`` or fewer ``max_epochs``
    than gradient descent. On linearly separable data the minimum is at infinity:
    the weights keep growing until ``max_epochs``.

    Parameters
    ----------
    X : array-like of shape (N, d + 1)
        Inputs with x0 = 1 first.
    y : array-like of shape (N,)
        Labels +1 or -1.
    method : {"gd", "sgd"}, default="gd"
    eta : float, default=0.1
        Learning rate (> 0).
    tol : float, default=1e-6
        Stop when an epoch moves the weights less than this (>= 0).
    max_epochs : int, default=10_000
    w0 : array-like of shape (d + 1,) or None
        Starting weights; zeros when None.
    rng : None, int or numpy.random.Generator
        The random orders of SGD (epoch t uses ``rng.permutation(N)``); unused by "gd".

    Returns
    -------
    LogisticResult
        ``(w, n_epochs, ein, converged)``; ``ein`` holds E_in after every epoch.

    Examples
    --------
    >>> from course_lib.data import make_noisy
    >>> from course_lib.perceptron import add_bias
    >>> X, y, _ = make_noisy(100, 2, noise=0.1, rng=0)
    >>> fit = logistic_regression(add_bias(X), y, eta=1.0, tol=1e-6)
    >>> fit.converged, bool(np.all(np.diff(fit.ein) <= 0))
    (True, True)
    >>> bool(np.linalg.norm(cross_entropy_gradient(fit.w, add_bias(X), y)) < 1e-5)
    True
    """
    X, y = check_Xy(X, y)
    check_choice(method, "method", ("gd", "sgd"))
    eta, tol, max_epochs, w = _check_fit_options(eta, tol, max_epochs, w0, X.shape[1])
    rng = np.random.default_rng(rng)
    n = X.shape[0]
    ein = [cross_entropy_error(w, X, y)]
    converged = False
    with np.errstate(under="ignore"):
        for epoch in range(1, max_epochs + 1):  # noqa: B007  (the last epoch is returned)
            if method == "gd":
                w_new = w - eta * _ein_and_gradient(w, X, y)[1]
            else:
                order = rng.permutation(n)
                w_new = _sgd_pass_one(w.copy(), X[order], y[order], eta)
            moved = float(np.linalg.norm(w_new - w))
            w = w_new
            ein.append(float(np.mean(-_log_expit(y * (X @ w)))))
            if moved < tol:
                converged = True
                break
    return LogisticResult(w, epoch, np.array(ein), converged)


def gradient_descent_path(X, y, *, eta, n_steps, w0=None):
    """Every weight vector batch gradient descent visits on the cross-entropy error.

    The same steps as ``logistic_regression(method="gd", tol=0)``, kept one by one so
    that a picture can draw the path across the error surface.

    Parameters
    ----------
    X : array-like of shape (N, d + 1)
    y : array-like of shape (N,)
        Labels +1 or -1.
    eta : float
        Learning rate (> 0).
    n_steps : int
        Number of steps (one per epoch).
    w0 : array-like of shape (d + 1,) or None
        Starting weights; zeros when None.

    Returns
    -------
    ndarray of shape (n_steps + 1, d + 1)
        ``path[k]`` is the weights after k steps; ``path[0]`` is ``w0``.

    Examples
    --------
    >>> path = gradient_descent_path([[1.0, 2.0], [1.0, -1.0]], [1, -1], eta=0.5, n_steps=3)
    >>> path.shape, path[0].tolist()
    ((4, 2), [0.0, 0.0])
    """
    X, y = check_Xy(X, y)
    eta, _, n_steps, w = _check_fit_options(eta, 0.0, n_steps, w0, X.shape[1])
    path = np.empty((n_steps + 1, X.shape[1]))
    path[0] = w
    with np.errstate(under="ignore"):
        for k in range(n_steps):
            w = w - eta * _ein_and_gradient(w, X, y)[1]
            path[k + 1] = w
    return path


def sgd_path(X, y, *, eta, orders, w0=None):
    """Every weight vector stochastic gradient descent visits, one example at a time.

    Parameters
    ----------
    X : array-like of shape (N, d + 1)
    y : array-like of shape (N,)
        Labels +1 or -1.
    eta : float
        Learning rate (> 0).
    orders : array-like of int, shape (n_epochs, N) or (n_steps,)
        The examples visited, epoch after epoch (each row usually a permutation).
    w0 : array-like of shape (d + 1,) or None
        Starting weights; zeros when None.

    Returns
    -------
    ndarray of shape (n_steps + 1, d + 1)
        ``path[k]`` is the weights after k single-example steps; with orders of shape
        (n_epochs, N), ``path[e * N]`` is where epoch e ends, the weights
        :func:`logistic_sgd_epoch` returns.

    Examples
    --------
    >>> sgd_path([[1.0, 2.0], [1.0, -1.0]], [1, -1], eta=0.1, orders=[[0, 1]])[1].tolist()
    [0.05, 0.1]
    """
    X, y = check_Xy(X, y)
    eta, _, _, w = _check_fit_options(eta, 0.0, 1, w0, X.shape[1])
    visits = _check_order(np.ravel(np.asarray(orders)), X.shape[0])
    Xo, yo = X[visits], y[visits]
    path = np.empty((len(visits) + 1, X.shape[1]))
    path[0] = w
    w = w.copy()
    for k, (x, t) in enumerate(zip(Xo, yo, strict=True)):
        z = t * float(x @ w)
        p = math.exp(-z) / (1.0 + math.exp(-z)) if z > 0.0 else 1.0 / (1.0 + math.exp(z))
        w += (eta * t * p) * x
        path[k + 1] = w
    return path


def logistic_sgd_runs(X, y, *, eta=0.1, tol=1e-6, max_epochs=10_000, w0=None, rng=None):
    """Many independent SGD runs of logistic regression at once, each on its own data set.

    The experiment of *Learning From Data* repeats SGD on 100 fresh data sets and
    averages the epochs and E_out. SGD is sequential within a run, but the runs are
    independent, so here step k of every run is one array operation across the runs:
    the Python loop is over the examples of an epoch, not over runs. Each run stops by
    itself (as in :func:`logistic_regression`); finished runs are left out of later
    epochs.

    Run r draws its random orders from its own generator, the r-th of
    ``np.random.default_rng(rng).spawn(n_runs)``, so it makes the same steps as
    ``logistic_regression(X[r], y[r], method="sgd", rng=that_generator, ...)``: the
    same epochs and the same weights up to rounding in the last digits.

    Parameters
    ----------
    X : array-like of shape (n_runs, N, d + 1)
        One data set per run, x0 = 1 first.
    y : array-like of shape (n_runs, N)
        Labels +1 or -1.
    eta, tol, max_epochs : as in :func:`logistic_regression`
    w0 : array-like of shape (d + 1,) or None
        Common starting weights; zeros when None.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    LogisticRunsResult
        ``(w, n_epochs, converged)`` with one row per run.

    Examples
    --------
    >>> from course_lib.data import make_random_line_data
    >>> from course_lib.perceptron import add_bias
    >>> sets = [make_random_line_data(50, rng=seed)[:2] for seed in range(3)]
    >>> X = np.stack([add_bias(x) for x, _ in sets]); y = np.stack([t for _, t in sets])
    >>> runs = logistic_sgd_runs(X, y, eta=0.01, tol=0.01, rng=0)
    >>> runs.w.shape, bool(runs.converged.all())
    ((3, 3), True)
    """
    try:
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"X must be an array of shape (n_runs, N, d + 1); got {type(X).__name__}: {exc}") from None
    if X.ndim != 3 or 0 in X.shape:
        raise ValueError(f"X must have shape (n_runs, N, d + 1), one data set per run; got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinity")
    n_runs, n, d1 = X.shape
    try:
        y_arr = np.asarray(y, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"y must be an array of +1/-1 labels of shape (n_runs, N); got {type(y).__name__}: {exc}") from None
    if np.shape(y_arr) != (n_runs, n):
        raise ValueError(f"y must have shape (n_runs, N) = {(n_runs, n)} to match X; got shape {np.shape(y_arr)}")
    y = check_labels(np.ravel(y_arr), "y").reshape(n_runs, n)
    eta, tol, max_epochs, w0 = _check_fit_options(eta, tol, max_epochs, w0, d1)
    gens = np.random.default_rng(rng).spawn(n_runs)

    W = np.tile(w0, (n_runs, 1))
    n_epochs = np.zeros(n_runs, dtype=int)
    converged = np.zeros(n_runs, dtype=bool)
    active = np.arange(n_runs)
    with np.errstate(under="ignore"):
        for _ in range(max_epochs):
            orders = np.stack([gens[r].permutation(n) for r in active])        # (A, N)
            Xo = X[active[:, None], orders].transpose(1, 0, 2).copy()          # (N, A, d+1)
            yo = y[active[:, None], orders].T.copy()                           # (N, A)
            Wa = W[active]
            before = Wa.copy()
            _sgd_pass(Wa, Xo, yo, eta)
            W[active] = Wa
            n_epochs[active] += 1
            done = np.linalg.norm(Wa - before, axis=1) < tol
            converged[active[done]] = True
            active = active[~done]
            if active.size == 0:
                break
    return LogisticRunsResult(W, n_epochs, converged)


def homework_transform(X):
    """The nonlinear transform of *Learning From Data*'s homework 6 and 7 (the ``in.dta`` / ``out.dta`` data).

    phi(x1, x2) = (1, x1, x2, x1^2, x2^2, x1 x2, |x1 - x2|, |x1 + x2|): eight features, the
    constant first. The validation homework uses its first k + 1 features, phi_0 ... phi_k.

    Parameters
    ----------
    X : array-like of shape (N, 2)
        Raw points (no constant column).

    Returns
    -------
    ndarray of shape (N, 8)

    Examples
    --------
    >>> homework_transform([[0.5, -1.0]]).tolist()
    [[1.0, 0.5, -1.0, 0.25, 1.0, -0.5, 1.5, 0.5]]
    """
    X = check_matrix(X, "X")
    if X.shape[1] != 2:
        raise ValueError(f"X must hold 2-D points, shape (N, 2) without the x0 column; got shape {X.shape}")
    x1, x2 = X[:, 0], X[:, 1]
    return np.column_stack([np.ones(len(X)), x1, x2, x1 * x1, x2 * x2, x1 * x2, np.abs(x1 - x2), np.abs(x1 + x2)])
