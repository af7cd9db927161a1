"""Data sets for the perceptron lectures: synthetic targets and a loader for text files.

Every function that draws random numbers takes ``rng`` (None, a seed, or a
``numpy.random.Generator``) and never touches NumPy's global random state.
Returned X never contain the constant coordinate; use
:func:`course_lib.perceptron.add_bias` before giving them to PLA or pocket.
"""
import os
from pathlib import Path

import numpy as np

from ._validation import check_int, check_real

__all__ = [
    "make_separable", "make_noisy", "random_line_target", "make_random_line_data",
    "load_labeled_points", "data_dir", "DATA_DIR_ENV", "make_spirals",
]

DATA_DIR_ENV = "COURSE_DATA_DIR"
"""Name of the environment variable that points at the course's data directory."""


def _random_hyperplane(d, rng):
    """A target w_f = (w0, u) with unit normal u whose boundary crosses [-1, 1]^d near the middle."""
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    centre = rng.uniform(-0.5, 0.5, size=d)
    return np.concatenate([[-u @ centre], u])


def make_separable(n_samples, n_features=2, *, margin=0.1, rng=None):
    """Linearly separable data on [-1, 1]^d with at least a chosen margin.

    A random target hyperplane ``w_f`` is drawn (unit normal, crossing the cube
    near its centre); points are drawn uniformly from [-1, 1]^d, labelled by
    sign(w_f^T [1, x]), and those closer than ``margin`` to the hyperplane are
    rejected and redrawn.

    Parameters
    ----------
    n_samples : int
        Number of examples N (>= 1).
    n_features : int, default=2
        Dimension d of the raw inputs (>= 1).
    margin : float, default=0.1
        Minimum Euclidean distance from every point to the target hyperplane, in
        input space (0 <= margin < 0.5).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Labels +1.0 / -1.0, both present whenever n_samples >= 2.
    w_f : ndarray of shape (n_features + 1,)
        The target weights (w0 first); ``w_f[1:]`` has unit length, so
        ``abs(add_bias(X) @ w_f)`` is each point's distance to the boundary.

    Examples
    --------
    >>> X, y, w_f = make_separable(50, 3, margin=0.2, rng=0)
    >>> X.shape, bool(np.all(np.abs(w_f[0] + X @ w_f[1:]) >= 0.2))
    ((50, 3), True)
    """
    n = check_int(n_samples, "n_samples", minimum=1)
    d = check_int(n_features, "n_features", minimum=1)
    margin = check_real(margin, "margin", low=0.0, high=0.5, high_open=True)
    rng = np.random.default_rng(rng)
    for _ in range(100):
        w_f = _random_hyperplane(d, rng)
        X, s = np.empty((0, d)), np.empty(0)
        for _ in range(1000):
            cand = rng.uniform(-1.0, 1.0, size=(max(2 * n, 64), d))
            score = w_f[0] + cand @ w_f[1:]
            keep = np.abs(score) >= margin
            X, s = np.vstack([X, cand[keep]]), np.concatenate([s, score[keep]])
            if len(s) >= n:
                break
        X, s = X[:n], s[:n]
        # both classes present (a one-class "separable" set teaches nothing)
        if len(s) == n and (n < 2 or (np.any(s > 0) and np.any(s < 0))):
            return X, np.where(s > 0, 1.0, -1.0), w_f
    raise ValueError(f"could not draw {n} points with margin={margin} in {d} dimensions; try a smaller margin")


def make_noisy(n_samples, n_features=2, *, noise=0.1, margin=0.0, rng=None):
    """Separable data with a chosen fraction of labels flipped: the pocket setting.

    Parameters
    ----------
    n_samples, n_features, margin : as in :func:`make_separable`
    noise : float, default=0.1
        Fraction of labels flipped (0 <= noise <= 1); exactly
        ``round(noise * n_samples)`` labels, chosen at random, change sign.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        The noisy labels.
    w_f : ndarray of shape (n_features + 1,)
        The target before noise: ``sign(add_bias(X) @ w_f)`` are the clean labels.

    Examples
    --------
    >>> X, y, w_f = make_noisy(100, 2, noise=0.1, rng=0)
    >>> int(np.sum(np.sign(w_f[0] + X @ w_f[1:]) != y))
    10
    """
    noise = check_real(noise, "noise", low=0.0, high=1.0)
    rng = np.random.default_rng(rng)
    X, y, w_f = make_separable(n_samples, n_features, margin=margin, rng=rng)
    flip = rng.choice(len(y), size=int(round(noise * len(y))), replace=False)
    y = y.copy()
    y[flip] *= -1
    return X, y, w_f


def random_line_target(*, rng=None):
    """The random-line target of *Learning From Data*: a line through two random points.

    Two points are drawn uniformly from [-1, 1]^2; the target is +1 on one side of
    the line through them and -1 on the other.

    Returns
    -------
    w_f : ndarray of shape (3,)
        Weights (w0, w1, w2) with f(x) = sign(w0 + w1 x1 + w2 x2).

    Examples
    --------
    >>> w_f = random_line_target(rng=0)
    >>> w_f.shape
    (3,)
    """
    rng = np.random.default_rng(rng)
    (a1, a2), (b1, b2) = rng.uniform(-1.0, 1.0, size=(2, 2))
    # the line through a and b: (b2 - a2) x1 - (b1 - a1) x2 + (b1 a2 - a1 b2) = 0
    return np.array([b1 * a2 - a1 * b2, b2 - a2, -(b1 - a1)])


def make_random_line_data(n_samples, *, rng=None):
    """N points uniform on [-1, 1]^2 labelled by a fresh random-line target.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
    w_f : ndarray of shape (3,)

    Examples
    --------
    >>> X, y, w_f = make_random_line_data(10, rng=0)
    >>> X.shape, set(np.unique(y)) <= {-1.0, 1.0}
    ((10, 2), True)
    """
    n = check_int(n_samples, "n_samples", minimum=1)
    rng = np.random.default_rng(rng)
    w_f = random_line_target(rng=rng)
    X = rng.uniform(-1.0, 1.0, size=(n, 2))
    y = np.where(w_f[0] + X @ w_f[1:] > 0, 1.0, -1.0)
    return X, y, w_f


def data_dir():
    """The course's data directory, from the ``COURSE_DATA_DIR`` environment variable.

    Returns
    -------
    pathlib.Path or None
        The directory, or None when the variable is not set.

    Raises
    ------
    ValueError
        When the variable names something that is not a directory.
    """
    value = os.environ.get(DATA_DIR_ENV)
    if not value:
        return None
    path = Path(value).expanduser()
    if not path.is_dir():
        raise ValueError(f"{DATA_DIR_ENV}={value!r} is not a directory")
    return path


def load_labeled_points(path):
    """Load a whitespace-separated text file of rows ``x1 ... xd label``.

    This is the format of the course homework files (e.g. ``hw1_15_train.dat``):
    d feature columns then a label of +1 or -1 per line. A relative path that does
    not exist is also looked up in the data directory (``COURSE_DATA_DIR``).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    X : ndarray of shape (N, d)
    y : ndarray of shape (N,)

    Raises
    ------
    FileNotFoundError
        When the file is in neither place (the message says where it looked).
    ValueError
        On a malformed line (its number and content are in the message).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "points.dat"
    >>> _ = f.write_text("0.5 1.0\\t1\\n-0.5 2.0\\t-1\\n")
    >>> X, y = load_labeled_points(f)
    >>> X.tolist(), y.tolist()
    ([[0.5, 1.0], [-0.5, 2.0]], [1.0, -1.0])
    """
    p = Path(path)
    tried = [p]
    if not p.exists() and not p.is_absolute():
        base = data_dir()
        if base is not None:
            p = base / path
            tried.append(p)
    if not p.is_file():
        raise FileNotFoundError(
            f"no data file at {' or '.join(map(str, tried))}; pass the file's path, or set "
            f"{DATA_DIR_ENV} to the folder that holds it"
        )
    rows, width = [], None
    with open(p, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            fields = line.split()
            if not fields:
                continue
            try:
                values = [float(v) for v in fields]
            except ValueError:
                raise ValueError(f"{p}, line {lineno}: expected numbers, got {line.strip()!r}") from None
            if width is None:
                width = len(values)
                if width < 2:
                    raise ValueError(f"{p}, line {lineno}: expected at least one feature and a label, got {line.strip()!r}")
            elif len(values) != width:
                raise ValueError(f"{p}, line {lineno}: expected {width} columns like the first line, got {len(values)}")
            if values[-1] not in (1.0, -1.0):
                raise ValueError(f"{p}, line {lineno}: the label (last column) must be +1 or -1, got {fields[-1]!r}")
            if not np.all(np.isfinite(values)):
                raise ValueError(f"{p}, line {lineno}: NaN or infinity in {line.strip()!r}")
            rows.append(values)
    if not rows:
        raise ValueError(f"{p} holds no data rows")
    data = np.array(rows)
    return data[:, :-1], data[:, -1]


def make_spirals(n_samples=200, *, turns=1.5, noise=0.0, rng=None):
    """Two interleaved spirals, one per class: the classic data set that no line (and no low-degree curve) separates.

    Point i of a spiral lies at angle ``t`` and radius ``t / (2 pi turns)`` (so the
    spirals end on the unit circle); the second spiral is the first turned by 180 degrees.

    Parameters
    ----------
    n_samples : int, default=200
        Total number of points (>= 2), split evenly between the two classes.
    turns : float, default=1.5
        How many times each spiral winds around the centre (> 0).
    noise : float, default=0.0
        Standard deviation of Gaussian noise added to each coordinate (>= 0).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
        +1 for the first spiral, -1 for the second.

    Examples
    --------
    >>> X, y = make_spirals(100, rng=0)
    >>> X.shape, int((y == 1).sum()), int((y == -1).sum())
    ((100, 2), 50, 50)
    """
    n_samples = check_int(n_samples, "n_samples", minimum=2)
    turns = check_real(turns, "turns", low=0.0, low_open=True)
    noise = check_real(noise, "noise", low=0.0)
    rng = np.random.default_rng(rng)
    n_pos = (n_samples + 1) // 2
    t = np.sqrt(rng.uniform(0.02, 1.0, size=n_samples)) * 2 * np.pi * turns  # more points where the arm is longer
    r = t / (2 * np.pi * turns)
    sign = np.r_[np.ones(n_pos), -np.ones(n_samples - n_pos)]
    X = sign[:, None] * np.c_[r * np.cos(t), r * np.sin(t)]
    X += noise * rng.normal(size=X.shape)
    return X, sign
