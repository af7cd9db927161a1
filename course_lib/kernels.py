"""Kernels: inner products in a feature space, computed without going there.

A kernel is a function ``K(x, z) = phi(x)^T phi(z)`` for some feature transform phi.
Every algorithm that touches the examples only through inner products (the dual
perceptron, the dual SVM) can use ``K`` in their place and so learn a linear model
in phi's space at the cost of evaluating ``K``. The three kernels of the lecture:

* linear: ``K(x, z) = x^T z`` (phi is the identity);
* polynomial: ``K(x, z) = (coef0 + gamma x^T z) ** degree``;
* Gaussian (RBF): ``K(x, z) = exp(-gamma ||x - z||^2)`` (phi has infinitely many
  coordinates).

Each function returns the Gram matrix ``G[i, j] = K(X[i], Z[j])``.
"""
from dataclasses import dataclass

import numpy as np

from ._validation import check_choice, check_int, check_labels, check_matrix, check_real
from .perceptron import _cycle_order, _dual_updates, _sign

__all__ = [
    "linear_kernel",
    "polynomial_kernel",
    "rbf_kernel",
    "kernel_matrix",
    "quadratic_features",
    "kernel_perceptron",
    "KernelPerceptronResult",
    "KERNELS",
]

KERNELS = ("linear", "poly", "rbf")


def _pair(X, Z):
    X = check_matrix(X, "X")
    Z = X if Z is None else check_matrix(Z, "Z")
    if Z.shape[1] != X.shape[1]:
        raise ValueError(
            f"X and Z must have the same number of features; X has {X.shape[1]} columns, Z has {Z.shape[1]}"
        )
    return X, Z


def linear_kernel(X, Z=None):
    """The linear kernel ``K(x, z) = x^T z``: the Gram matrix ``X Z^T``.

    Parameters
    ----------
    X : array-like of shape (n, d)
    Z : array-like of shape (m, d), optional
        Defaults to ``X`` (the Gram matrix of the training set).

    Returns
    -------
    ndarray of shape (n, m)

    Examples
    --------
    >>> linear_kernel([[1.0, 2.0], [0.0, 1.0]]).tolist()
    [[5.0, 2.0], [2.0, 1.0]]
    """
    X, Z = _pair(X, Z)
    return X @ Z.T


def polynomial_kernel(X, Z=None, *, degree=2, gamma=1.0, coef0=1.0):
    """The polynomial kernel ``K(x, z) = (coef0 + gamma x^T z) ** degree``.

    With ``degree=2, gamma=1, coef0=1`` it is the inner product of the quadratic
    features of :func:`quadratic_features`: all monomials of degree at most 2, with
    the weights that make the two agree.

    Parameters
    ----------
    X : array-like of shape (n, d)
    Z : array-like of shape (m, d), optional
        Defaults to ``X``.
    degree : int, default=2
        The degree Q of the polynomial (>= 1).
    gamma : float, default=1.0
        Scale of the inner product (> 0).
    coef0 : float, default=1.0
        The constant added before raising to the power (>= 0).

    Returns
    -------
    ndarray of shape (n, m)

    Examples
    --------
    >>> polynomial_kernel([[1.0, 2.0]], [[3.0, 0.0]]).tolist()  # (1 + 3) ** 2
    [[16.0]]
    """
    X, Z = _pair(X, Z)
    degree = check_int(degree, "degree", minimum=1)
    gamma = check_real(gamma, "gamma", low=0.0, low_open=True)
    coef0 = check_real(coef0, "coef0", low=0.0)
    return (coef0 + gamma * (X @ Z.T)) ** degree


def rbf_kernel(X, Z=None, *, gamma=1.0):
    """The Gaussian (RBF) kernel ``K(x, z) = exp(-gamma ||x - z||^2)``.

    Parameters
    ----------
    X : array-like of shape (n, d)
    Z : array-like of shape (m, d), optional
        Defaults to ``X``.
    gamma : float, default=1.0
        How fast the similarity falls with distance (> 0): large gamma, narrow bumps.

    Returns
    -------
    ndarray of shape (n, m)
        Entries in (0, 1]; 1 exactly where ``x == z``.

    Examples
    --------
    >>> import numpy as np
    >>> G = rbf_kernel([[0.0, 0.0], [1.0, 0.0]], gamma=np.log(2))
    >>> np.round(G, 6).tolist()
    [[1.0, 0.5], [0.5, 1.0]]
    """
    X, Z = _pair(X, Z)
    gamma = check_real(gamma, "gamma", low=0.0, low_open=True)
    sq = np.einsum("ij,ij->i", X, X)[:, None] + np.einsum("ij,ij->i", Z, Z)[None, :] - 2.0 * (X @ Z.T)
    return np.exp(-gamma * np.maximum(sq, 0.0))


def kernel_matrix(X, Z=None, *, kernel="linear", degree=2, gamma=1.0, coef0=1.0):
    """The Gram matrix of the kernel named by ``kernel`` (one of :data:`KERNELS`).

    ``kernel`` may also be a function ``f(X, Z)`` returning the Gram matrix.

    Parameters
    ----------
    X : array-like of shape (N, d)
        Raw features (no constant column).
    Z : array-like of shape (M, d) or None
        The second set of points (None: X again).
    kernel : {"linear", "poly", "rbf"} or callable, default="linear"
        The kernel, or a function ``f(X, Z)`` returning the Gram matrix.
    degree : int, default=2
        Degree of the polynomial kernel (see :func:`polynomial_kernel`).
    gamma : float, default=1.0
        Scale of the polynomial kernel and width of the RBF kernel (see :func:`rbf_kernel`).
    coef0 : float, default=1.0
        Constant term of the polynomial kernel.

    Examples
    --------
    >>> kernel_matrix([[1.0, 1.0]], kernel="poly", degree=3, gamma=0.5, coef0=0.0).tolist()
    [[1.0]]
    """
    if callable(kernel):
        X, Z = _pair(X, Z)
        G = np.asarray(kernel(X, Z), dtype=float)
        if G.shape != (X.shape[0], Z.shape[0]) or not np.all(np.isfinite(G)):
            raise ValueError(
                f"kernel must return a finite Gram matrix of shape {(X.shape[0], Z.shape[0])}; got shape {G.shape}"
            )
        return G
    check_choice(kernel, "kernel", KERNELS)
    if kernel == "linear":
        return linear_kernel(X, Z)
    if kernel == "poly":
        return polynomial_kernel(X, Z, degree=degree, gamma=gamma, coef0=coef0)
    return rbf_kernel(X, Z, gamma=gamma)


def quadratic_features(X):
    """The explicit feature transform phi of the kernel ``(1 + x^T z) ** 2``.

    ``phi(x) = (1, sqrt(2) x_1, ..., sqrt(2) x_d, x_1^2, ..., x_d^2, sqrt(2) x_i x_j for i < j)``,
    so that ``phi(x)^T phi(z) = (1 + x^T z) ** 2``. It has ``1 + 2d + d(d-1)/2``
    coordinates: the cost that the kernel avoids.

    Parameters
    ----------
    X : array-like of shape (N, d)
        Raw features (no constant column).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 2.0], [3.0, -1.0]])
    >>> P = quadratic_features(X)
    >>> P.shape
    (2, 6)
    >>> bool(np.allclose(P @ P.T, polynomial_kernel(X)))
    True
    """
    X = check_matrix(X, "X")
    n, d = X.shape
    i, j = np.triu_indices(d, k=1)
    return np.hstack([np.ones((n, 1)), np.sqrt(2.0) * X, X**2, np.sqrt(2.0) * X[:, i] * X[:, j]])


@dataclass
class KernelPerceptronResult:
    """What :func:`kernel_perceptron` learned: ``alpha``, ``b`` and the training set.

    Attributes
    ----------
    alpha : ndarray of shape (N,)
        How much each example was added: ``eta`` times the updates it caused.
    b : float
        The bias.
    n_updates : int
        The number of updates made.
    halted : bool
        True when a full cycle found no mistake.
    X_train : ndarray of shape (N, d)
        The training inputs (the kernel is evaluated against them).
    y_train : ndarray of shape (N,)
        The training labels.
    kernel, degree, gamma, coef0 : the kernel and its parameters, as in :func:`kernel_matrix`
    """

    alpha: np.ndarray
    b: float
    n_updates: int
    halted: bool
    X_train: np.ndarray
    y_train: np.ndarray
    kernel: object = "linear"
    degree: int = 2
    gamma: float = 1.0
    coef0: float = 1.0

    def decision_function(self, X):
        """``sum_j alpha_j y_j K(x_j, x) + b`` for every row x of X."""
        K = kernel_matrix(self.X_train, X, kernel=self.kernel, degree=self.degree, gamma=self.gamma, coef0=self.coef0)
        return (self.alpha * self.y_train) @ K + self.b

    def predict(self, X):
        """The sign of :meth:`decision_function`, with sign(0) = -1."""
        return _sign(self.decision_function(X))


def kernel_perceptron(X, y, *, kernel="linear", degree=2, gamma=1.0, coef0=1.0, eta=1.0,
                      max_updates=1000, cycle="naive", rng=None):
    """The dual perceptron with a kernel in place of inner products.

    The dual perceptron (:func:`course_lib.perceptron_dual`) keeps one number
    ``alpha_i`` per example and scores x by ``sum_j alpha_j y_j x_j^T x + b``. Here
    ``x_j^T x`` becomes ``K(x_j, x)``, so the perceptron learns a linear separator in
    the kernel's feature space. An update on example i adds ``eta`` to ``alpha_i``
    and ``eta * y_i * R^2`` to b, with ``R^2 = max_i K(x_i, x_i)`` as in the bias form.
    With the linear kernel and the naive cycle it makes exactly the updates of
    :func:`course_lib.perceptron_dual`.

    Parameters
    ----------
    X : array-like of shape (N, d)
        Raw features (no constant column).
    y : array-like of shape (N,)
        Labels +1 or -1.
    kernel : {"linear", "poly", "rbf"} or callable, default="linear"
        The kernel (see :func:`kernel_matrix`).
    degree, gamma, coef0 : the kernel's parameters, as in :func:`kernel_matrix`
    eta : float, default=1.0
        Learning rate (> 0).
    max_updates : int or None, default=1000
        Stop after this many updates; None means no limit (only for data the kernel
        separates).
    cycle : {"naive", "random"} or array of indices, default="naive"
        The order in which the examples are visited: 0, 1, ..., N-1 again and again, a
        random permutation drawn once from ``rng``, or a given permutation.
    rng : None, int or numpy.random.Generator
        Randomness for ``cycle="random"``.

    Returns
    -------
    KernelPerceptronResult
        ``alpha``, ``b``, ``n_updates``, ``halted`` (True when no example is
        misclassified), and ``decision_function`` / ``predict`` for new points.

    Examples
    --------
    XOR is not linearly separable, but it is with the quadratic kernel:

    >>> X = [[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]]
    >>> y = [1, 1, -1, -1]
    >>> res = kernel_perceptron(X, y, kernel="poly", degree=2)
    >>> res.halted, res.predict(X).tolist()
    (True, [1.0, 1.0, -1.0, -1.0])
    """
    X = check_matrix(X, "X")
    y = check_labels(y, "y", n_samples=X.shape[0])
    eta = check_real(eta, "eta", low=0.0, low_open=True)
    max_updates = check_int(max_updates, "max_updates", minimum=0, allow_none=True)
    n = X.shape[0]
    order = _cycle_order(cycle, n, np.random.default_rng(rng))
    G = kernel_matrix(X, kernel=kernel, degree=degree, gamma=gamma, coef0=coef0)
    alpha, b, k, halted = _dual_updates(G, y, eta=eta, max_updates=max_updates, order=order)
    return KernelPerceptronResult(alpha, b, k, halted, X, y, kernel, degree, gamma, coef0)
