"""Naive Bayes: Bayes' rule with features taken to be independent within each class.

By Bayes' rule the class y of an input x = (x_1, ..., x_d) has posterior probability

    P(y | x) = P(y) P(x | y) / P(x).

Estimating the joint law P(x | y) of d features from data needs far more examples than
there are (with 64 binary pixels it has 2^64 values). Naive Bayes assumes that, within a
class, the features are **independent**:

    P(x | y) = P(x_1 | y) P(x_2 | y) ... P(x_d | y),

so that it needs only d one-dimensional laws per class, each estimated by counting or
by a mean and a variance. The assumption is rarely true; the classifier is often good
anyway, because it needs only the *largest* posterior to be right, not its value.

Three kinds of features, three laws for P(x_j | y):

* :func:`fit_gaussian_nb` -- real features, a normal law with the class's mean and variance;
* :func:`fit_bernoulli_nb` -- binary features (a pixel inked or not, a word present or not),
  with **Laplace smoothing**: ``(count + alpha) / (N_y + 2 alpha)``, so that a value never seen
  in a class's training examples does not get probability 0;
* :func:`fit_multinomial_nb` -- counts (how often each word of a vocabulary occurs), each
  class a distribution over the d words, smoothed the same way:
  ``(count_j + alpha) / (total + alpha d)``.

A product of d probabilities is tiny (below 1e-308, the smallest float, for a few
hundred words), so everything is computed with **log-probabilities**: sums instead of
products, and the posterior normalised with log-sum-exp. The three functions reproduce
scikit-learn's ``GaussianNB``, ``BernoulliNB`` and ``MultinomialNB`` (same smoothing
conventions; the tests compare them).
"""
from dataclasses import dataclass

import numpy as np

from ._validation import check_matrix, check_real

__all__ = ["NaiveBayesResult", "fit_gaussian_nb", "fit_bernoulli_nb", "fit_multinomial_nb", "bag_of_words"]


@dataclass
class NaiveBayesResult:
    """A fitted naive Bayes classifier.

    Attributes
    ----------
    kind : {"gaussian", "bernoulli", "multinomial"}
    classes : ndarray of shape (c,)
        The labels, ascending.
    log_prior : ndarray of shape (c,)
        ``ln P(y)`` for each class: the share of the class in the training set.
    params : dict of ndarrays of shape (c, d)
        ``mean`` and ``var`` (Gaussian); ``log_p`` and ``log_1mp``, ``ln P(x_j = 1 | y)`` and
        ``ln P(x_j = 0 | y)`` (Bernoulli); ``log_theta``, ``ln P(word j | y)`` (multinomial).
    """

    kind: str
    classes: np.ndarray
    log_prior: np.ndarray
    params: dict

    def joint_log_likelihood(self, X):
        """``ln P(y) + sum_j ln P(x_j | y)`` for every row of X and every class: shape (n, c)."""
        X = check_matrix(X, "X")
        d = next(iter(self.params.values())).shape[1]
        if X.shape[1] != d:
            raise ValueError(f"X must have {d} columns, as the training data; got {X.shape[1]}")
        p = self.params
        if self.kind == "gaussian":
            quad = ((X[:, None, :] - p["mean"][None]) ** 2 / p["var"][None]).sum(axis=2)
            return self.log_prior - 0.5 * np.log(2 * np.pi * p["var"]).sum(axis=1) - 0.5 * quad
        if self.kind == "bernoulli":
            _check_binary(X, "X")
            return self.log_prior + _weighted_logs(X, p["log_p"]) + _weighted_logs(1 - X, p["log_1mp"])
        _check_counts(X, "X")
        return self.log_prior + _weighted_logs(X, p["log_theta"])

    def predict_log_proba(self, X):
        """``ln P(y | x)``, normalised with log-sum-exp: shape (n, c). NaN where every class has probability 0."""
        from scipy.special import logsumexp  # (SciPy's import costs more than the rest of course_lib)

        jll = self.joint_log_likelihood(X)
        with np.errstate(invalid="ignore"):
            return jll - logsumexp(jll, axis=1, keepdims=True)

    def predict_proba(self, X):
        """``P(y | x)`` for every row of X and every class: shape (n, c)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The class with the largest posterior (the first of the tied ones)."""
        return self.classes[np.argmax(self.joint_log_likelihood(X), axis=1)]


def _check_binary(X, name):
    if not np.all((X == 0) | (X == 1)):
        raise ValueError(f"{name} must hold binary features, 0 or 1 (pass binarize=... to threshold them)")


def _check_counts(X, name):
    if np.any(X < 0):
        raise ValueError(f"{name} must hold counts (numbers >= 0) for the multinomial model")


def _weighted_logs(W, L):
    """``W @ L.T`` where a weight 0 times a log-probability of minus infinity counts 0 (a value not shown)."""
    finite = np.isfinite(L)
    out = W @ np.where(finite, L, 0.0).T
    out[(W @ (~finite).T) > 0] = -np.inf
    return out


def _classes(X, y):
    """X checked; the classes (ascending), their counts and a one-hot matrix of y."""
    X = check_matrix(X, "X")
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must be 1-D with one label per row of X ({X.shape[0]}); got shape {y.shape}")
    if y.dtype.kind in "fc" and not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinity")
    classes, index = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"y must contain at least two classes; got only {classes.tolist()}")
    counts = np.bincount(index, minlength=classes.size)
    onehot = np.zeros((X.shape[0], classes.size))
    onehot[np.arange(X.shape[0]), index] = 1.0
    return X, classes, counts, onehot


def fit_gaussian_nb(X, y, *, var_smoothing=1e-9):
    """Gaussian naive Bayes: within each class, each feature normal with the class's mean and variance.

    Parameters
    ----------
    X : array-like of shape (N, d)
        Real features.
    y : array-like of shape (N,)
        Labels (any numbers: +1/-1, the digits 0-9, ...), at least two classes.
    var_smoothing : float, default=1e-9
        Added to every variance, times the largest variance of a feature over all the
        data, so that a feature constant within a class (a pixel never inked in any 1)
        does not give a zero variance; scikit-learn's default.

    Returns
    -------
    NaiveBayesResult
        ``params["mean"]`` and ``params["var"]``, each of shape (classes, d).

    Examples
    --------
    >>> nb = fit_gaussian_nb([[0.0], [0.2], [2.0], [2.2]], [0, 0, 1, 1])
    >>> nb.predict([[0.1], [1.9]]).tolist()
    [0, 1]
    >>> nb.predict_proba([[1.1]]).round(3).tolist()   # half-way: the two classes are equally likely
    [[0.5, 0.5]]
    """
    X, classes, counts, onehot = _classes(X, y)
    var_smoothing = check_real(var_smoothing, "var_smoothing", low=0.0)
    mean = onehot.T @ X / counts[:, None]
    var = np.stack([((X[onehot[:, c] > 0] - mean[c]) ** 2).mean(axis=0) for c in range(classes.size)])
    var = var + var_smoothing * X.var(axis=0).max()
    if np.any(var <= 0):
        raise ValueError("a feature is constant over the whole training set; drop it or pass var_smoothing > 0 "
                         "with a feature that varies")
    return NaiveBayesResult("gaussian", classes, np.log(counts / counts.sum()), {"mean": mean, "var": var})


def fit_bernoulli_nb(X, y, *, alpha=1.0, binarize=None):
    """Bernoulli naive Bayes: within each class, each binary feature a coin of its own.

    ``P(x_j = 1 | y) = (number of class-y examples with x_j = 1 + alpha) / (N_y + 2 alpha)``.
    A feature absent from x counts too, with ``P(x_j = 0 | y)``.

    Parameters
    ----------
    X : array-like of shape (N, d)
        Binary features (0 or 1), or real ones with ``binarize``.
    y : array-like of shape (N,)
        Labels, at least two classes.
    alpha : float, default=1.0
        Laplace smoothing (>= 0): as if every class had seen each value of each feature
        ``alpha`` more times. With 0, a value never seen in a class makes that class
        impossible (probability 0, log-probability minus infinity) for any input showing it.
    binarize : float or None, default=None
        Threshold: features above it count as 1 (for X and for every later input). None:
        X must be 0/1 already.

    Returns
    -------
    NaiveBayesResult
        ``params["log_p"]`` and ``params["log_1mp"]``, of shape (classes, d).

    Examples
    --------
    >>> nb = fit_bernoulli_nb([[1, 0], [1, 1], [0, 1], [0, 1]], [1, 1, -1, -1])
    >>> np.exp(nb.params["log_p"]).round(3).tolist()   # (count + 1) / (2 + 2)
    [[0.25, 0.75], [0.75, 0.5]]
    >>> nb.predict([[1, 0], [0, 1]]).tolist()
    [1, -1]
    """
    alpha = check_real(alpha, "alpha", low=0.0)
    if binarize is not None:
        binarize = check_real(binarize, "binarize")
        X = (check_matrix(X, "X") > binarize).astype(float)
    X, classes, counts, onehot = _classes(X, y)
    _check_binary(X, "X")
    ones = onehot.T @ X
    with np.errstate(divide="ignore", invalid="ignore"):
        p = (ones + alpha) / (counts[:, None] + 2 * alpha)
        log_p, log_1mp = np.log(p), np.log1p(-p)
    result = NaiveBayesResult("bernoulli", classes, np.log(counts / counts.sum()), {"log_p": log_p, "log_1mp": log_1mp})
    return _Binarized(result, binarize) if binarize is not None else result


class _Binarized(NaiveBayesResult):
    """A Bernoulli model that thresholds its inputs as it thresholded the training data."""

    def __init__(self, result, threshold):
        super().__init__(result.kind, result.classes, result.log_prior, result.params)
        self.threshold = threshold

    def joint_log_likelihood(self, X):
        return super().joint_log_likelihood((check_matrix(X, "X") > self.threshold).astype(float))


def fit_multinomial_nb(X, y, *, alpha=1.0):
    """Multinomial naive Bayes: each class a distribution over d words; an input is a vector of word counts.

    ``P(word j | y) = (occurrences of word j in class y + alpha) / (all words in class y + alpha d)``;
    an input with counts ``x_j`` has ``ln P(x | y) = sum_j x_j ln P(word j | y)`` (up to a term
    that is the same for every class).

    Parameters
    ----------
    X : array-like of shape (N, d)
        Counts (>= 0), e.g. how often each word of a vocabulary occurs in each message.
    y : array-like of shape (N,)
        Labels, at least two classes.
    alpha : float, default=1.0
        Laplace smoothing (>= 0). With 0, a word never seen in a class makes every message
        containing it impossible for that class.

    Returns
    -------
    NaiveBayesResult
        ``params["log_theta"]``, of shape (classes, d).

    Examples
    --------
    >>> nb = fit_multinomial_nb([[3, 0, 1], [2, 0, 0], [0, 2, 1], [0, 3, 0]], ["spam", "spam", "ham", "ham"])
    >>> np.exp(nb.params["log_theta"]).round(3).tolist()   # ham: (0+1, 5+1, 1+1) / (6+3)
    [[0.111, 0.667, 0.222], [0.667, 0.111, 0.222]]
    >>> nb.predict([[1, 0, 0], [0, 1, 1]]).tolist()
    ['spam', 'ham']
    """
    alpha = check_real(alpha, "alpha", low=0.0)
    X, labels, counts, onehot = _classes(X, y)
    _check_counts(X, "X")
    words = onehot.T @ X
    with np.errstate(divide="ignore", invalid="ignore"):
        log_theta = np.log(words + alpha) - np.log(words.sum(axis=1, keepdims=True) + alpha * X.shape[1])
    return NaiveBayesResult("multinomial", labels, np.log(counts / counts.sum()), {"log_theta": log_theta})


def bag_of_words(messages, vocabulary=None):
    """Count how often each word of a vocabulary occurs in each message (words: runs of letters and digits, lower case).

    Parameters
    ----------
    messages : list of str
    vocabulary : list of str, optional
        The words to count, in this order. By default every word of ``messages``, sorted;
        give the training set's vocabulary when counting the words of test messages (a
        word the training set never saw is then left out).

    Returns
    -------
    counts : ndarray of shape (len(messages), len(vocabulary))
    vocabulary : list of str

    Examples
    --------
    >>> counts, vocabulary = bag_of_words(["Free money, free!", "money for lunch"])
    >>> vocabulary
    ['for', 'free', 'lunch', 'money']
    >>> counts.tolist()
    [[0.0, 2.0, 0.0, 1.0], [1.0, 0.0, 1.0, 1.0]]
    """
    import re

    if isinstance(messages, str) or not all(isinstance(m, str) for m in messages):
        raise ValueError("messages must be a list of strings")
    words = [re.findall(r"[a-z0-9]+", m.lower()) for m in messages]
    if vocabulary is None:
        vocabulary = sorted({w for ws in words for w in ws})
    vocabulary = list(vocabulary)
    index = {w: j for j, w in enumerate(vocabulary)}
    if len(index) != len(vocabulary):
        raise ValueError("vocabulary must not repeat a word")
    counts = np.zeros((len(words), len(vocabulary)))
    for i, ws in enumerate(words):
        for w in ws:
            if w in index:
                counts[i, index[w]] += 1
    return counts, vocabulary
