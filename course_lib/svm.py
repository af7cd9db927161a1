"""Support vector machines: the widest margin, as a quadratic program.

Among all lines that separate the data, the SVM takes the one whose margin (the
distance to the nearest example) is largest. For a separator ``sign(w^T x + b)``
scaled so that ``min_n y_n (w^T x_n + b) = 1`` the margin is ``1 / ||w||``, so the
widest margin solves the **primal** quadratic program

    minimise ``1/2 w^T w``  subject to  ``y_n (w^T x_n + b) >= 1`` for every n,

and, with slack ``xi_n >= 0`` for examples allowed inside the margin (the **soft
margin**), ``1/2 w^T w + C sum_n xi_n`` subject to ``y_n (w^T x_n + b) >= 1 - xi_n``.
Its Lagrange **dual** depends on the examples only through inner products, so a kernel
can replace them:

    minimise ``1/2 sum_n sum_m alpha_n alpha_m y_n y_m K(x_n, x_m) - sum_n alpha_n``
    subject to ``sum_n y_n alpha_n = 0`` and ``0 <= alpha_n <= C`` (no upper bound for
    the hard margin).

The KKT conditions tie the two: ``w = sum_n alpha_n y_n x_n``; ``alpha_n > 0`` only for
examples on the margin or inside it (the **support vectors**); and for a support
vector with ``alpha_n < C``, ``y_n (w^T x_n + b) = 1`` exactly, which gives b.

Both programs are solved with Clarabel, an interior-point solver for convex
quadratic (and conic) programs: it is maintained, installs from PyPI as a wheel,
takes the problem exactly in the form above (a quadratic objective with equality
and inequality constraints), and solves it to high accuracy, so the course's answer
can be checked against libsvm's to many digits.

An interior-point method needs the whole N x N kernel matrix, which is slow for
thousands of examples. There the 1-norm soft margin's dual is solved as libsvm solves
it, by **SMO** (sequential minimal optimisation): two multipliers at a time, chosen with
second-order information (Fan, Chen & Lin, JMLR 6, 2005), with the kernel's columns
computed only when a step needs them. SMO stops near the optimum; the active set it has
found (which alpha are 0, which C, which in between) then gives the exact optimum by one
linear solve on the support vectors, checked against the KKT conditions at every
example (SMO goes on, to a tighter tolerance, until the check passes). The hard margin
and the 2-norm soft margin of large problems, and the 1-norm soft margin where SMO would
need very many steps (a large C), are solved by Clarabel on a working set of examples
that grows until no example left out violates the KKT conditions (chunking). The
interior-point answers are refined by the same linear solve on their active set.
"""
from dataclasses import dataclass, field

import numpy as np

from ._validation import check_choice, check_labels, check_matrix, check_real
from .kernels import KERNELS, kernel_matrix
from .perceptron import _sign

__all__ = ["SVMResult", "fit_svm", "fit_svm_primal", "PrimalSVMResult", "kkt_violation", "NotSeparableError"]


class NotSeparableError(ValueError):
    """A hard-margin SVM was asked for data that no separator of its kind separates."""


def _solve_qp(P, q, A, b, n_zero, n_nonneg):
    """min 1/2 x^T P x + q^T x  s.t.  A x + s = b, s in {0}^n_zero x R+^n_nonneg (Clarabel)."""
    import clarabel
    import scipy.sparse as sp

    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = 1e-10
    settings.tol_feas = 1e-10
    cones = []
    if n_zero:
        cones.append(clarabel.ZeroConeT(n_zero))
    if n_nonneg:
        cones.append(clarabel.NonnegativeConeT(n_nonneg))
    solver = clarabel.DefaultSolver(sp.csc_matrix(sp.triu(P)), np.asarray(q, float), sp.csc_matrix(A),
                                    np.asarray(b, float), cones, settings)
    sol = solver.solve()
    status = str(sol.status)
    return np.array(sol.x), status


def _check_C(C):
    if C is None:
        return None
    return check_real(C, "C", low=0.0, low_open=True)


def _check_data(X, y):
    X = check_matrix(X, "X")
    y = check_labels(y, "y", n_samples=X.shape[0])
    if np.all(y == y[0]):
        raise ValueError(f"y must contain both labels +1 and -1; every label is {y[0]:+.0f}")
    return X, y


_DIRECT_UP_TO = 150
"""Duals with more examples than this are not handed to Clarabel whole: the 1-norm soft margin is
solved by SMO (:func:`_smo`), the hard margin and the 2-norm soft margin in chunks
(:func:`_solve_dual_in_chunks`)."""

_SMO_STEPS = 2
"""SMO gives up after this many steps per example (at least 2,000 examples counted), and the
chunked Clarabel route solves the dual instead. SMO is fast when it needs few steps (small to
moderate C); with a large C it can need tens of thousands (so does libsvm), where the
interior-point method is quicker. The budget (4,000 steps for the 1,561 digits of the
benchmark, about 0.1 s) costs about as much time as the Clarabel route there."""


_CACHE_BYTES = 2**27
"""SMO keeps at most this many bytes of kernel columns (128 MiB: all of them up to N = 4,096)."""


def _kernel_columns(X, kernel, degree, gamma, coef0):
    """``column(i)``, the kernel's column ``K[:, i]`` computed on demand (the recent ones remembered), and K's diagonal.

    A callable kernel may treat the whole training set specially (``kernel(X, X)``), so its
    Gram matrix is computed once; the named kernels' columns and diagonal come from the
    examples themselves.
    """
    params = {"kernel": kernel, "degree": degree, "gamma": gamma, "coef0": coef0}
    if callable(kernel):
        K = kernel_matrix(X, **params)
        return (lambda i: K[:, i]), np.diag(K).copy()
    cache, room = {}, max(64, _CACHE_BYTES // (8 * len(X)))

    def column(i):  # the most recently used columns are kept, up to _CACHE_BYTES of them
        if i in cache:
            cache[i] = cache.pop(i)
        else:
            if len(cache) >= room:
                del cache[next(iter(cache))]
            cache[i] = kernel_matrix(X, X[i:i + 1], **params)[:, 0]
        return cache[i]

    column(0)  # checks the kernel's parameters, with the error naming the one that is wrong
    norms = np.einsum("ij,ij->i", X, X)
    if kernel == "linear":
        diagonal = norms
    elif kernel == "poly":
        diagonal = (coef0 + gamma * norms) ** degree
    else:  # rbf: K(x, x) = exp(0)
        diagonal = np.ones(len(X))
    return column, diagonal


def _smo(column, diagonal, y, C, alpha, v, eps, max_steps):
    """Sequential minimal optimisation of the 1-norm dual, from ``alpha``, until ``m - M <= eps``.

    Each step moves two multipliers along ``y_i alpha_i + y_j alpha_j = const``, the one
    that keeps ``sum y_n alpha_n = 0``: i is the example that most violates the optimality
    condition (the largest ``v_i = -y_i G_i`` among those whose alpha may move in the
    direction y_i), and j the partner whose step decreases the objective most, measured
    with the second-order term (Fan, Chen & Lin 2005, as libsvm chooses). ``v`` holds
    ``-y_n G_n`` with ``G = Q alpha - 1`` and is updated in place, O(N) per step, with
    the two kernel columns of the step. ``m - M``, the largest v that may go up minus the
    smallest that may go down, is 0 exactly at the optimum. ``alpha`` and ``v`` are
    updated in place; returns the number of steps taken, or None when ``max_steps`` ran
    out first.
    """
    positive = y > 0
    up = np.where(positive, alpha < C, alpha > 0)   # alpha_n may move in the direction y_n
    low = np.where(positive, alpha > 0, alpha < C)  # ... and in the direction -y_n
    for step in range(max_steps):
        i = int(np.where(up, v, -np.inf).argmax())
        m = v[i]
        if m - np.where(low, v, np.inf).min() <= eps:
            return step
        Ki = column(i)
        gain = m - v
        curvature = np.maximum(diagonal[i] + diagonal - 2.0 * Ki, 1e-12)
        j = int(np.where(low & (gain > 0), -gain * gain / curvature, np.inf).argmin())
        # alpha_i += y_i t, alpha_j -= y_j t, with t the unconstrained minimum clipped to the box
        room_i = C - alpha[i] if positive[i] else alpha[i]
        room_j = alpha[j] if positive[j] else C - alpha[j]
        t = min(gain[j] / curvature[j], room_i, room_j)
        alpha[i] = (C if positive[i] else 0.0) if t == room_i else alpha[i] + (t if positive[i] else -t)
        alpha[j] = (0.0 if positive[j] else C) if t == room_j else alpha[j] - (t if positive[j] else -t)
        v -= t * (Ki - column(j))
        for n in (i, j):
            up[n] = alpha[n] < C if positive[n] else alpha[n] > 0
            low[n] = alpha[n] > 0 if positive[n] else alpha[n] < C
    return None


def _exact_on_support(column, y, upper, alpha, *, snap=1e-10):
    """The exact optimum on the active set that ``alpha`` shows: alpha, b, its largest KKT violation, and g.

    Which alpha are 0, which at the bound ``upper`` and which free (between) is read from
    ``alpha``, with the ones within ``snap`` (relative) of a bound put on it (SMO's steps
    leave rounding errors, an interior-point method a little more). The free ones and b
    then solve a linear system: every free support vector lies exactly on the margin,
    ``y_n (sum_m alpha_m y_m K_nm + b) = 1``, and ``sum y_n alpha_n = 0``. It is solved for
    the correction nearest to the given values (least squares, so that a singular system,
    as with more free support vectors than the linear kernel has dimensions, or duplicated
    examples, keeps the given choice among the optima). A free alpha that the solve pushes
    out of ``(0, upper)`` goes to that bound and the system is solved again; the free set
    only shrinks, so this ends. The violation, measured at every example, is 0 (to
    round-off) exactly when the reading was right. Only the kernel's columns ``column(i)``
    of the support vectors are needed; ``g_n = sum_m alpha_m y_m K_nm`` comes with the answer.
    """
    a = alpha.copy()
    a[a < snap * max(1.0, float(a.max()))] = 0.0
    if np.isfinite(upper):
        a[a > upper * (1 - snap)] = upper
    while True:
        sv = np.flatnonzero(a > 0)
        K_sv = np.column_stack([column(s) for s in sv]) if sv.size else np.zeros((len(y), 0))
        g = K_sv @ (a[sv] * y[sv])  # sum_m alpha_m y_m K_nm for every n
        free = a[sv] < upper
        F = sv[free]
        if F.size == 0:
            b = _b_from_kkt(g, y, a, upper)
            break
        b = float(np.mean(y[F] - g[F]))
        A = np.zeros((F.size + 1, F.size + 1))
        A[:-1, :-1] = (y[F][:, None] * y[F][None, :]) * K_sv[F][:, free]
        A[:-1, -1] = A[-1, :-1] = y[F]
        residual = np.r_[1.0 - y[F] * (g[F] + b), -(a @ y)]
        step = np.linalg.lstsq(A, residual, rcond=None)[0]
        new = a[F] + step[:-1]
        out = (new <= 0) | (new >= upper)
        if not out.any():
            a[F], b = new, b + float(step[-1])
            g = K_sv @ (a[sv] * y[sv])
            break
        a[F[out]] = np.where(new[out] <= 0, 0.0, upper)
    f = y * (g + b)
    free = (a > 0) & (a < upper)
    violation = max(float(np.max(1.0 - f[a == 0], initial=0.0)), float(np.max(f[a == upper] - 1.0, initial=0.0)),
                    float(np.max(np.abs(f[free] - 1.0), initial=0.0)), abs(float(a @ y)))
    return a, b, violation, g


def _solve_dual_smo(X, y, C, kernel, degree, gamma, coef0):
    """The 1-norm dual by SMO, made exact on its active set (:func:`_exact_on_support`); alpha, b.

    SMO runs to libsvm's tolerance (``m - M <= 1e-3``), then, while its active set does not
    give the exact optimum yet, on to a tolerance a hundred times tighter each time (down
    to 1e-11), from its own alpha or from the solve's (often all but right), whichever is
    feasible and has the lower objective. None if the optimum is not found
    within the budget of ``_SMO_STEPS`` (the caller then solves the dual with Clarabel).
    """
    column, diagonal = _kernel_columns(X, kernel, degree, gamma, coef0)
    alpha, v = np.zeros(len(y)), y.copy()  # alpha = 0: G = -1, v = -y G = y
    steps = _SMO_STEPS * max(len(y), 2000)
    for eps in (1e-3, 1e-5, 1e-7, 1e-9, 1e-11):
        taken = _smo(column, diagonal, y, C, alpha, v, eps, steps)
        if taken is None:
            return None
        steps -= taken
        exact, b, violation, g = _exact_on_support(column, y, C, alpha)
        if violation <= 1e-9:
            return exact, b
        # the solve's alpha, if feasible (a singular system solved by least squares may leave
        # sum y_n alpha_n != 0), and lower in 1/2 alpha^T Q alpha - sum alpha = sum_n alpha_n (y_n g_n / 2 - 1)
        feasible = abs(float(exact @ y)) <= 1e-12 * C * len(y)
        if feasible and exact @ (y * g / 2 - 1) < alpha @ (y * (y - v) / 2 - 1):
            alpha, v = exact, y - g
    return None


def _solve_dual(Q, y, upper):
    """The dual QP: min 1/2 a^T Q a - 1^T a  s.t.  y^T a = 0, 0 <= a <= upper (Clarabel); alpha, cleaned."""
    n = len(y)
    bounded = np.isfinite(upper)
    # constraints: y^T alpha = 0 (zero cone); -alpha <= 0, and alpha <= C for the 1-norm soft margin.
    rows = [y[None, :], -np.eye(n)] + ([np.eye(n)] if bounded else [])
    rhs = np.r_[0.0, np.zeros(n), np.full(n, upper) if bounded else []]
    x, status = _solve_qp(Q, -np.ones(n), np.vstack(rows), rhs, 1, n * (2 if bounded else 1))
    solved = status in ("Solved", "AlmostSolved")
    if status in ("DualInfeasible", "AlmostDualInfeasible") or (not bounded and not solved):
        raise NotSeparableError(
            "the data are not separable by this kernel's separators, so the hard margin has no solution "
            f"(the solver reports {status}); pass C for the soft margin"
        )
    if status not in ("Solved", "AlmostSolved"):
        raise RuntimeError(f"the quadratic program was not solved: {status}")
    alpha = np.clip(x, 0.0, upper)
    scale = max(1.0, float(alpha.max()))
    alpha[alpha < 1e-7 * scale] = 0.0
    if bounded:
        alpha[alpha > upper * (1 - 1e-7)] = upper
    return alpha


def _solve_dual_in_chunks(Q, y, upper, *, start=40, add=20, tol=1e-9, max_rounds=100):
    """The same dual, solved on a small working set that moves (chunking), for large N.

    It serves the hard margin and the 2-norm soft margin, and the 1-norm soft margin
    where SMO would need too many steps (:data:`_SMO_STEPS`).

    Only examples with alpha > 0 matter, and they are usually few. Start from the
    ``start`` examples (half of each class) that lie closest to the other class in the
    kernel's feature space, solve the dual on them alone (every other alpha = 0), and
    check the KKT condition ``y_n (sum_m alpha_m y_m K_mn + b) >= 1`` of every example
    left out. If none violates it, alpha is optimal for the whole problem. Otherwise the
    next working set is the current support vectors, the examples near the margin, and
    the ``add`` worst violators. After ``max_rounds`` rounds the working set stops
    shrinking and only grows, so the loop always ends (at the latest with all N examples).
    """
    n = len(y)
    d = np.diag(Q)
    # squared feature-space distance to the nearest example of the other class: K_ii + K_jj - 2 K_ij
    # (Q_ij = y_i y_j K_ij, so K_ij = -Q_ij across the classes)
    other = y[:, None] != y[None, :]
    dist = np.where(other, d[:, None] + d[None, :] + 2 * Q, np.inf).min(axis=1)
    work = np.zeros(n, dtype=bool)
    for label in (1.0, -1.0):
        idx = np.flatnonzero(y == label)
        work[idx[np.argsort(dist[idx], kind="stable")[: start // 2]]] = True
    for rounds in range(n + max_rounds + 1):
        W = np.flatnonzero(work)
        alpha = np.zeros(n)
        alpha[W] = _solve_dual(Q[np.ix_(W, W)], y[W], upper)
        b = _b_from_kkt(y[W] * (Q[np.ix_(W, W)] @ alpha[W]), y[W], alpha[W], upper)
        f = y * (y * (Q[:, W] @ alpha[W]) + b)
        outside = np.flatnonzero(~work & (f < 1 - tol))
        if outside.size == 0:
            return alpha
        if rounds < max_rounds:  # keep the support vectors and what lies near the margin
            work = (alpha > 0) | (work & (f < 1 + 0.1))
        work[outside[np.argsort(f[outside], kind="stable")[:add]]] = True
    return alpha  # not reached: the working set grows by at least one example per round after max_rounds


def _b_from_kkt(g, y, alpha, upper):
    """b from complementary slackness (the mean over free support vectors), or the middle of its KKT interval.

    ``g_n = sum_m alpha_m y_m K_mn`` is the score of example n without b.
    """
    free = (alpha > 0) & (alpha < upper)
    if free.any():
        return float(np.mean(y[free] - g[free]))
    # every support vector at the bound: any b in [lo, hi] satisfies KKT; take the middle, as libsvm does.
    r = y - g
    up = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha == 0))  # these examples bound b from above
    lo = np.max(r[~up]) if (~up).any() else -np.inf
    hi = np.min(r[up]) if up.any() else np.inf
    return float((lo + hi) / 2) if np.isfinite(lo + hi) else float(lo if np.isfinite(lo) else hi)


def _kkt_gap(Q, y, alpha, b, upper):
    f = y * (y * (Q @ alpha) + b)
    xi = np.maximum(0.0, 1.0 - f)
    inside = xi if not np.isfinite(upper) else (upper - alpha) * xi
    return max(float(np.max(alpha * np.maximum(0.0, f - 1.0))), float(np.max(inside)), abs(float(alpha @ y)))


def _polish(Q, y, alpha, upper):
    """Refine an interior-point solution on its active set, as QP solvers' "polishing" does.

    The solver's alpha is a little off its bounds, so which ones sit at a bound is read
    with a few tolerances, from tight to loose; each reading gives one candidate
    (:func:`_exact_on_support`), accurate to round-off when the reading is right. The
    candidate that satisfies the KKT conditions best is kept, and only if it beats the
    solver's answer.
    """
    b = _b_from_kkt(y * (Q @ alpha), y, alpha, upper)  # g_n = sum_m alpha_m y_m K_mn (Q = y y^T * K)
    best, best_b, best_gap = alpha, b, _kkt_gap(Q, y, alpha, b, upper)

    def column(i):  # the kernel's column i (with I/C added for the 2-norm soft margin)
        return y[i] * y * Q[:, i]

    for snap in (1e-7, 1e-6, 1e-5, 1e-4):
        current, b, _, _ = _exact_on_support(column, y, upper, alpha, snap=snap)
        gap = _kkt_gap(Q, y, current, b, upper)
        if gap < best_gap:
            best, best_b, best_gap = current, b, gap
    return best, best_b


@dataclass
class SVMResult:
    """A fitted SVM (:func:`fit_svm`).

    Attributes
    ----------
    alpha : ndarray of shape (N,)
        The dual variables, one per training example (0 off the support).
    b : float
        The bias.
    support : ndarray of int
        Indices of the support vectors (``alpha > 0``), ascending.
    w : ndarray of shape (d,) or None
        ``sum_n alpha_n y_n x_n`` for the linear kernel; None for other kernels (w
        then lives in the kernel's feature space).
    C : float or None
        The soft-margin constant; None for the hard margin.
    X_train : ndarray of shape (N, d)
        The training inputs (the kernel is evaluated against them).
    y_train : ndarray of shape (N,)
        The training labels.
    kernel, degree, gamma, coef0 : the kernel and its parameters, as in :func:`course_lib.kernels.kernel_matrix`
    """

    alpha: np.ndarray
    b: float
    support: np.ndarray
    w: np.ndarray = None
    C: float = None
    X_train: np.ndarray = field(default=None, repr=False)
    y_train: np.ndarray = field(default=None, repr=False)
    kernel: object = "linear"
    degree: int = 2
    gamma: float = 1.0
    coef0: float = 1.0

    def decision_function(self, X):
        """``sum_n alpha_n y_n K(x_n, x) + b`` for every row x of X (only the support vectors count)."""
        X = check_matrix(X, "X")
        s = self.support
        if self.w is not None:
            if X.shape[1] != self.w.shape[0]:
                raise ValueError(f"X must have {self.w.shape[0]} columns, as the training data; got {X.shape[1]}")
            return X @ self.w + self.b
        K = kernel_matrix(self.X_train[s], X, kernel=self.kernel, degree=self.degree, gamma=self.gamma,
                          coef0=self.coef0)
        return (self.alpha[s] * self.y_train[s]) @ K + self.b

    def predict(self, X):
        """Labels +1/-1: the sign of :meth:`decision_function`, with sign(0) = -1 as in the whole course."""
        return _sign(self.decision_function(X))

    @property
    def margin(self):
        """The geometric margin ``1 / ||w||`` in the kernel's feature space.

        For the hard margin it is the distance from the boundary to the nearest example.
        """
        s = self.support
        ay = self.alpha[s] * self.y_train[s]
        K = kernel_matrix(self.X_train[s], kernel=self.kernel, degree=self.degree, gamma=self.gamma, coef0=self.coef0)
        return float(1.0 / np.sqrt(ay @ K @ ay))


def fit_svm(X, y, *, C=None, kernel="linear", degree=2, gamma=1.0, coef0=1.0, penalty="l1", solver="auto"):
    """Fit a support vector machine by solving the dual quadratic program.

    Parameters
    ----------
    X : array-like of shape (N, d)
        Raw features (no constant column: b is learned apart).
    y : array-like of shape (N,)
        Labels +1 or -1 (both must occur).
    C : float or None, default=None
        None for the hard margin (every example outside the margin; the data must be
        separable in the kernel's feature space), or the price (> 0) of a unit of slack
        for the soft margin: small C, a wide margin with many violations; large C, few.
    kernel : {"linear", "poly", "rbf"} or callable, default="linear"
        The kernel (see :func:`course_lib.kernels.kernel_matrix`).
    degree, gamma, coef0 : the kernel's parameters, as in :func:`course_lib.kernels.kernel_matrix`
    penalty : {"l1", "l2"}, default="l1"
        How slack is priced: ``C sum xi_n`` (1-norm, the usual SVM: ``0 <= alpha <= C``) or
        ``C/2 sum xi_n^2`` (2-norm: the hard-margin dual with ``K + I/C``, no upper bound).
    solver : {"auto", "clarabel"}, default="auto"
        "auto" chooses the route by the size of the problem (see Notes); "clarabel" hands
        the whole dual to Clarabel at any size (steady at about 20-50 ms for a few hundred
        examples, whatever C is: what an interactive picture needs).

    Returns
    -------
    SVMResult
        ``alpha``, ``b``, ``support``, ``w`` (linear kernel), with ``decision_function``
        and ``predict``.

    Raises
    ------
    NotSeparableError
        For the hard margin (``C=None``) when the data are not separable.

    Notes
    -----
    b comes from complementary slackness: every support vector with ``0 < alpha_n < C``
    lies exactly on the margin, ``y_n (sum_m alpha_m y_m K_mn + b) = 1``; b is the mean of
    the values these give. When no such example exists (all support vectors at the bound
    C), b is the middle of the interval the KKT conditions allow, as libsvm does.

    Up to 150 examples the dual goes to Clarabel, an interior-point solver, whole. Beyond
    that the 1-norm soft margin is solved by SMO, as libsvm does (two multipliers at a time,
    the kernel's columns computed as they are needed, not the whole N x N matrix), and
    then made exact on the support vectors: the free alpha and b solve the linear system
    that puts the free support vectors on the margin, and the KKT conditions are checked
    at every example. Where SMO would need very many steps (a large C), and for the hard
    margin and the 2-norm soft margin, Clarabel solves the dual in chunks: on a working
    set of likely support vectors, grown by the examples that violate the KKT conditions
    until none does. Every route gives the same optimum, to round-off. (Where the optimal
    alpha is not unique, as with duplicated examples or the linear kernel on more free
    support vectors than dimensions, two routes may give two of them: the same decision
    function.)

    Examples
    --------
    >>> res = fit_svm([[0.0, 0.0], [2.0, 0.0], [3.0, 3.0]], [-1, 1, 1])
    >>> res.w.round(6).tolist(), round(res.b, 6), res.support.tolist()
    ([1.0, 0.0], -1.0, [0, 1])
    >>> res.predict([[3.0, 0.0], [-1.0, 0.0]]).tolist()
    [1.0, -1.0]
    """
    X, y = _check_data(X, y)
    C = _check_C(C)
    check_choice(penalty, "penalty", ("l1", "l2"))
    check_choice(solver, "solver", ("auto", "clarabel"))
    if not callable(kernel):
        check_choice(kernel, "kernel", KERNELS)
    n = X.shape[0]
    bounded = C is not None and penalty == "l1"
    upper = C if bounded else np.inf
    direct = n <= _DIRECT_UP_TO or solver == "clarabel"
    solved = _solve_dual_smo(X, y, C, kernel, degree, gamma, coef0) if bounded and not direct else None
    if solved is not None:
        alpha, b = solved
    else:
        Q = (y[:, None] * y[None, :]) * kernel_matrix(X, kernel=kernel, degree=degree, gamma=gamma, coef0=coef0)
        if C is not None and penalty == "l2":
            Q = Q + np.eye(n) / C
        alpha = _solve_dual(Q, y, upper) if direct else _solve_dual_in_chunks(Q, y, upper)
        alpha, b = _polish(Q, y, alpha, upper)
    support = np.flatnonzero(alpha > 0)
    w = (alpha * y) @ X if kernel == "linear" else None
    return SVMResult(alpha, b, support, w, C, X, y, kernel, degree, gamma, coef0)


@dataclass
class PrimalSVMResult:
    """The linear SVM from the primal program (:func:`fit_svm_primal`): ``w``, ``b`` and the slacks ``xi``.

    Attributes
    ----------
    w : ndarray of shape (d,)
        The weights.
    b : float
        The bias.
    xi : ndarray of shape (N,)
        The slack of each training example (0 outside the margin).
    C : float or None
        The soft-margin constant; None for the hard margin.
    """

    w: np.ndarray
    b: float
    xi: np.ndarray
    C: float = None

    def decision_function(self, X):
        """``X @ w + b``."""
        return check_matrix(X, "X") @ self.w + self.b

    def predict(self, X):
        """sign(X @ w + b), with sign(0) = -1."""
        return _sign(self.decision_function(X))


def fit_svm_primal(X, y, *, C=None, penalty="l1"):
    """Fit the linear SVM from its primal quadratic program (variables b, w and the slacks).

    The program has ``d + 1`` variables for the hard margin and ``d + 1 + N`` for the
    soft margin, against N for the dual: which one is cheaper depends on the shape of
    the data. Both give the same w and b (KKT).

    Parameters
    ----------
    X : array-like of shape (N, d)
        Raw features.
    y : array-like of shape (N,)
        Labels +1 or -1.
    C : float or None, default=None
        None for the hard margin, else the soft margin's price of slack (> 0).
    penalty : {"l1", "l2"}, default="l1"
        ``C sum xi_n`` with ``xi_n >= 0`` (the 1-norm soft margin), or ``C/2 sum xi_n^2``
        (the 2-norm soft margin, which needs no ``xi_n >= 0``: a negative slack would only
        cost more), as in :func:`fit_svm`, whose dual answer this checks.

    Returns
    -------
    PrimalSVMResult
        ``w``, ``b``, ``xi`` (all zeros for the hard margin).

    Examples
    --------
    >>> res = fit_svm_primal([[0.0, 0.0], [2.0, 0.0], [3.0, 3.0]], [-1, 1, 1])
    >>> res.w.round(6).tolist(), round(res.b, 6)
    ([1.0, 0.0], -1.0)
    """
    X, y = _check_data(X, y)
    C = _check_C(C)
    check_choice(penalty, "penalty", ("l1", "l2"))
    n, d = X.shape
    m = 1 + d + (n if C is not None else 0)  # variables: b, w, xi
    P = np.zeros((m, m))
    P[1:1 + d, 1:1 + d] = np.eye(d)
    q = np.zeros(m)
    # y_n (w^T x_n + b) + xi_n >= 1   <=>   -y_n b - y_n x_n^T w - xi_n + s = -1, s >= 0
    A = np.hstack([-y[:, None], -y[:, None] * X] + ([-np.eye(n)] if C is not None else []))
    rhs = -np.ones(n)
    if C is not None and penalty == "l2":
        P[1 + d:, 1 + d:] = C * np.eye(n)
    elif C is not None:
        q[1 + d:] = C
        A = np.vstack([A, np.hstack([np.zeros((n, 1 + d)), -np.eye(n)])])
        rhs = np.r_[rhs, np.zeros(n)]
    x, status = _solve_qp(P, q, A, rhs, 0, A.shape[0])
    if status in ("PrimalInfeasible", "AlmostPrimalInfeasible"):
        raise NotSeparableError("the data are not linearly separable, so the hard margin has no solution; pass C")
    if status not in ("Solved", "AlmostSolved"):
        raise RuntimeError(f"the quadratic program was not solved: {status}")
    xi = np.maximum(x[1 + d:], 0.0) if C is not None else np.zeros(n)
    return PrimalSVMResult(x[1:1 + d], float(x[0]), xi, C)


def kkt_violation(result):
    """How far a fitted (1-norm or hard-margin) :class:`SVMResult` is from satisfying the KKT conditions.

    With ``f_n = y_n (sum_m alpha_m y_m K_mn + b)`` and the slack ``xi_n = max(0, 1 - f_n)``,
    the conditions are complementary slackness, ``alpha_n (f_n - 1 + xi_n) = 0`` (an example
    strictly outside the margin has ``alpha_n = 0``) and ``(C - alpha_n) xi_n = 0`` (an
    example inside the margin has ``alpha_n = C``; for the hard margin no example may be
    inside it at all), and ``sum_n alpha_n y_n = 0``. Returns the largest amount by which
    one of these equalities fails: 0 for an exact solution. The products, not the cases
    ``alpha_n = 0`` / ``0 < alpha_n < C`` / ``alpha_n = C``, are measured, so a solver's
    tiny round-off in alpha does not count as a violation.

    Parameters
    ----------
    result : SVMResult
        A fit of :func:`fit_svm` with the hard margin or ``penalty="l1"``.

    Examples
    --------
    >>> res = fit_svm([[0.0, 0.0], [2.0, 0.0], [3.0, 3.0]], [-1, 1, 1])
    >>> kkt_violation(res) < 1e-6
    True
    """
    a, y, C = result.alpha, result.y_train, result.C
    f = y * result.decision_function(result.X_train)
    xi = np.maximum(0.0, 1.0 - f)
    outside = a * np.maximum(0.0, f - 1.0)
    inside = xi if C is None else (C - a) * xi
    return float(max(outside.max(), inside.max(), abs(float(a @ y))))
