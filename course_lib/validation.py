"""Validation: estimating E_out from data the model was not fitted on.

* :func:`validation_split` — set K examples aside: by default the last K, in order
  (nothing is shuffled unless a random generator is passed);
* :func:`leave_one_out_error` — the leave-one-out cross-validation error of linear
  regression (with or without weight decay), exactly, from one fit: no refits;
* :func:`cross_validation_error` — V-fold cross-validation of any fitting procedure;
* :func:`validation_experiment` — the expected errors of a model chosen by validation, as a
  function of the validation set's size K, for the Legendre experiment of
  :mod:`course_lib.overfitting` (where E_out is exact);
* :func:`snooping_experiment` — cross-validation after choosing features on all the data
  (data snooping) against choosing them inside every training part.

Every function that draws random numbers takes ``rng``; here ``rng=None`` means "do not
shuffle" (the examples are used in the order given), and an int or a
``numpy.random.Generator`` shuffles with it. NumPy's global random state is never touched.
"""
from typing import NamedTuple

import numpy as np

from ._validation import check_choice, check_int, check_matrix, check_real, check_vector

__all__ = ["validation_split", "Split", "leave_one_out_error", "cross_validation_error", "fold_indices",
           "validation_experiment", "ValidationCurves", "snooping_experiment", "SnoopingResult"]


class Split(NamedTuple):
    """What :func:`validation_split` returns (unpack it as ``X_train, y_train, X_val, y_val``).

    Attributes
    ----------
    X_train, y_train : ndarray
        The training part: N - K examples.
    X_val, y_val : ndarray
        The validation part: K examples.
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_val: np.ndarray
    y_val: np.ndarray


def _check_Xy_any(X, y, name="X"):
    X = check_matrix(X, name)
    y = check_vector(y, "y")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"{name} and y must have the same number of examples; {name} has {X.shape[0]} rows, "
                         f"y has {y.shape[0]} values")
    return X, y


def validation_split(X, y, *, size, rng=None):
    """Split a data set into a training part and a validation part of K examples.

    With ``rng=None`` (the default) nothing is shuffled: the validation set is the **last**
    K examples and the training set the first N - K, both in their original order, as in
    the homework of *Learning From Data* ("the first 25 examples for training, the last 10
    for validation"). Pass a seed or a generator to draw the K validation examples at
    random instead (both parts then keep the original order among themselves).

    Parameters
    ----------
    X : array-like of shape (N, d)
    y : array-like of shape (N,)
    size : int or float
        K, the number of validation examples (1 <= K <= N - 1), or a fraction of N in
        (0, 1), rounded to the nearest whole number of examples.
    rng : None, int or numpy.random.Generator
        None: no shuffling.

    Returns
    -------
    Split
        ``(X_train, y_train, X_val, y_val)``, copies of the rows.

    Examples
    --------
    >>> X = np.arange(10.0).reshape(5, 2)
    >>> X_train, y_train, X_val, y_val = validation_split(X, [1, 2, 3, 4, 5], size=2)
    >>> y_train.tolist(), y_val.tolist()
    ([1.0, 2.0, 3.0], [4.0, 5.0])
    """
    X, y = _check_Xy_any(X, y)
    n = X.shape[0]
    if isinstance(size, (float, np.floating)) and 0.0 < size < 1.0:
        k = int(round(size * n))
    else:
        k = check_int(size, "size", minimum=1)
    if not 1 <= k <= n - 1:
        raise ValueError(f"size must leave at least one example on each side: 1 <= K <= N - 1 = {n - 1}; "
                         f"got {size!r} (K = {k}) for N = {n}")
    if rng is None:
        val = np.arange(n - k, n)
    else:
        val = np.sort(np.random.default_rng(rng).choice(n, size=k, replace=False))
    mask = np.zeros(n, dtype=bool)
    mask[val] = True
    return Split(X[~mask].copy(), y[~mask].copy(), X[mask].copy(), y[mask].copy())


def leave_one_out_error(Z, y, *, weight_decay=0.0):
    """The leave-one-out error E_loocv of linear regression, exactly, without N refits.

    E_loocv = (1/N) sum_n (g_n^-(x_n) - y_n)^2, where g_n^- is the (weight-decay) least-squares
    fit to the N - 1 examples other than n. For linear regression with weight decay lambda
    there is a closed form (*Learning From Data*, Problem 4.26): with the hat matrix
    H(lambda) = Z (Z^T Z + lambda I)^{-1} Z^T and the in-sample fit y_hat = H(lambda) y,

        g_n^-(x_n) - y_n = (y_hat_n - y_n) / (1 - H_nn),

    so E_loocv = (1/N) sum_n ((y_hat_n - y_n) / (1 - H_nn))^2: the in-sample residuals
    enlarged by each example's leverage H_nn. (Leaving example n out removes the rank-one
    term z_n z_n^T from Z^T Z + lambda I; the Sherman-Morrison formula gives the rest.)
    H(lambda) is never formed: with the singular value decomposition Z = U S V^T,
    H(lambda) = U diag(s_i^2 / (s_i^2 + lambda)) U^T, so 1 - H_nn and y_hat_n - y_n are sums of
    terms lambda / (s_i^2 + lambda) (plus the part of y and of the n-th unit vector outside
    the columns' span), which keeps them accurate even when both are tiny (a small lambda on
    an example of leverage close to 1).

    Parameters
    ----------
    Z : array-like of shape (N, d + 1)
        The (transformed) inputs, with the constant feature.
    y : array-like of shape (N,)
        Real targets (or +1/-1 labels, fitted as numbers).
    weight_decay : float, default=0.0
        lambda >= 0, every weight penalised as in ``linear_regression``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        When an example's leverage H_nn is 1 (or within rounding of 1): without it the fit is
        not unique, so its leave-one-out error is not defined (use a larger weight_decay).

    Examples
    --------
    A constant fitted to three numbers: leaving one out, the constant is the mean of the
    other two.

    >>> leave_one_out_error([[1.0], [1.0], [1.0]], [0.0, 1.0, 0.0])
    0.5
    """
    Z, y = _check_Xy_any(Z, y, "Z")
    lam = check_real(weight_decay, "weight_decay", low=0.0)
    n = Z.shape[0]
    if n < 2:
        raise ValueError(f"leave-one-out needs at least 2 examples; got {n}")
    U, s, _ = np.linalg.svd(Z, full_matrices=False)
    tol = (s[0] if s.size else 0.0) * max(Z.shape) * np.finfo(float).eps
    U, s2 = U[:, s > tol], s[s > tol] ** 2
    exact = U.shape[1] == n                                   # the columns span every direction: nothing outside
    g = lam / (s2 + lam) if lam > 0 else np.zeros_like(s2)   # 1 - s^2 / (s^2 + lambda), without cancelling
    if exact and lam > 0:
        # residual and room below are both proportional to lambda here, so their ratio is computed from
        # 1 / (s^2 + lambda): a lambda so small that lambda / (s^2 + lambda) underflows keeps its precision
        g = 1.0 / (s2 + lam)
    uy = U.T @ y
    residual = -(U @ (g * uy))                                # y_hat - y within the span of the columns
    room = (U * U) @ g                                        # 1 - H_nn within the span
    if not exact:
        residual -= y - U @ uy                                # the part of y outside the span
        room += np.maximum(1.0 - np.sum(U * U, axis=1), 0.0)
    bad = np.flatnonzero(room <= (0.0 if exact else 1e-10))
    if bad.size:
        raise ValueError(
            f"example {bad[0]} has leverage H_nn = 1 ({bad.size} such example(s)"
            f"{'' if lam == 0 else ' to within rounding'}): without it the least-squares fit is not unique, so its "
            "leave-one-out error is not defined; use a larger weight_decay")
    e = residual / room
    return float(np.mean(e * e))


def fold_indices(n_samples, n_folds, *, rng=None):
    """The V folds of V-fold cross-validation: disjoint index arrays that together cover range(N).

    The folds have N // V or N // V + 1 examples, the larger ones first. With ``rng=None``
    they are consecutive blocks of the examples in order (scikit-learn's
    ``KFold(n_splits=V)``); with a seed or a generator the examples are first put in the
    random order ``rng.permutation(N)``.

    Parameters
    ----------
    n_samples : int
        N >= 2.
    n_folds : int
        V, with 2 <= V <= N (V = N is leave-one-out).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    list of V ndarray of int

    Examples
    --------
    >>> [f.tolist() for f in fold_indices(7, 3)]
    [[0, 1, 2], [3, 4], [5, 6]]
    """
    n = check_int(n_samples, "n_samples", minimum=2)
    v = check_int(n_folds, "n_folds", minimum=2)
    if v > n:
        raise ValueError(f"n_folds must be at most the number of examples N = {n}; got {v}")
    order = np.arange(n) if rng is None else np.random.default_rng(rng).permutation(n)
    sizes = np.full(v, n // v)
    sizes[:n % v] += 1
    return np.split(order, np.cumsum(sizes)[:-1])


def _errors(kind, predicted, y):
    if callable(kind):
        e = np.asarray(kind(predicted, y), dtype=float)
        if e.shape != y.shape:
            raise ValueError(f"error(predicted, y) must return one error per example, shape {y.shape}; got {e.shape}")
        return e
    if kind == "squared":
        return (predicted - y) ** 2
    return (np.where(predicted > 0, 1.0, -1.0) != y).astype(float)


def cross_validation_error(fit, Z, y, *, folds, rng=None, error="squared"):
    """V-fold cross-validation error of a fitting procedure: E_cv, one number from all the data.

    The examples are split into V folds (:func:`fold_indices`). For each fold v, ``fit`` is
    given the other V - 1 folds and returns a hypothesis g_v^-; the errors of g_v^- on the
    examples of fold v are recorded. E_cv is the average of these N errors, each example
    judged once, by a hypothesis that did not see it. (With folds of equal size this is the
    book's (1/V) sum_v E_val(g_v^-); with V = N it is the leave-one-out error.)

    Parameters
    ----------
    fit : callable
        ``fit(Z_train, y_train)`` returns either weights w (predictions ``Z_val @ w``) or a
        callable that maps ``Z_val`` to predictions.
    Z : array-like of shape (N, d + 1)
    y : array-like of shape (N,)
    folds : int
        V, 2 <= V <= N.
    rng : None, int or numpy.random.Generator
        None: the folds are consecutive blocks in the given order; else the examples are
        shuffled with it first.
    error : {"squared", "classification"} or callable, default="squared"
        The error of one prediction: (g(x) - y)^2; or [sign(g(x)) != y] with sign(0) = -1
        for +1/-1 labels; or ``error(predicted, y)`` returning one error per example.

    Returns
    -------
    float

    Examples
    --------
    >>> from course_lib.regression import linear_regression
    >>> Z = np.column_stack([np.ones(6), np.arange(6.0)])
    >>> y = 1 + 2 * np.arange(6.0) + np.array([0.0, 1.0, 0.0, -1.0, 0.0, 1.0])
    >>> w = linear_regression(Z, y)
    >>> round(float(np.mean((Z @ w - y) ** 2)), 4), round(cross_validation_error(linear_regression, Z, y, folds=3), 4)
    (0.4698, 2.5468)
    """
    if not callable(fit):
        raise ValueError(f"fit must be a callable fit(Z_train, y_train); got {fit!r}")
    Z, y = _check_Xy_any(Z, y, "Z")
    if not callable(error):
        check_choice(error, "error", ("squared", "classification"))
    v = check_int(folds, "folds", minimum=2)
    if v > len(y):
        raise ValueError(f"folds must be at most the number of examples N = {len(y)}; got {v}")
    errors = np.empty(len(y))
    for val in fold_indices(len(y), v, rng=rng):
        train = np.ones(len(y), dtype=bool)
        train[val] = False
        g = fit(Z[train], y[train])
        predicted = np.asarray(g(Z[val]) if callable(g) else Z[val] @ np.asarray(g, dtype=float), dtype=float)
        if predicted.shape != (len(val),):
            raise ValueError(f"the hypothesis fit returned gives {predicted.shape} predictions for {len(val)} "
                             "validation examples")
        errors[val] = _errors(error, predicted, y[val])
    return float(np.mean(errors))


class ValidationCurves(NamedTuple):
    """What :func:`validation_experiment` returns: one row per validation size K."""

    sizes: np.ndarray
    """The validation sizes K."""
    e_val: np.ndarray
    """Mean validation error of the chosen model g_m*^- (fitted on N - K examples)."""
    e_out_minus: np.ndarray
    """Mean E_out of that same g_m*^-."""
    e_out: np.ndarray
    """Mean E_out of the chosen model refitted on all N examples, g_m*."""
    e_out_best: np.ndarray
    """Mean E_out of the best model in hindsight, each model fitted on all N examples (no K)."""
    chosen: np.ndarray
    """How often each degree was chosen, shape (len(sizes), len(degrees))."""


def validation_experiment(n_samples, sizes, *, degrees, target_degree, noise_variance, n_runs=200, rng=None):
    """Model selection by validation, K by K, on the Legendre experiment (exact E_out).

    Each run draws a Legendre target of degree Q_f and N noisy examples
    (:mod:`course_lib.overfitting`). For each validation size K, the last K examples are set
    aside; every model H_Q, Q in ``degrees``, is fitted by least squares on the first N - K;
    the one with the smallest validation error is chosen (ties: the first in ``degrees``),
    then refitted on all N examples. The runs share their data across K, so the curves differ
    only through K.

    Parameters
    ----------
    n_samples : int
        N.
    sizes : array-like of int
        The validation sizes K to try, each with N - K >= 1.
    degrees : sequence of int
        The candidate models' degrees Q.
    target_degree : int
        Q_f.
    noise_variance : float
        sigma^2.
    n_runs : int, default=200
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ValidationCurves

    Examples
    --------
    >>> c = validation_experiment(30, [5, 10], degrees=[1, 2, 3], target_degree=3, noise_variance=0.5,
    ...                           n_runs=50, rng=0)
    >>> c.e_val.shape, c.chosen.sum(axis=1).tolist()
    ((2,), [50, 50])
    """
    from .overfitting import _draw_cell, _fit_runs, _legendre_and_sum

    n = check_int(n_samples, "n_samples", minimum=2)
    sizes = np.atleast_1d(np.asarray(sizes))
    if sizes.ndim != 1 or sizes.dtype.kind not in "iu" or np.any(sizes < 1) or np.any(sizes > n - 1):
        raise ValueError(f"sizes must be integers K with 1 <= K <= N - 1 = {n - 1}; got {sizes!r}")
    degrees = [check_int(q, "degrees", minimum=0) for q in np.atleast_1d(degrees).tolist()]
    if not degrees:
        raise ValueError("degrees must name at least one model")
    qf = check_int(target_degree, "target_degree", minimum=0)
    sigma2 = check_real(noise_variance, "noise_variance", low=0.0)
    n_runs = check_int(n_runs, "n_runs", minimum=1)
    gen = np.random.default_rng(rng)
    B, X, noise = _draw_cell(gen, n, sigma2, qf, n_runs)
    qmax = max(degrees)
    Z, f = _legendre_and_sum(X, B, qmax)
    Y = f + noise
    energy = np.sum(B * B, axis=-1)

    def e_out(w):
        m = min(w.shape[-1], qf + 1)
        return energy - 2.0 * np.sum(w[..., :m] * B[..., :m], axis=-1) + np.sum(w * w, axis=-1) + sigma2

    full = np.stack([e_out(_fit_runs(Z[..., :q + 1], Y, 0.0)) for q in degrees], axis=-1)   # (runs, models)
    rows = []
    for k in sizes:
        k = int(k)
        tr, va = slice(0, n - k), slice(n - k, n)
        e_val, e_minus = [], []
        for q in degrees:
            w = _fit_runs(Z[:, tr, :q + 1], Y[:, tr], 0.0)
            r = (Z[:, va, :q + 1] @ w[..., None])[..., 0] - Y[:, va]
            e_val.append(np.mean(r * r, axis=-1))
            e_minus.append(e_out(w))
        e_val, e_minus = np.stack(e_val, axis=-1), np.stack(e_minus, axis=-1)
        pick = np.argmin(e_val, axis=-1)
        runs = np.arange(n_runs)
        rows.append((e_val[runs, pick].mean(), e_minus[runs, pick].mean(), full[runs, pick].mean(),
                     np.bincount(pick, minlength=len(degrees))))
    return ValidationCurves(sizes.astype(int), np.array([r[0] for r in rows]), np.array([r[1] for r in rows]),
                            np.array([r[2] for r in rows]), np.full(len(rows), full.min(axis=-1).mean()),
                            np.array([r[3] for r in rows]))


class SnoopingResult(NamedTuple):
    """What :func:`snooping_experiment` returns: one cross-validation estimate per data set."""

    snooped: np.ndarray
    """E_cv when the features were chosen once, on all N examples, before cross-validating."""
    honest: np.ndarray
    """E_cv when the choice of features is made again inside every training part."""


def _top_features(X, y, k):
    """Per data set, the k features whose correlation with the labels is largest in size: shape (S, k)."""
    scores = np.abs(np.einsum("snd,sn->sd", X, y))
    return np.argpartition(-scores, k - 1, axis=1)[:, :k]


def snooping_experiment(n_samples, n_features, *, n_selected=5, folds=5, n_sets=100, rng=None):
    """Data snooping made visible: choosing features on all the data, then cross-validating.

    Every data set has N examples with d features drawn independently from the standard
    normal distribution and labels +1/-1 from fair coin flips, independent of the features:
    no classifier can do better than E_out = 1/2. The procedure picks the ``n_selected``
    features most correlated with the labels (largest |sum_n x_nj y_n|) and fits a linear
    classifier by least squares on them (with a constant feature). Its V-fold cross-validation
    error (:func:`fold_indices`, consecutive folds) is computed two ways:

    * *snooped*: the features are picked once, on all N examples, and only the fit is
      cross-validated, so the validation examples helped choose the features;
    * *honest*: the whole procedure, the choice of features included, is repeated on every
      training part, and each validation part is used only to judge.

    Parameters
    ----------
    n_samples : int
        N (at least 2 per fold, and more than ``n_selected + 1`` training examples per fold).
    n_features : int
        d >= n_selected.
    n_selected : int, default=5
    folds : int, default=5
    n_sets : int, default=100
        Independent data sets.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    SnoopingResult
        ``(snooped, honest)``, each of shape (n_sets,).

    Examples
    --------
    >>> r = snooping_experiment(40, 500, n_sets=50, rng=0)
    >>> bool(r.snooped.mean() < r.honest.mean())
    True
    """
    from .overfitting import _fit_runs

    n = check_int(n_samples, "n_samples", minimum=2)
    d = check_int(n_features, "n_features", minimum=1)
    k = check_int(n_selected, "n_selected", minimum=1)
    if k > d:
        raise ValueError(f"n_selected must be at most n_features = {d}; got {k}")
    v = check_int(folds, "folds", minimum=2)
    sets = check_int(n_sets, "n_sets", minimum=1)
    parts = fold_indices(n, v) if v <= n else None
    if parts is None or n - max(len(p) for p in parts) < k + 1:
        raise ValueError(f"each training part must have more than n_selected + 1 = {k + 1} examples; "
                         f"N = {n} with {v} folds leaves too few")
    gen = np.random.default_rng(rng)
    X = gen.standard_normal((sets, n, d))
    y = np.where(gen.random((sets, n)) < 0.5, 1.0, -1.0)
    once = _top_features(X, y, k)
    wrong = {"snooped": np.empty((sets, n)), "honest": np.empty((sets, n))}
    for val in parts:
        train = np.ones(n, dtype=bool)
        train[val] = False
        inside = _top_features(X[:, train], y[:, train], k)
        for name, chosen in (("snooped", once), ("honest", inside)):
            F = np.take_along_axis(X, chosen[:, None, :], axis=2)
            Z = np.concatenate([np.ones((sets, n, 1)), F], axis=2)
            w = _fit_runs(Z[:, train], y[:, train], 0.0)
            score = (Z[:, val] @ w[..., None])[..., 0]
            wrong[name][:, val] = np.where(score > 0, 1.0, -1.0) != y[:, val]
    return SnoopingResult(wrong["snooped"].mean(axis=1), wrong["honest"].mean(axis=1))
