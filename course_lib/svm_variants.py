"""Relatives of the SVM from the NCTU slides: two linear programs and the reduced kernel.

* :func:`fit_robust_lp` -- the **robust linear program** (Bennett and Mangasarian, 1992), the
  forerunner of the soft-margin SVM: minimise the total slack ``sum_n xi_n`` subject to
  ``y_n (w^T x_n + b) >= 1 - xi_n``, ``xi >= 0``. It asks for few and small violations and
  nothing else: no margin term.
* :func:`fit_lp_svm` -- the **1-norm SVM**: minimise ``||w||_1 + C sum_n xi_n`` under the same
  constraints. Measuring w by the sum of its absolute values instead of its length makes
  the problem a linear program, and its answers **sparse**: many weights are exactly 0, so
  it selects features as it learns (the same effect as the LASSO's 1-norm penalty in
  regression).
* :func:`fit_reduced_svm` -- the **reduced kernel** (Lee and Mangasarian, 2001): instead of the
  N x N kernel matrix, the N x m matrix ``K(X, X_bar)`` of m randomly chosen training points
  ``X_bar``, used as m features of a linear 2-norm soft-margin SVM. The classifier is
  ``sign(sum_j u_j K(x, x_bar_j) + b)``; storing and solving costs O(N m), not O(N^2).

The linear programs go to HiGHS (``scipy.optimize.linprog(method="highs")``), a maintained
LP solver that ships with SciPy: it returns a vertex of the feasible set, where the
weights that do not matter are exactly zero.
"""
from dataclasses import dataclass

import numpy as np

from ._validation import check_choice, check_int, check_real
from .kernels import KERNELS, kernel_matrix
from .perceptron import _sign
from .svm import PrimalSVMResult, _check_C, _check_data

__all__ = ["fit_robust_lp", "fit_lp_svm", "fit_reduced_svm", "ReducedSVMResult"]


def _solve_lp(c, A_ub, b_ub, bounds):
    """min c^T z  s.t.  A_ub z <= b_ub, bounds, by HiGHS; the solution, or a RuntimeError saying why not."""
    from scipy.optimize import linprog

    res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"the linear program was not solved: {res.message}")
    return res.x


def _margin_constraints(X, y, *, split):
    """Rows of ``-y_n (x_n^T w + b) - xi_n <= -1`` over the variables (w, b, xi), or (w_plus, w_minus, b, xi)."""
    import scipy.sparse as sp

    Yx = sp.csr_matrix(-y[:, None] * X)
    blocks = [Yx, -Yx] if split else [Yx]
    return sp.hstack([*blocks, sp.csr_matrix(-y[:, None]), -sp.identity(X.shape[0])], format="csr"), -np.ones(len(y))


def fit_robust_lp(X, y):
    """The robust linear program: the separator with the least total slack, ``min sum_n xi_n``.

    Parameters
    ----------
    X : array-like of shape (N, d)
        Raw features (no constant column).
    y : array-like of shape (N,)
        Labels +1 or -1, both present.

    Returns
    -------
    PrimalSVMResult
        ``w``, ``b`` and the slacks ``xi`` (C is None). On separable data every ``xi_n`` is 0
        and ``(w, b)`` separates the data with ``y_n (w^T x_n + b) >= 1`` (some separator,
        not the widest); otherwise ``sum xi`` is the smallest total violation.

    Examples
    --------
    >>> res = fit_robust_lp([[0.0, 0.0], [2.0, 0.0], [3.0, 3.0]], [-1, 1, 1])
    >>> res.xi.tolist(), res.predict([[0.0, 0.0], [2.0, 0.0], [3.0, 3.0]]).tolist()
    ([0.0, 0.0, 0.0], [-1.0, 1.0, 1.0])
    """
    X, y = _check_data(X, y)
    n, d = X.shape
    A, rhs = _margin_constraints(X, y, split=False)
    c = np.r_[np.zeros(d + 1), np.ones(n)]
    z = _solve_lp(c, A, rhs, [(None, None)] * (d + 1) + [(0, None)] * n)
    return PrimalSVMResult(z[:d], float(z[d]), np.maximum(z[d + 1:], 0.0), None)


def fit_lp_svm(X, y, *, C=1.0):
    """The 1-norm SVM, a linear program: ``min ||w||_1 + C sum_n xi_n`` s.t. ``y_n (w^T x_n + b) >= 1 - xi_n``, ``xi >= 0``.

    With ``w = w_plus - w_minus`` (both >= 0) the absolute values become linear. At the
    optimum found (a vertex), many weights are exactly 0: the features they belong to are
    left out of the classifier.

    Parameters
    ----------
    X : array-like of shape (N, d)
        Raw features.
    y : array-like of shape (N,)
        Labels +1 or -1, both present.
    C : float, default=1.0
        The price of a unit of slack (> 0): small C, few features and many violations;
        large C, few violations.

    Returns
    -------
    PrimalSVMResult
        ``w`` (sparse), ``b``, ``xi`` and ``C``.

    Examples
    --------
    >>> X = [[1.0, 0.3], [2.0, -0.4], [-1.0, 0.2], [-2.0, -0.1]]   # only the first feature matters
    >>> res = fit_lp_svm(X, [1, 1, -1, -1], C=10.0)
    >>> (res.w.round(6) + 0.0).tolist(), round(res.b, 6) + 0.0
    ([1.0, 0.0], 0.0)
    """
    X, y = _check_data(X, y)
    C = _check_C(C)
    if C is None:
        raise ValueError("C must be a number > 0 for the 1-norm SVM; got None")
    n, d = X.shape
    A, rhs = _margin_constraints(X, y, split=True)
    c = np.r_[np.ones(2 * d), 0.0, C * np.ones(n)]
    z = _solve_lp(c, A, rhs, [(0, None)] * (2 * d) + [(None, None)] + [(0, None)] * n)
    w = z[:d] - z[d:2 * d] + 0.0                 # + 0.0: no "-0.0" for a weight that is exactly zero
    return PrimalSVMResult(w, float(z[2 * d]) + 0.0, np.maximum(z[2 * d + 1:], 0.0), C)


@dataclass
class ReducedSVMResult:
    """A soft-margin SVM on a reduced kernel (:func:`fit_reduced_svm`).

    Attributes
    ----------
    columns : ndarray of int, shape (m,)
        The training examples whose kernel columns were kept.
    u : ndarray of shape (m,)
        One weight per kept column.
    b : float
    X_columns : ndarray of shape (m, d)
        The kept examples (the kernel is evaluated against them).
    kernel, degree, gamma, coef0 : the kernel and its parameters, as in :func:`course_lib.kernels.kernel_matrix`
    """

    columns: np.ndarray
    u: np.ndarray
    b: float
    X_columns: np.ndarray
    kernel: str = "rbf"
    degree: int = 2
    gamma: float = 1.0
    coef0: float = 1.0

    def decision_function(self, X):
        """``sum_j u_j K(x, x_bar_j) + b`` for every row x of X."""
        K = kernel_matrix(X, self.X_columns, kernel=self.kernel, degree=self.degree, gamma=self.gamma,
                          coef0=self.coef0)
        return K @ self.u + self.b

    def predict(self, X):
        """Labels +1/-1, with sign(0) = -1."""
        return _sign(self.decision_function(X))


def _squared_hinge_newton(Z, y, C, *, tol=1e-10, max_steps=100):
    """min_v 1/2 ||v||^2 + C/2 sum_n max(0, 1 - y_n z_n^T v)^2 by Newton's method with a backtracking line search.

    The objective is convex and piecewise quadratic; on the examples with ``y_n z_n^T v < 1``
    (the active ones) its Hessian is ``I + C Z_A^T Z_A``. Newton's method with that
    (generalised) Hessian ends in finitely many steps (Mangasarian, 2002).
    """
    v = np.zeros(Z.shape[1])

    def objective(v):
        slack = np.maximum(0.0, 1.0 - y * (Z @ v))
        return 0.5 * v @ v + 0.5 * C * slack @ slack, slack

    f, slack = objective(v)
    for _ in range(max_steps):
        active = slack > 0
        Za = Z[active]
        grad = v - C * Za.T @ (slack[active] * y[active])
        if np.linalg.norm(grad) <= tol * max(1.0, np.linalg.norm(v)):
            return v
        H = np.eye(Z.shape[1]) + C * Za.T @ Za
        step = -np.linalg.solve(H, grad)
        t, decrease = 1.0, grad @ step
        while True:
            f_new, slack_new = objective(v + t * step)
            if f_new <= f + 1e-4 * t * decrease or t < 1e-12:
                break
            t /= 2
        v, f, slack = v + t * step, f_new, slack_new
    raise RuntimeError(f"Newton's method did not converge in {max_steps} steps")


def fit_reduced_svm(X, y, *, n_columns, C=1.0, kernel="rbf", degree=2, gamma=1.0, coef0=1.0, rng=None):
    """A kernel SVM on m random columns of the kernel matrix: the reduced SVM (RSVM) of Lee and Mangasarian.

    Draws m of the N training examples at random, ``X_bar``, forms the N x m matrix
    ``Z = K(X, X_bar)`` and solves, as RSVM does, the 2-norm soft margin on these m
    features with the bias regularised too:

        ``min 1/2 (||u||^2 + b^2) + C/2 sum_n xi_n^2``  s.t.  ``y_n (u^T z_n + b) >= 1 - xi_n``,

    by Newton's method (every step a linear system of size m + 1). Every training example
    keeps its constraint; only the classifier, ``sign(sum_j u_j K(x, x_bar_j) + b)``, is
    restricted to m kernel functions. Memory and time grow like N m instead of N^2.

    Parameters
    ----------
    X : array-like of shape (N, d)
    y : array-like of shape (N,)
        Labels +1 or -1, both present.
    n_columns : int
        m, how many columns to keep (1 <= m <= N).
    C : float, default=1.0
        The price of squared slack (> 0).
    kernel, degree, gamma, coef0
        As in :func:`course_lib.kernels.kernel_matrix`.
    rng : None, int or numpy.random.Generator
        Which columns are kept.

    Returns
    -------
    ReducedSVMResult

    Examples
    --------
    >>> import course_lib as cl
    >>> X, y = cl.make_spirals(200, noise=0.0, rng=0)
    >>> res = fit_reduced_svm(X, y, n_columns=60, C=100.0, gamma=10.0, rng=0)
    >>> res.u.shape, bool(np.mean(res.predict(X) != y) < 0.05)
    ((60,), True)
    """
    X, y = _check_data(X, y)
    n = X.shape[0]
    m = check_int(n_columns, "n_columns", minimum=1)
    if m > n:
        raise ValueError(f"n_columns must be at most the number of examples ({n}); got {m}")
    C = _check_C(C)
    if C is None:
        raise ValueError("C must be a number > 0; got None")
    check_choice(kernel, "kernel", KERNELS)
    check_real(gamma, "gamma", low=0.0, low_open=True)
    columns = np.sort(np.random.default_rng(rng).choice(n, size=m, replace=False))
    Z = kernel_matrix(X, X[columns], kernel=kernel, degree=degree, gamma=gamma, coef0=coef0)
    v = _squared_hinge_newton(np.column_stack([Z, np.ones(n)]), y, C)
    return ReducedSVMResult(columns, v[:m], float(v[m]), X[columns], kernel, degree, gamma, coef0)
