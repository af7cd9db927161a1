"""Why can machines learn? Dichotomies, growth functions, break points and the VC bound.

*Machine Learning Foundations*, Lectures 5 to 7, and *Learning From Data*, sections 2.1
and 2.2. On a finite set of inputs x_1, ..., x_N an infinite hypothesis set realises only
finitely many **dichotomies** (labelings (h(x_1), ..., h(x_N))). Their largest number over
all sets of N inputs is the **growth function** m_H(N); it replaces the M of the union
bound. Once some k points can never be shattered (a **break point**), m_H(N) is at most
B(N, k) = sum_{i<k} C(N, i), a polynomial in N, and the VC bound

    P[|E_in(g) - E_out(g)| > eps] <= 4 m_H(2N) exp(-eps^2 N / 8)

makes learning feasible. The VC dimension d_vc is the largest N with m_H(N) = 2^N; for
perceptrons in R^d it is d + 1.

Counting here is **exact**: no point set is sampled and no separating line is searched
for by a heuristic. How each model is counted is said in :func:`dichotomies`.
"""
import itertools
import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from ._validation import check_choice, check_int, check_matrix, check_real, check_vector

__all__ = [
    "MODELS", "all_labelings", "dichotomies", "count_dichotomies", "is_shattered", "unrealisable_labeling",
    "shattered_set", "separating_weights", "growth_function", "bounding_function", "bounding_function_table",
    "bounding_function_brute_force", "largest_family", "recursion_split", "hoeffding_sample_size", "vc_bound", "vc_delta",
    "vc_sample_size", "generalization_bounds", "GeneralizationGap", "pocket_generalization_gap",
]

MODELS = ("perceptron", "positive_ray", "positive_interval", "convex_set")
"""The hypothesis sets :func:`dichotomies` counts on given points."""

_GROWTH_MODELS = ("positive_ray", "positive_interval", "convex_set", "perceptron_2d", "perceptron")


# --- exact arithmetic on the inputs ----------------------------------------------------------

def _exact_integers(X):
    """The rows of X as tuples of Python integers, the same affine picture exactly.

    Every finite float is an integer times a power of two, so multiplying all coordinates
    by one common power of two turns them into integers without any rounding; sides of
    hyperplanes and convex hulls are unchanged by that scaling.
    """
    fractions = [[Fraction(float(v)) for v in row] for row in X]
    scale = math.lcm(*(f.denominator for row in fractions for f in row)) if X.size else 1
    return [tuple(int(f * scale) for f in row) for row in fractions]


def _det(rows):
    """Determinant of a square matrix of Python integers, exactly (Bareiss' fraction-free elimination)."""
    m = [list(r) for r in rows]
    n = len(m)
    if n == 0:
        return 1
    sign, prev = 1, 1
    for k in range(n - 1):
        if m[k][k] == 0:
            swap = next((i for i in range(k + 1, n) if m[i][k] != 0), None)
            if swap is None:
                return 0
            m[k], m[swap] = m[swap], m[k]
            sign = -sign
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                m[i][j] = (m[i][j] * m[k][k] - m[i][k] * m[k][j]) // prev
        prev = m[k][k]
    return sign * m[n - 1][n - 1]


def _independent_rows(vectors):
    """Indices of a maximal linearly independent subset of integer vectors (exact elimination over Q)."""
    basis, chosen = [], []
    for index, v in enumerate(vectors):
        r = [Fraction(a) for a in v]
        for b, pivot in basis:
            if r[pivot] != 0:
                factor = r[pivot] / b[pivot]
                r = [x - factor * y for x, y in zip(r, b, strict=True)]
        pivot = next((j for j, a in enumerate(r) if a != 0), None)
        if pivot is not None:
            basis.append((r, pivot))
            chosen.append(index)
    return chosen


def _full_dimensional(points):
    """The points in integer coordinates of their own affine hull, orientation kept: (k, coordinates).

    With b_0 a point and V the matrix of k independent differences b_j - b_0 spanning the
    hull, the map p -> V^T (p - b_0) is one-to-one on the hull and keeps orientations
    (det V^T V > 0), so sides of hyperplanes of the hull are the same in the new coordinates.
    """
    origin = points[0]
    diffs = [tuple(a - b for a, b in zip(p, origin, strict=True)) for p in points]
    chosen = _independent_rows(diffs)
    k = len(chosen)
    if k == len(origin):
        return k, diffs
    basis = [diffs[i] for i in chosen]
    return k, [tuple(sum(a * b for a, b in zip(v, p, strict=True)) for v in basis) for p in diffs]


def _affine_dichotomies(points, members, cache=None):
    """Bit masks (over ``members``' bits) of the labelings affine functions realise strictly on ``points``.

    A labeling is realised when some affine g has g > 0 on the +1 points and g < 0 on the
    -1 points. Where the points span k dimensions, every such labeling but none other comes
    from a hyperplane H of their hull through k of the points: the points off H take the
    side of H they lie on (or the opposite sides), the points on H a labeling realised by
    an affine function within H. (The labelings form an open cone of affine functions;
    an edge of its closure vanishes on k affinely independent points.) Recurse on H; one
    location (k = 0) has the two constant labelings.
    """
    cache = {} if cache is None else cache       # a flat is reached from many hyperplanes: count it once
    key = tuple(members)
    if key in cache:
        return cache[key]
    everyone = 0
    for bit in members:
        everyone |= bit
    k, coords = _full_dimensional(points)
    if k == 0:
        cache[key] = {0, everyone}
        return cache[key]
    found = set()
    seen_flats = set()
    locations = {}
    for i, c in enumerate(coords):
        locations.setdefault(c, i)
    distinct = list(locations.values())
    for combo in itertools.combinations(distinct, k):
        base = coords[combo[0]]
        spans = [tuple(a - b for a, b in zip(coords[j], base, strict=True)) for j in combo[1:]]
        sides = [_det([*spans, tuple(a - b for a, b in zip(q, base, strict=True))]) for q in coords]
        if not any(sides):
            continue                                    # the k points are affinely dependent
        on = tuple(i for i, s in enumerate(sides) if s == 0)
        if on in seen_flats:
            continue
        seen_flats.add(on)
        above = below = 0
        for i, s in enumerate(sides):
            if s > 0:
                above |= members[i]
            elif s < 0:
                below |= members[i]
        inner = _affine_dichotomies([points[i] for i in on], [members[i] for i in on], cache)
        for sub in inner:
            found.add(above | sub)
            found.add(below | sub)
    cache[key] = found
    return found


def _perceptron_masks(X):
    points = _exact_integers(X)
    n = len(points)
    members = [1 << (n - 1 - i) for i in range(n)]
    return _affine_dichotomies(points, members)


def _ray_masks(x):
    n = len(x)
    order = np.unique(x)
    masks = set()
    for threshold in range(len(order) + 1):          # +1 for the points above the threshold-th distinct value
        above = x > order[threshold - 1] if threshold else np.ones(n, dtype=bool)
        masks.add(_mask(above))
    return masks


def _interval_masks(x):
    order = np.unique(x)
    masks = {0}
    for lo in range(len(order)):
        for hi in range(lo, len(order)):
            masks.add(_mask((x >= order[lo]) & (x <= order[hi])))
    return masks


def _cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _hull(points):
    """The convex hull of integer points in the plane, counter-clockwise, collinear points left out."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts
    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and _cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and _cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def _in_hull(hull, q):
    """Whether q lies in the closed convex hull given by its vertices (0, 1, 2 or more of them)."""
    if not hull:
        return False
    if len(hull) == 1:
        return q == hull[0]
    if len(hull) == 2:
        a, b = hull
        return _cross(a, b, q) == 0 and min(a[0], b[0]) <= q[0] <= max(a[0], b[0]) and \
            min(a[1], b[1]) <= q[1] <= max(a[1], b[1])
    return all(_cross(hull[i], hull[(i + 1) % len(hull)], q) >= 0 for i in range(len(hull)))


def _convex_masks(X):
    points = _exact_integers(X)
    n = len(points)
    masks = set()
    for labels in itertools.product((False, True), repeat=n):
        inside = [p for p, lab in zip(points, labels, strict=True) if lab]
        hull = _hull(inside)
        if not any(_in_hull(hull, p) for p, lab in zip(points, labels, strict=True) if not lab):
            masks.add(_mask(np.array(labels)))
    return masks


def _mask(positive):
    """A labeling as a bit mask: bit N-1-n holds the label of point n (+1 = set)."""
    out = 0
    for flag in positive:
        out = (out << 1) | bool(flag)
    return out


def _check_points(X, model):
    model = check_choice(model, "model", MODELS)
    try:
        arr = np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        arr = X                     # not numbers: the checks below name the problem
    if model in ("positive_ray", "positive_interval"):
        if np.ndim(arr) == 2 and np.shape(arr)[1] == 1:
            arr = np.asarray(arr)[:, 0]
        return model, check_vector(arr, "X")
    if model == "perceptron" and np.ndim(arr) == 1:
        arr = np.asarray(arr, dtype=float)[:, None]
    X = check_matrix(arr, "X")
    if model == "convex_set" and X.shape[1] != 2:
        raise ValueError(f"model='convex_set' counts points in the plane: X must have 2 columns; got shape {X.shape}")
    return model, X


def _masks(X, model):
    model, X = _check_points(X, model)
    if model == "perceptron":
        return _perceptron_masks(X), len(X)
    if model == "positive_ray":
        return _ray_masks(X), len(X)
    if model == "positive_interval":
        return _interval_masks(X), len(X)
    if len(X) > 16:
        raise ValueError(f"model='convex_set' tries all 2^N labelings; N = {len(X)} is too many (at most 16)")
    return _convex_masks(X), len(X)


def all_labelings(n):
    """Every labeling of N points, one per row, in the order of ``itertools.product((-1, +1), repeat=N)``.

    Row j is the binary expansion of j with -1 for 0 and +1 for 1, the first point the most
    significant digit; :func:`dichotomies` lists its rows in the same order.

    Parameters
    ----------
    n : int
        Number of points N (>= 0).

    Examples
    --------
    >>> all_labelings(2).tolist()
    [[-1, -1], [-1, 1], [1, -1], [1, 1]]
    """
    n = check_int(n, "n", minimum=0)
    if n > 24:
        raise ValueError(f"n must be at most 24 (2^n rows); got {n}")
    bits = (np.arange(2**n)[:, None] >> np.arange(n - 1, -1, -1)) & 1
    return np.where(bits == 1, 1, -1)


def dichotomies(X, *, model="perceptron"):
    """The distinct labelings that a hypothesis set realises on the points X, counted exactly.

    Parameters
    ----------
    X : array-like
        The inputs, one per row: shape (N, d) for ``"perceptron"`` (any dimension; a 1-D
        array is N points on the line), (N, 2) for ``"convex_set"``, a 1-D array (or one
        column) for ``"positive_ray"`` and ``"positive_interval"``. Points may repeat and
        may lie in any position (collinear, coplanar, ...).
    model : {"perceptron", "positive_ray", "positive_interval", "convex_set"}
        * ``"perceptron"``: h(x) = sign(w_0 + w^T x) with sign(0) = -1. A labeling is
          realised exactly when some affine function is > 0 on its +1 points and < 0 on its
          -1 points (a hyperplane through -1 points can be shifted off them). Decided by a
          combinatorial argument, in exact integer arithmetic: the coordinates are scaled to
          integers without rounding, and every realised labeling comes from a hyperplane
          through points of the set (the points off it labelled by their side, those on it
          recursively within it); no linear program or tolerance is involved. The work grows
          like N^d, not like 2^N.
        * ``"positive_ray"``: h(x) = +1 exactly when x > a. The realised labelings are the
          thresholds between consecutive distinct values.
        * ``"positive_interval"``: h(x) = +1 exactly when l <= x <= r (or never). The
          realised labelings put +1 on a run of consecutive distinct values, or nowhere.
        * ``"convex_set"``: h(x) = +1 inside a convex set of the plane. A labeling is
          realised exactly when no -1 point lies in the closed convex hull of the +1
          points; each of the 2^N labelings is tested with an exact integer convex hull.
        Equal points always get equal labels.

    Returns
    -------
    ndarray of int of shape (m, N)
        One realised labeling (+1 / -1) per row, in the order of :func:`all_labelings`.

    Notes
    -----
    "Exact" means exact for the floating-point numbers given. A decimal such as 0.1 or 0.35
    has no exact binary representation, so points that lie on one line in decimal notation,
    such as (0.1, 0.2), (0.2, 0.3), (0.3, 0.4), are usually a hair off it as floats and are
    counted as points in general position (8 labelings, not 6). Give such points in whole
    units (here, tenths: (1, 2), (2, 3), (3, 4)); scaling every coordinate by one factor
    changes no dichotomy.

    Examples
    --------
    >>> dichotomies([[0, 0], [1, 0], [2, 0]]).shape     # three collinear points: 6 of 8
    (6, 3)
    >>> dichotomies([0.2, 0.5, 0.9], model="positive_ray").tolist()
    [[-1, -1, -1], [-1, -1, 1], [-1, 1, 1], [1, 1, 1]]
    """
    masks, n = _masks(X, model)
    ordered = np.array(sorted(masks), dtype=object)
    if n == 0:
        return np.zeros((len(ordered), 0), dtype=int)
    bits = np.array([[(int(m) >> (n - 1 - i)) & 1 for i in range(n)] for m in ordered], dtype=int)
    return np.where(bits == 1, 1, -1).reshape(len(ordered), n)


def count_dichotomies(X, *, model="perceptron"):
    """How many distinct labelings the hypothesis set realises on the points X (exactly).

    See :func:`dichotomies` for the models and how each is decided.

    Parameters
    ----------
    X : array-like
        The points, as for :func:`dichotomies`.
    model : {"perceptron", "positive_ray", "positive_interval", "convex_set"}

    Returns
    -------
    int

    Examples
    --------
    >>> count_dichotomies([[0, 0], [1, 0], [0, 1], [1, 1]])            # XOR and its mirror are missing
    14
    >>> count_dichotomies([[0, 0], [1, 0], [2, 0]])                    # collinear: +1 -1 +1 is missing
    6
    >>> count_dichotomies([0.1, 0.4, 0.4, 0.8], model="positive_interval")   # a repeated point
    7
    """
    return len(_masks(X, model)[0])


def is_shattered(X, *, model="perceptron"):
    """Whether the hypothesis set realises all 2^N labelings of the points X.

    Parameters
    ----------
    X : array-like of shape (N, d), or (N,) for points on a line
        The points.
    model : {"perceptron", "positive_ray", "positive_interval", "convex_set"}, default="perceptron"
        The hypothesis set (see :data:`MODELS`).

    Examples
    --------
    >>> is_shattered([[0, 0], [1, 0], [0, 1]]), is_shattered([[0, 0], [1, 0], [2, 0]])
    (True, False)
    """
    masks, n = _masks(X, model)
    return len(masks) == 2**n


def unrealisable_labeling(X):
    """A labeling of N >= d + 2 points of R^d that no perceptron realises, by the lecture's proof.

    With z_n = (1, x_n), N > d + 1 vectors of R^(d+1) are linearly dependent:
    sum_n a_n z_n = 0 with some a_n != 0, and sum_n a_n = 0 (the first coordinates), so
    some a_n are positive and some negative. Label +1 where a_n > 0 and -1 elsewhere. A
    perceptron w with w^T z_n > 0 on the +1 points and w^T z_n <= 0 on the others would
    give 0 = sum_{a_n > 0} a_n w^T z_n + sum_{a_n < 0} a_n w^T z_n > 0. The dependence is
    found in exact rational arithmetic.

    Parameters
    ----------
    X : array-like of shape (N, d) with N >= d + 2

    Returns
    -------
    ndarray of int of shape (N,)
        Labels +1 / -1.

    Examples
    --------
    >>> y = unrealisable_labeling([[0, 0], [1, 0], [0, 1], [1, 1]])
    >>> y.tolist(), bool((dichotomies([[0, 0], [1, 0], [0, 1], [1, 1]]) == y).all(axis=1).any())
    ([1, -1, -1, 1], False)
    """
    X = check_matrix(X, "X")
    n, d = X.shape
    if n < d + 2:
        raise ValueError(f"X must hold at least d + 2 = {d + 2} points of R^{d}; got {n}: "
                         "d + 1 points in general position are shattered")
    Z = [(1, *p) for p in _exact_integers(X)]
    # a nonzero a with sum_n a_n z_n = 0: the null space of the (d+1) x N matrix Z^T, by elimination over Q
    rows = [[Fraction(Z[j][i]) for j in range(n)] for i in range(d + 1)]
    pivots, r = [], 0
    for c in range(n):
        p = next((i for i in range(r, len(rows)) if rows[i][c] != 0), None)
        if p is None:
            continue
        rows[r], rows[p] = rows[p], rows[r]
        rows[r] = [v / rows[r][c] for v in rows[r]]
        for i in range(len(rows)):
            if i != r and rows[i][c] != 0:
                f = rows[i][c]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[r], strict=True)]
        pivots.append(c)
        r += 1
    free = next(c for c in range(n) if c not in pivots)
    a = [Fraction(0)] * n
    a[free] = Fraction(1)
    for i, c in enumerate(pivots):
        a[c] = -rows[i][free]
    return np.array([1 if v > 0 else -1 for v in a])


def shattered_set(d):
    """d + 1 points of R^d that perceptrons shatter: the origin and the d unit vectors.

    With z_n = (1, x_n) the (d+1) x (d+1) matrix Z is invertible, so for every labeling y
    the weights w = Z^{-1} y give sign(Z w) = y (the lecture's construction).

    Parameters
    ----------
    d : int
        Dimension of the input space.

    Examples
    --------
    >>> shattered_set(2).tolist()
    [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
    """
    d = check_int(d, "d", minimum=1)
    return np.vstack([np.zeros((1, d)), np.eye(d)])


def separating_weights(X, y):
    """Weights (w0, w) of a perceptron that realises the labels y on X, or None: for drawing a line.

    A linear program (SciPy's HiGHS) maximises t subject to y_n (w0 + w^T x_n) >= t and
    -1 <= w_i <= 1, which centres the boundary between the two classes (the widest margin
    measured with the largest |w_i|). It works in floating point: whether y is realisable
    at all is decided exactly by :func:`dichotomies`; this only finds a line to show.

    Parameters
    ----------
    X : array-like of shape (N, d)
        The points.
    y : array-like of shape (N,)
        Labels +1 or -1.

    Examples
    --------
    >>> X = np.array([[0, 0], [2, 0], [0, 2], [2, 2]])
    >>> w = separating_weights(X, [-1, 1, -1, 1])
    >>> (np.round(w, 6) + 0.0).tolist(), np.where(w[0] + X @ w[1:] > 0, 1, -1).tolist()
    ([-1.0, 1.0, 0.0], [-1, 1, -1, 1])
    >>> separating_weights([[0, 0], [1, 0], [2, 0]], [1, -1, 1]) is None
    True
    """
    from scipy.optimize import linprog

    X = check_matrix(np.asarray(X, dtype=float).reshape(len(X), -1), "X")
    y = np.asarray(y, dtype=float)
    if y.shape != (X.shape[0],) or not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError(f"y must hold {X.shape[0]} labels +1 / -1; got {y!r}")
    Z = np.column_stack([np.ones(len(X)), X])
    scale = max(1.0, float(np.abs(X).max()))
    n_w = Z.shape[1]
    cost = np.zeros(n_w + 1)
    cost[-1] = -1.0                                        # maximise t
    A = np.column_stack([-(y[:, None] * Z), np.ones(len(y))])
    bounds = [(-2 * scale, 2 * scale)] + [(-1, 1)] * (n_w - 1) + [(None, None)]
    res = linprog(cost, A_ub=A, b_ub=np.zeros(len(y)), bounds=bounds, method="highs")
    if res.status != 0 or res.x[-1] <= 1e-9 * scale:
        return None
    return res.x[:-1]


# --- growth functions and the bounding function ----------------------------------------------

def growth_function(model, N, *, dimension=None):
    """m_H(N), the largest number of dichotomies on N inputs, in closed form.

    Parameters
    ----------
    model : {"positive_ray", "positive_interval", "convex_set", "perceptron_2d", "perceptron"}
        * ``"positive_ray"``: N + 1 (one threshold in each of the N + 1 gaps);
        * ``"positive_interval"``: C(N + 1, 2) + 1 (two ends in two of the N + 1 gaps, or
          nothing at all);
        * ``"convex_set"``: 2^N (points on a circle: the hull of any subset leaves the others out);
        * ``"perceptron_2d"``: N^2 - N + 2, lines in the plane;
        * ``"perceptron"``: perceptrons in R^d (give ``dimension=d``),
          2 sum_{i=0}^{d} C(N - 1, i) (Cover, 1965), reached by points in general position.
    N : int
        The number of inputs, N >= 1.
    dimension : int, optional
        d, for ``model="perceptron"`` only.

    Returns
    -------
    int

    Examples
    --------
    >>> [growth_function("positive_interval", n) for n in (1, 2, 3, 4)]
    [2, 4, 7, 11]
    >>> growth_function("perceptron_2d", 4), growth_function("perceptron", 4, dimension=2)
    (14, 14)
    """
    model = check_choice(model, "model", _GROWTH_MODELS)
    N = check_int(N, "N", minimum=1)
    if (dimension is not None) != (model == "perceptron"):
        raise ValueError("dimension is given for model='perceptron' (and only then): perceptrons in R^dimension")
    if model == "positive_ray":
        return N + 1
    if model == "positive_interval":
        return math.comb(N + 1, 2) + 1
    if model == "convex_set":
        return 2**N
    if model == "perceptron_2d":
        return N * N - N + 2
    d = check_int(dimension, "dimension", minimum=1)
    return 2 * sum(math.comb(N - 1, i) for i in range(d + 1))


def bounding_function_table(n_max, k_max):
    """The table of B(N, k) for N = 0..n_max, k = 1..k_max, filled by the lecture's recursion.

    B(N, 1) = 1 (no single point shattered: all inputs get one label), B(0, k) = 1 (one
    empty labeling), and otherwise B(N, k) = B(N-1, k) + B(N-1, k-1). The proof gives "<=":
    split a set of dichotomies on N points with no k shattered by their restriction to the
    first N - 1 (:func:`recursion_split`): alpha restrictions appear once, beta appear with
    both labels of x_N. The alpha + beta distinct restrictions shatter no k points, so
    alpha + beta <= B(N-1, k); the beta that appear twice shatter no k - 1 points, so
    beta <= B(N-1, k-1); the set has alpha + 2 beta <= B(N-1, k) + B(N-1, k-1) dichotomies.
    Equality holds because the recursion's values, sum_{i<k} C(N, i), are reached by a set
    with no k points shattered (:func:`largest_family`).

    Parameters
    ----------
    n_max : int
        Largest number of points N.
    k_max : int
        Largest break point k.

    Returns
    -------
    ndarray of object (Python int) of shape (n_max + 1, k_max + 1)
        ``table[N, k]`` is B(N, k); column k = 0 is unused (0).

    Examples
    --------
    >>> bounding_function_table(4, 4)[1:, 1:].tolist()
    [[1, 2, 2, 2], [1, 3, 4, 4], [1, 4, 7, 8], [1, 5, 11, 15]]
    """
    n_max = check_int(n_max, "n_max", minimum=0)
    k_max = check_int(k_max, "k_max", minimum=1)
    table = np.zeros((n_max + 1, k_max + 1), dtype=object)
    for N in range(n_max + 1):
        for k in range(1, k_max + 1):
            table[N, k] = 1 if N == 0 or k == 1 else table[N - 1, k] + table[N - 1, k - 1]
    return table


def bounding_function(N, k):
    """B(N, k): the most dichotomies on N points such that no k of them are shattered.

    Computed by the lecture's recursion B(N, k) = B(N-1, k) + B(N-1, k-1) with B(N, 1) = 1
    and B(0, k) = 1 (see :func:`bounding_function_table`), one row at a time. It equals
    sum_{i=0}^{k-1} C(N, i): 2^N for N < k, 2^N - 1 for N = k, a polynomial of degree
    k - 1 in N beyond. Any hypothesis set with break point k has m_H(N) <= B(N, k).

    Parameters
    ----------
    N : int
        Number of points, N >= 0.
    k : int
        The break point, k >= 1.

    Returns
    -------
    int

    Examples
    --------
    >>> bounding_function(4, 3), bounding_function(3, 3), bounding_function(2, 3)
    (11, 7, 4)
    """
    N = check_int(N, "N", minimum=0)
    k = check_int(k, "k", minimum=1)
    row = [1] * (k + 1)              # row[j] = B(n, j) for the current n, j = 1..k (row[0] unused)
    for _ in range(N):
        row = [0] + [1] + [row[j] + row[j - 1] for j in range(2, k + 1)]
    return row[k]


def largest_family(N, k):
    """A set of B(N, k) labelings of N points in which no k points are shattered.

    The labelings with fewer than k entries +1: any k points miss the all-(+1) labeling
    on them, and there are sum_{i<k} C(N, i) of them, which is B(N, k).

    Parameters
    ----------
    N : int
        Number of points.
    k : int
        The break point: no k of the points are shattered.

    Returns
    -------
    ndarray of int of shape (B(N, k), N)
        In the order of :func:`all_labelings`.

    Examples
    --------
    >>> largest_family(3, 2).tolist()
    [[-1, -1, -1], [-1, -1, 1], [-1, 1, -1], [1, -1, -1]]
    """
    N = check_int(N, "N", minimum=0)
    k = check_int(k, "k", minimum=1)
    rows = all_labelings(N)
    return rows[(rows > 0).sum(axis=1) < k]


def recursion_split(labelings):
    """Split a set of dichotomies on N points as the proof of B(N, k) <= B(N-1, k) + B(N-1, k-1) does.

    Look at the dichotomies on the first N - 1 points only. Those whose restriction
    appears once form S_1 (alpha of them); those whose restriction appears twice, once with
    x_N = +1 (S_2^+) and once with x_N = -1 (S_2^-), give beta pairs. The restrictions of
    S_1 and S_2^+ are all different, so alpha + beta <= B(N-1, k) when no k points are
    shattered; and the beta restrictions of S_2^+ shatter no k - 1 points (else, with x_N,
    k points would be shattered), so beta <= B(N-1, k-1).

    Parameters
    ----------
    labelings : array-like of shape (m, N)
        Distinct labelings (+1 / -1), N >= 1.

    Returns
    -------
    dict
        ``{"S1": rows, "S2+": rows, "S2-": rows}``: index arrays into ``labelings``, each in
        the order of the rows; ``S2+`` and ``S2-`` are paired entry by entry.

    Examples
    --------
    >>> split = recursion_split(largest_family(3, 2))
    >>> {name: rows.tolist() for name, rows in split.items()}
    {'S1': [2, 3], 'S2+': [1], 'S2-': [0]}
    """
    rows = np.asarray(labelings)
    if rows.ndim != 2 or rows.shape[1] < 1 or not np.all(np.isin(rows, (-1, 1))):
        raise ValueError(f"labelings must be a 2-D array of +1 / -1 with at least one column; got shape {rows.shape}")
    if len({tuple(r) for r in rows}) != len(rows):
        raise ValueError("labelings must be distinct: a set of dichotomies holds each labeling once")
    heads = [tuple(r[:-1]) for r in rows]
    seen = {}
    for i, h in enumerate(heads):
        seen.setdefault(h, []).append(i)
    pairs = {h: sorted(ix, key=lambda i: -rows[i, -1]) for h, ix in seen.items() if len(ix) == 2}
    single = [i for i, h in enumerate(heads) if h not in pairs]
    plus = sorted(p[0] for p in pairs.values())
    minus = [pairs[heads[i]][1] for i in plus]
    return {"S1": np.array(single, dtype=int), "S2+": np.array(plus, dtype=int), "S2-": np.array(minus, dtype=int)}


def bounding_function_brute_force(N, k):
    """B(N, k) by trying every set of dichotomies on N <= 4 points (all 2^(2^N) of them).

    A set of labelings shatters the points S when its restrictions to S take all 2^|S|
    values. This keeps the largest set that shatters no k points. Exponential: for checking
    the recursion on small N only.

    Parameters
    ----------
    N : int
        Number of points (at most 4).
    k : int
        The break point: no k of the points may be shattered.

    Examples
    --------
    >>> [bounding_function_brute_force(3, k) for k in (1, 2, 3, 4)]
    [1, 4, 7, 8]
    """
    N = check_int(N, "N", minimum=0)
    k = check_int(k, "k", minimum=1)
    if N > 4:
        raise ValueError(f"N must be at most 4 (2^(2^N) sets of dichotomies); got {N}")
    if k > N:
        return 2**N
    rows = all_labelings(N) > 0
    families = np.arange(2 ** (2**N), dtype=np.int64)          # bit j: labeling j is in the set
    shatters_some = np.zeros(len(families), dtype=bool)
    for subset in itertools.combinations(range(N), k):
        shatters = np.ones(len(families), dtype=bool)
        for pattern in itertools.product((False, True), repeat=k):
            match = np.all(rows[:, list(subset)] == pattern, axis=1)
            bits = int(np.sum(1 << np.flatnonzero(match)))
            shatters &= (families & bits) != 0
        shatters_some |= shatters
    sizes = np.array([bin(f).count("1") for f in range(len(families))])
    return int(sizes[~shatters_some].max())


# --- sample sizes and bounds --------------------------------------------------------------------

def hoeffding_sample_size(M, *, epsilon, delta):
    """The least N with 2 M exp(-2 epsilon^2 N) <= delta: the union bound over M hypotheses.

    Compared in logarithms (ln(2M) - 2 epsilon^2 N <= ln delta), so any M works.

    Parameters
    ----------
    M : int
        Number of hypotheses, M >= 1.
    epsilon : float
        Tolerance, 0 < epsilon.
    delta : float
        Allowed probability of a bad sample, 0 < delta < 1.

    Returns
    -------
    int

    Examples
    --------
    >>> hoeffding_sample_size(1, epsilon=0.1, delta=0.1), hoeffding_sample_size(10**6, epsilon=0.1, delta=0.1)
    (150, 841)
    """
    M = check_int(M, "M", minimum=1)
    epsilon = check_real(epsilon, "epsilon", low=0.0, low_open=True)
    delta = check_real(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    log_need = math.log(2) + math.log(M) - math.log(delta)     # ln(2M / delta)

    def holds(n):
        return log_need - 2 * epsilon**2 * n <= 0

    n = max(1, math.ceil(log_need / (2 * epsilon**2)))
    while n > 1 and holds(n - 1):
        n -= 1
    while not holds(n):
        n += 1
    return n


def _n_array(N, name="N"):
    arr = np.asarray(N)
    if arr.size == 0 or not np.issubdtype(arr.dtype, np.integer) and not np.all(np.mod(arr, 1) == 0):
        raise ValueError(f"{name} must be a whole number or an array of them; got {N!r}")
    arr = arr.astype(float)
    if np.any(arr < 1) or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be at least 1; got {N!r}")
    return arr


def _out(values, like):
    return float(values) if np.ndim(like) == 0 else values


def vc_bound(N, *, d_vc, delta):
    """The VC generalization bound: epsilon = sqrt(8/N ln(4 m_H(2N) / delta)), with m_H(2N) <= (2N)^d_vc.

    With probability at least 1 - delta, |E_in(g) - E_out(g)| <= epsilon for every g of a
    hypothesis set of VC dimension d_vc (Learning From Data, eq. (2.12); Lin's Lecture 7).
    The polynomial (2N)^d_vc bounds m_H(2N) <= sum_{i <= d_vc} C(2N, i) whenever d_vc >= 2
    (as Lin's lecture uses it), and equals it for d_vc = 0; for d_vc = 1 it is slightly too
    small (positive rays have m_H(2N) = 2N + 1). *Learning From Data*'s Examples 2.6 and 2.7 write (2N)^d_vc + 1,
    which changes epsilon by a relative amount below 1 / (2N)^d_vc.

    Parameters
    ----------
    N : int or array-like of int
        Sample size(s), N >= 1.
    d_vc : int
        The VC dimension, >= 0.
    delta : float
        0 < delta < 1.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(vc_bound(1000, d_vc=1, delta=0.1), 3), round(vc_bound(10_000, d_vc=3, delta=0.1), 3)
    (0.301, 0.163)
    """
    n = _n_array(N)
    d_vc = check_int(d_vc, "d_vc", minimum=0)
    delta = check_real(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    log_term = math.log(4 / delta) + d_vc * np.log(2 * n)
    return _out(np.sqrt(8 / n * log_term), N)


def vc_delta(N, *, d_vc, epsilon):
    """The probability bound of the VC inequality, 4 (2N)^d_vc exp(-epsilon^2 N / 8), as Lin tabulates it.

    Values above 1 are true and say nothing. Computed in logarithms (no overflow).

    Parameters
    ----------
    N : int or array-like of int
        Number of examples.
    d_vc : int
        The VC dimension.
    epsilon : float
        The tolerance on |E_in - E_out|.

    Examples
    --------
    >>> f"{vc_delta(100, d_vc=3, epsilon=0.1):.3g}", f"{vc_delta(29_300, d_vc=3, epsilon=0.1):.3g}"
    ('2.82e+07', '0.0999')
    """
    n = _n_array(N)
    d_vc = check_int(d_vc, "d_vc", minimum=0)
    epsilon = check_real(epsilon, "epsilon", low=0.0, low_open=True)
    return _out(np.exp(math.log(4) + d_vc * np.log(2 * n) - epsilon**2 * n / 8), N)


def vc_sample_size(*, d_vc, epsilon, delta):
    """The least integer N with N >= 8/epsilon^2 ln(4 (2N)^d_vc / delta): the VC sample complexity.

    The inequality holds exactly when :func:`vc_bound` (N) <= epsilon. Its boundary
    N = a ln(2N) + c, with a = 8 d_vc / epsilon^2 and c = 8 ln(4 / delta) / epsilon^2, is
    solved in closed form with Lambert's W on its lower branch, N = -a W_{-1}(-e^{-c/a} / (2a)),
    then the integer is settled by evaluating the inequality on either side of it (no
    step-by-step search). The book finds the same N by iterating N <- 8/epsilon^2 ln(...) from
    a guess (Example 2.6: about 30,000 for d_vc = 3, epsilon = delta = 0.1).

    Parameters
    ----------
    d_vc : int
        >= 0.
    epsilon : float
        0 < epsilon <= 1.
    delta : float
        0 < delta < 1.

    Returns
    -------
    int

    Examples
    --------
    >>> vc_sample_size(d_vc=3, epsilon=0.1, delta=0.1)
    29300
    """
    d_vc = check_int(d_vc, "d_vc", minimum=0)
    epsilon = check_real(epsilon, "epsilon", low=0.0, high=1.0, low_open=True)
    delta = check_real(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    c = 8 * math.log(4 / delta) / epsilon**2

    def holds(n):   # N >= 8/eps^2 (ln(4/delta) + d_vc ln(2N)); for N >= 2 its two sides cross once
        return n >= c + 8 * d_vc * math.log(2 * n) / epsilon**2

    if d_vc == 0:
        n = math.ceil(c)
    else:
        from scipy.special import lambertw

        a = 8 * d_vc / epsilon**2
        n = math.ceil(float(np.real(-a * lambertw(-math.exp(-c / a) / (2 * a), k=-1))))
    n = max(n, 2)
    while n > 2 and holds(n - 1):
        n -= 1
    while not holds(n):
        n += 1
    return n


def _vc_polynomial_logs(n, d_vc, delta):
    """ln m_H bounds used by the four bounds: m_H(N) <= N^d_vc at N, 2N and N^2."""
    return {"N": d_vc * np.log(n), "2N": d_vc * np.log(2 * n), "N^2": 2 * d_vc * np.log(n), "delta": math.log(delta)}


def generalization_bounds(N, *, d_vc, delta):
    """Four bounds on |E_in - E_out| holding with probability 1 - delta, with m_H(N) <= N^d_vc.

    * ``"vc"``: the original VC bound, sqrt(8/N ln(4 m_H(2N) / delta)) (as :func:`vc_bound`);
    * ``"rademacher"``: the Rademacher penalty bound,
      sqrt(2 ln(2N m_H(N)) / N) + sqrt(2/N ln(1/delta)) + 1/N;
    * ``"parrondo_van_den_broek"``: the largest epsilon with
      epsilon <= sqrt(1/N (2 epsilon + ln(6 m_H(2N) / delta))), i.e. the positive root of
      N epsilon^2 - 2 epsilon - L = 0: epsilon = (1 + sqrt(1 + N L)) / N;
    * ``"devroye"``: the largest epsilon with
      epsilon <= sqrt(1/(2N) (4 epsilon (1 + epsilon) + ln(4 m_H(N^2) / delta))), the positive
      root of (2N - 4) epsilon^2 - 4 epsilon - L = 0 (infinite for N <= 2, where every epsilon
      satisfies it).

    The last two are implicit in epsilon and are solved exactly (a quadratic), not iterated.
    Every growth function is replaced by N^d_vc at its argument, as the exercise comparing
    these bounds does (the homework of the *Learning From Data* course at Caltech, Homework 4,
    with d_vc = 50 and delta = 0.05); N^d_vc bounds m_H(N) when d_vc >= 2 and N >= 2. The
    last two bounds are due to Parrondo and Van den Broeck (1993) and to Devroye (1982).

    Parameters
    ----------
    N : int or array-like of int
    d_vc : int
    delta : float

    Returns
    -------
    dict
        ``{"vc": ..., "rademacher": ..., "parrondo_van_den_broek": ..., "devroye": ...}``,
        floats (or arrays shaped like N).

    Examples
    --------
    >>> bounds = generalization_bounds(10_000, d_vc=50, delta=0.05)
    >>> {name: round(value, 3) for name, value in bounds.items()}
    {'vc': 0.632, 'rademacher': 0.331, 'parrondo_van_den_broek': 0.224, 'devroye': 0.215}
    """
    n = _n_array(N)
    d_vc = check_int(d_vc, "d_vc", minimum=0)
    delta = check_real(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    logs = _vc_polynomial_logs(n, d_vc, delta)
    vc = np.sqrt(8 / n * (math.log(4) + logs["2N"] - logs["delta"]))
    rademacher = np.sqrt(2 * (np.log(2 * n) + logs["N"]) / n) + np.sqrt(-2 / n * logs["delta"]) + 1 / n
    parrondo_log = math.log(6) + logs["2N"] - logs["delta"]
    parrondo = (1 + np.sqrt(1 + n * parrondo_log)) / n
    devroye_log = math.log(4) + logs["N^2"] - logs["delta"]
    a = 2 * n - 4
    with np.errstate(divide="ignore", invalid="ignore"):
        devroye = np.where(a > 0, (2 + np.sqrt(4 + np.maximum(a, 0) * devroye_log)) / np.where(a > 0, a, 1), np.inf)
    return {"vc": _out(vc, N), "rademacher": _out(rademacher, N),
            "parrondo_van_den_broek": _out(parrondo, N), "devroye": _out(devroye, N)}


# --- how loose is the VC bound? ---------------------------------------------------------------

class GeneralizationGap(NamedTuple):
    """E_in and E_out of the pocket algorithm over many data sets, for each N."""

    n: np.ndarray
    """The sample sizes, shape (K,)."""
    e_in: np.ndarray
    """E_in of the pocket weights, shape (n_runs, K)."""
    e_out: np.ndarray
    """E_out of the pocket weights (the exact disagreement with the noisy target, see the function), shape (n_runs, K)."""
    vc_dimension: int
    """d + 1, the VC dimension of the perceptrons used."""


def pocket_generalization_gap(n_values, *, dimension=2, noise=0.1, n_runs=50, max_updates=100, n_test=20_000,
                              rng=None):
    """The true gap E_out - E_in of the pocket algorithm on noisy linear data, for the VC bound to face.

    For each N and each run: a random target line (a perceptron in R^dimension through
    [-1, 1]^dimension), N uniform inputs whose labels are flipped with probability ``noise``,
    pocket started from linear regression's weights (``max_updates`` updates, random cycle).
    E_out(g) = noise + (1 - 2 noise) P[g(x) != f(x)] exactly for flipped labels; the
    disagreement P[g != f] is estimated on ``n_test`` fresh inputs shared by all runs.

    Parameters
    ----------
    n_values : sequence of int
        The sample sizes N.
    dimension : int, default=2
        Dimension of the inputs.
    noise : float, default=0.1
        Probability that a label is flipped.
    n_runs : int, default=50
        Runs for each N.
    max_updates : int, default=100
        Pocket's updates in each run.
    n_test : int, default=20000
        Fresh inputs on which the disagreement with the target is estimated.
    rng : None, int or numpy.random.Generator
        Randomness for the targets, the data and pocket's cycle.

    Returns
    -------
    GeneralizationGap

    Examples
    --------
    >>> gap = pocket_generalization_gap([20, 200], n_runs=5, n_test=2_000, rng=0)
    >>> gap.e_out.shape, gap.vc_dimension
    ((5, 2), 3)
    """
    from .data import random_line_target
    from .perceptron import add_bias, pocket
    from .regression import linear_classifier

    n_values = np.asarray(n_values)
    if n_values.ndim != 1 or n_values.size == 0 or not np.issubdtype(n_values.dtype, np.integer) or n_values.min() < 2:
        raise ValueError(f"n_values must be a 1-D array of whole numbers >= 2; got {n_values!r}")
    dimension = check_int(dimension, "dimension", minimum=1)
    noise = check_real(noise, "noise", low=0.0, high=0.5, high_open=True)
    n_runs = check_int(n_runs, "n_runs", minimum=1)
    max_updates = check_int(max_updates, "max_updates", minimum=0)
    n_test = check_int(n_test, "n_test", minimum=1)
    rng = np.random.default_rng(rng)
    test = add_bias(rng.uniform(-1, 1, size=(n_test, dimension)))
    e_in = np.empty((n_runs, len(n_values)))
    e_out = np.empty((n_runs, len(n_values)))
    for r in range(n_runs):
        w_f = random_line_target(rng=rng) if dimension == 2 else np.concatenate([[0.0], rng.standard_normal(dimension)])
        for j, n in enumerate(n_values):
            X = add_bias(rng.uniform(-1, 1, size=(int(n), dimension)))
            y = np.where(X @ w_f > 0, 1.0, -1.0)
            y[rng.random(int(n)) < noise] *= -1
            w = pocket(X, y, max_updates=max_updates, w0=linear_classifier(X, y), rng=rng).w
            e_in[r, j] = np.mean(np.where(X @ w > 0, 1.0, -1.0) != y)
            disagree = np.mean((test @ w > 0) != (test @ w_f > 0))
            e_out[r, j] = noise + (1 - 2 * noise) * disagree
    return GeneralizationGap(n_values.copy(), e_in, e_out, dimension + 1)
