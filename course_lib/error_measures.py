"""Noise and error (*Machine Learning Foundations*, Lecture 8; *Learning From Data*, section 1.4).

With noise, the target is a distribution P(y | x), not a function; learning aims at the
*ideal mini-target*, the best prediction for each x under the chosen error measure. An
error measure E(g, f) averages a pointwise error err(g(x), y): the 0/1 error [g(x) != y]
for classification, the squared error (g(x) - y)^2 for regression, or the entries of a cost
matrix when the two kinds of mistakes cost differently (Lin's supermarket and CIA
fingerprint examples).

Cost matrices here have the true label y in the rows and the prediction h(x) in the
columns, both in the order (+1, -1): ``cost[0, 1]`` is the cost of a **false reject**
(y = +1, h(x) = -1), ``cost[1, 0]`` that of a **false accept** (y = -1, h(x) = +1).
"""
from typing import NamedTuple

import numpy as np

from ._validation import check_choice, check_int, check_labels, check_vector, check_weights, check_Xy

__all__ = ["ERROR_MEASURES", "COST_MATRICES", "pointwise_error", "cost_matrix", "weighted_error",
           "example_weights", "expected_cost", "ideal_mini_target", "WeightedPocketResult", "weighted_pocket"]

ERROR_MEASURES = ("zero_one", "squared")

COST_MATRICES = {
    # a customer wrongly turned away (false reject) is lost: 10; a stranger given a discount (false accept): 1
    "supermarket": ((0.0, 10.0), (1.0, 0.0)),
    # an intruder let in (false accept) is a disaster: 1000; an employee asked to try again (false reject): 1
    "cia": ((0.0, 1.0), (1000.0, 0.0)),
}
"""Lin's two fingerprint-verification examples (rows: y = +1, -1; columns: h(x) = +1, -1)."""


def pointwise_error(h, y, *, measure="zero_one"):
    """err(h(x), y) for each example: the 0/1 error [h != y] or the squared error (h - y)^2.

    Parameters
    ----------
    h : array-like
        Predictions h(x_n).
    y : array-like
        The observed outputs y_n, shaped like ``h``.
    measure : {"zero_one", "squared"}

    Returns
    -------
    ndarray of float
        One error per example; its mean is E_in.

    Examples
    --------
    >>> pointwise_error([1, -1, 1], [1, 1, -1]).tolist()
    [0.0, 1.0, 1.0]
    >>> pointwise_error([0.5, 2.0], [1.0, 1.0], measure="squared").tolist()
    [0.25, 1.0]
    """
    measure = check_choice(measure, "measure", ERROR_MEASURES)
    h = check_vector(np.ravel(np.asarray(h, dtype=float)), "h")
    y = check_vector(np.ravel(np.asarray(y, dtype=float)), "y", length=h.shape[0])
    if measure == "zero_one":
        return (h != y).astype(float)
    return (h - y) ** 2


def cost_matrix(name):
    """A copy of one of Lin's cost matrices, ``"supermarket"`` or ``"cia"`` (see :data:`COST_MATRICES`).

    Parameters
    ----------
    name : {"supermarket", "cia"}
        Which of the lecture's two examples.

    Examples
    --------
    >>> cost_matrix("cia").tolist()
    [[0.0, 1.0], [1000.0, 0.0]]
    """
    name = check_choice(name, "name", tuple(COST_MATRICES))
    return np.array(COST_MATRICES[name], dtype=float)


def _cost(cost):
    if isinstance(cost, str):
        return cost_matrix(cost)
    arr = np.asarray(cost, dtype=float)
    if arr.shape != (2, 2) or not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"cost must be 'supermarket', 'cia' or a 2 x 2 array of costs >= 0 "
                         f"(rows y = +1, -1; columns h = +1, -1); got {cost!r}")
    return arr


def weighted_error(h, y, *, cost):
    """The average cost (1/N) sum_n cost[y_n, h(x_n)] of predictions under a cost matrix.

    With the supermarket's matrix a false reject costs 10 and a false accept 1. When the
    diagonal is 0 this is Lin's weighted E_in: (1/N) sum_n weight(y_n) [h(x_n) != y_n].

    Parameters
    ----------
    h, y : array-like of +1 / -1 labels
    cost : {"supermarket", "cia"} or array-like of shape (2, 2)

    Returns
    -------
    float

    Examples
    --------
    >>> weighted_error([1, -1, -1], [-1, 1, -1], cost="cia")    # one false accept, one false reject
    333.6666666666667
    """
    cost = _cost(cost)
    h = check_labels(np.ravel(np.asarray(h, dtype=float)), "h")
    y = check_labels(np.ravel(np.asarray(y, dtype=float)), "y", n_samples=h.shape[0])
    return float(np.mean(cost[(y < 0).astype(int), (h < 0).astype(int)]))


def example_weights(y, *, cost):
    """The weight of each example in the weighted error: what misclassifying it costs.

    cost[0, 1] (a false reject) for y = +1 and cost[1, 0] (a false accept) for y = -1.

    Parameters
    ----------
    y : array-like of shape (N,)
        Labels +1 or -1.
    cost : {"supermarket", "cia"} or array-like of shape (2, 2)
        A cost matrix (rows y = +1, -1; columns h = +1, -1), or the name of one of Lin's.

    Examples
    --------
    >>> example_weights([1, -1, 1], cost="cia").tolist()
    [1.0, 1000.0, 1.0]
    """
    cost = _cost(cost)
    y = check_labels(y, "y")
    return np.where(y > 0, cost[0, 1], cost[1, 0])


def expected_cost(h, p_positive, *, cost):
    """The expected cost of predictions h(x) when y = +1 with probability P(+1 | x), averaged over the inputs.

    At one x, predicting +1 costs cost[1, 0] P(-1 | x) (a false accept, if y turns out -1)
    and predicting -1 costs cost[0, 1] P(+1 | x) (a false reject). Averaged over inputs
    drawn from P(x), it is E_out of h under the cost matrix, with no labels drawn.

    Parameters
    ----------
    h : array-like of +1 / -1
        Predictions at the inputs.
    p_positive : array-like
        P(y = +1 | x) at the same inputs.
    cost : {"supermarket", "cia"} or array-like of shape (2, 2)

    Returns
    -------
    float

    Examples
    --------
    >>> expected_cost([1, -1], [0.9, 0.5], cost="supermarket")   # (0.1 * 1 + 0.5 * 10) / 2
    2.55
    """
    cost = _cost(cost)
    h = check_labels(np.ravel(np.asarray(h, dtype=float)), "h")
    p = check_vector(np.ravel(np.asarray(p_positive, dtype=float)), "p_positive", length=h.shape[0])
    if np.any((p < 0) | (p > 1)):
        raise ValueError("p_positive must hold probabilities, between 0 and 1")
    per_point = np.where(h > 0, cost[0, 0] * p + cost[1, 0] * (1 - p), cost[0, 1] * p + cost[1, 1] * (1 - p))
    return float(np.mean(per_point))


def ideal_mini_target(values, probabilities, *, measure="zero_one"):
    """The best prediction at one x when y takes ``values`` with ``probabilities``: the ideal mini-target.

    For the 0/1 error it is the most probable value (the first one on a tie); for the
    squared error it is the mean sum_y y P(y | x).

    Parameters
    ----------
    values : array-like of shape (K,)
        The values y can take at x.
    probabilities : array-like of shape (K,)
        P(y | x) for each of them.
    measure : {"zero_one", "squared"}, default="zero_one"
        The error measure the prediction is best for.

    Examples
    --------
    >>> ideal_mini_target([1, 2, 3], [0.2, 0.7, 0.1]), round(ideal_mini_target([1, 2, 3], [0.2, 0.7, 0.1],
    ...                                                                         measure="squared"), 10)
    (2.0, 1.9)
    """
    measure = check_choice(measure, "measure", ERROR_MEASURES)
    values = check_vector(values, "values")
    p = check_vector(probabilities, "probabilities", length=values.shape[0])
    if np.any(p < 0) or abs(p.sum() - 1) > 1e-9:
        raise ValueError(f"probabilities must be >= 0 and add up to 1; got {probabilities!r}")
    if measure == "zero_one":
        return float(values[int(np.argmax(p))])
    return float(values @ p)


class WeightedPocketResult(NamedTuple):
    """What :func:`weighted_pocket` returns."""

    w: np.ndarray
    """The pocket weights: the w_t of smallest weighted E_in seen (the earliest on a tie)."""
    w_last: np.ndarray
    """The last PLA weights."""
    n_updates: int
    """PLA updates made (fewer than ``max_updates`` only if some w_t made no mistake)."""
    ein_pocket: np.ndarray
    """Weighted E_in, (1/N) sum_n weights_n [h(x_n) != y_n], of the pocket weights, t = 0..max_updates."""
    ein_pla: np.ndarray
    """Weighted E_in of the PLA weights w_t, t = 0..max_updates (constant after a w_t without mistakes)."""
    cycle: np.ndarray
    """The cycle of example indices PLA followed."""


def weighted_pocket(X, y, *, weights, max_updates, cycle="random", w0=None, rng=None):
    """The pocket algorithm for a weighted error: Lin's systematic route to cost-sensitive classification.

    Two changes to :func:`course_lib.perceptron.pocket`: PLA looks for mistakes along a cycle
    in which example n appears ``weights[n]`` times (the *virtual copies* of the lecture, so
    an example that costs 1000 when missed is checked 1000 times as often), and the pocket
    keeps the weights of the smallest weighted E_in, (1/N) sum_n weights_n [sign(w^T x_n) != y_n].
    With whole-number weights this is exactly the ordinary pocket algorithm on the data set
    in which example n is repeated ``weights[n]`` times, when that one visits the copies in
    the same order (same updates, same pocket; the example below): the copies' E_in is the
    weighted E_in times N / sum(weights).

    Parameters
    ----------
    X : array-like of shape (N, d + 1)
        Examples with x0 = 1 first.
    y : array-like of shape (N,)
        Labels +1 / -1.
    weights : array-like of shape (N,)
        What a mistake on each example costs (> 0), e.g. :func:`example_weights`.
    max_updates : int
    cycle : "random" or array-like of int, default="random"
        The order in which PLA looks for mistakes: "random" shuffles the virtual copies
        (``weights`` must then be whole numbers); an array lists example indices in the
        order to visit, any example any number of times (every example at least once).
    w0 : array-like of shape (d + 1,), optional
        Starting weights (zeros by default).
    rng : None, int or numpy.random.Generator
        For ``cycle="random"``.

    Returns
    -------
    WeightedPocketResult

    Examples
    --------
    >>> from course_lib.perceptron import add_bias, pocket
    >>> X = add_bias([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [1.0, 1.0]]); y = np.array([1.0, -1.0, 1.0, -1.0])
    >>> order = np.random.default_rng(0).permutation(7)         # a cycle over 1 + 3 + 1 + 2 copies
    >>> copies = np.repeat(np.arange(4), [1, 3, 1, 2])
    >>> mine = weighted_pocket(X, y, weights=[1, 3, 1, 2], max_updates=20, cycle=copies[order])
    >>> theirs = pocket(X[copies], y[copies], max_updates=20, cycle=order)
    >>> bool(np.array_equal(mine.w, theirs.w))
    True
    """
    from .perceptron import _first_from

    X, y = check_Xy(X, y)
    n = X.shape[0]
    weights = check_vector(weights, "weights", length=n)
    if np.any(weights <= 0):
        raise ValueError(f"weights must all be > 0; weights[{int(np.argmin(weights))}] is {float(weights.min())}")
    max_updates = check_int(max_updates, "max_updates", minimum=0)
    w = np.zeros(X.shape[1]) if w0 is None else check_weights(w0, X.shape[1], "w0").copy()
    if isinstance(cycle, str):
        check_choice(cycle, "cycle", ("random",))
        if not np.all(weights == np.round(weights)):
            raise ValueError("cycle='random' makes weights[n] virtual copies of example n, so weights must be whole "
                             "numbers; give the cycle yourself for other weights")
        copies = np.repeat(np.arange(n), weights.astype(np.int64))
        order = np.random.default_rng(rng).permutation(copies)
    else:
        order = np.asarray(cycle)
        if order.ndim != 1 or not np.issubdtype(order.dtype, np.integer) or order.size == 0 \
                or order.min() < 0 or order.max() >= n or len(np.unique(order)) != n:
            raise ValueError(f"cycle must be 'random' or a 1-D array of example indices 0..{n - 1} holding every "
                             f"example at least once; got {cycle!r}")
    positive = y > 0
    steps = y[:, None] * X
    wrong = (X @ w > 0) != positive
    err = float(weights @ wrong)
    best, best_err = w, err
    ein_pla, ein_pocket = [err], [err]
    pos, t = 0, 0
    while t < max_updates and err > 0:
        p = _first_from(wrong[order], pos)
        w = w + steps[order[p]]
        pos = p + 1 if p + 1 < len(order) else 0
        wrong = (X @ w > 0) != positive
        err = float(weights @ wrong)
        t += 1
        if err < best_err:
            best, best_err = w, err
        ein_pla.append(err)
        ein_pocket.append(best_err)
    ein_pla += [err] * (max_updates - t)              # after a perfect w_t nothing changes any more
    ein_pocket += [best_err] * (max_updates - t)
    return WeightedPocketResult(best, w, t, np.array(ein_pocket) / n, np.array(ein_pla) / n, order)
