"""Overfitting: the Legendre experiment of *Learning From Data*, section 4.1.

The experiment fits polynomials in one input x, uniform on [-1, 1], to noisy values
of a random polynomial target. It is written in the basis of the **normalised
Legendre polynomials**

    L_q(x) = sqrt(2 q + 1) P_q(x),   q = 0, 1, 2, ...,

where P_q is the usual Legendre polynomial (P_q(1) = 1). They are orthonormal for the
uniform distribution on [-1, 1]: E_x[L_q(x) L_r(x)] = 1 if q = r, else 0. So a polynomial
h(x) = sum_q w_q L_q(x) has mean square E_x[h(x)^2] = ||w||^2, and the squared distance
between two of them is the squared distance between their weight vectors. That makes the
out-of-sample error of a fit exact and cheap: no test set is drawn.

* :func:`legendre_features` — the transform x -> (L_0(x), ..., L_Q(x));
* :func:`legendre_target` — a random target of degree Q_f, normalised as in the book;
* :func:`make_legendre_data` — N noisy examples of a target;
* :func:`legendre_out_of_sample_error` and :func:`deterministic_noise` — exact errors;
* :func:`legendre_experiment` and :func:`overfit_measure` — many runs at once, over a grid
  of (N, sigma^2, Q_f), for the learning curves and the heat maps of Figure 4.3.

Every function that draws random numbers takes ``rng`` (None, a seed or a
``numpy.random.Generator``) and never touches NumPy's global random state.
"""
from typing import NamedTuple

import numpy as np

from ._validation import check_choice, check_int, check_real, check_vector

__all__ = ["legendre_features", "legendre_target", "make_legendre_data", "legendre_out_of_sample_error",
           "deterministic_noise", "legendre_experiment", "overfit_measure", "LegendreRuns"]


def _legendre(x, degree):
    """L_0(x), ..., L_degree(x) for an array x of any shape: shape x.shape + (degree + 1,)."""
    return _legendre_and_sum(x, None, degree)[0]


def _legendre_sum(x, coef):
    """sum_q coef[..., q] L_q(x) for x of shape S + (N,) and coef of shape S + (Q + 1,)."""
    return _legendre_and_sum(x, coef, -1)[1]


def _legendre_and_sum(x, coef, degree):
    """(L_0(x), ..., L_degree(x)) and sum_q coef[..., q] L_q(x), by one pass of the recurrence.

    Only the first ``degree + 1`` polynomials are kept (none for degree -1); the sum runs
    over every coefficient without storing the higher ones. Bonnet's recurrence for the
    usual P_q, q P_q = (2q - 1) x P_{q-1} - (q - 1) P_{q-2}, written for L_q = sqrt(2q + 1) P_q:
    L_q = a_q x L_{q-1} - b_q L_{q-2} with a_q = sqrt((2q + 1)(2q - 1)) / q and
    b_q = ((q - 1) / q) sqrt((2q + 1) / (2q - 3)).
    """
    x = np.asarray(x, dtype=float)
    n_coef = 0 if coef is None else np.shape(coef)[-1]
    features = np.empty(x.shape + (degree + 1,)) if degree >= 0 else None
    total = term = None
    if coef is not None:
        coef = np.asarray(coef, dtype=float)
        total = np.zeros(np.broadcast_shapes(x.shape, coef.shape[:-1] + (1,)))
        term = np.empty_like(total)
    older, old = np.ones_like(x), np.sqrt(3.0) * x            # L_0, L_1
    new = np.empty_like(x)
    for q in range(max(degree, n_coef - 1) + 1):
        if q == 0:
            value = older
        elif q == 1:
            value = old
        else:
            np.multiply(x, old, out=new)
            new *= np.sqrt((2.0 * q + 1.0) * (2.0 * q - 1.0)) / q
            older *= (q - 1.0) / q * np.sqrt((2.0 * q + 1.0) / (2.0 * q - 3.0))
            new -= older                                     # new = L_q
            older, old, new = old, new, older
            value = old
        if q <= degree:
            features[..., q] = value
        if q < n_coef:
            np.multiply(coef[..., q:q + 1], value, out=term)
            total += term
    return features, total


def _check_inputs_1d(x, name="x"):
    x = np.asarray(x, dtype=float) if not isinstance(x, np.ndarray) else x
    if isinstance(x, np.ndarray) and x.ndim == 2 and x.shape[1] == 1:
        x = x[:, 0]
    return check_vector(x, name)


def legendre_features(x, degree):
    """The normalised Legendre transform of a 1-D input: z = (L_0(x), L_1(x), ..., L_Q(x)).

    L_q(x) = sqrt(2 q + 1) P_q(x), with P_q the usual Legendre polynomial
    (P_0 = 1, P_1 = x, (q + 1) P_{q+1} = (2q + 1) x P_q - q P_{q-1}). The factor makes the
    features orthonormal for x uniform on [-1, 1]: E_x[L_q(x) L_r(x)] = [q = r]. A linear
    model in z is a polynomial of degree Q in x, the same hypothesis set as the monomials
    (1, x, ..., x^Q) give, but with weights that do not fight each other: the mean square
    of h(x) = w^T z is ||w||^2. The first column is L_0 = 1, the constant coordinate.

    Parameters
    ----------
    x : array-like of shape (N,) (or (N, 1))
        The inputs; the features are orthonormal on [-1, 1], but any real x is accepted.
    degree : int
        Q >= 0.

    Returns
    -------
    ndarray of shape (N, Q + 1)

    Examples
    --------
    >>> legendre_features([1.0, 0.0], 2).round(6).tolist()
    [[1.0, 1.732051, 2.236068], [1.0, 0.0, -1.118034]]
    """
    x = _check_inputs_1d(x)
    degree = check_int(degree, "degree", minimum=0)
    return _legendre(x, degree)


def legendre_target(degree, *, rng=None):
    """A random polynomial target of degree Q_f, with the book's normalisation.

    As in *Learning From Data* (section 4.1.2): f(x) = c sum_{q=0}^{Q_f} a_q P_q(x) with
    a_q drawn independently from the standard normal distribution and the constant
    c = (sum_q 1 / (2q + 1))^{-1/2} chosen so that E[f(x)^2] = 1, the expectation taken over
    both x (uniform on [-1, 1]) and the coefficients. Returned in the normalised Legendre
    basis of :func:`legendre_features`: b_q = c a_q / sqrt(2q + 1), so that
    f(x) = sum_q b_q L_q(x) and E_x[f(x)^2] = ||b||^2 (whose expectation is 1).

    Parameters
    ----------
    degree : int
        Q_f >= 0.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of shape (Q_f + 1,)
        The coefficients b_0, ..., b_{Q_f}.

    Examples
    --------
    >>> b = legendre_target(20, rng=0)
    >>> b.shape
    (21,)
    """
    degree = check_int(degree, "degree", minimum=0)
    rng = np.random.default_rng(rng)
    return _target_coefficients(rng.standard_normal(degree + 1))


def _target_coefficients(a):
    """b_q = c a_q / sqrt(2q + 1) for standard normal a of shape (..., Q_f + 1)."""
    q = np.arange(a.shape[-1])
    c = 1.0 / np.sqrt(np.sum(1.0 / (2.0 * q + 1.0)))
    return c * a / np.sqrt(2.0 * q + 1.0)


def make_legendre_data(n_samples, target, *, noise_variance=0.0, rng=None):
    """N noisy examples of a Legendre target: x uniform on [-1, 1], y = f(x) + sigma * epsilon.

    Parameters
    ----------
    n_samples : int
        N >= 1.
    target : array-like of shape (Q_f + 1,)
        The target's coefficients in the normalised Legendre basis (:func:`legendre_target`).
    noise_variance : float, default=0.0
        sigma^2 >= 0, the variance of the Gaussian noise epsilon * sigma added to every y.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    x : ndarray of shape (n_samples,)
    y : ndarray of shape (n_samples,)

    Examples
    --------
    >>> x, y = make_legendre_data(5, [0.0, 1.0], rng=0)      # f(x) = sqrt(3) x, no noise
    >>> bool(np.allclose(y, np.sqrt(3) * x))
    True
    """
    n = check_int(n_samples, "n_samples", minimum=1)
    target = check_vector(target, "target")
    sigma2 = check_real(noise_variance, "noise_variance", low=0.0)
    rng = np.random.default_rng(rng)
    x = rng.uniform(-1.0, 1.0, size=n)
    y = _legendre_sum(x, target) + np.sqrt(sigma2) * rng.standard_normal(n)
    return x, y


def _pad(a, length):
    a = np.asarray(a, dtype=float)
    if a.shape[-1] >= length:
        return a
    return np.concatenate([a, np.zeros(a.shape[:-1] + (length - a.shape[-1],))], axis=-1)


def legendre_out_of_sample_error(w, target, *, noise_variance=0.0):
    """E_out of the hypothesis h(x) = sum_q w_q L_q(x) on the target's noisy data, exactly.

    For x uniform on [-1, 1] and y = f(x) + noise of variance sigma^2, the squared error
    out of sample is E_out(h) = E_x[(h(x) - f(x))^2] + sigma^2 = ||w - b||^2 + sigma^2
    (the shorter vector padded with zeros), because the normalised Legendre polynomials
    are orthonormal. Weight vectors and targets broadcast over their leading axes.

    Parameters
    ----------
    w : array-like of shape (..., Q + 1)
        The hypothesis' weights on :func:`legendre_features`.
    target : array-like of shape (..., Q_f + 1)
        The target's coefficients b.
    noise_variance : float, default=0.0

    Returns
    -------
    float or ndarray of the broadcast leading shape

    Examples
    --------
    >>> legendre_out_of_sample_error([0.0, 1.0], [0.0, 1.0, 0.5], noise_variance=0.1)
    0.35
    """
    w = np.asarray(w, dtype=float)
    b = np.asarray(target, dtype=float)
    if w.ndim == 0 or b.ndim == 0 or w.shape[-1] == 0 or b.shape[-1] == 0:
        raise ValueError("w and target must hold at least one coefficient each (their last axis)")
    if not (np.all(np.isfinite(w)) and np.all(np.isfinite(b))):
        raise ValueError("w and target must be finite")
    sigma2 = check_real(noise_variance, "noise_variance", low=0.0)
    length = max(w.shape[-1], b.shape[-1])
    diff = _pad(w, length) - _pad(b, length)
    out = np.sum(diff * diff, axis=-1) + sigma2
    return float(out) if np.ndim(out) == 0 else out


def deterministic_noise(target, degree):
    """The part of the target that no polynomial of degree Q can express: E_x[(f(x) - h*(x))^2].

    h* is the best hypothesis of H_Q (the polynomials of degree at most Q) for f; in the
    orthonormal Legendre basis it keeps f's first Q + 1 coefficients, so the deterministic
    noise is the energy of the rest, sum_{q > Q} b_q^2.

    Parameters
    ----------
    target : array-like of shape (Q_f + 1,)
        The target's coefficients in the orthonormal Legendre basis (as :func:`legendre_target` gives them).
    degree : int
        Q, the largest degree of the hypothesis set.

    Examples
    --------
    >>> deterministic_noise([1.0, 0.0, 0.5, 0.5], 1)
    0.5
    """
    b = check_vector(target, "target")
    degree = check_int(degree, "degree", minimum=0)
    return float(np.sum(b[degree + 1:] ** 2))


class LegendreRuns(NamedTuple):
    """What :func:`legendre_experiment` returns: errors averaged over the runs of every cell."""

    e_in: np.ndarray
    """Mean in-sample squared error, shape grid + (len(degrees),)."""
    e_out: np.ndarray
    """Mean out-of-sample squared error (exact, noise included), same shape."""
    n_runs: int
    """Runs averaged in every cell."""


_CHUNK = 1_000_000  # floats of features held at once (8 MB): the recurrence then works in cache


def _draw_cell(gen, n, sigma2, target_degree, n_runs):
    """One cell's random numbers, in a fixed order: target coefficients, inputs, noise."""
    a = gen.standard_normal((n_runs, target_degree + 1))
    x = gen.uniform(-1.0, 1.0, size=(n_runs, n))
    eps = gen.standard_normal((n_runs, n))
    return _target_coefficients(a), x, np.sqrt(sigma2) * eps


def _svd_fit(Z, y, lam):
    """Weight decay (minimum-norm least squares at lam = 0) for a stack, from the SVD of each Z."""
    U, s, Vt = np.linalg.svd(Z, full_matrices=False)
    tol = s[..., :1] * max(Z.shape[-2:]) * np.finfo(float).eps
    uy = (np.swapaxes(U, -1, -2) @ y[..., None])[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(s > tol, s / (s * s + np.asarray(lam)[..., None]), 0.0)
    return (np.swapaxes(Vt, -1, -2) @ (factor * uy)[..., None])[..., 0]


def _fit_runs(Z, y, lam, *, gram=None, zty=None):
    """Least-squares (lam = 0) or weight-decay weights for a stack of problems Z (..., N, d), y (..., N).

    lam has the stack's leading shape (or broadcasts to it). The normal equations
    (Z^T Z + lam I) w = Z^T y are solved for the whole stack at once, then once more for the
    residual (one step of iterative refinement). The size of that correction shows how badly
    conditioned Z^T Z is: where it moved w by more than 1e-8 of its length (inputs bunched
    together, few examples for many weights), the fit is computed again from the singular
    value decomposition of Z, as ``numpy.linalg.lstsq`` would. Where lam = 0 and a problem
    has fewer examples than weights (or Z^T Z is singular), that gives the minimum-norm
    solution. ``gram`` (Z^T Z) and ``zty`` (Z^T y, with a last axis of length 1) may be given when the
    caller has them already.
    """
    n, d = Z.shape[-2], Z.shape[-1]
    lam = np.broadcast_to(np.asarray(lam, dtype=float), Z.shape[:-2])
    if n < d and not np.all(lam > 0):
        return _svd_fit(Z, y, lam)
    Zt = np.swapaxes(Z, -1, -2)
    G = (Zt @ Z if gram is None else gram) + lam[..., None, None] * np.eye(d)
    try:
        w = np.linalg.solve(G, Zt @ y[..., None] if zty is None else zty)
    except np.linalg.LinAlgError:                          # an exactly singular Z^T Z somewhere in the stack
        return _svd_fit(Z, y, lam)
    r = y[..., None] - Z @ w
    step = np.linalg.solve(G, Zt @ r - lam[..., None, None] * w)
    w = (w + step)[..., 0]
    shaky = np.linalg.norm(step[..., 0], axis=-1) > 1e-8 * np.linalg.norm(w, axis=-1)
    if np.any(shaky):
        w[shaky] = _svd_fit(Z[shaky], y[shaky], lam[shaky])
    return w


def _grid_runs(n_samples, noise_variance, target_degree, weight_decay, degrees, n_runs, rng):
    """Check the grid, then return its shape, the degrees and a generator of every cell's runs (:func:`_cell_runs`)."""
    n_arr = np.asarray(n_samples)
    qf_arr = np.asarray(target_degree)
    for name, arr in (("n_samples", n_arr), ("target_degree", qf_arr)):
        if arr.dtype.kind not in "iu" and not (arr.dtype.kind == "f" and np.all(arr == np.round(arr))):
            raise ValueError(f"{name} must be an integer or an array of integers; got {arr!r}")
    if np.any(n_arr < 1):
        raise ValueError(f"n_samples must be at least 1; got {n_arr.min()}")
    if np.any(qf_arr < 0):
        raise ValueError(f"target_degree must be at least 0; got {qf_arr.min()}")
    s_arr = np.asarray(noise_variance, dtype=float)
    l_arr = np.asarray(weight_decay, dtype=float)
    for name, arr in (("noise_variance", s_arr), ("weight_decay", l_arr)):
        if not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise ValueError(f"{name} must be finite and >= 0; got {arr!r}")
    degrees = [check_int(q, "degrees", minimum=0) for q in np.atleast_1d(degrees).tolist()]
    if not degrees:
        raise ValueError("degrees must name at least one degree Q")
    n_runs = check_int(n_runs, "n_runs", minimum=1)
    try:
        shape = np.broadcast_shapes(n_arr.shape, s_arr.shape, qf_arr.shape, l_arr.shape)
    except ValueError:
        raise ValueError(f"n_samples, noise_variance, target_degree and weight_decay must broadcast against each other "
                         f"(a grid: e.g. n[None, :] and sigma2[:, None]); got shapes {n_arr.shape}, {s_arr.shape}, "
                         f"{qf_arr.shape} and {l_arr.shape}") from None
    N, S, QF, LAM = (np.broadcast_to(a, shape).ravel() for a in (n_arr.astype(int), s_arr, qf_arr.astype(int), l_arr))
    gens = np.random.default_rng(rng).spawn(N.size)
    return shape, degrees, _cell_runs(N, S, QF, LAM, gens, degrees, n_runs)


def _cell_runs(N, S, QF, LAM, gens, degrees, n_runs):
    """Yield (cells, e_in, e_out) chunk by chunk: the errors of every run, shape (len(cells), n_runs, len(degrees))."""
    qmax = max(degrees)
    for n in np.unique(N):
        cells = np.flatnonzero(N == n)
        qf_max = int(QF[cells].max())
        per_cell = n_runs * int(n) * (max(qmax, 1) + 1)
        step = max(1, _CHUNK // per_cell)
        for start in range(0, cells.size, step):
            chunk = cells[start:start + step]
            B = np.zeros((chunk.size, n_runs, qf_max + 1))
            X = np.empty((chunk.size, n_runs, int(n)))
            Y = np.empty((chunk.size, n_runs, int(n)))
            for i, k in enumerate(chunk):
                b, x, noise = _draw_cell(gens[k], int(n), S[k], int(QF[k]), n_runs)
                B[i, :, :b.shape[1]] = b
                X[i], Y[i] = x, noise
            Z, f = _legendre_and_sum(X, B, qmax)
            Y += f
            energy = np.sum(B * B, axis=-1)
            lam = np.broadcast_to(LAM[chunk][:, None], (chunk.size, n_runs))
            Zt = np.swapaxes(Z, -1, -2)
            gram, zty = Zt @ Z, Zt @ Y[..., None]                # shared by every degree: sub-blocks
            ins = np.empty((chunk.size, n_runs, len(degrees)))
            outs = np.empty_like(ins)
            for j, q in enumerate(degrees):
                Zq = Z[..., :q + 1]
                w = _fit_runs(Zq, Y, lam, gram=gram[..., :q + 1, :q + 1], zty=zty[..., :q + 1, :])
                resid = (Zq @ w[..., None])[..., 0] - Y
                ins[..., j] = np.mean(resid * resid, axis=-1)
                m = min(q, qf_max) + 1
                cross = np.sum(w[..., :m] * B[..., :m], axis=-1)
                outs[..., j] = np.maximum(energy - 2.0 * cross + np.sum(w * w, axis=-1), 0.0) + S[chunk][:, None]
            yield chunk, ins, outs


def legendre_experiment(n_samples, noise_variance, target_degree, *, degrees=(2, 10), weight_decay=0.0,
                        n_runs=100, average="mean", rng=None):
    """The overfitting experiment of *Learning From Data*, many runs at once, over a grid.

    For every cell of the grid given by broadcasting ``n_samples`` (N), ``noise_variance``
    (sigma^2), ``target_degree`` (Q_f) and ``weight_decay`` (lambda) against each other,
    ``n_runs`` independent runs are made. A run draws a target with
    :func:`legendre_target`, N inputs uniform on [-1, 1] and y = f(x) + sigma * epsilon, fits
    a polynomial of each degree Q in ``degrees`` by least squares on
    :func:`legendre_features` (with weight decay lambda: w = (Z^T Z + lambda I)^{-1} Z^T y),
    and records its E_in and its exact E_out (:func:`legendre_out_of_sample_error`).

    The runs of all cells with the same N are solved together, as stacks of small normal
    equations (``numpy.linalg.solve`` on arrays of matrices), so there is no Python loop over
    runs. Cell k (in C order) draws its numbers from the k-th generator of
    ``np.random.default_rng(rng).spawn(n_cells)``, in this order: the standard normal
    coefficients a of every run (shape (n_runs, Q_f + 1)), the inputs (n_runs, N), then the
    noise (n_runs, N); a plain loop over the runs that draws the same arrays gets the same
    fits (``benchmarks/bench_overfit.py`` checks it). Where lambda = 0 and N < Q + 1 the fit is
    the minimum-norm least-squares solution.

    Parameters
    ----------
    n_samples : int or array-like of int
        N >= 1.
    noise_variance : float or array-like of float
        sigma^2 >= 0.
    target_degree : int or array-like of int
        Q_f >= 0.
    degrees : sequence of int, default=(2, 10)
        The degrees Q of the hypothesis sets H_Q that are fitted.
    weight_decay : float or array-like of float, default=0.0
        lambda >= 0, applied to every weight.
    n_runs : int, default=100
    average : {"mean", "median"}, default="mean"
        How the runs of a cell are summarised. The mean estimates the expected error; with
        few examples for many weights a rare run whose inputs left a gap (near an end of
        [-1, 1], say) has an enormous E_out and the mean is mostly that run, while the
        median shows the typical run.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    LegendreRuns
        ``(e_in, e_out, n_runs)``; e_in and e_out have the broadcast shape of the four
        grid arguments followed by one entry per degree.

    Examples
    --------
    A target of degree 2 without noise is learned exactly by both models:

    >>> runs = legendre_experiment(20, 0.0, 2, degrees=(2, 10), n_runs=5, rng=0)
    >>> bool(np.all(runs.e_out < 1e-12))
    True
    """
    summary = {"mean": np.mean, "median": np.median}[check_choice(average, "average", ("mean", "median"))]
    shape, degrees, cells = _grid_runs(n_samples, noise_variance, target_degree, weight_decay, degrees, n_runs, rng)
    e_in = np.empty((int(np.prod(shape, dtype=int)), len(degrees)))
    e_out = np.empty_like(e_in)
    for chunk, ins, outs in cells:
        e_in[chunk] = summary(ins, axis=1)
        e_out[chunk] = summary(outs, axis=1)
    return LegendreRuns(e_in.reshape(shape + (len(degrees),)), e_out.reshape(shape + (len(degrees),)), n_runs)


def overfit_measure(n_samples, noise_variance, target_degree, *, n_runs=100, degrees=(2, 10), average="mean",
                   rng=None):
    """The book's overfit measure E_out(g_10) - E_out(g_2), summarised over runs, on a grid.

    g_2 and g_10 are the least-squares fits of degree 2 and 10 (``degrees``) to the same N
    noisy examples of a random target of degree Q_f (see :func:`legendre_experiment`, which
    draws the runs). A positive value means the richer model H_10 did worse out of sample
    than H_2 on the same data: it overfitted. Figure 4.3 of *Learning From Data* shows the
    mean of this measure over N and sigma^2 (Q_f = 20) and over N and Q_f (sigma^2 = 0.1);
    pass such grids as broadcasting arrays, e.g. ``n[None, :]`` and ``sigma2[:, None]``.

    The mean is hard to estimate where N is not much larger than the 11 weights of g_10
    (below about 100): a run whose inputs left a gap near an end of [-1, 1] gives g_10 an
    E_out hundreds or thousands of times the typical one, so about 1 % of the runs carry
    most of the mean, and a cell of 100 runs shows mostly which rare runs it happened to
    draw. ``average="median"`` summarises the same runs by the median of their measures,
    the measure of the typical run: it changes smoothly over the grid, and its sign says
    whether g_10 did worse than g_2 in more than half of the runs.

    Parameters
    ----------
    n_samples, noise_variance, target_degree : int / float / int, or arrays that broadcast
    n_runs : int, default=100
        Runs in every cell.
    degrees : (int, int), default=(2, 10)
        The simple and the complex model.
    average : {"mean", "median"}, default="mean"
        "mean": the mean over the runs of E_out(g_10) - E_out(g_2), an estimate of the
        expected measure, as in the book. "median": the median over the runs of the same
        differences (not the difference of the two models' medians).
    rng : None, int or numpy.random.Generator
        The runs drawn with the same ``rng`` are the same for both values of ``average``.

    Returns
    -------
    float or ndarray of the broadcast shape

    Examples
    --------
    >>> m = overfit_measure([20, 40], 1.0, 10, n_runs=200, rng=0)
    >>> m.shape, bool(m[0] > m[1] > 0)
    ((2,), True)
    >>> bool(overfit_measure(60, 0.1, 20, n_runs=200, average="median", rng=0) < 0)   # the typical run
    True
    """
    degrees = tuple(np.atleast_1d(degrees).tolist())
    if len(degrees) != 2:
        raise ValueError(f"degrees must be two degrees (simple, complex); got {degrees!r}")
    average = check_choice(average, "average", ("mean", "median"))
    if average == "mean":
        runs = legendre_experiment(n_samples, noise_variance, target_degree, degrees=degrees, n_runs=n_runs, rng=rng)
        out = runs.e_out[..., 1] - runs.e_out[..., 0]
    else:
        shape, _, cells = _grid_runs(n_samples, noise_variance, target_degree, 0.0, degrees, n_runs, rng)
        out = np.empty(int(np.prod(shape, dtype=int)))
        for chunk, _, outs in cells:
            out[chunk] = np.median(outs[..., 1] - outs[..., 0], axis=1)
        out = out.reshape(shape)
    return float(out) if np.ndim(out) == 0 else out
