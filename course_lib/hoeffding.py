"""Is learning feasible? The bin model, Hoeffding's inequality and the coin experiment.

A bin holds red and green marbles, a fraction mu of them red. A sample of N marbles
has a red fraction nu, and Hoeffding's inequality says that for any eps > 0

    P[|nu - mu| > eps] <= 2 exp(-2 eps^2 N),

whatever mu is. For one fixed hypothesis h, "red" means "h is wrong": nu is E_in(h)
and mu is E_out(h). Choosing the best of M hypotheses after looking at the data needs
the union bound 2 M exp(-2 eps^2 N) instead. *Learning From Data*'s coin experiment
shows why: of 1,000 fair coins flipped 10 times each, the one with the fewest heads
looks far from fair.
"""
import concurrent.futures
import math
from typing import NamedTuple

import numpy as np

from ._validation import check_int, check_real, check_vector

__all__ = [
    "sample_nu", "hoeffding_bound", "deviation_probability", "sample_size",
    "coin_experiment", "CoinExperiment", "nu_min_distribution", "expected_nu_min",
    "binomial_deviation_probability", "fixed_hypothesis_errors", "deviates",
]


_SLACK = 1e-12  # rounding slack when comparing |nu - mu| with eps


def deviates(nu, mu, eps):
    """Whether |nu - mu| > eps, where a deviation of exactly eps does not count.

    Red fractions are multiples of 1/N and the tolerance is a decimal, so the two are
    compared with a slack of 1e-12: in floating point |0.3 - 0.4| is
    0.10000000000000003, which is a deviation of exactly 0.1, not more. Every count
    of "bad" samples in the course (the estimate, the exact binomial probability, the
    red bars of the bin picture) goes through this one comparison.

    Parameters
    ----------
    nu : float or array-like
        Red fractions.
    mu : float
    eps : float

    Returns
    -------
    bool or ndarray of bool
        Shaped like ``nu``.

    Examples
    --------
    >>> bool(deviates(0.3, 0.4, 0.1)), bool(deviates(0.2, 0.4, 0.1))
    (False, True)
    """
    far = np.abs(np.asarray(nu, dtype=float) - mu) > np.asarray(eps, dtype=float) + _SLACK
    return bool(far) if far.ndim == 0 else far


def sample_nu(mu, n, *, n_samples=1, rng=None):
    """Red fractions nu of ``n_samples`` independent samples of N marbles from a bin.

    Parameters
    ----------
    mu : float
        Fraction of red marbles in the bin (0 <= mu <= 1).
    n : int
        Sample size N (>= 1).
    n_samples : int, default=1
        How many independent samples to draw.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of shape (n_samples,)
        nu for each sample, a multiple of 1/N.

    Examples
    --------
    >>> nu = sample_nu(0.4, 10, n_samples=5, rng=0)
    >>> nu.shape, bool(np.all((nu >= 0) & (nu <= 1)))
    ((5,), True)
    """
    mu = check_real(mu, "mu", low=0.0, high=1.0)
    n = check_int(n, "n", minimum=1)
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    rng = np.random.default_rng(rng)
    return rng.binomial(n, mu, size=n_samples) / n


def hoeffding_bound(eps, n, *, n_hypotheses=1):
    """Hoeffding's bound 2 M exp(-2 eps^2 N) on P[|nu - mu| > eps].

    With ``n_hypotheses`` M > 1 it is the union bound for the worst of M bins
    (hypotheses). Values above 1 are correct but say nothing.

    Parameters
    ----------
    eps : float or array-like
        Tolerance(s), > 0.
    n : int
        Sample size N (>= 1).
    n_hypotheses : int, default=1
        M, the number of hypotheses the bound must cover.

    Returns
    -------
    float or ndarray
        The bound, shaped like ``eps``.

    Examples
    --------
    >>> round(hoeffding_bound(0.1, 100), 4)
    0.2707
    >>> round(hoeffding_bound(0.1, 100, n_hypotheses=10), 4)
    2.7067
    """
    eps_arr = np.asarray(eps, dtype=float)
    if eps_arr.size == 0 or not np.all(np.isfinite(eps_arr)) or np.any(eps_arr <= 0):
        raise ValueError(f"eps must be finite and > 0; got {eps!r}")
    n = check_int(n, "n", minimum=1)
    m = check_int(n_hypotheses, "n_hypotheses", minimum=1)
    bound = 2.0 * m * np.exp(-2.0 * eps_arr**2 * n)
    return float(bound) if bound.ndim == 0 else bound


class DeviationEstimate(NamedTuple):
    """An estimated probability with its confidence interval."""

    p: np.ndarray
    """The fraction of samples with |nu - mu| > eps."""
    low: np.ndarray
    """Lower end of the (Clopper-Pearson) confidence interval."""
    high: np.ndarray
    """Upper end of the confidence interval."""


def deviation_probability(nu, mu, eps, *, confidence=0.95):
    """Estimate P[|nu - mu| > eps] from samples of nu, with an exact confidence interval.

    Parameters
    ----------
    nu : array-like of shape (n_samples,)
        Observed red fractions.
    mu : float
        The bin's true red fraction.
    eps : float or array-like
        Tolerance(s) (> 0): one estimate per value.
    confidence : float, default=0.95
        Coverage of the Clopper-Pearson interval for the estimated probability.

    Returns
    -------
    DeviationEstimate
        ``(p, low, high)``, each shaped like ``eps``.

    Examples
    --------
    >>> est = deviation_probability([0.5, 0.1, 0.9, 0.45], 0.5, 0.2)
    >>> float(est.p), bool(est.low < 0.5 < est.high)
    (0.5, True)
    """
    nu = check_vector(nu, "nu")
    mu = check_real(mu, "mu", low=0.0, high=1.0)
    confidence = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    eps_arr = np.asarray(eps, dtype=float)
    if eps_arr.size == 0 or not np.all(np.isfinite(eps_arr)) or np.any(eps_arr <= 0):
        raise ValueError(f"eps must be finite and > 0; got {eps!r}")
    dev = np.sort(np.abs(nu - mu))
    n = len(dev)
    # number of samples with deviation strictly greater than eps; the slack keeps
    # |0.2 - 0.5| = 0.30000000000000004 from counting as "> 0.3"
    k = n - np.searchsorted(dev, eps_arr + _SLACK, side="right")
    alpha = 1.0 - confidence
    from scipy import stats  # imported here: scipy.stats takes a second to import

    low = np.where(k > 0, stats.beta.ppf(alpha / 2, k, n - k + 1), 0.0)
    high = np.where(k < n, stats.beta.ppf(1 - alpha / 2, k + 1, n - k), 1.0)
    p = k / n
    if eps_arr.ndim == 0:
        return DeviationEstimate(float(p), float(low), float(high))
    return DeviationEstimate(p, low, high)


def sample_size(eps, delta, *, n_hypotheses=1):
    """Smallest N with 2 M exp(-2 eps^2 N) <= delta.

    Parameters
    ----------
    eps : float
        Tolerance, > 0.
    delta : float
        Allowed probability of a bad sample, 0 < delta < 1.
    n_hypotheses : int, default=1

    Returns
    -------
    int
        N = ceil(ln(2 M / delta) / (2 eps^2)).

    Examples
    --------
    >>> sample_size(0.05, 0.03)
    840
    """
    eps = check_real(eps, "eps", low=0.0, low_open=True)
    delta = check_real(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    m = check_int(n_hypotheses, "n_hypotheses", minimum=1)
    n = math.ceil(math.log(2 * m / delta) / (2 * eps**2))
    # guard against rounding at an exact boundary
    while n > 1 and 2 * m * math.exp(-2 * eps**2 * (n - 1)) <= delta:
        n -= 1
    return max(n, 1)


class CoinExperiment(NamedTuple):
    """Fractions of heads per run of the coin experiment (arrays of shape (n_runs,))."""

    nu_1: np.ndarray
    """The first coin."""
    nu_rand: np.ndarray
    """A coin chosen uniformly at random in each run."""
    nu_min: np.ndarray
    """The coin with the fewest heads (the first such coin in a tie)."""


_POPCOUNT = np.array([bin(i).count("1") for i in range(1 << 16)], dtype=np.uint8)


def _coin_chunk(rng, n_runs, n_coins, n_flips):
    """Heads of the first coin, a random coin and the minimum, for one chunk of runs."""
    if n_flips <= 16:
        # each coin is n_flips random bits; its number of heads is their popcount
        bits = rng.integers(0, 1 << n_flips, size=(n_runs, n_coins), dtype=np.uint16)
        heads = _POPCOUNT[bits]
    else:
        heads = rng.binomial(n_flips, 0.5, size=(n_runs, n_coins))
    pick = rng.integers(0, n_coins, size=n_runs)
    return heads[:, 0], heads[np.arange(n_runs), pick], heads.min(axis=1)


def coin_experiment(n_runs=100_000, n_coins=1_000, n_flips=10, *, rng=None, chunk_runs=10_000, progress=False):
    """*Learning From Data*'s coin experiment: the first, a random and the least-heads coin.

    In each run, ``n_coins`` fair coins are flipped ``n_flips`` times each. Returned
    per run: nu_1, the fraction of heads of the first coin; nu_rand, of a coin chosen
    at random; nu_min, of the coin with the fewest heads. The runs are processed in
    chunks of ``chunk_runs`` (each with its own child generator spawned from ``rng``,
    so the result does not depend on how chunks are scheduled), which bounds memory at
    about 3 bytes per coin of a chunk whatever ``n_runs`` is; chunks run on two threads.

    Parameters
    ----------
    n_runs : int, default=100_000
    n_coins : int, default=1_000
    n_flips : int, default=10
    rng : None, int or numpy.random.Generator
    chunk_runs : int, default=10_000
        Runs per chunk (memory: about 3 * chunk_runs * n_coins bytes per thread).
    progress : bool, default=False
        Show a progress bar (tqdm) over the chunks.

    Returns
    -------
    CoinExperiment
        ``(nu_1, nu_rand, nu_min)``, each of shape (n_runs,).

    Examples
    --------
    >>> res = coin_experiment(1_000, 100, 10, rng=0)
    >>> bool(np.all(res.nu_min <= res.nu_1)), res.nu_min.shape
    (True, (1000,))
    """
    n_runs = check_int(n_runs, "n_runs", minimum=1)
    n_coins = check_int(n_coins, "n_coins", minimum=1)
    n_flips = check_int(n_flips, "n_flips", minimum=1)
    chunk_runs = check_int(chunk_runs, "chunk_runs", minimum=1)
    rng = np.random.default_rng(rng)
    starts = list(range(0, n_runs, chunk_runs))
    children = rng.spawn(len(starts))
    out = np.empty((3, n_runs), dtype=np.uint8 if n_flips < 256 else np.int64)

    def work(k):
        s = starts[k]
        size = min(chunk_runs, n_runs - s)
        out[0, s:s + size], out[1, s:s + size], out[2, s:s + size] = _coin_chunk(children[k], size, n_coins, n_flips)

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(starts), desc="coin experiment", unit="chunk")
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for _ in pool.map(work, range(len(starts))):
            if bar is not None:
                bar.update()
    if bar is not None:
        bar.close()
    nu = out / n_flips
    return CoinExperiment(nu[0], nu[1], nu[2])


def nu_min_distribution(n_coins=1_000, n_flips=10, *, p=0.5):
    """Exact distribution of nu_min, the smallest heads fraction among independent coins.

    With X ~ Binomial(n_flips, p) for each coin,
    P[min >= k] = P[X >= k] ** n_coins, so
    P[nu_min = k / n_flips] = P[X >= k] ** n_coins - P[X >= k + 1] ** n_coins.

    Parameters
    ----------
    n_coins : int, default=1000
        Number of coins.
    n_flips : int, default=10
        Flips of each coin.
    p : float, default=0.5
        Probability of heads, the same for every coin.

    Returns
    -------
    values : ndarray of shape (n_flips + 1,)
        The possible values k / n_flips.
    pmf : ndarray of shape (n_flips + 1,)
        Their probabilities.

    Examples
    --------
    >>> values, pmf = nu_min_distribution(1, 2)
    >>> pmf.tolist()
    [0.25, 0.5, 0.25]
    """
    n_coins = check_int(n_coins, "n_coins", minimum=1)
    n_flips = check_int(n_flips, "n_flips", minimum=1)
    p = check_real(p, "p", low=0.0, high=1.0)
    k = np.arange(n_flips + 2)
    from scipy import stats

    tail = stats.binom.sf(k - 1, n_flips, p) ** n_coins  # P[X >= k]^M
    pmf = tail[:-1] - tail[1:]
    return k[:-1] / n_flips, pmf


def expected_nu_min(n_coins=1_000, n_flips=10, *, p=0.5):
    """E[nu_min], exactly, from :func:`nu_min_distribution`.

    Parameters
    ----------
    n_coins : int, default=1000
        Number of coins.
    n_flips : int, default=10
        Flips of each coin.
    p : float, default=0.5
        Probability of heads, the same for every coin.

    Examples
    --------
    >>> round(expected_nu_min(1_000, 10), 4)
    0.0376
    """
    values, pmf = nu_min_distribution(n_coins, n_flips, p=p)
    return float(values @ pmf)


def _binomial_pmf(n, p):
    """P[X = k], k = 0..n, for X ~ Binomial(n, p), in logs so no p overflows."""
    k = np.arange(n + 1)
    if p in (0.0, 1.0):
        return (k == (n if p == 1.0 else 0)).astype(float)
    from scipy import special

    log_comb = special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)
    return np.exp(log_comb + k * np.log(p) + (n - k) * np.log1p(-p))


def binomial_deviation_probability(eps, n, mu):
    """Exact P[|nu - mu| > eps] for nu = X / N with X ~ Binomial(N, mu).

    This is what nu_1 and nu_rand of the coin experiment follow (with mu = 0.5), so
    the simulation can be checked against it, and it lies below Hoeffding's bound.

    Parameters
    ----------
    eps : float
        The tolerance epsilon.
    n : int
        Number of flips N.
    mu : float
        Probability of heads.

    Examples
    --------
    >>> round(binomial_deviation_probability(0.3, 10, 0.5), 6)  # 0, 1, 9 or 10 heads
    0.021484
    """
    n = check_int(n, "n", minimum=1)
    mu = check_real(mu, "mu", low=0.0, high=1.0)
    eps_arr = np.asarray(eps, dtype=float)
    if eps_arr.size == 0 or not np.all(np.isfinite(eps_arr)) or np.any(eps_arr <= 0):
        raise ValueError(f"eps must be finite and > 0; got {eps!r}")
    k = np.arange(n + 1)
    pmf = _binomial_pmf(n, mu)
    far = deviates((k / n)[None, :], mu, np.atleast_1d(eps_arr)[:, None])
    out = far.astype(float) @ pmf
    return float(out[0]) if eps_arr.ndim == 0 else out.reshape(eps_arr.shape)


def fixed_hypothesis_errors(w_h, w_f, n, *, n_samples=10_000, n_test=1_000_000, rng=None):
    """E_in of one fixed perceptron h on many data sets of size N, and its E_out.

    The inputs are uniform on [-1, 1]^2 and labelled by the target perceptron f; a
    point is a "red marble" when h(x) != f(x). So E_in(h) on a data set is the nu of a
    sample from the bin, and E_out(h) is the bin's mu, estimated here on ``n_test``
    fresh points.

    Parameters
    ----------
    w_h, w_f : array-like of shape (3,)
        The hypothesis and the target, (w0, w1, w2), with sign(0) = -1.
    n : int
        Data-set size N.
    n_samples : int, default=10_000
        Number of data sets.
    n_test : int, default=1_000_000
        Fresh points for E_out.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    e_in : ndarray of shape (n_samples,)
    e_out : float

    Examples
    --------
    >>> e_in, e_out = fixed_hypothesis_errors([0, 1, 0], [0, 0, 1], 20, n_samples=500, rng=0)
    >>> e_in.shape, round(e_out, 1)
    ((500,), 0.5)
    """
    w_h = check_vector(w_h, "w_h", length=3)
    w_f = check_vector(w_f, "w_f", length=3)
    n = check_int(n, "n", minimum=1)
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    n_test = check_int(n_test, "n_test", minimum=1)
    rng = np.random.default_rng(rng)

    def wrong(points):
        h = points @ w_h[1:] + w_h[0] > 0
        f = points @ w_f[1:] + w_f[0] > 0
        return h != f

    e_out = float(np.mean(wrong(rng.uniform(-1, 1, size=(n_test, 2)))))
    e_in = np.mean(wrong(rng.uniform(-1, 1, size=(n_samples, n, 2))), axis=1)
    return e_in, e_out
