"""The perceptron: hypotheses, PLA, pocket, and the NCTU primal-with-bias and dual forms.

Conventions (Machine Learning Foundations, Lecture 2):

* X already holds the constant coordinate x0 = +1 as its first column (use
  :func:`add_bias`), so a hypothesis is one "tall" weight vector w = (w0, w1, ..., wd)
  and h(x) = sign(w^T x).
* sign(0) is taken as -1: a point exactly on the boundary is classified as negative.
  With the start w_0 = 0 every point scores 0, so PLA's first mistake is the first
  +1 example it meets.
* Labels are +1 and -1.
"""
from typing import NamedTuple

import numpy as np

from ._validation import (
    check_choice,
    check_int,
    check_matrix,
    check_real,
    check_weights,
    check_Xy,
)

__all__ = [
    "add_bias", "predict", "error_rate", "pla", "pla_runs", "pocket", "pocket_runs",
    "perceptron_with_bias", "perceptron_dual",
    "PLAResult", "PLARunsResult", "PocketResult", "PocketRunsResult", "BiasPerceptronResult", "DualPerceptronResult",
]


def add_bias(X):
    """Prepend the constant coordinate x0 = +1 to every example.

    Parameters
    ----------
    X : array-like of shape (n_samples, d)
        Raw features, one example per row.

    Returns
    -------
    ndarray of shape (n_samples, d + 1)
        ``[1, x1, ..., xd]`` for every row: the lecture's "tall" vectors.

    Examples
    --------
    >>> add_bias([[2.0, 3.0], [4.0, 5.0]])
    array([[1., 2., 3.],
           [1., 4., 5.]])
    """
    X = check_matrix(X, "X")
    return np.hstack([np.ones((X.shape[0], 1)), X])


def _sign(scores):
    """sign with sign(0) = -1, as the course uses it."""
    return np.where(scores > 0, 1.0, -1.0)


def predict(w, X):
    """Classify the rows of X with the perceptron w: sign(X @ w), where sign(0) = -1.

    Parameters
    ----------
    w : array-like of shape (d + 1,)
        Weights, w0 (minus the threshold) first.
    X : array-like of shape (n_samples, d + 1)
        Examples with x0 = 1 in the first column.

    Returns
    -------
    ndarray of shape (n_samples,)
        +1.0 or -1.0 for every example. A score of exactly 0 gives -1.

    Examples
    --------
    >>> predict([0.0, 1.0, -1.0], add_bias([[2.0, 1.0], [1.0, 2.0], [1.0, 1.0]]))
    array([ 1., -1., -1.])
    """
    X = check_matrix(X, "X")
    w = check_weights(w, X.shape[1])
    return _sign(X @ w)


def error_rate(w, X, y):
    """Fraction of examples that the perceptron w misclassifies (E_in on (X, y)).

    Parameters
    ----------
    w : array-like of shape (d + 1,)
        Weights, w0 first.
    X : array-like of shape (N, d + 1)
        Inputs with the constant coordinate x0 = 1 (see :func:`add_bias`).
    y : array-like of shape (N,)
        Labels +1 or -1.

    Examples
    --------
    >>> X = add_bias([[2.0, 1.0], [1.0, 2.0]])
    >>> float(error_rate([0.0, 1.0, -1.0], X, [1, 1]))
    0.5
    """
    X, y = check_Xy(X, y)
    w = check_weights(w, X.shape[1])
    return float(np.mean(_sign(X @ w) != y))


def _cycle_order(cycle, n, rng, name="cycle"):
    """The order in which the examples are visited: naive, random, or given."""
    if isinstance(cycle, str):
        check_choice(cycle, name, ("naive", "random"))
        if cycle == "naive":
            return np.arange(n)
        return np.random.default_rng(rng).permutation(n)
    order = np.asarray(cycle)
    if order.shape != (n,) or not np.issubdtype(order.dtype, np.integer) or not np.array_equal(np.sort(order), np.arange(n)):
        raise ValueError(f"{name} must be 'naive', 'random' or a permutation of range({n}); got {cycle!r}")
    return order


def _first_from(mask, start):
    """Index of the first True in ``mask`` at or after ``start``, wrapping around; -1 if none."""
    rest = np.flatnonzero(mask[start:])
    if rest.size:
        return start + int(rest[0])
    head = np.flatnonzero(mask[:start])
    return int(head[0]) if head.size else -1


class PLAResult(NamedTuple):
    """What :func:`pla` returns (a named tuple: unpack it or use the attributes)."""

    w: np.ndarray
    """The final weights w_T."""
    n_updates: int
    """T, the number of corrections made."""
    halted: bool
    """True when a full cycle found no mistake (the data are separated by ``w``)."""
    trajectory: np.ndarray
    """Every w_t, t = 0..T, shape (T + 1, d + 1); ``trajectory[0]`` is the start."""
    corrected: np.ndarray
    """``corrected[t]`` is the index n(t) of the example that update t corrected."""


def pla(X, y, *, cycle="naive", eta=1.0, max_updates=None, w0=None, rng=None):
    """Perceptron Learning Algorithm: correct mistakes in a cycle until none is left.

    Starting from ``w0`` (zeros by default), PLA visits the examples in a cycle. When
    example n is misclassified (sign(w_t^T x_n) != y_n) it corrects it,
    ``w_{t+1} = w_t + eta * y_n * x_n``, and goes on with the example after n. It halts
    after a full cycle without a mistake.

    Parameters
    ----------
    X : array-like of shape (N, d + 1)
        Examples with x0 = 1 in the first column (see :func:`add_bias`).
    y : array-like of shape (N,)
        Labels +1 or -1.
    cycle : {"naive", "random"} or array-like of int, default="naive"
        "naive" visits 0, 1, ..., N-1, 0, ...; "random" follows one random
        permutation drawn once at the start (the lecture's precomputed random
        cycle); an explicit permutation of ``range(N)`` is followed as given.
    eta : float, default=1.0
        Learning rate (> 0). From w0 = 0 it only rescales the weights.
    max_updates : int or None, default=None
        Stop after this many updates even if mistakes remain. None means no limit:
        only safe on linearly separable data, where PLA is guaranteed to halt.
    w0 : array-like of shape (d + 1,) or None
        Starting weights; zeros when None.
    rng : None, int or numpy.random.Generator
        Randomness for ``cycle="random"``.

    Returns
    -------
    PLAResult
        ``(w, n_updates, halted, trajectory, corrected)``.

    Examples
    --------
    >>> X = add_bias([[1.0, 1.0], [2.0, 0.5], [-1.0, -1.0], [-0.5, -2.0]])
    >>> result = pla(X, [1, 1, -1, -1])
    >>> result.halted, result.n_updates, result.w.tolist()
    (True, 1, [1.0, 1.0, 1.0])
    >>> bool(np.all(predict(result.w, X) == [1, 1, -1, -1]))
    True
    """
    X, y = check_Xy(X, y)
    n, d1 = X.shape
    eta = check_real(eta, "eta", low=0.0, low_open=True)
    max_updates = check_int(max_updates, "max_updates", minimum=0, allow_none=True)
    w = np.zeros(d1) if w0 is None else check_weights(w0, d1, "w0").copy()
    order = _cycle_order(cycle, n, rng)
    Xo, positive = X[order], y[order] > 0
    steps = eta * np.where(positive, 1.0, -1.0)[:, None] * Xo          # the update each example makes

    trajectory, corrected = [w], []
    pos, halted = 0, False
    while max_updates is None or len(corrected) < max_updates:
        p = _first_from((Xo @ w > 0) != positive, pos)
        if p < 0:
            halted = True
            break
        w = w + steps[p]
        trajectory.append(w)
        corrected.append(p)
        pos = p + 1 if p + 1 < n else 0
    else:
        halted = not np.any((Xo @ w > 0) != positive)
    return PLAResult(w, len(corrected), bool(halted), np.array(trajectory), order[np.array(corrected, dtype=int)])


class PLARunsResult(NamedTuple):
    """What :func:`pla_runs` returns: one row per independent run."""

    w: np.ndarray
    """Final weights, shape (n_runs, d + 1)."""
    n_updates: np.ndarray
    """Updates made in each run, shape (n_runs,)."""
    halted: np.ndarray
    """Whether each run halted (a full cycle without a mistake), shape (n_runs,)."""
    orders: np.ndarray
    """The cycle each run followed, shape (n_runs, N)."""


def _pla_core(X, y, orders, max_updates, eta, w0, window=32):
    """PLA for many runs at once; run r follows the cycle ``orders[r]``.

    Each step looks at the next ``window`` examples of every unfinished run's cycle,
    corrects the first mistake there (or moves on by ``window`` when there is none),
    and counts how many examples in a row each run has found right: a run halts
    after N of them. Runs that are finished leave the arrays.
    """
    n_runs, n = orders.shape
    k = min(window, n)
    offsets = np.arange(k)
    positive = y > 0
    steps = eta * y[:, None] * X
    W = np.tile(w0, (n_runs, 1))
    n_updates = np.zeros(n_runs, dtype=int)
    halted = np.zeros(n_runs, dtype=bool)
    live = np.arange(n_runs)                       # runs still going
    pos = np.zeros(n_runs, dtype=np.intp)          # where each live run resumes its cycle
    clean = np.zeros(n_runs, dtype=np.intp)        # examples found right in a row
    while live.size:
        if max_updates is not None:
            keep = n_updates[live] < max_updates
            if not keep.all():
                live, pos, clean = live[keep], pos[keep], clean[keep]
                if not live.size:
                    break
        rows = np.arange(live.size)
        ahead = orders[live[:, None], (pos[:, None] + offsets) % n]           # (L, k) example indices
        wrong = (np.einsum("lkd,ld->lk", X[ahead], W[live]) > 0) != positive[ahead]
        # only the first N - clean of them are still needed to prove a run halts
        wrong &= offsets < (n - clean)[:, None]
        found = wrong.any(axis=1)
        first = wrong.argmax(axis=1)
        fix = rows[found]
        W[live[fix]] += steps[ahead[fix, first[fix]]]
        n_updates[live[fix]] += 1
        pos[fix] = (pos[fix] + first[fix] + 1) % n
        clean[fix] = 0
        rest = rows[~found]
        pos[rest] = (pos[rest] + k) % n
        clean[rest] += k
        done = clean >= n
        halted[live[done]] = True
        if done.any():
            keep = ~done
            live, pos, clean = live[keep], pos[keep], clean[keep]
    if max_updates is not None:                     # runs stopped by the limit may happen to be done
        stopped = ~halted
        if stopped.any():
            halted[stopped] = ~np.any((W[stopped] @ X.T > 0) != positive, axis=1)
    return W, n_updates, halted


def pla_runs(X, y, *, n_runs, max_updates=None, eta=1.0, w0=None, rng=None):
    """Many independent PLA runs at once, each with its own random cycle.

    The course homework runs PLA 2,000 times with different random cycles and
    averages the number of updates; this does all runs together in arrays. Run r
    gives exactly what ``pla(X, y, cycle=result.orders[r], ...)`` gives (its ``w``,
    ``n_updates`` and ``halted``).

    Parameters
    ----------
    X, y : as in :func:`pla`
    n_runs : int
        Number of independent runs (each draws its own random cycle).
    max_updates : int or None, default=None
        Stop a run after this many updates. None means no limit: only safe on
        linearly separable data, where every run halts.
    eta, w0 : as in :func:`pla`
    rng : None, int or numpy.random.Generator

    Returns
    -------
    PLARunsResult
        ``(w, n_updates, halted, orders)``, one row per run.

    Examples
    --------
    >>> from course_lib.data import make_separable
    >>> X, y, _ = make_separable(100, 4, margin=0.05, rng=0)
    >>> runs = pla_runs(add_bias(X), y, n_runs=20, rng=1)
    >>> bool(runs.halted.all()), runs.w.shape
    (True, (20, 5))
    >>> one = pla(add_bias(X), y, cycle=runs.orders[3])
    >>> one.n_updates == runs.n_updates[3] and bool(np.array_equal(one.w, runs.w[3]))
    True
    """
    X, y = check_Xy(X, y)
    n_runs = check_int(n_runs, "n_runs", minimum=1)
    max_updates = check_int(max_updates, "max_updates", minimum=0, allow_none=True)
    eta = check_real(eta, "eta", low=0.0, low_open=True)
    w0 = np.zeros(X.shape[1]) if w0 is None else check_weights(w0, X.shape[1], "w0")
    rng = np.random.default_rng(rng)
    orders = rng.permuted(np.tile(np.arange(X.shape[0]), (n_runs, 1)), axis=1)
    W, n_updates, halted = _pla_core(X, y, orders, max_updates, eta, w0)
    return PLARunsResult(W, n_updates, halted, orders)


class PocketResult(NamedTuple):
    """What :func:`pocket` returns."""

    w: np.ndarray
    """The pocket weights: the w_t with the fewest training mistakes seen so far."""
    w_last: np.ndarray
    """The last PLA weights w_T (what plain PLA stopped at the same time returns)."""
    n_updates: int
    """Number of PLA updates made (fewer than ``max_updates`` only if a w_t made no mistake)."""
    ein_pocket: np.ndarray
    """E_in of the pocket weights after each update, t = 0..T (never increases)."""
    ein_pla: np.ndarray
    """E_in of the PLA weights w_t, t = 0..T (wanders up and down on noisy data)."""


class PocketRunsResult(NamedTuple):
    """What :func:`pocket_runs` returns: one row per independent run."""

    w: np.ndarray
    """Pocket weights, shape (n_runs, d + 1)."""
    w_last: np.ndarray
    """Last PLA weights, shape (n_runs, d + 1)."""
    n_updates: np.ndarray
    """Updates made in each run, shape (n_runs,)."""
    ein_pocket: np.ndarray
    """E_in of the pocket weights over t, shape (n_runs, max_updates + 1)."""
    ein_pla: np.ndarray
    """E_in of the PLA weights over t, shape (n_runs, max_updates + 1)."""
    orders: np.ndarray
    """The cycle each run followed, shape (n_runs, N)."""


def _pocket_one(X, y, order, max_updates, eta, w0):
    """Pocket for one run, in the cycle's order: one matrix-vector product per update."""
    n = len(y)
    Xo, positive = X[order], y[order] > 0
    steps = eta * np.where(positive, 1.0, -1.0)[:, None] * Xo          # the update each example makes
    w = w0.copy()
    wrong = (Xo @ w > 0) != positive
    err = int(np.count_nonzero(wrong))
    best, best_err = w, err
    ein_pla = np.empty(max_updates + 1)
    ein_pocket = np.empty(max_updates + 1)
    ein_pla[0] = ein_pocket[0] = err
    pos, t = 0, 0
    while t < max_updates and err:
        p = _first_from(wrong, pos)
        w = w + steps[p]
        pos = p + 1 if p + 1 < n else 0
        wrong = (Xo @ w > 0) != positive
        err = int(np.count_nonzero(wrong))
        t += 1
        if err < best_err:
            best, best_err = w, err
        ein_pla[t], ein_pocket[t] = err, best_err
    ein_pla[t + 1:], ein_pocket[t + 1:] = err, best_err
    return best, w, t, ein_pocket / n, ein_pla / n


def _pocket_block(XsT, n_pos, steps, cols, max_updates, w0, window=16):
    """Pocket for a block of runs, kept small enough to stay in the CPU cache.

    ``XsT`` holds the examples as columns, the positive ones first (``n_pos`` of
    them), so that the mistakes of every run are counted from one product
    ``W @ XsT`` and one comparison: a positive example is wrong when its score is
    not > 0, a negative one when it is. ``cols[r, p]`` is the column of the example
    at position p of run r's cycle and ``steps[c]`` the update that example makes.
    The next mistake of each run is looked for in the next ``window`` positions of
    its cycle; only a run with none there searches its whole cycle.
    """
    n_runs, n = cols.shape
    k = min(window, n)
    rows = np.arange(n_runs)
    offsets = np.arange(k)
    ext = np.concatenate([cols, cols[:, :k]], axis=1)       # each cycle, then its first k again
    ext_cols, ext_positive = ext.ravel(), (ext < n_pos).ravel()
    ext_start = (rows * (n + k))[:, None]
    row_start = (rows * n)[:, None]
    W = np.tile(w0, (n_runs, 1))
    pos = np.zeros(n_runs, dtype=np.intp)                    # where each run resumes its cycle
    best, best_err = W.copy(), np.full(n_runs, n + 1)
    ein_pla = np.empty((n_runs, max_updates + 1))
    ein_pocket = np.empty((n_runs, max_updates + 1))
    n_updates = np.zeros(n_runs, dtype=int)
    scores = np.empty((n_runs, n))
    above = np.empty((n_runs, n), dtype=bool)
    counts, flat_above = above.view(np.uint8), above.ravel()
    small = np.uint16 if n < 2**16 else np.intp             # row sums of 0/1 fit; summing in 16 bits is faster
    for t in range(max_updates + 1):
        np.matmul(W, XsT, out=scores)
        np.greater(scores, 0.0, out=above)                                    # sign(0) = -1
        err = (n_pos - counts[:, :n_pos].sum(axis=1, dtype=small).astype(np.intp)
               + counts[:, n_pos:].sum(axis=1, dtype=small))
        better = err < best_err
        if better.any():
            best[better], best_err[better] = W[better], err[better]
        ein_pla[:, t], ein_pocket[:, t] = err, best_err
        active = err > 0
        if t == max_updates or not active.any():
            ein_pla[:, t + 1:] = err[:, None]
            ein_pocket[:, t + 1:] = best_err[:, None]
            break
        at = ext_start + pos[:, None] + offsets                 # the next k positions of every cycle
        col = ext_cols[at]
        hit = flat_above[row_start + col] != ext_positive[at]
        first = hit.argmax(axis=1)
        found = hit.any(axis=1)
        step_col = col[rows, first]
        new_pos = pos + first + 1
        rest = np.flatnonzero(active & ~found)
        if rest.size:                                             # look further round the cycle
            c = cols[rest]
            wrong = above[rest[:, None], c] != (c < n_pos)        # (r, N) by position in the cycle
            dist = np.arange(n) - pos[rest, None]
            dist[dist < 0] += n
            dist[~wrong] = n
            p = dist.argmin(axis=1)                               # the nearest wrong position
            step_col[rest], new_pos[rest] = c[np.arange(rest.size), p], p + 1
        act = rows if active.all() else np.flatnonzero(active)
        W[act] += steps[step_col[act]]
        pos[act] = new_pos[act] % n
        n_updates[act] += 1
    return best, W, n_updates, ein_pocket / n, ein_pla / n


def _pocket_core(X, y, orders, max_updates, eta, w0, block=256):
    """Pocket for many runs; run r follows the cycle ``orders[r]``. Blocks of runs are done in turn.

    BLAS is held to one thread: the products are small, and on a busy machine
    threads that wait for each other cost far more than they save.
    """
    from threadpoolctl import threadpool_limits

    n = orders.shape[1]
    first = np.argsort(y <= 0, kind="stable")              # positive examples first
    XsT, n_pos = np.ascontiguousarray(X[first].T), int(np.count_nonzero(y > 0))
    col_of = np.empty(n, dtype=np.intp)
    col_of[first] = np.arange(n)                           # col_of[i]: column of example i in XsT
    cols = col_of[orders]
    steps = (eta * y[:, None] * X)[first]                  # the update each column's example makes
    with threadpool_limits(limits=1, user_api="blas"):
        parts = [_pocket_block(XsT, n_pos, steps, cols[a:a + block], max_updates, w0)
                 for a in range(0, orders.shape[0], block)]
    return tuple(np.concatenate(arrays) for arrays in zip(*parts, strict=True))


def pocket(X, y, *, max_updates, cycle="random", eta=1.0, w0=None, rng=None):
    """Pocket algorithm: run PLA for ``max_updates`` updates, keep the best weights seen.

    After every PLA update the new w_{t+1} is compared with the weights in the
    pocket; if it makes fewer training mistakes it replaces them. Unlike PLA the
    result is sensible on data that are not linearly separable, at the price of
    computing E_in (O(N d)) after every update.

    Parameters
    ----------
    X : array-like of shape (N, d + 1)
        Examples with x0 = 1 in the first column.
    y : array-like of shape (N,)
        Labels +1 or -1.
    max_updates : int
        Number of PLA updates to make (fewer only if some w_t has no mistake left).
    cycle : {"random", "naive"} or array-like of int, default="random"
        The order in which mistakes are searched for, as in :func:`pla`.
    eta : float, default=1.0
        Learning rate (> 0).
    w0 : array-like or None
        Starting weights (zeros when None), e.g. a linear-regression solution.
    rng : None, int or numpy.random.Generator
        Randomness for the random cycle.

    Returns
    -------
    PocketResult
        ``(w, w_last, n_updates, ein_pocket, ein_pla)``.

    Examples
    --------
    >>> from course_lib.data import make_noisy
    >>> X, y, _ = make_noisy(100, 2, noise=0.1, rng=0)
    >>> result = pocket(add_bias(X), y, max_updates=50, rng=1)
    >>> bool(result.ein_pocket[-1] <= result.ein_pla[-1])
    True
    """
    X, y = check_Xy(X, y)
    max_updates = check_int(max_updates, "max_updates", minimum=0)
    eta = check_real(eta, "eta", low=0.0, low_open=True)
    w0 = np.zeros(X.shape[1]) if w0 is None else check_weights(w0, X.shape[1], "w0")
    order = _cycle_order(cycle, X.shape[0], rng)
    best, last, n_up, ein_pocket, ein_pla = _pocket_one(X, y, order, max_updates, eta, w0)
    return PocketResult(best, last, n_up, ein_pocket, ein_pla)


def pocket_runs(X, y, *, n_runs, max_updates, eta=1.0, w0=None, rng=None):
    """Many independent pocket runs at once, each with its own random cycle.

    The course homework repeats pocket 2,000 times with different random cycles and
    averages the test error; this does all runs together in arrays. Run r gives
    exactly what ``pocket(X, y, max_updates=..., cycle=result.orders[r])`` gives.

    Parameters
    ----------
    X, y : as in :func:`pocket`
    n_runs : int
        Number of independent runs (each draws its own random cycle).
    max_updates : int
        Updates per run.
    eta, w0 : as in :func:`pocket`
    rng : None, int or numpy.random.Generator

    Returns
    -------
    PocketRunsResult
        Arrays with one row per run.

    Examples
    --------
    >>> from course_lib.data import make_noisy
    >>> X, y, _ = make_noisy(200, 4, noise=0.1, rng=0)
    >>> runs = pocket_runs(add_bias(X), y, n_runs=10, max_updates=50, rng=1)
    >>> runs.w.shape, runs.ein_pocket.shape
    ((10, 5), (10, 51))
    """
    X, y = check_Xy(X, y)
    n_runs = check_int(n_runs, "n_runs", minimum=1)
    max_updates = check_int(max_updates, "max_updates", minimum=0)
    eta = check_real(eta, "eta", low=0.0, low_open=True)
    w0 = np.zeros(X.shape[1]) if w0 is None else check_weights(w0, X.shape[1], "w0")
    rng = np.random.default_rng(rng)
    orders = rng.permuted(np.tile(np.arange(X.shape[0]), (n_runs, 1)), axis=1)
    best, last, n_up, ein_pocket, ein_pla = _pocket_core(X, y, orders, max_updates, eta, w0)
    return PocketRunsResult(best, last, n_up, ein_pocket, ein_pla, orders)


class BiasPerceptronResult(NamedTuple):
    """What :func:`perceptron_with_bias` returns."""

    w: np.ndarray
    """The weights (no bias entry), shape (d,)."""
    b: float
    """The bias b: the classifier is sign(w^T x + b)."""
    n_updates: int
    """k, the number of updates (mistakes corrected)."""
    halted: bool
    """True when a full pass made no mistake."""


class DualPerceptronResult(NamedTuple):
    """What :func:`perceptron_dual` returns."""

    alpha: np.ndarray
    """alpha[i] = eta * (number of times example i was corrected)."""
    b: float
    """The bias."""
    n_updates: int
    """Total number of updates; equals ||alpha||_1 / eta."""
    halted: bool
    """True when a full pass made no mistake."""
    gram: np.ndarray
    """The Gram matrix G[i, j] = <x_i, x_j>: the only way the data enter."""


def _bias_form_checks(X, y, eta, max_updates):
    X = check_matrix(X, "X")
    X, y = check_Xy(X, y)
    eta = check_real(eta, "eta", low=0.0, low_open=True)
    max_updates = check_int(max_updates, "max_updates", minimum=0, allow_none=True)
    return X, y, eta, max_updates


def perceptron_with_bias(X, y, *, eta=1.0, max_updates=None):
    """Rosenblatt's perceptron in primal form with a separate bias (NCTU slides).

    The data X here have *no* x0 column. Passing over the examples in order, an
    example i with ``y_i (w^T x_i + b) <= 0`` (a point on the boundary counts as a
    mistake here) is corrected by ``w += eta * y_i * x_i`` and
    ``b += eta * y_i * R**2`` with R = max_i ||x_i||. It stops after a pass with no
    mistake. Novikoff's theorem for this form bounds the updates by (2R/gamma)^2
    (see :func:`course_lib.theory.bias_form_bound`).

    Parameters
    ----------
    X : array-like of shape (N, d)
        Raw features (no constant column).
    y : array-like of shape (N,)
        Labels +1 or -1.
    eta : float, default=1.0
        Learning rate (> 0).
    max_updates : int or None
        Stop after this many updates; None means no limit (separable data only).

    Returns
    -------
    BiasPerceptronResult
        ``(w, b, n_updates, halted)``.

    Examples
    --------
    >>> res = perceptron_with_bias([[1.0, 1.0], [-1.0, -1.0]], [1, -1])
    >>> res.halted, res.n_updates, res.w.tolist(), res.b
    (True, 2, [2.0, 2.0], 0.0)
    """
    X, y, eta, max_updates = _bias_form_checks(X, y, eta, max_updates)
    n = X.shape[0]
    r2 = float(np.max(np.sum(X * X, axis=1)))
    w, b = np.zeros(X.shape[1]), 0.0
    k, pos = 0, 0
    while max_updates is None or k < max_updates:
        i = _first_from(y * (X @ w + b) <= 0, pos)
        if i < 0:
            return BiasPerceptronResult(w, b, k, True)
        w = w + eta * y[i] * X[i]
        b = float(b + eta * y[i] * r2)
        k, pos = k + 1, (i + 1) % n
    return BiasPerceptronResult(w, b, k, bool(np.all(y * (X @ w + b) > 0)))


def perceptron_dual(X, y, *, eta=1.0, max_updates=None):
    """The perceptron in dual form: learn alpha (one number per example), not w.

    Writing ``w = sum_i alpha_i y_i x_i``, the primal update ``w += eta y_i x_i``
    becomes ``alpha_i += eta``, and the score of example i is
    ``sum_j alpha_j y_j G[j, i] + b`` with the Gram matrix ``G = X X^T``. It makes
    exactly the same updates as :func:`perceptron_with_bias`, so
    ``(alpha * y) @ X`` equals that function's w.

    Parameters
    ----------
    X : array-like of shape (N, d)
        Raw features (no constant column).
    y : array-like of shape (N,)
        Labels +1 or -1.
    eta : float, default=1.0
        Learning rate (> 0).
    max_updates : int or None
        Stop after this many updates; None means no limit (separable data only).

    Returns
    -------
    DualPerceptronResult
        ``(alpha, b, n_updates, halted, gram)``; ``alpha.sum() == eta * n_updates``.

    Examples
    --------
    >>> res = perceptron_dual([[1.0, 1.0], [-1.0, -1.0]], [1, -1])
    >>> res.alpha.tolist(), res.b, res.n_updates
    ([1.0, 1.0], 0.0, 2)
    """
    X, y, eta, max_updates = _bias_form_checks(X, y, eta, max_updates)
    gram = X @ X.T
    alpha, b, k, halted = _dual_updates(gram, y, eta=eta, max_updates=max_updates)
    return DualPerceptronResult(alpha, b, k, halted, gram)


def _dual_updates(gram, y, *, eta, max_updates, order=None):
    """The dual perceptron on a Gram matrix: ``(alpha, b, n_updates, halted)``.

    ``gram[i, j]`` is the inner product of examples i and j, in the input space
    (:func:`perceptron_dual`) or in a kernel's feature space
    (:func:`course_lib.kernels.kernel_perceptron`). The examples are visited in ``order``
    (default 0, 1, ..., N-1), cyclically, starting after the last correction; an
    example with ``y_i * score_i <= 0`` is corrected by ``alpha_i += eta`` and
    ``b += eta * y_i * R^2``, with ``R^2 = max_i gram[i, i]``. The scores
    ``sum_j alpha_j y_j gram[j, i] + b`` are kept up to date, one row of ``gram`` per
    update. Inputs are checked by the callers.
    """
    n = len(y)
    order = np.arange(n) if order is None else order
    r2 = float(np.max(np.diag(gram)))
    alpha, b = np.zeros(n), 0.0
    scores = np.zeros(n)  # scores[i] = sum_j alpha_j y_j gram[j, i] + b
    k, pos = 0, 0
    while max_updates is None or k < max_updates:
        p = _first_from((y * scores <= 0)[order], pos)
        if p < 0:
            return alpha, float(b), k, True
        i = int(order[p])
        alpha[i] += eta
        b += eta * y[i] * r2
        scores += eta * y[i] * (gram[i] + r2)
        k, pos = k + 1, (p + 1) % n
    return alpha, float(b), k, bool(np.all(y * scores > 0))
