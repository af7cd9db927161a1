"""Instance-based learning: k nearest neighbours.

k-NN keeps the training set and classifies a new point by a vote of the k training
points closest to it. Nothing is fitted, so everything rests on the distance:

* Euclidean ``||x - z||`` for real features — meaningful only when the features are on
  comparable scales, hence :class:`Standardizer` (fitted on the training data only);
* Hamming, the number of coordinates in which two binary (or categorical) vectors
  differ;
* Mahalanobis ``sqrt((x - z)^T S^-1 (x - z))`` with S the training data's covariance:
  Euclidean distance after the features are decorrelated and rescaled.

With k = 1 the classifier cuts the input space into the Voronoi cells of the training
points, each taking its point's label.
"""
from dataclasses import dataclass

import numpy as np

from ._validation import check_choice, check_int, check_matrix, check_vector

__all__ = ["pairwise_distances", "knn_predict", "nearest_neighbours", "majority_vote", "Standardizer",
           "fit_standardizer", "METRICS"]

METRICS = ("euclidean", "hamming", "mahalanobis")


def pairwise_distances(X, Z, *, metric="euclidean", VI=None):
    """Distances ``D[i, j]`` between the rows of X and the rows of Z.

    Parameters
    ----------
    X : array-like of shape (n, d)
    Z : array-like of shape (m, d)
    metric : {"euclidean", "hamming", "mahalanobis"}, default="euclidean"
        Hamming counts the coordinates that differ (not their fraction).
    VI : array-like of shape (d, d), optional
        The inverse covariance for ``"mahalanobis"`` (required there).

    Returns
    -------
    ndarray of shape (n, m)

    Examples
    --------
    >>> pairwise_distances([[0.0, 0.0]], [[3.0, 4.0], [1.0, 0.0]]).tolist()
    [[5.0, 1.0]]
    >>> pairwise_distances([[0, 1, 1]], [[1, 1, 0]], metric="hamming").tolist()
    [[2.0]]
    """
    X = check_matrix(X, "X")
    Z = check_matrix(Z, "Z")
    if X.shape[1] != Z.shape[1]:
        raise ValueError(f"X and Z must have the same number of features; got {X.shape[1]} and {Z.shape[1]}")
    check_choice(metric, "metric", METRICS)
    if metric == "hamming":
        return (X[:, None, :] != Z[None, :, :]).sum(axis=2).astype(float)
    if metric == "mahalanobis":
        if VI is None:
            raise ValueError("VI (the inverse covariance matrix) is required for metric='mahalanobis'")
        VI = check_matrix(VI, "VI")
        d = X.shape[1]
        if VI.shape != (d, d):
            raise ValueError(f"VI must have shape {(d, d)}; got {VI.shape}")
        T = _whitening(VI, d)
        X, Z = X @ T, Z @ T
    return _euclidean(X, Z)


def _whitening(VI, d=None):
    """T with ``sqrt((x - z)^T VI (x - z)) = ||(x - z) T||``: the Euclidean distance after x -> x T (VI = T T^T)."""
    w, V = np.linalg.eigh((VI + VI.T) / 2)
    if w.min() <= 0:
        raise ValueError("VI must be positive definite (an inverse covariance matrix)")
    return V * np.sqrt(w)


_CHUNK = 1 << 21    # differences held at once by _euclidean (16 MiB of float64)


def _euclidean(X, Z):
    """``sqrt(sum((x - z)**2))`` from the differences themselves, a block of rows of X at a time.

    The shortcut ``|x|^2 + |z|^2 - 2 x^T z`` is faster but rounds differently for each
    pair, so two training points exactly as far from x (by the differences) could come
    out in either order, and the tie rule of :func:`knn_predict` would not hold. Here
    each row is the same computation as ``np.sqrt(((Z - x) ** 2).sum(axis=1))``: equal
    differences give equal distances.
    """
    D = np.empty((X.shape[0], Z.shape[0]))
    rows = max(1, _CHUNK // max(1, Z.size))
    for start in range(0, X.shape[0], rows):
        diff = Z[None, :, :] - X[start:start + rows, None, :]
        D[start:start + rows] = np.sqrt((diff * diff).sum(axis=2))
    return D


def knn_predict(X_train, y_train, X, *, k=1, metric="euclidean"):
    """Classify the rows of X by a majority vote of their k nearest training points.

    Parameters
    ----------
    X_train : array-like of shape (N, d)
        The training inputs.
    y_train : array-like of shape (N,)
        Their labels (any numbers: +1/-1, or digits 0-9).
    X : array-like of shape (n, d)
        The points to classify.
    k : int, default=1
        How many neighbours vote (1 <= k <= N); an odd k avoids ties between two classes.
    metric : {"euclidean", "hamming", "mahalanobis"}, default="euclidean"
        The distance. Mahalanobis uses the covariance of ``X_train``.

    Returns
    -------
    ndarray of shape (n,)
        The predicted labels. A tie in the vote goes to the tied label whose nearest
        member is closest; among training points at equal distance, the one that
        comes first in ``X_train`` counts as nearer. Distances are computed from the
        differences, ``np.sqrt(((X_train - x) ** 2).sum(axis=1))`` for each row x, so
        "equal distance" means equal as that expression computes it (exactly what a
        loop over the rows of X with ``np.argsort(..., kind="stable")`` finds).

    Examples
    --------
    >>> X_train = [[0.0], [1.0], [2.0], [10.0]]
    >>> knn_predict(X_train, [1, 1, -1, -1], [[0.4], [9.0]], k=1).tolist()
    [1.0, -1.0]
    >>> knn_predict(X_train, [1, 1, -1, -1], [[2.2]], k=3).tolist()
    [1.0]
    """
    X_train = check_matrix(X_train, "X_train")
    y_train = check_vector(y_train, "y_train", length=X_train.shape[0])
    X = check_matrix(X, "X")
    k = check_int(k, "k", minimum=1)
    if k > X_train.shape[0]:
        raise ValueError(f"k must be at most the number of training points ({X_train.shape[0]}); got {k}")
    return majority_vote(y_train[nearest_neighbours(X_train, X, k=k, metric=metric)])


def nearest_neighbours(X_train, X, *, k=1, metric="euclidean"):
    """Indices of the k training points nearest to each row of X, nearest first.

    Among training points at equal distance, the one that comes first in ``X_train``
    counts as nearer. The first j columns for k are the answer for j < k, so one call
    with the largest k serves every smaller one.

    Parameters
    ----------
    X_train : array-like of shape (N, d)
    X : array-like of shape (n, d)
    k : int, default=1
        1 <= k <= N.
    metric : {"euclidean", "hamming", "mahalanobis"}, default="euclidean"

    Returns
    -------
    ndarray of int, shape (n, k)

    Examples
    --------
    >>> nearest_neighbours([[0.0], [1.0], [2.0], [10.0]], [[0.4], [9.0]], k=2).tolist()
    [[0, 1], [3, 2]]
    """
    X_train = check_matrix(X_train, "X_train")
    X = check_matrix(X, "X")
    k = check_int(k, "k", minimum=1)
    if k > X_train.shape[0]:
        raise ValueError(f"k must be at most the number of training points ({X_train.shape[0]}); got {k}")
    check_choice(metric, "metric", METRICS)
    if X.shape[1] != X_train.shape[1]:
        raise ValueError(f"X and X_train must have the same number of features; got {X.shape[1]} and {X_train.shape[1]}")
    VI = None
    if metric == "mahalanobis":
        S = np.atleast_2d(np.cov(X_train, rowvar=False))
        try:
            VI = np.linalg.inv(S)
        except np.linalg.LinAlgError:
            raise ValueError("X_train's covariance is singular, so the Mahalanobis distance is undefined") from None
    if metric == "hamming":
        D = pairwise_distances(X, X_train, metric=metric)
        return np.argsort(D, axis=1, kind="stable")[:, :k]  # stable: equal distances keep training order
    if metric == "mahalanobis":
        T = _whitening(check_matrix(VI, "VI"), X.shape[1])
        X_train, X = X_train @ T, X @ T
    return _nearest_euclidean(X_train, X, k)


def _nearest_euclidean(Z, X, k):
    """The k nearest rows of Z to each row of X, by the distances of :func:`_euclidean`, nearest (then first) first.

    Small problems sort the exact distances. Large ones first bound every squared distance
    by the fast formula ``|x|^2 + |z|^2 - 2 x^T z`` give or take its rounding error, keep
    the rows of Z that can be among the k nearest, and rank only those by their exact
    distances: the same answer as sorting them all.
    """
    n, N = X.shape[0], Z.shape[0]
    if n * N * X.shape[1] <= 4 * _CHUNK:
        return np.argsort(_euclidean(X, Z), axis=1, kind="stable")[:, :k]
    sx, sz = np.einsum("ij,ij->i", X, X), np.einsum("ij,ij->i", Z, Z)
    approx = sx[:, None] + sz[None, :] - 2.0 * (X @ Z.T)
    slack = 8.0 * (X.shape[1] + 2) * np.finfo(float).eps * (sx[:, None] + sz[None, :])   # >= its rounding error
    kth = np.partition(approx + slack, k - 1, axis=1)[:, k - 1]      # >= the true k-th smallest squared distance
    rows, cols = np.nonzero(approx - slack <= kth[:, None])          # every row of Z that may be among the k
    exact = np.empty(len(rows))
    step = max(1, _CHUNK // max(1, X.shape[1]))
    for start in range(0, len(rows), step):
        diff = Z[cols[start:start + step]] - X[rows[start:start + step]]
        exact[start:start + step] = np.sqrt((diff * diff).sum(axis=1))
    order = np.lexsort((cols, exact, rows))                          # by query, then distance, then training order
    rows, cols = rows[order], cols[order]
    first = np.searchsorted(rows, np.arange(n))
    return cols[first[:, None] + np.arange(k)[None, :]]


def majority_vote(labels):
    """The label most frequent in each row, ties going to the tied label met first.

    Parameters
    ----------
    labels : array-like of shape (n, k)
        The labels of each point's neighbours, nearest first (as indexed by
        :func:`nearest_neighbours`).

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> majority_vote([[1, -1, -1], [1, -1, 2]]).tolist()
    [-1.0, 1.0]
    """
    labels = np.asarray(labels, dtype=float)
    if labels.ndim != 2 or labels.shape[1] == 0:
        raise ValueError(f"labels must be a 2-D array with at least one column; got shape {labels.shape}")
    classes, inv = np.unique(labels, return_inverse=True)
    inv = inv.reshape(labels.shape)
    rows = np.arange(labels.shape[0])[:, None]
    votes = np.zeros((labels.shape[0], classes.size), dtype=int)
    np.add.at(votes, (rows, inv), 1)
    top = votes == votes.max(axis=1, keepdims=True)
    # the first neighbour (nearest first) whose label is among the most voted decides
    first = np.argmax(top[rows, inv], axis=1)
    return labels[np.arange(labels.shape[0]), first]


@dataclass
class Standardizer:
    """Shift and scale features to mean 0 and standard deviation 1, with statistics of the training data.

    Fitted on the training set only (:func:`fit_standardizer`) and then applied, unchanged,
    to validation and test points: using the test set's statistics would let it leak into
    the model.

    Attributes
    ----------
    mean : ndarray of shape (d,)
        The training mean of each column.
    scale : ndarray of shape (d,)
        The training standard deviation of each column (1 for a constant column).
    """

    mean: np.ndarray
    scale: np.ndarray

    def transform(self, X):
        """``(X - mean) / scale``."""
        X = check_matrix(X, "X")
        if X.shape[1] != self.mean.shape[0]:
            raise ValueError(f"X must have {self.mean.shape[0]} columns, as the data the standardizer was fitted on")
        return (X - self.mean) / self.scale


def fit_standardizer(X_train):
    """A :class:`Standardizer` with the mean and standard deviation of each column of ``X_train``.

    A constant column keeps scale 1 (it is only shifted). A column counts as constant when
    its deviation is at rounding level for its values (at most 1e-12 times its largest
    magnitude): the mean of ten copies of 0.1 is not exactly 0.1 in floating point, and
    dividing by the resulting 1e-17 would blow rounding errors up to order one.

    Parameters
    ----------
    X_train : array-like of shape (N, d)
        The training inputs, whose columns give the mean and scale.

    Examples
    --------
    >>> st = fit_standardizer([[0.0, 5.0], [2.0, 5.0]])
    >>> st.mean.tolist(), st.scale.tolist()
    ([1.0, 5.0], [1.0, 1.0])
    >>> st.transform([[4.0, 6.0]]).tolist()
    [[3.0, 1.0]]
    """
    X_train = check_matrix(X_train, "X_train")
    scale = X_train.std(axis=0)
    constant = scale <= 1e-12 * np.abs(X_train).max(axis=0)
    return Standardizer(X_train.mean(axis=0), np.where(constant | (scale == 0), 1.0, scale))
