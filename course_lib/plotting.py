"""Pictures for the perceptron lectures.

Every function draws on the axes it is given (``ax=None`` makes a new figure) and
returns them, so pictures can be combined. Nothing here changes matplotlib's global
settings. Labels are drawn as in the lecture: +1 as a circle, -1 as a cross.
"""
import matplotlib.pyplot as plt
import numpy as np

from ._validation import check_labels, check_matrix, check_vector

__all__ = [
    "plot_data", "plot_boundary", "plot_pla_step", "plot_novikoff_check", "plot_ein_history",
    "POSITIVE_COLOR", "NEGATIVE_COLOR",
]

POSITIVE_COLOR = "#1f5fbf"
NEGATIVE_COLOR = "#c8341e"


def _axes(ax, figsize=(4.5, 4.5)):
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def _points_2d(X):
    """Raw 2-D points from X of shape (N, 2), or (N, 3) with the x0 = 1 column first."""
    X = check_matrix(X, "X")
    if X.shape[1] == 3 and np.all(X[:, 0] == 1):
        X = X[:, 1:]
    if X.shape[1] != 2:
        raise ValueError(f"X must hold 2-D points, shape (N, 2) or (N, 3) with x0 = 1 first; got shape {X.shape}")
    return X


def plot_data(X, y, *, ax=None, highlight=None, limits=(-1.05, 1.05)):
    """Scatter 2-D examples: +1 as blue circles, -1 as red crosses.

    Parameters
    ----------
    X : array-like of shape (N, 2), or (N, 3) with x0 = 1 first
    y : array-like of shape (N,), labels +1 / -1
    ax : matplotlib Axes or None
    highlight : int, array of int or None
        Indices of examples to ring (e.g. the current mistake).
    limits : (float, float) or None
        Axis limits for both axes; None leaves matplotlib's automatic limits.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_data([[0.5, 0.5], [-0.5, -0.5]], [1, -1])
    >>> len(ax.collections)
    2
    """
    P = _points_2d(X)
    y = check_labels(y, "y", n_samples=P.shape[0])
    ax = _axes(ax)
    pos, neg = y > 0, y < 0
    ax.scatter(P[pos, 0], P[pos, 1], marker="o", facecolors="none", edgecolors=POSITIVE_COLOR,
               linewidths=1.4, s=36, label="+1", zorder=3)
    ax.scatter(P[neg, 0], P[neg, 1], marker="x", color=NEGATIVE_COLOR, linewidths=1.4, s=36, label="-1", zorder=3)
    if highlight is not None:
        h = np.atleast_1d(highlight)
        ax.scatter(P[h, 0], P[h, 1], s=240, facecolors="none", edgecolors="black", linewidths=2, zorder=4,
                   label="mistake")
    if limits is not None:
        ax.set_xlim(limits)
        ax.set_ylim(limits)
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_aspect("equal", adjustable="box")
    return ax


def _positive_part(w, xlim, ylim):
    """The polygon of the box xlim x ylim where w0 + w1 x1 + w2 x2 > 0 (its corners, in order; may be empty)."""
    (x0, x1), (y0, y1) = xlim, ylim
    box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)
    score = w[0] + box @ w[1:]
    out = []
    for k in range(4):  # one clipping step of Sutherland-Hodgman, against the half-plane score > 0
        a, b, sa, sb = box[k], box[(k + 1) % 4], score[k], score[(k + 1) % 4]
        if sa > 0:
            out.append(a)
        if (sa > 0) != (sb > 0):
            out.append(a + (b - a) * sa / (sa - sb))
    return np.array(out).reshape(-1, 2)


def boundary_segment(w, xlim, ylim):
    """Two points of the line w0 + w1 x1 + w2 x2 = 0 spanning the box ``xlim`` x ``ylim``.

    Returns ``(xs, ys)``, each of length 2, or None when w1 = w2 = 0 (no line at all).
    The points lie on the box's left and right edges (or bottom and top for a steep
    line); the axes clip what lies outside.

    Examples
    --------
    >>> xs, ys = boundary_segment([0.0, 1.0, -1.0], (-1, 1), (-1, 1))
    >>> xs.tolist(), ys.tolist()
    ([-1.0, 1.0], [-1.0, 1.0])
    """
    w = np.asarray(w, dtype=float)
    if w[1] == 0 and w[2] == 0:
        return None
    if abs(w[2]) >= abs(w[1]):
        xs = np.array(xlim, dtype=float)
        return xs, -(w[0] + w[1] * xs) / w[2]
    ys = np.array(ylim, dtype=float)
    return -(w[0] + w[2] * ys) / w[1], ys


def plot_boundary(w, *, ax=None, color="black", linestyle="-", shade=True, label=None, normal=False):
    """Draw the line w0 + w1 x1 + w2 x2 = 0 and lightly shade its positive side.

    Parameters
    ----------
    w : array-like of shape (3,)
        Weights (w0, w1, w2). For w1 = w2 = 0 there is no line; with ``shade`` the
        whole plane is shaded by the sign of w0 (sign(0) = -1).
    ax : matplotlib Axes or None
        Drawn within the current limits of ``ax``.
    color, linestyle : line style.
    shade : bool, default=True
        Shade the half-plane where h(x) = +1.
    label : str or None
        The line's legend text.
    normal : bool, default=False
        Draw the vector (w1, w2), which points into the positive side.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_boundary([0.0, 1.0, -1.0], ax=plot_data([[0.5, 0.2]], [1]))
    >>> len(ax.lines)
    1
    """
    w = check_vector(w, "w", length=3)
    ax = _axes(ax)
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    segment = boundary_segment(w, (x0, x1), (y0, y1))
    if shade:
        from matplotlib.collections import PolyCollection

        region = _positive_part(w, (x0, x1), (y0, y1))
        ax.add_collection(PolyCollection([region] if len(region) else [], facecolors=POSITIVE_COLOR, alpha=0.12,
                                         edgecolors="none", zorder=0), autolim=False)
    if segment is not None:
        xs, ys = segment
        ax.plot(xs, ys, color=color, linestyle=linestyle, linewidth=1.8, label=label, zorder=2)
        if normal:
            # foot of the perpendicular from the origin, then the direction (w1, w2)
            n = w[1:] / np.linalg.norm(w[1:])
            foot = -w[0] * w[1:] / np.dot(w[1:], w[1:])
            ax.annotate("", xy=foot + 0.3 * n, xytext=foot,
                        arrowprops=dict(arrowstyle="->", color=color, linewidth=1.5), zorder=5)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    return ax


def plot_pla_step(X, y, w_t, w_next, n, *, ax=None, t=None, legend=True):
    """One PLA correction: the mistake x_n, the old boundary w_t and the new w_{t+1}.

    The old boundary is dashed, the new one solid; the arrows show the (w1, w2)
    parts of w_t, of y_n x_n and of their sum w_{t+1} = w_t + y_n x_n.

    Parameters
    ----------
    X : array-like of shape (N, 3) with x0 = 1 first, or (N, 2)
    y : labels +1 / -1
    w_t, w_next : array-like of shape (3,)
    n : int
        Index of the example corrected.
    ax : matplotlib Axes or None
    t : int or None
        The step number, used in the title.
    legend : bool, default=True
        Put the legend below the axes (a figure that has a legend of its own passes False).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> X = [[1, 0.5, 0.5], [1, -0.5, -0.5]]
    >>> ax = plot_pla_step(X, [1, -1], [0.0, -1.0, 0.0], [1.0, -0.5, 0.5], 0)
    >>> len(ax.lines)
    2
    """
    P = _points_2d(X)
    w_t = check_vector(w_t, "w_t", length=3)
    w_next = check_vector(w_next, "w_next", length=3)
    ax = plot_data(P, y, ax=ax, highlight=n)
    if np.any(w_t[1:] != 0):
        plot_boundary(w_t, ax=ax, color="grey", linestyle="--", shade=False, label="$w_t$")
    plot_boundary(w_next, ax=ax, color="black", label="$w_{t+1}$")
    yn = float(np.asarray(y, dtype=float)[n])
    arrows = [(w_t[1:], "grey", "$w_t$"), (yn * P[n], "tab:green", "$y_n x_n$"), (w_next[1:], "black", "$w_{t+1}$")]
    scale = max(1.0, max(np.linalg.norm(v) for v, _, _ in arrows) / 0.9)
    labels = []
    try:  # a renderer to measure the labels with, whatever canvas the figure has
        renderer = ax.figure._get_renderer()
    except Exception:
        renderer = None
    for vec, color, text in arrows:
        if np.any(vec != 0):
            tip = vec / scale
            ax.annotate("", xy=tip, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color=color, linewidth=1.6),
                        zorder=5)
            out = 14 * tip / np.linalg.norm(tip)            # the label just beyond the tip ...
            label = ax.annotate(text, xy=tip, xytext=tuple(out), textcoords="offset points", color=color,
                                fontsize=9, ha="center", va="center", zorder=5,
                                bbox=dict(boxstyle="round,pad=0.1", facecolor="white", edgecolor="none", alpha=0.7))
            if renderer is not None:    # ... or the first nearby place inside the axes that covers no earlier label
                inside = ax.get_window_extent(renderer)
                side = np.array([-out[1], out[0]])
                for place in [out, -out, out + side, out - side, -out + side, -out - side,
                              *[out - [0, 14 * k] for k in range(1, 6)]]:
                    label.set_position(tuple(place))
                    box = label.get_window_extent(renderer)
                    within = (box.x0 >= inside.x0 and box.x1 <= inside.x1 and box.y0 >= inside.y0
                              and box.y1 <= inside.y1)
                    if within and not any(box.overlaps(other.get_window_extent(renderer)) for other in labels):
                        break
            labels.append(label)
    title = "correcting the mistake" if t is None else f"update {t + 1}: $w_{{{t + 1}}} = w_{{{t}}} + y_n x_n$"
    ax.set_title(title, fontsize=10)
    if legend:  # below the axes and their x label, where it covers neither points nor arrows
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=4, fontsize=7, frameon=False,
                  handlelength=1.5, columnspacing=1.0)
    return ax


def plot_novikoff_check(check, *, axes=None):
    """Both sides of each inequality of the proof along one trajectory.

    Three panels over t: w_f^T w_t / ||w_f|| against its lower bound t rho;
    ||w_t||^2 against its upper bound t R^2; and the cosine between w_f and w_t
    against sqrt(t) rho / R. The last panel also marks T = R^2 / rho^2. (The legends
    name the bounds of PLA as in the lecture, eta = 1; a check made with another eta
    draws t eta rho and t eta^2 R^2 under the same names.)

    Parameters
    ----------
    check : NovikoffCheck
        From :func:`course_lib.theory.check_novikoff`.
    axes : sequence of 3 Axes or None

    Returns
    -------
    ndarray of 3 Axes

    Examples
    --------
    >>> from course_lib import add_bias, check_novikoff, make_separable, pla
    >>> X, y, w_f = make_separable(30, 2, margin=0.1, rng=0)
    >>> X = add_bias(X)
    >>> run = pla(X, y)
    >>> axes = plot_novikoff_check(check_novikoff(run.trajectory, run.corrected, X, y, w_f))
    >>> len(axes), len(axes[0].lines)
    (3, 2)
    """
    if axes is None:
        _, axes = plt.subplots(1, 3, figsize=(12, 3.4), constrained_layout=True)
    axes = np.asarray(axes).ravel()
    t = np.arange(len(check.inner))
    rho_eta = (check.inner_lower[1] - check.inner[0]) if len(t) > 1 else 0.0
    r2_eta2 = (check.norm_sq_upper[1] - check.norm_sq[0]) if len(t) > 1 else 0.0
    axes[0].plot(t, check.inner, "o-", ms=3, label=r"$w_f^T w_t / \|w_f\|$")
    axes[0].plot(t, t * rho_eta, "--", label=r"$t\,\rho$ (lower bound)")
    axes[0].set_title("1. $w_f^T w_t / \\|w_f\\|$ climbs by $\\geq \\rho$ per correction", fontsize=10)
    axes[1].plot(t, check.norm_sq, "o-", ms=3, label=r"$\|w_t\|^2$")
    axes[1].plot(t, t * r2_eta2, "--", label=r"$t\,R^2$ (upper bound)")
    axes[1].set_title("2. but $\\|w_t\\|$ grows slowly", fontsize=10)
    axes[2].plot(t, check.cosine, "o-", ms=3, label="cosine($w_f$, $w_t$)")
    axes[2].plot(t, check.cosine_lower, "--", label=r"$\sqrt{t}\,\rho/R$")
    axes[2].axhline(1.0, color="grey", linewidth=0.8)
    axes[2].set_title(f"3. so $T \\leq R^2/\\rho^2 = {check.bound:.0f}$", fontsize=10)
    for ax in axes:
        ax.set_xlabel("update $t$")
        ax.legend(fontsize=8)
    return axes


def plot_ein_history(ein_pla, ein_pocket=None, *, ax=None, labels=("PLA $w_t$", "pocket")):
    """E_in over the updates t: PLA's current weights against the pocket's best so far.

    Parameters
    ----------
    ein_pla : array-like of shape (T + 1,)
    ein_pocket : array-like of shape (T + 1,) or None
    ax : matplotlib Axes or None
    labels : (str, str)
        The legend's names of the two curves.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_ein_history([0.5, 0.3, 0.4], [0.5, 0.3, 0.3])
    >>> len(ax.lines)
    2
    """
    ein_pla = check_vector(ein_pla, "ein_pla")
    ax = _axes(ax, figsize=(6, 3.2))
    ax.plot(np.arange(len(ein_pla)), ein_pla, color="tab:grey", linewidth=1, label=labels[0])
    if ein_pocket is not None:
        ein_pocket = check_vector(ein_pocket, "ein_pocket", length=len(ein_pla))
        ax.plot(np.arange(len(ein_pocket)), ein_pocket, color="tab:orange", linewidth=2, label=labels[1])
    ax.set_xlabel("update $t$")
    ax.set_ylabel("$E_{in}$")
    ax.set_ylim(bottom=0)
    ax.legend()
    return ax


# --- Feasibility of learning: the bin model and Hoeffding's inequality ------------------

def _bars(x, height, width, *, ax, color, label):
    """Bars centred at x as ONE collection: drawn in a single call (ax.bar draws one patch per bar)."""
    from matplotlib.collections import PolyCollection

    x, height = np.asarray(x, dtype=float), np.asarray(height, dtype=float)
    left, right = x - width / 2, x + width / 2
    zero = np.zeros_like(x)
    verts = np.stack([np.column_stack(c) for c in ((left, zero), (left, height), (right, height), (right, zero))],
                     axis=1)
    bars = PolyCollection(verts, facecolors=color, edgecolors="none", label=label)
    bars.sticky_edges.y.append(0)  # like ax.bar: the axis starts at 0, with no margin below
    ax.add_collection(bars, autolim=True)
    ax.autoscale_view()
    return bars


def format_probability(p):
    """A probability (or a bound, which may exceed 1) as text that never rounds a small one to 0.

    Examples
    --------
    >>> format_probability(0.33484), format_probability(0.0), format_probability(3.2e-9)
    ('0.3348', '0', '3.2e-09')
    >>> format_probability(1.6375)
    '1.6375'
    """
    p = float(p)
    if p == 0:
        return "0"
    if p < 1e-3:
        return f"{p:.1e}"
    return f"{p:.4f}"


def plot_nu_histogram(nu, mu, n, eps, *, ax=None, color="tab:red"):
    """Histogram of sample red fractions nu, with the band mu +- eps and Hoeffding's bound.

    Bars outside the band are the "bad" samples; the title compares their fraction
    with 2 exp(-2 eps^2 N).

    Parameters
    ----------
    nu : array-like
        Red fractions of many samples of size N (e.g. from
        :func:`course_lib.hoeffding.sample_nu`).
    mu : float
        The bin's true red fraction.
    n : int
        The sample size N (sets the bar width 1/N).
    eps : float
        The tolerance.
    ax : matplotlib Axes or None

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_nu_histogram([0.4, 0.5, 0.5, 0.9], 0.5, 10, 0.2)
    >>> [float(v) for v in ax.get_xlim()]
    [0.0, 1.0]
    """
    from .hoeffding import deviates, hoeffding_bound

    nu = check_vector(nu, "nu")
    ax = _axes(ax, figsize=(6, 3.4))
    values, counts = np.unique(np.round(nu * n).astype(int), return_counts=True)
    freq = counts / len(nu)
    bad = deviates(values / n, mu, eps)  # the very comparison that counts the bad samples
    width = 0.8 / n
    _bars(values[~bad] / n, freq[~bad], width, ax=ax, color="tab:grey", label="$|\\nu-\\mu| \\leq \\epsilon$")
    _bars(values[bad] / n, freq[bad], width, ax=ax, color=color, label="$|\\nu-\\mu| > \\epsilon$")
    ax.axvspan(mu - eps, mu + eps, color="tab:green", alpha=0.12, zorder=0)
    ax.axvline(mu, color="black", linewidth=1.2, label="$\\mu$")
    p = float(np.mean(deviates(nu, mu, eps)))  # what deviation_probability estimates, without its interval
    bound = hoeffding_bound(eps, n)
    ax.set_title(f"N = {n}: P[|ν−μ| > ε] ≈ {format_probability(p)}   Hoeffding bound {format_probability(bound)}"
                 + ("" if bound < 1 else " (≥ 1: says nothing)"), fontsize=10)
    ax.set_xlim(0, 1)
    ax.set_xlabel("$\\nu$ (red fraction in the sample)")
    ax.set_ylabel("fraction of samples")
    ax.legend(fontsize=8, loc="upper right")
    return ax


def plot_deviation_curves(eps, probabilities, *, bound=None, ax=None):
    """Estimated P[|nu - mu| > eps] against eps for several kinds of samples, with Hoeffding's bound.

    Only draws: the estimates and the bound are computed beforehand (with
    :func:`course_lib.hoeffding.deviation_probability` and
    :func:`course_lib.hoeffding.hoeffding_bound`, or with one's own versions of them).

    Parameters
    ----------
    eps : array-like of shape (n_eps,)
        Tolerances, increasing.
    probabilities : dict of str to array-like of shape (n_eps,)
        For each label (e.g. "first coin"), the estimated P[|nu - mu| > eps] at every tolerance.
    bound : array-like of shape (n_eps,), optional
        Hoeffding's bound 2 exp(-2 eps^2 N) at every tolerance; drawn at min(1, bound),
        since a bound above 1 says nothing about a probability (the legend says so).
    ax : matplotlib Axes or None

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from course_lib.hoeffding import deviation_probability, hoeffding_bound
    >>> eps = np.linspace(0.05, 0.5, 10)
    >>> nu = [0.4, 0.5, 0.7]
    >>> ax = plot_deviation_curves(eps, {"coin": deviation_probability(nu, 0.5, eps).p},
    ...                            bound=hoeffding_bound(eps, 10))
    >>> len(ax.lines)
    2
    """
    eps = check_vector(eps, "eps")
    if np.any(np.diff(eps) <= 0):
        raise ValueError("eps must be increasing")
    if not isinstance(probabilities, dict):
        raise ValueError(f"probabilities must be a dict of label to estimates, one per eps; "
                         f"got {type(probabilities).__name__}")
    curves = {}
    for label, p in probabilities.items():
        p = check_vector(p, f"probabilities[{label!r}]", length=len(eps))
        if np.any((p < 0) | (p > 1)):
            raise ValueError(f"probabilities[{label!r}] must lie in [0, 1]")
        curves[label] = p
    if bound is not None:
        bound = check_vector(bound, "bound", length=len(eps))
    ax = _axes(ax, figsize=(6, 3.6))
    for label, p in curves.items():
        ax.step(eps, p, where="post", linewidth=1.8, label=label)
    if bound is not None:
        ax.plot(eps, np.minimum(bound, 1.0), "k--", label="$\\min(1, 2e^{-2\\epsilon^2 N})$")
    ax.set_xlabel("$\\epsilon$")
    ax.set_ylabel("$P[|\\nu-\\mu| > \\epsilon]$")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8)
    return ax


def plot_coin_histograms(result, *, n_flips=10, axes=None):
    """The three histograms of the coin experiment: nu_1, nu_rand and nu_min.

    Parameters
    ----------
    result : CoinExperiment
        From :func:`course_lib.hoeffding.coin_experiment`.
    n_flips : int, default=10
    axes : sequence of 3 Axes or None

    Returns
    -------
    ndarray of 3 Axes

    Examples
    --------
    >>> from course_lib.hoeffding import coin_experiment
    >>> axes = plot_coin_histograms(coin_experiment(200, 20, 10, rng=0))
    >>> len(axes)
    3
    """
    if axes is None:
        _, axes = plt.subplots(1, 3, figsize=(12, 3.2), sharey=True, constrained_layout=True)
    axes = np.asarray(axes).ravel()
    titles = [("nu_1", "$\\nu_1$: the first coin"), ("nu_rand", "$\\nu_{rand}$: a random coin"),
              ("nu_min", "$\\nu_{min}$: the coin with fewest heads")]
    for ax, (field, title) in zip(axes, titles, strict=True):
        nu = np.asarray(getattr(result, field))
        values, counts = np.unique(np.round(nu * n_flips).astype(int), return_counts=True)
        ax.bar(values / n_flips, counts / len(nu), width=0.8 / n_flips, color="tab:blue")
        ax.axvline(0.5, color="black", linewidth=1, linestyle="--")
        ax.set_title(f"{title}\nmean {nu.mean():.3f}", fontsize=10)
        ax.set_xlim(-0.05, 1.05)
        ax.set_xlabel("fraction of heads")
    axes[0].set_ylabel("fraction of runs")
    return axes


# --- Handwritten digits: the images, the two features, PLA against pocket ---------------

def plot_digits(images, labels=None, *, n=24, ncols=8, ax=None):
    """Show the first n grey images side by side, ink dark on light paper, with their labels.

    The images are tiled into one picture (one pixel of paper between them), so a
    single Axes holds them all.

    Parameters
    ----------
    images : array-like of shape (N, h, w)
        Grey values in [-1, 1], -1 paper and +1 ink (see :mod:`course_lib.digits`).
    labels : array-like of shape (N,) or None
        Written in the corner of each image (e.g. the digits).
    n : int, default=24
        How many images to show (at most N).
    ncols : int, default=8
        Images per row.
    ax : matplotlib Axes or None

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_digits(-np.ones((3, 8, 8)), [1, 5, 1], n=3)
    >>> len(ax.images), len(ax.texts)
    (1, 3)
    """
    from ._validation import check_int
    from .digits import _check_images

    imgs, _ = _check_images(images)
    n = min(check_int(n, "n", minimum=1), imgs.shape[0])
    ncols = min(check_int(ncols, "ncols", minimum=1), n)
    if labels is not None:
        labels = np.asarray(labels)
        if labels.shape != (imgs.shape[0],):
            raise ValueError(f"labels must have one entry per image, shape ({imgs.shape[0]},); got shape {labels.shape}")
    nrows = -(-n // ncols)
    h, w = imgs.shape[1:]
    band = max(2, h // 3) if labels is not None else 1     # paper above each image, for its label
    gap = max(1, w // 8)
    mosaic = np.full((nrows * (h + band), ncols * (w + gap) - gap), -1.0)
    for k in range(n):
        r, c = divmod(k, ncols)
        top, left = r * (h + band) + band, c * (w + gap)
        mosaic[top: top + h, left: left + w] = imgs[k]
    ax = _axes(ax, figsize=(1.0 * ncols, 1.15 * nrows + 0.2))
    ax.imshow(mosaic, cmap="gray_r", vmin=-1, vmax=1, interpolation="nearest")
    for k in range(n if labels is not None else 0):
        r, c = divmod(k, ncols)
        ax.text(c * (w + gap) + w / 2, r * (h + band) + band - 0.6, str(labels[k]), color="tab:blue", fontsize=8,
                va="bottom", ha="center")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():                        # no frame around the whole sheet
        spine.set_visible(False)
    return ax


def _feature_limits(P, limits):
    """Axis limits for a feature scatter: given, or the data's range with a 5 % margin."""
    if limits is not None:
        lim = np.asarray(limits, dtype=float)
        if lim.shape != (2, 2) or not np.all(np.isfinite(lim)) or np.any(lim[:, 0] >= lim[:, 1]):
            raise ValueError(f"limits must be ((xmin, xmax), (ymin, ymax)) with min < max; got {limits!r}")
        return lim
    low, high = P.min(axis=0), P.max(axis=0)
    pad = np.where(high > low, 0.05 * (high - low), 0.5)
    return np.column_stack([low - pad, high + pad])


def plot_digit_features(X, y, *, names=("1", "5"), ax=None, limits=None):
    """Scatter two-feature digits: intensity across, symmetry up (the book's picture).

    The +1 class (the first name) is drawn as blue circles, the -1 class as red
    crosses. The axes get explicit limits (the data's range, or ``limits``), so
    decision lines drawn afterwards with :func:`plot_boundary` span the picture.

    Parameters
    ----------
    X : array-like of shape (N, 2), or (N, 3) with x0 = 1 first
        Intensity and symmetry of every image.
    y : array-like of shape (N,)
        +1 / -1 labels (e.g. from :func:`course_lib.digits.one_vs_one`).
    names : (str, str), default=("1", "5")
        What +1 and -1 stand for, for the legend: a digit is shown as "digit 1", any
        other name ("+1", "spam") as it is.
    ax : matplotlib Axes or None
    limits : ((xmin, xmax), (ymin, ymax)) or None

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_digit_features([[0.1, -1.0], [0.3, -5.0]], [1, -1])
    >>> [round(float(v), 2) for v in ax.get_xlim()]
    [0.09, 0.31]
    """
    P = _points_2d(X)
    y = check_labels(y, "y", n_samples=P.shape[0])
    lim = _feature_limits(P, limits)
    ax = _axes(ax, figsize=(5.5, 4.2))
    pos, neg = y > 0, y < 0
    shown = [f"digit {n}" if str(n).isdigit() else str(n) for n in names]
    ax.scatter(P[pos, 0], P[pos, 1], marker="o", facecolors="none", edgecolors=POSITIVE_COLOR, linewidths=1,
               s=18, alpha=0.8, label=shown[0], zorder=3)
    ax.scatter(P[neg, 0], P[neg, 1], marker="x", color=NEGATIVE_COLOR, linewidths=1, s=18, alpha=0.8,
               label=shown[1], zorder=3)
    ax.set_xlim(lim[0])
    ax.set_ylim(lim[1])
    ax.set_xlabel("average intensity")
    ax.set_ylabel("symmetry")
    ax.legend(loc="best", fontsize=8)
    return ax


def plot_digit_boundaries(X, y, weights, *, names=("1", "5"), ax=None, limits=None, title=None):
    """The feature scatter with one or more decision lines w0 + w1 intensity + w2 symmetry = 0.

    Parameters
    ----------
    X, y : as in :func:`plot_digit_features`
    weights : dict of str to array-like of shape (3,)
        Each line's legend text and weights (w0, w1, w2), e.g. ``{"PLA": w, "pocket": v}``.
        A line that does not cross the picture is still listed in the legend, marked
        as outside it with the class it gives to every point shown.
    names : as in :func:`plot_digit_features`
    ax : matplotlib Axes or None
    limits : as in :func:`plot_digit_features`
    title : str or None

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_digit_boundaries([[0.1, -1.0], [0.3, -5.0]], [1, -1], {"w": [1.0, -2.0, 0.5]})
    >>> len(ax.lines)
    1
    """
    if not isinstance(weights, dict) or not weights:
        raise ValueError(f"weights must be a non-empty dict of label -> (w0, w1, w2); got {type(weights).__name__}")
    ax = plot_digit_features(X, y, names=names, ax=ax, limits=limits)
    styles = [("black", "-"), ("tab:orange", "--"), ("tab:green", ":"), ("tab:purple", "-.")]
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    corners = np.array([[1, x0, y0], [1, x0, y1], [1, x1, y0], [1, x1, y1]])
    shown = f"digit {names[0]}" if str(names[0]).isdigit() else str(names[0])
    for k, (label, w) in enumerate(weights.items()):
        w = check_vector(w, f"weights[{label!r}]", length=3)
        color, linestyle = styles[k % len(styles)]
        scores = corners @ w
        if np.all(scores > 0) or np.all(scores <= 0):       # the line misses the picture: say so
            label = f"{label} (outside the picture: all {names[0] if scores[0] > 0 else names[1]})"
        plot_boundary(w, ax=ax, color=color, linestyle=linestyle, shade=False, label=label)
        _side_arrow(ax, w, color, str(names[0]), k / max(1, len(weights)))
    ax.legend(loc="best", fontsize=8, title=f"arrows: the side called {shown}", title_fontsize=8)
    if title is not None:
        ax.set_title(title, fontsize=10)
    return ax


def _side_arrow(ax, w, color, text, where=0.0):
    """A short arrow from the line w0 + w1 x1 + w2 x2 = 0 into its positive side, labelled ``text``.

    It starts on the part of the line inside the picture (a little further along for each
    ``where`` in [0, 1), so that several lines' arrows do not meet) and is perpendicular to
    the line as drawn, whatever the scales of the two axes.
    """
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    seg = boundary_segment(w, (x0, x1), (y0, y1))
    if seg is None:
        return
    t = np.linspace(0, 1, 401)[:, None]
    points = np.column_stack(seg)[0] + t * (np.column_stack(seg)[1] - np.column_stack(seg)[0])
    inside = points[(points[:, 0] > x0) & (points[:, 0] < x1) & (points[:, 1] > y0) & (points[:, 1] < y1)]
    if len(inside) < 3:
        return
    start = inside[int((0.35 + 0.3 * where) * (len(inside) - 1))]
    span = np.array([x1 - x0, y1 - y0])
    normal = w[1:] * span                                   # the normal in the axes' own (fraction) units
    step = 0.09 * normal / np.linalg.norm(normal) * span     # back to data units: 9 % of the picture
    ax.annotate("", xy=start + step, xytext=start, arrowprops=dict(arrowstyle="->", color=color, linewidth=1.4),
                zorder=5)
    ax.text(*(start + 1.5 * step), text, color=color, fontsize=8, ha="center", va="center", zorder=5,
            bbox=dict(boxstyle="round,pad=0.1", facecolor="white", edgecolor="none", alpha=0.8))


__all__ += ["plot_digits", "plot_digit_features", "plot_digit_boundaries"]


# --- Linear and logistic regression -----------------------------------------------------

def _raw_inputs(X, w):
    """Raw inputs of X (dropping a leading x0 = 1 column when w says it is there) and w checked."""
    X = check_matrix(X, "X")
    w = check_vector(w, "w")
    if w.shape[0] == X.shape[1] and np.all(X[:, 0] == 1):
        X = X[:, 1:]
    if w.shape[0] != X.shape[1] + 1:
        raise ValueError(f"w must have one weight per input plus w0; got {w.shape[0]} weights for inputs of shape {X.shape}")
    return X, w


def plot_regression_fit(X, y, w, *, ax=None, residuals=True):
    """Data, the fitted line (1 input) or plane (2 inputs), and the residuals y_n - w^T x_n.

    Parameters
    ----------
    X : array-like of shape (N, d) or (N, d + 1) with x0 = 1 first, d = 1 or 2
    y : array-like of shape (N,)
        Real targets.
    w : array-like of shape (d + 1,)
        The fitted weights.
    ax : matplotlib Axes or None
        For d = 2 it must be a 3-D axes (``projection="3d"``); None makes one.
    residuals : bool, default=True
        Draw each residual as a vertical segment from the point to the fit.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_regression_fit([[0.0], [1.0], [2.0]], [0.1, 0.9, 2.1], [0.0, 1.0])
    >>> len(ax.lines), len(ax.collections)
    (1, 2)
    """
    P, w = _raw_inputs(X, w)
    y = check_vector(y, "y", length=P.shape[0])
    fit = w[0] + P @ w[1:]
    if P.shape[1] == 1:
        from matplotlib.collections import LineCollection

        ax = _axes(ax, figsize=(5.5, 3.8))
        x = P[:, 0]
        if residuals:
            segs = np.stack([np.column_stack([x, y]), np.column_stack([x, fit])], axis=1)
            ax.add_collection(LineCollection(segs, colors="tab:red", linewidths=1, alpha=0.7, label="residual"))
        ax.scatter(x, y, s=18, color="black", zorder=3, label="data $(x_n, y_n)$")
        xs = np.linspace(x.min(), x.max(), 2)
        ax.plot(xs, w[0] + w[1] * xs, color=POSITIVE_COLOR, linewidth=2, label="fit $w^T x$")
        ax.set_xlabel("$x$")
        ax.set_ylabel("$y$")
        ax.legend(fontsize=8)
        return ax
    if P.shape[1] != 2:
        raise ValueError(f"plot_regression_fit draws 1 or 2 inputs; got {P.shape[1]}")
    if ax is None:
        fig = plt.figure(figsize=(6, 4.8))
        ax = fig.add_subplot(projection="3d")
    elif getattr(ax, "name", "") != "3d":
        raise ValueError("ax must be a 3-D axes (projection='3d') for two inputs")
    g1, g2 = np.meshgrid(np.linspace(P[:, 0].min(), P[:, 0].max(), 10),
                         np.linspace(P[:, 1].min(), P[:, 1].max(), 10))
    ax.plot_surface(g1, g2, w[0] + w[1] * g1 + w[2] * g2, color=POSITIVE_COLOR, alpha=0.25, linewidth=0)
    if residuals:
        for (a, b), t, f in zip(P, y, fit, strict=True):
            ax.plot([a, a], [b, b], [t, f], color="tab:red", linewidth=1, alpha=0.7)
    ax.scatter(P[:, 0], P[:, 1], y, s=14, color="black", depthshade=False)
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_zlabel("$y$")
    return ax


def plot_logistic(*, ax=None, limit=6.0):
    """The logistic function theta(s) beside the hard threshold it softens.

    The hard threshold is drawn on the same 0..1 scale, as (1 + sign(s)) / 2.

    Parameters
    ----------
    ax : matplotlib Axes or None
    limit : float, default=6.0
        The signal s runs over [-limit, limit].

    Examples
    --------
    >>> ax = plot_logistic()
    >>> len(ax.lines)
    3
    """
    from .regression import theta

    ax = _axes(ax, figsize=(5.5, 3.5))
    s = np.linspace(-limit, limit, 401)
    ax.plot(s, np.where(s > 0, 1.0, 0.0), color="tab:grey", linestyle="--", linewidth=1.5,
            label="hard threshold $(1 + \\mathrm{sign}(s))/2$")
    ax.plot(s, theta(s), color=POSITIVE_COLOR, linewidth=2.2, label=r"$\theta(s) = e^s / (1 + e^s)$")
    ax.axhline(0.5, color="black", linewidth=0.6, linestyle=":")
    ax.set_xlabel("signal $s = w^T x$")
    ax.set_ylabel("output")
    ax.set_ylim(-0.05, 1.05)
    ax.legend(fontsize=8, loc="upper left")
    return ax


def plot_learning_curves(curves, *, ax=None, log=False, ylabel="$E_{in}$"):
    """E_in against epoch for several runs, e.g. ``{"GD": fit_gd.ein, "SGD": fit_sgd.ein}``.

    Parameters
    ----------
    curves : dict of str to array-like
        Legend text to the errors after each epoch (entry 0: before the first epoch).
    ax : matplotlib Axes or None
    log : bool, default=False
        Logarithmic epoch axis (long runs).
    ylabel : str

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_learning_curves({"GD": [0.69, 0.5, 0.4], "SGD": [0.69, 0.45, 0.41]})
    >>> len(ax.lines)
    2
    """
    if not isinstance(curves, dict) or not curves:
        raise ValueError(f"curves must be a non-empty dict of label -> errors per epoch; got {type(curves).__name__}")
    ax = _axes(ax, figsize=(6, 3.5))
    for label, values in curves.items():
        values = check_vector(values, f"curves[{label!r}]")
        epochs = np.arange(len(values))
        if log:
            epochs = epochs + 1          # epoch 0 would vanish on a log axis: count from 1
        ax.plot(epochs, values, linewidth=1.6, label=label)
    if log:
        ax.set_xscale("log")
    ax.set_xlabel("epoch" + (" + 1" if log else ""))
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    return ax


def plot_probability_map(X, y, w, *, transform=None, ax=None, names=("+1", "-1"), limits=None,
                         xlabel="$x_1$", ylabel="$x_2$"):
    """Logistic regression's probability theta(w^T z) that y = +1, shaded over the plane.

    Parameters
    ----------
    X : array-like of shape (N, 2) (raw inputs) or (N, 3) with x0 = 1 first
    y : array-like of shape (N,), labels +1 / -1
    w : array-like
        Weights for ``transform(x)`` (or for (1, x1, x2) when ``transform`` is None).
    transform : callable or None
        Maps raw points of shape (M, 2) to the features the weights act on, e.g.
        ``course_lib.poly_transform``.
    ax : matplotlib Axes or None
    names : (str, str)
        What +1 and -1 stand for.
    limits : ((xmin, xmax), (ymin, ymax)) or None
        The data's range with a margin when None.
    xlabel, ylabel : str

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_probability_map([[0.2, 0.1], [-0.3, -0.5]], [1, -1], [0.0, 2.0, 1.0])
    >>> ax.get_xlabel()
    '$x_1$'
    """
    from .regression import theta

    P = _points_2d(X)
    y = check_labels(y, "y", n_samples=P.shape[0])
    w = check_vector(w, "w")
    lim = _feature_limits(P, limits)
    ax = _axes(ax, figsize=(5.8, 4.4))
    gx, gy = np.meshgrid(np.linspace(*lim[0], 200), np.linspace(*lim[1], 200))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    Z = np.column_stack([np.ones(len(grid)), grid]) if transform is None else np.asarray(transform(grid), dtype=float)
    if Z.ndim != 2 or Z.shape[1] != w.shape[0]:
        raise ValueError(f"w has {w.shape[0]} weights but the features have shape {Z.shape}")
    prob = theta(Z @ w).reshape(gx.shape)
    filled = ax.contourf(gx, gy, prob, levels=np.linspace(0, 1, 11), cmap="RdBu", alpha=0.55, zorder=0)
    ax.contour(gx, gy, prob, levels=[0.5], colors="black", linewidths=1.5, zorder=1)
    ax.figure.colorbar(filled, ax=ax, label=f"P(y = +1 | x): probability of {names[0]}")
    pos, neg = y > 0, y < 0
    ax.scatter(P[pos, 0], P[pos, 1], marker="o", facecolors="none", edgecolors=POSITIVE_COLOR, linewidths=1,
               s=18, label=names[0], zorder=3)
    ax.scatter(P[neg, 0], P[neg, 1], marker="x", color=NEGATIVE_COLOR, linewidths=1, s=18, label=names[1], zorder=3)
    ax.set_xlim(lim[0])
    ax.set_ylim(lim[1])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(loc="best", fontsize=8)
    return ax


def plot_probability_histogram(prob, y, *, ax=None, names=("+1", "-1"), bins=20):
    """Histograms of the predicted probabilities P(y = +1 | x), one per true class.

    A good probabilistic classifier pushes the +1 examples towards 1 and the -1
    examples towards 0; examples near 1/2 are the ones it is unsure about.

    Parameters
    ----------
    prob : array-like of shape (N,)
        Predicted probabilities in [0, 1].
    y : array-like of shape (N,), labels +1 / -1
    ax : matplotlib Axes or None
    names : (str, str)
    bins : int

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_probability_histogram([0.9, 0.8, 0.2, 0.4], [1, 1, -1, -1])
    >>> len(ax.patches)              # 20 bars per class
    40
    """
    prob = check_vector(prob, "prob")
    if np.any((prob < 0) | (prob > 1)):
        raise ValueError("prob must hold probabilities in [0, 1]")
    y = check_labels(y, "y", n_samples=prob.shape[0])
    ax = _axes(ax, figsize=(6, 3.4))
    edges = np.linspace(0, 1, bins + 1)
    ax.hist(prob[y > 0], bins=edges, color=POSITIVE_COLOR, alpha=0.6, label=f"true {names[0]}")
    ax.hist(prob[y < 0], bins=edges, color=NEGATIVE_COLOR, alpha=0.6, label=f"true {names[1]}")
    ax.axvline(0.5, color="black", linewidth=1, linestyle=":")
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"predicted probability of {names[0]}")
    ax.set_ylabel("number of examples")
    ax.legend(fontsize=8)
    return ax


def plot_decision_curve(w, *, transform=None, ax=None, color="black", linestyle="-", label=None):
    """The curve w^T z(x) = 0 in the plane, for weights on transformed features z = transform(x).

    With ``transform=course_lib.poly_transform`` a quadratic boundary (a circle,
    ellipse, ...) is drawn; with None it is the line w0 + w1 x1 + w2 x2 = 0. Drawn
    within the current limits of ``ax`` (set them first, e.g. with :func:`plot_data`).

    Parameters
    ----------
    w : array-like
        Weights on the transformed features z = transform(x).
    transform : callable or None
        The feature transform, from points of shape (N, 2) to features of shape (N, len(w));
        None for the raw features (1, x1, x2).
    ax : matplotlib Axes or None
    color, linestyle, label : line style

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from course_lib.regression import poly_transform
    >>> ax = plot_data([[0.9, 0.0], [0.0, 0.1]], [1, -1])
    >>> ax = plot_decision_curve([-0.6, 0, 0, 0, 1, 1], transform=poly_transform, ax=ax, label="circle")
    >>> [h.get_label() for h in ax.get_legend_handles_labels()[0]][-1]
    'circle'
    """
    w = check_vector(w, "w")
    ax = _axes(ax)
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    gx, gy = np.meshgrid(np.linspace(x0, x1, 300), np.linspace(y0, y1, 300))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    Z = np.column_stack([np.ones(len(grid)), grid]) if transform is None else np.asarray(transform(grid), dtype=float)
    if Z.ndim != 2 or Z.shape[1] != w.shape[0]:
        raise ValueError(f"w has {w.shape[0]} weights but the features have shape {Z.shape}")
    score = (Z @ w).reshape(gx.shape)
    if score.min() < 0 < score.max():
        ax.contour(gx, gy, score, levels=[0.0], colors=color, linestyles=linestyle, linewidths=1.8, zorder=2)
    if label is not None:                         # a proxy line, so the curve appears in the legend
        ax.plot([], [], color=color, linestyle=linestyle, linewidth=1.8, label=label)
        ax.legend(fontsize=8)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    return ax


__all__ += ["plot_regression_fit", "plot_logistic", "plot_learning_curves", "plot_probability_map",
            "plot_probability_histogram", "plot_decision_curve"]


# --- Margins, SVMs, kernels and nearest neighbours ----------------------------------------

def plot_classifier(decision, X, y, *, ax=None, support=None, margins=False, limits=None, resolution=150,
                    title=None):
    """The regions a classifier gives each label, its boundary, and the training points.

    Parameters
    ----------
    decision : callable
        Maps an array of shape (M, 2) to M scores; the class is the sign of the score
        (sign(0) = -1), the boundary is where it is 0. An SVM's ``decision_function``,
        or a function returning +1/-1 labels such as a k-NN prediction.
    X : array-like of shape (N, 2)
    y : array-like of shape (N,)
        Labels +1 / -1.
    ax : matplotlib Axes or None
    support : array-like of int, optional
        Indices of points to ring (the support vectors).
    margins : bool, default=False
        Also draw the lines where the score is +1 and -1 (an SVM's margin).
    limits : ((x_min, x_max), (y_min, y_max)) or None
        The window; by default the data's range with a border.
    resolution : int, default=150
        Grid points per side.
    title : str or None

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_classifier(lambda Z: Z[:, 0] - 0.5, [[0.0, 0.0], [1.0, 1.0]], [-1, 1], margins=True)
    >>> len(ax.collections) >= 3
    True
    """
    X = _points_2d(X)
    y = check_labels(y, "y", n_samples=X.shape[0])
    ax = _axes(ax)
    if limits is None:
        lo, hi = X.min(axis=0), X.max(axis=0)
        pad = 0.08 * np.maximum(hi - lo, 1e-9)
        limits = ((lo[0] - pad[0], hi[0] + pad[0]), (lo[1] - pad[1], hi[1] + pad[1]))
    gx = np.linspace(*limits[0], resolution)
    gy = np.linspace(*limits[1], resolution)
    G = np.stack(np.meshgrid(gx, gy), axis=-1).reshape(-1, 2)
    scores = np.asarray(decision(G), dtype=float).reshape(resolution, resolution)
    from matplotlib.colors import ListedColormap

    ax.contourf(gx, gy, (scores > 0).astype(float), levels=[-0.5, 0.5, 1.5],
                cmap=ListedColormap([NEGATIVE_COLOR, POSITIVE_COLOR]), alpha=0.13)
    ax.contour(gx, gy, scores, levels=[0.0], colors="black", linewidths=1.5)
    if margins:
        ax.contour(gx, gy, scores, levels=[-1.0, 1.0], colors="black", linewidths=1.0, linestyles="--")
    pos = y > 0
    ax.scatter(X[pos, 0], X[pos, 1], marker="o", facecolors="none", edgecolors=POSITIVE_COLOR, s=36, label="+1")
    ax.scatter(X[~pos, 0], X[~pos, 1], marker="x", color=NEGATIVE_COLOR, s=36, label="-1")
    if support is not None and len(support):
        S = X[np.asarray(support, dtype=int)]
        ax.scatter(S[:, 0], S[:, 1], s=170, facecolors="none", edgecolors="black", linewidths=1.2,
                   label="support vectors")
    ax.set_xlim(*limits[0])
    ax.set_ylim(*limits[1])
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_aspect("equal", adjustable="box")
    if title is not None:
        ax.set_title(title, fontsize=10)
    return ax


__all__ += ["plot_classifier"]


# --- Why can machines learn? Dichotomies, bounds, bias and variance, errors ----------------

def _tile_grid(n_tiles, ncols=None):
    """Columns and rows of a grid of ``n_tiles`` tiles, about twice as wide as tall."""
    ncols = ncols or max(1, int(np.ceil(np.sqrt(2 * n_tiles))))
    return ncols, int(np.ceil(n_tiles / ncols))


from typing import NamedTuple  # noqa: E402  (this section's own import: the sections above do not need it)


class DichotomyTiles(NamedTuple):
    """Where :func:`plot_dichotomies` puts everything (tile units: tile j spans [col, col+1] x [row, row+1])."""

    squares: np.ndarray
    """The tiles' corners, shape (m, 4, 2)."""
    colours: np.ndarray
    """The tiles' face colours (RGBA; grey for labelings not realised), shape (m, 4)."""
    positive: np.ndarray
    """Where the +1 marks go, shape (k, 2)."""
    negative: np.ndarray
    """Where the -1 marks go, shape (m N - k, 2)."""
    strikes: np.ndarray
    """One diagonal stroke per labeling not realised, shape (s, 2, 2)."""
    frame: np.ndarray
    """The frame around the highlighted tile, shape (1, 4, 2) (or (0, 4, 2))."""
    shape: tuple
    """(columns, rows) of the grid."""


def dichotomy_tiles(X, labelings, *, realised=None, ncols=None, highlight=None):
    """The geometry of the tile grid of :func:`plot_dichotomies`, for drawing it (or moving a drawn one).

    Parameters
    ----------
    X, labelings, realised, ncols, highlight : as in :func:`plot_dichotomies`

    Returns
    -------
    DichotomyTiles

    Examples
    --------
    >>> tiles = dichotomy_tiles([[0, 0], [1, 1]], [[-1, -1], [-1, 1], [1, -1], [1, 1]], realised=[1, 1, 0, 1])
    >>> tiles.squares.shape, tiles.strikes.shape, tiles.shape
    ((4, 4, 2), (1, 2, 2), (3, 2))
    """
    P = np.asarray(X, dtype=float)
    if P.ndim == 1:
        P = np.column_stack([P, np.zeros(len(P))])
    P = check_matrix(P, "X")
    if P.shape[1] != 2:
        raise ValueError(f"X must hold points of the plane (N, 2) or of a line (N,); got shape {P.shape}")
    L = np.asarray(labelings)
    if L.ndim != 2 or L.shape[1] != P.shape[0] or not np.all(np.isin(L, (-1, 1))):
        raise ValueError(f"labelings must be an array of +1 / -1 of shape (m, {P.shape[0]}); got shape {L.shape}")
    ok = np.ones(len(L), dtype=bool) if realised is None else np.asarray(realised, dtype=bool)
    if ok.shape != (len(L),):
        raise ValueError(f"realised must hold one flag per labeling ({len(L)}); got shape {ok.shape}")
    ncols, nrows = _tile_grid(len(L), ncols)
    lo, hi = P.min(axis=0), P.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    unit = 0.14 + 0.72 * (P - lo) / span.max() + 0.36 * (1 - span / span.max())   # within a tile, centred
    col, row = np.arange(len(L)) % ncols, np.arange(len(L)) // ncols
    corners = np.stack([col, nrows - 1 - row], axis=1).astype(float)
    box = np.array([[0.04, 0.04], [0.96, 0.04], [0.96, 0.96], [0.04, 0.96]])
    squares = corners[:, None, :] + box[None]
    colours = np.where(ok[:, None], [[1.0, 1.0, 1.0, 1.0]], [[0.85, 0.85, 0.85, 1.0]])
    where = (corners[:, None, :] + unit[None, :, :]).reshape(-1, 2)
    flat = L.reshape(-1)
    strikes = corners[~ok][:, None, :] + np.array([[0.06, 0.94], [0.94, 0.06]])[None]
    frame = (corners[[int(highlight)]][:, None, :] + np.array([[0, 0], [1, 0], [1, 1], [0, 1]])[None]
             if highlight is not None else np.zeros((0, 4, 2)))
    return DichotomyTiles(squares, colours, where[flat > 0], where[flat < 0], strikes.reshape(-1, 2, 2),
                          frame.astype(float), (ncols, nrows))


def plot_dichotomies(X, labelings, *, realised=None, ax=None, ncols=None, highlight=None, title=None):
    """Draw many labelings of the same points as a grid of small tiles, one labeling per tile.

    Each tile shows the points with their labels (+1 a blue circle, -1 a red cross). Tiles
    of labelings that the hypothesis set cannot realise are greyed and struck through.

    Parameters
    ----------
    X : array-like of shape (N, 2), or (N,) for points on a line
    labelings : array-like of shape (m, N)
        The labelings, e.g. ``course_lib.generalization.all_labelings(N)``.
    realised : array-like of bool of shape (m,), optional
        Which labelings the hypothesis set realises (all, if not given).
    ax : matplotlib Axes or None
    ncols : int, optional
        Tiles per row.
    highlight : int, optional
        Index of a tile to frame.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from course_lib.generalization import all_labelings
    >>> ax = plot_dichotomies([[0, 0], [1, 0], [2, 0]], all_labelings(3), realised=[1, 1, 1, 1, 1, 0, 1, 1])
    >>> len(ax.collections)
    4
    """
    from matplotlib.collections import LineCollection, PolyCollection

    tiles = dichotomy_tiles(X, labelings, realised=realised, ncols=ncols, highlight=highlight)
    ax = _axes(ax, figsize=(7, 3.5))
    ax.add_collection(PolyCollection(tiles.squares, facecolors=tiles.colours, edgecolors="#999999", linewidths=0.6))
    ax.scatter(*tiles.positive.T, marker="o", facecolors="none", edgecolors=POSITIVE_COLOR, linewidths=1.2, s=22,
               zorder=3)
    ax.scatter(*tiles.negative.T, marker="x", color=NEGATIVE_COLOR, linewidths=1.2, s=22, zorder=3)
    ax.add_collection(LineCollection(tiles.strikes, colors="#666666", linewidths=1.0, zorder=2))
    if highlight is not None:
        ax.add_collection(PolyCollection(tiles.frame, facecolors="none", edgecolors="black", linewidths=2.2, zorder=4))
    ncols, nrows = tiles.shape
    ax.set_xlim(-0.05, ncols + 0.05)
    ax.set_ylim(-0.05, nrows + 0.05)
    ax.set_aspect("equal")
    ax.axis("off")
    if title is not None:
        ax.set_title(title, fontsize=10)
    return ax


def plot_growth_functions(n_values, curves, *, ax=None, log=True):
    """Growth functions (or their bounds) against N, beside 2^N.

    Parameters
    ----------
    n_values : array-like of int
    curves : dict of str to array-like
        Legend text to m_H(N) (or a bound) for each N.
    ax : matplotlib Axes or None
    log : bool, default=True
        A logarithmic vertical axis: 2^N is then a straight line, a polynomial bends away.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_growth_functions([1, 2, 3], {"positive rays": [2, 3, 4]})
    >>> len(ax.lines)
    2
    """
    n = check_vector(n_values, "n_values")
    if not isinstance(curves, dict) or not curves:
        raise ValueError(f"curves must be a non-empty dict of label -> values; got {type(curves).__name__}")
    ax = _axes(ax, figsize=(6, 3.8))
    ax.plot(n, 2.0**n, color="black", linestyle="--", linewidth=1.2, label="$2^N$ (every labeling)")
    for label, values in curves.items():
        ax.plot(n, np.asarray(values, dtype=float), "o-", ms=3, linewidth=1.4, label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("N (number of inputs)")
    ax.set_ylabel("number of dichotomies")
    ax.legend(fontsize=8)
    return ax


def plot_bounds(n_values, bounds, *, ax=None, gap=None, marker=None, gap_label="measured $|E_{out} - E_{in}|$"):
    """Generalization bounds epsilon(N) against N (logarithmic axes), optionally beside a measured gap.

    Parameters
    ----------
    n_values : array-like
    bounds : dict of str to array-like
        Legend text to the bound at every N (values above 1 are drawn as they are).
    ax : matplotlib Axes or None
    gap : array-like, optional
        A measured |E_out - E_in| at the same N, drawn as black dots.
    marker : float, optional
        An N to mark with a vertical line.
    gap_label : str, optional
        The legend's name for the gap (say which statistic of it is drawn, e.g. a percentile).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_bounds([10, 100], {"VC": [3.0, 1.2]}, gap=[0.2, 0.05])
    >>> len(ax.lines)          # the bound, the gap and the line at 1
    3
    """
    n = check_vector(n_values, "n_values")
    ax = _axes(ax, figsize=(6, 3.8))
    for label, values in bounds.items():
        ax.plot(n, np.asarray(values, dtype=float), linewidth=1.6, label=label)
    if gap is not None:
        ax.plot(n, check_vector(gap, "gap", length=len(n)), "ko", ms=4, label=gap_label)
    if marker is not None:
        ax.axvline(marker, color="grey", linewidth=1)
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N")
    ax.set_ylabel("ε (with probability 1 − δ)")
    ax.legend(fontsize=8)
    return ax


def plot_bias_variance(result, *, ax=None, n_hypotheses=20, x=None):
    """Example 2.8's picture: the target, some g^(D), the average hypothesis g_bar and its band.

    Parameters
    ----------
    result : course_lib.tradeoff.BiasVariance
    ax : matplotlib Axes or None
    n_hypotheses : int, default=20
        How many of the learned hypotheses g^(D) to draw (thin grey lines).
    x : array-like, optional
        Where to draw (201 points of [-1, 1] by default).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from course_lib.tradeoff import bias_variance
    >>> ax = plot_bias_variance(bias_variance("constant", n_datasets=50, rng=0))
    >>> len(ax.lines) >= 20
    True
    """
    x = np.linspace(-1, 1, 201) if x is None else check_vector(x, "x")
    ax = _axes(ax, figsize=(5, 3.6))
    for a, b in result.coefficients[:n_hypotheses]:
        ax.plot(x, a * x + b, color="grey", linewidth=0.6, alpha=0.6)
    g = result.average_hypothesis(x)
    s = result.spread(x)
    ax.fill_between(x, g - s, g + s, color="tab:orange", alpha=0.25, linewidth=0,
                    label=r"$\bar g(x) \pm \sqrt{\mathrm{var}(x)}$")
    ax.plot(x, np.sin(np.pi * x), color="tab:green", linewidth=2, label=r"target $\sin(\pi x)$")
    ax.plot(x, g, color="tab:orange", linewidth=2.2, label=r"$\bar g(x)$")
    ax.set_xlim(-1, 1)
    ax.set_ylim(-3, 3)
    ax.set_xlabel("$x$")
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title(f"{result.model.replace('_', ' ')}, N = {result.n_points}: bias {result.bias:.2f}, "
                 f"var {result.variance:.2f}", fontsize=9)
    return ax


def plot_learning_curve(curve, *, ax=None):
    """Expected E_in and E_out of linear regression against N, beside sigma^2 (1 -+ (d+1)/N).

    Parameters
    ----------
    curve : course_lib.tradeoff.LearningCurve
    ax : matplotlib Axes or None

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from course_lib.tradeoff import linear_learning_curve
    >>> ax = plot_learning_curve(linear_learning_curve([5, 20], d=2, sigma=0.5, n_datasets=50, rng=0))
    >>> len(ax.lines)
    5
    """
    ax = _axes(ax, figsize=(5.5, 3.6))
    n = curve.n
    ax.errorbar(n, curve.e_out, yerr=2 * curve.e_out_se, fmt="s-", ms=3, color="tab:red", label="$E_{out}$ (average)")
    ax.errorbar(n, curve.e_in, yerr=2 * curve.e_in_se, fmt="o-", ms=3, color="tab:blue", label="$E_{in}$ (average)")
    ax.plot(n, curve.e_out_reference(), "--", color="tab:red", linewidth=1, label=r"$\sigma^2(1 + (d+1)/N)$")
    ax.plot(n, curve.e_in_reference(), "--", color="tab:blue", linewidth=1, label=r"$\sigma^2(1 - (d+1)/N)$")
    ax.axhline(curve.sigma**2, color="grey", linewidth=0.8, label=r"$\sigma^2$")
    ax.set_xscale("log")
    ax.set_xlabel("N")
    ax.set_ylabel("squared error")
    ax.legend(fontsize=7)
    return ax


__all__ += ["dichotomy_tiles", "DichotomyTiles", "plot_dichotomies", "plot_growth_functions", "plot_bounds",
            "plot_bias_variance", "plot_learning_curve"]


# --- Nonlinear transforms, overfitting, regularization, validation ---------------------------

def plot_legendre_fits(x, y, target, fits=None, *, ax=None, ylim=(-3.0, 3.0)):
    """Data in one input, the target f and fitted polynomials, all in the normalised Legendre basis.

    Parameters
    ----------
    x, y : array-like of shape (N,)
        The examples.
    target : array-like of shape (Q_f + 1,) or None
        The target's coefficients on :func:`course_lib.legendre_features` (None: not drawn).
    fits : dict of str to array-like, optional
        Legend text to a hypothesis' weights on the same features, e.g. ``{"g_2": w2}``.
    ax : matplotlib Axes or None
    ylim : (float, float) or None
        The vertical range (a wild fit leaves it; None: matplotlib's).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_legendre_fits([-0.5, 0.5], [0.0, 1.0], [0.5, 0.3], {"line": [0.5, 0.5]})
    >>> [line.get_label() for line in ax.lines]
    ['target f', 'line']
    """
    from .overfitting import legendre_features

    x = check_vector(x, "x")
    y = check_vector(y, "y", length=x.shape[0])
    ax = _axes(ax, figsize=(6, 4))
    grid = np.linspace(-1.0, 1.0, 400)
    ax.scatter(x, y, s=24, color="black", zorder=3, label="data")
    if target is not None:
        b = check_vector(target, "target")
        ax.plot(grid, legendre_features(grid, len(b) - 1) @ b, color="tab:green", linewidth=2.2, label="target f")
    for (label, w), color in zip((fits or {}).items(), ["tab:blue", "tab:red", "tab:purple", "tab:orange"],
                                 strict=False):
        w = check_vector(w, f"fits[{label!r}]")
        ax.plot(grid, legendre_features(grid, len(w) - 1) @ w, color=color, linewidth=1.6, label=label)
    ax.set_xlim(-1.05, 1.05)
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.set_xlabel("$x$")
    ax.set_ylabel("$y$")
    ax.legend(fontsize=8, loc="best")
    return ax


def plot_overfit_map(values, n_values, other_values, *, ax=None, limit=0.2, ylabel="noise level $\\sigma^2$",
                     title=None, label="$E_{out}(g_{10}) - E_{out}(g_2)$"):
    """A heat map of the overfit measure E_out(g_10) - E_out(g_2), as in Figure 4.3 of *Learning From Data*.

    Red where the complex model did worse (overfitting), blue where it did better; the
    colours saturate at +- ``limit`` (the book's scale is 0.2), so the map shows where the
    sign changes rather than how large the largest values are. ``label`` names the colour
    bar: say there how the runs were summarised (the mean, as in the book, or the median).

    Parameters
    ----------
    values : array-like of shape (len(other_values), len(n_values))
    n_values : array-like
        The numbers of examples N (horizontal axis).
    other_values : array-like
        The other parameter (vertical axis): sigma^2 or Q_f.
    ax : matplotlib Axes or None
    limit : float, default=0.2
    ylabel, title, label : str

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_overfit_map([[0.1, -0.1], [0.3, 0.0]], [80, 120], [0.5, 1.0])
    >>> len(ax.collections)
    1
    """
    V = check_matrix(values, "values")
    n_values = check_vector(n_values, "n_values", length=V.shape[1])
    other_values = check_vector(other_values, "other_values", length=V.shape[0])
    ax = _axes(ax, figsize=(5, 4))
    mesh = ax.pcolormesh(n_values, other_values, V, cmap="RdBu_r", vmin=-limit, vmax=limit, shading="nearest")
    ax.figure.colorbar(mesh, ax=ax, label=label, extend="both")
    ax.set_xlabel("number of examples $N$")
    ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title, fontsize=10)
    return ax


def plot_error_curves(x, curves, *, ax=None, xlabel="", ylabel="error", log=False, marker=None):
    """Several error curves against one parameter (N, lambda, K, ...), e.g. ``{"$E_{in}$": e_in}``.

    Parameters
    ----------
    x : array-like of shape (M,)
    curves : dict of str to array-like of shape (M,)
        Legend text to values.
    ax : matplotlib Axes or None
    xlabel, ylabel : str
    log : bool, default=False
        Logarithmic horizontal axis (lambda).
    marker : float or None
        Draw a vertical line there (the chosen value).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_error_curves([1, 2, 3], {"a": [3, 2, 1], "b": [1, 2, 3]}, marker=2)
    >>> len(ax.lines)
    3
    """
    x = check_vector(x, "x")
    if not isinstance(curves, dict) or not curves:
        raise ValueError(f"curves must be a non-empty dict of label -> values; got {type(curves).__name__}")
    ax = _axes(ax, figsize=(6, 3.6))
    for label, values in curves.items():
        ax.plot(x, check_vector(values, f"curves[{label!r}]", length=x.shape[0]), "o-", markersize=3, linewidth=1.5,
                label=label)
    if marker is not None:
        ax.axvline(float(marker), color="0.4", linestyle=":", linewidth=1.2)
    if log:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    return ax


__all__ += ["plot_legendre_fits", "plot_overfit_map", "plot_error_curves"]
