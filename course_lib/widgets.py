"""Interactive pictures for the notebooks (ipywidgets).

Each widget keeps its own matplotlib figure (not registered with pyplot, so it is
never shown twice) and shows it as a PNG in an ``ipywidgets.Image``; moving a
control recomputes the numbers, redraws the figure and updates a status line.
Every control is an attribute, so tests and notebooks can drive a widget by
setting ``widget.slider.value`` or calling ``widget.next_button.click()``.
"""
import hashlib
import io

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from . import plotting
from ._validation import check_labels, check_Xy
from .perceptron import error_rate, pla

__all__ = ["PLAStepper", "PerceptronExplorer", "BinExplorer", "OutlierRegression", "HatProjection",
           "WeightDecayExplorer", "DescentExplorer", "PocketExplorer", "MarginExplorer", "SVMExplorer",
           "KNNExplorer", "NaiveBayesExplorer"]


SLIDER_LAYOUT = {"width": "460px"}
SLIDER_STYLE = {"description_width": "90px"}


def _slider(cls, **options):
    """A slider wide enough to hit a value with the mouse; its number can be clicked and typed over."""
    options.setdefault("continuous_update", True)
    return cls(layout=widgets.Layout(**SLIDER_LAYOUT), style=SLIDER_STYLE, **options)


def _png(canvas):
    """The canvas as PNG bytes, compressed lightly: a quarter of the time of the default level."""
    from PIL import Image

    rgba = np.asarray(canvas.buffer_rgba())
    buf = io.BytesIO()
    Image.fromarray(rgba[..., :3]).save(buf, format="png", compress_level=1)
    return buf.getvalue()


class _FigureWidget:
    """Shared machinery: a private figure rendered into an Image widget."""

    def __init__(self, figsize=(4.8, 4.8), dpi=80):
        self.fig = Figure(figsize=figsize, dpi=dpi)
        FigureCanvasAgg(self.fig)  # drawn by Agg directly: no canvas switch on every redraw
        self.ax = self.fig.add_subplot()
        self.ax.set_title("", y=1.0)  # titles sit at the top: not placed by measuring the axes on every draw
        self.fig.subplots_adjust(left=0.15, right=0.96, bottom=0.11, top=0.93)  # room for the x2 label
        self.image = widgets.Image(format="png", layout=widgets.Layout(width=f"{int(figsize[0] * dpi)}px"))
        self.status = widgets.HTML()
        self.n_draws = 0

    def _sliders(self, values, names, *, low, high, step):
        """One wide slider per value, each named and redrawing the figure when it moves."""
        sliders = [_slider(widgets.FloatSlider, value=float(v), min=low, max=high, step=step, description=name)
                   for v, name in zip(values, names, strict=True)]
        for s in sliders:
            s.observe(lambda _: self.draw(), names="value")
        return sliders

    def _clear(self):
        """Take off what the last draw put on the axes, keeping the axes and their ticks.

        Gives the same picture as ``ax.clear()`` for the plots drawn here (tests check it)
        in about two thirds of the time: the tick objects are not built again.
        """
        ax = self.ax
        for artist in [*ax.patches, *ax.lines, *ax.collections, *ax.texts, *ax.images]:
            artist.remove()
        if ax.legend_ is not None:
            ax.legend_.remove()
        ax.relim()
        ax.set_autoscale_on(True)

    _dynamic = None  # artists a _LiveFigure redraws on every move; None: whatever the last draw put on the axes
    _background = _background_key = None

    def _render(self):
        """Draw the figure into the image.

        Most of a matplotlib drawing is spent on the axes (ticks, tick labels, spines),
        which do not change when a slider moves. They are drawn once and kept as a
        picture; a redraw pastes that picture and draws only the data on top of it. The
        axes are drawn again when a range changed.
        """
        canvas = self.fig.canvas
        dynamic = self._dynamic
        if dynamic is None:
            ax = self.ax
            dynamic = [*ax.patches, *ax.lines, *ax.collections, *ax.texts, *ax.images, ax.title,
                       *([ax.legend_] if ax.legend_ is not None else [])]
            dynamic.sort(key=lambda a: a.get_zorder())  # the order Axes.draw uses
            for artist in dynamic:
                artist.set_animated(True)
        key = tuple((tuple(ax.get_xlim()), tuple(ax.get_ylim())) for ax in self.fig.axes)
        if self._background is None or key != self._background_key:
            canvas.draw()  # skips the animated (moving) artists
            self._background = canvas.copy_from_bbox(self.fig.bbox)
            self._background_key = key
        else:
            canvas.restore_region(self._background)
        renderer = canvas.get_renderer()
        for artist in dynamic:
            if artist.get_visible():
                artist.draw(renderer)
        self.image.value = _png(canvas)
        self.n_draws += 1

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, and its figure as a picture for wherever the widget cannot run.

        JupyterLab shows the widget. A page without a kernel (a notebook opened on GitHub or
        converted to a static web page, a saved notebook whose widget state was not kept)
        shows the figure as it was drawn when the widget appeared, its default state,
        instead of "model not found".
        """
        bundle = self.widget._repr_mimebundle_(**kwargs) or {}
        if self.image.value:
            bundle["image/png"] = bytes(self.image.value)
        bundle["text/plain"] = f"{type(self).__name__}: an interactive figure (run the notebook to move it)"
        return bundle


class PLAStepper(_FigureWidget):
    """Step through PLA's corrections one at a time ("seeing is believing").

    Runs PLA once on 2-D data and lets you move through its updates with a slider
    or the back / next buttons. Step t shows the data, the current boundary w_t,
    the next mistake PLA will correct (ringed) and the boundary w_{t+1} after the
    correction; the status line gives w_t and how many examples it misclassifies.

    Parameters
    ----------
    X : array-like of shape (N, 3)
        2-D examples with x0 = 1 in the first column.
    y : array-like of shape (N,)
        Labels +1 / -1 (linearly separable, or give ``max_updates``).
    cycle : {"naive", "random"}, default="naive"
    max_updates : int or None
    rng : None, int or numpy.random.Generator

    Attributes
    ----------
    result : PLAResult
        The run being shown.
    slider : ipywidgets.IntSlider
        The step t, from 0 to T.
    prev_button, next_button : ipywidgets.Button
    status : ipywidgets.HTML
    widget : ipywidgets.VBox
        What the notebook displays.

    Examples
    --------
    >>> import course_lib as cl
    >>> X, y, _ = cl.make_separable(20, 2, margin=0.1, rng=1)
    >>> stepper = PLAStepper(cl.add_bias(X), y)
    >>> stepper.next_button.click()
    >>> stepper.slider.value
    1
    """

    def __init__(self, X, y, *, cycle="naive", max_updates=None, rng=None):
        X, y = check_Xy(X, y)
        if X.shape[1] != 3:
            raise ValueError(f"X must hold 2-D examples with x0 first (3 columns); got {X.shape[1]} columns")
        super().__init__()
        self.X, self.y = X, y
        self.result = pla(X, y, cycle=cycle, max_updates=max_updates, rng=rng)
        T = self.result.n_updates
        self.slider = _slider(widgets.IntSlider, value=0, min=0, max=T, description="step t")
        self.prev_button = widgets.Button(description="◀ back", layout=widgets.Layout(width="90px"))
        self.next_button = widgets.Button(description="next ▶", layout=widgets.Layout(width="90px"))
        self.prev_button.on_click(lambda _: self._move(-1))
        self.next_button.on_click(lambda _: self._move(+1))
        self.slider.observe(lambda _: self.draw(), names="value")
        from matplotlib.lines import Line2D

        key = [Line2D([], [], marker="o", linestyle="", markerfacecolor="none", color=plotting.POSITIVE_COLOR),
               Line2D([], [], marker="x", linestyle="", color=plotting.NEGATIVE_COLOR),
               Line2D([], [], marker="o", linestyle="", markerfacecolor="none", color="black", markersize=11),
               Line2D([], [], color="grey", linestyle="--"), Line2D([], [], color="black")]
        self.fig.legend(key, ["+1", "−1", "next mistake", "$w_t$", "$w_{t+1}$"], loc="lower center", ncol=5,
                        fontsize=7, frameon=False, handlelength=1.5, columnspacing=1.0)
        self.fig.subplots_adjust(bottom=0.16)
        controls = widgets.HBox([self.prev_button, self.slider, self.next_button])
        self.widget = widgets.VBox([controls, self.image, self.status])
        self.draw()

    def _move(self, step):
        self.slider.value = int(np.clip(self.slider.value + step, 0, self.slider.max))

    def draw(self):
        """Redraw the figure and the status line for the current step."""
        t, res = self.slider.value, self.result
        w_t = res.trajectory[t]
        self._clear()
        n_wrong = int(round(error_rate(w_t, self.X, self.y) * len(self.y)))
        if t < res.n_updates:
            n = int(res.corrected[t])
            plotting.plot_pla_step(self.X, self.y, w_t, res.trajectory[t + 1], n, ax=self.ax, t=t, legend=False)
            what = f"next: example {n} (y = {self.y[n]:+.0f}) is misclassified and gets corrected"
        else:
            plotting.plot_data(self.X, self.y, ax=self.ax)
            if np.any(w_t[1:] != 0):
                plotting.plot_boundary(w_t, ax=self.ax, label=f"$w_{{{t}}}$")
            done = "PLA halted: a full cycle found no mistake" if res.halted else "stopped at max_updates"
            self.ax.set_title(f"t = {t}: {done}", fontsize=10)
            what = done
        if self.ax.legend_ is not None:  # the figure's own legend, drawn once below the axes, says it all
            self.ax.legend_.remove()
        self._render()
        w_text = ", ".join(f"{v:+.2f}" for v in w_t)
        self.status.value = (
            f"<b>t = {t}</b> of T = {res.n_updates} &nbsp; w<sub>{t}</sub> = ({w_text}) &nbsp; "
            f"<b>{n_wrong}</b> of {len(self.y)} examples misclassified<br>{what}"
        )


class PerceptronExplorer(_FigureWidget):
    """Choose a perceptron in R^2 by hand: sliders for w0, w1, w2.

    Shows the line w0 + w1 x1 + w2 x2 = 0 with its positive half-plane shaded,
    rings the misclassified examples and reports how many there are.

    Parameters
    ----------
    X : array-like of shape (N, 2), or (N, 3) with x0 = 1 first
    y : array-like of shape (N,)
        Labels +1 / -1.
    w : array-like of shape (3,), default=(0.0, 1.0, 1.0)
        Starting weights.
    limit : float, default=3.0
        Every slider ranges over [-limit, limit].

    Attributes
    ----------
    sliders : list of three ipywidgets.FloatSlider
        w0, w1, w2.
    n_errors : int
        Misclassified examples for the current weights.
    status : ipywidgets.HTML
    widget : ipywidgets.VBox

    Examples
    --------
    >>> explorer = PerceptronExplorer([[0.5, 0.5], [-0.5, -0.5]], [1, -1], w=(0, 1, 1))
    >>> explorer.n_errors
    0
    >>> explorer.sliders[1].value = -1.0
    >>> explorer.sliders[2].value = -1.0
    >>> explorer.n_errors
    2
    """

    def __init__(self, X, y, *, w=(0.0, 1.0, 1.0), limit=3.0):
        P = plotting._points_2d(X)
        y = check_labels(y, "y", n_samples=P.shape[0])
        super().__init__()
        self.X, self.y = np.hstack([np.ones((len(P), 1)), P]), y
        w = np.asarray(w, dtype=float)
        if w.shape != (3,) or np.any(np.abs(w) > limit):
            raise ValueError(f"w must be 3 numbers within [-{limit}, {limit}]; got {w!r}")
        self.sliders = self._sliders(w, [f"w{i}" for i in range(3)], low=-limit, high=limit, step=0.05)
        self.widget = widgets.VBox([widgets.VBox(self.sliders), self.status, self.image])
        self.n_errors = None
        self.draw()

    @property
    def w(self):
        """The current weights (w0, w1, w2)."""
        return np.array([s.value for s in self.sliders])

    def draw(self):
        """Recount the mistakes and redraw for the current slider values."""
        w = self.w
        wrong = np.flatnonzero(np.where(self.X @ w > 0, 1.0, -1.0) != self.y)
        self.n_errors = int(wrong.size)
        self._clear()
        plotting.plot_data(self.X, self.y, ax=self.ax, highlight=wrong if wrong.size else None,
                           limits=(-1.05, 1.05))
        plotting.plot_boundary(w, ax=self.ax, normal=True)
        self.ax.set_title(f"h(x) = sign({w[0]:+.2f} {w[1]:+.2f} x1 {w[2]:+.2f} x2)", fontsize=10)
        self._render()
        w_text = ", ".join(f"{v:+.2f}" for v in w)
        self.status.value = (
            f"w = ({w_text}): <b>{self.n_errors}</b> of {len(self.y)} examples misclassified "
            f"(E<sub>in</sub> = {self.n_errors / len(self.y):.2f})<br>shaded side: h(x) = +1"
        )


class BinExplorer(_FigureWidget):
    """The bin model with sliders: mu, the sample size N and the tolerance eps.

    Draws many samples of N marbles from a bin whose red fraction is mu and shows the
    histogram of their red fractions nu, the band mu +- eps, the fraction of samples
    outside it and Hoeffding's bound 2 exp(-2 eps^2 N). Changing mu or N draws new
    samples; changing eps only recounts.

    Parameters
    ----------
    mu : float, default=0.4
    n : int, default=10
    eps : float, default=0.1
    n_samples : int, default=10_000
        Samples drawn for each (mu, N).
    rng : None, int or numpy.random.Generator

    Attributes
    ----------
    mu_slider, n_slider, eps_slider : ipywidgets sliders
    nu : ndarray
        The current samples' red fractions.
    probability : float
        Fraction of the current samples with |nu - mu| > eps.
    bound : float
        Hoeffding's bound for the current N and eps.

    Examples
    --------
    >>> box = BinExplorer(mu=0.5, n=10, eps=0.2, rng=0)
    >>> box.n_slider.value = 200
    >>> box.probability <= box.bound
    True
    """

    def __init__(self, *, mu=0.4, n=10, eps=0.1, n_samples=10_000, rng=None):
        from . import hoeffding

        self._hoeffding = hoeffding
        hoeffding.sample_nu(mu, n, n_samples=1)  # validates mu and n
        hoeffding.hoeffding_bound(eps, n)          # validates eps
        super().__init__(figsize=(6.4, 3.6))
        self.rng = np.random.default_rng(rng)
        self.n_samples = n_samples
        self.mu_slider = _slider(widgets.FloatSlider, value=mu, min=0.0, max=1.0, step=0.01, description="μ")
        self.n_slider = _slider(widgets.IntSlider, value=n, min=1, max=500, description="N")
        self.eps_slider = _slider(widgets.FloatSlider, value=eps, min=0.01, max=0.5, step=0.01, description="ε")
        self.mu_slider.observe(lambda _: self._resample(), names="value")
        self.n_slider.observe(lambda _: self._resample(), names="value")
        self.eps_slider.observe(lambda _: self.draw(), names="value")
        controls = widgets.VBox([self.mu_slider, self.n_slider, self.eps_slider])
        self.widget = widgets.VBox([controls, self.image, self.status])
        self._resample()

    def _resample(self):
        self.nu = self._hoeffding.sample_nu(self.mu_slider.value, self.n_slider.value,
                                            n_samples=self.n_samples, rng=self.rng)
        self.draw()

    def draw(self):
        """Recount and redraw for the current slider values."""
        mu, n, eps = self.mu_slider.value, self.n_slider.value, self.eps_slider.value
        self.probability = float(np.mean(self._hoeffding.deviates(self.nu, mu, eps)))
        self.bound = self._hoeffding.hoeffding_bound(eps, n)
        self._clear()
        plotting.plot_nu_histogram(self.nu, mu, n, eps, ax=self.ax)
        top = self.ax.get_ylim()[1]                     # a few fixed heights: the axes are rarely drawn again
        self.ax.set_ylim(0, next((h for h in (0.1, 0.2, 0.3, 0.4, 0.6, 0.8, 1.05) if h >= top - 1e-9), top))
        if self.n_draws == 0:  # margins fitted to the labels once; refitting costs as much as drawing
            self.fig.tight_layout()
        self._render()
        fmt = plotting.format_probability
        if self.bound >= 1:
            verdict = "a bound of 1 or more says nothing about a probability"
        elif self.probability <= self.bound:
            verdict = "below the bound, as Hoeffding promises"
        else:
            verdict = "ABOVE the bound"
        n_bad = int(round(self.probability * self.n_samples))
        self.status.value = (
            f"{n_bad:,} of {self.n_samples:,} samples of N = {n} (<b>{fmt(self.probability)}</b>) have "
            f"|ν − μ| > {eps:.2f}; Hoeffding's bound is <b>{fmt(self.bound)}</b> ({verdict})"
        )


# --- Widgets that redraw only what moves ---------------------------------------------------

class _LiveFigure(_FigureWidget):
    """A figure whose fixed parts are drawn once; a redraw only moves the artists that change.

    Subclasses draw the background in ``__init__`` and update their own artists
    (``set_data``, ``set_segments``) in ``draw``, which costs far less than drawing
    the data again on every move.
    """

    def __init__(self, figsize, ncols=1, dpi=80, **subplot_kw):
        self.fig = Figure(figsize=figsize, dpi=dpi)
        FigureCanvasAgg(self.fig)
        self.axes = [self.fig.add_subplot(1, ncols, k + 1, **subplot_kw) for k in range(ncols)]
        self.ax = self.axes[0]
        self.image = widgets.Image(format="png", layout=widgets.Layout(width=f"{int(figsize[0] * dpi)}px"))
        self.status = widgets.HTML()
        self.n_draws = 0

    def _moving(self, *artists):
        """Declare the artists that change from one draw to the next (titles included)."""
        for artist in artists:
            artist.set_animated(True)
        self._dynamic = list(artists)


def _check_points_1d(x, name):
    from ._validation import check_vector

    return check_vector(x, name)


class OutlierRegression(_LiveFigure):
    """Least squares with one point you move: watch a single outlier drag the line.

    The data (x_n, y_n) stay put; one extra point, the outlier, sits where the two
    sliders put it. The widget fits the least-squares line to all points, draws it
    with its residuals, and keeps the line fitted without the outlier (dashed) for
    comparison. The status line gives both lines' weights, E_in, and the outlier's
    leverage H_nn, the diagonal entry of the hat matrix: how strongly its own y pulls
    its own prediction.

    Parameters
    ----------
    x, y : array-like of shape (N,)
        The fixed data, one input.
    outlier : (float, float), default=(0.8, -2.0)
        The outlier's starting position (x, y).
    xlim, ylim : (float, float)
        The picture, and the sliders' ranges.

    Attributes
    ----------
    x_slider, y_slider : ipywidgets.FloatSlider
        The outlier's position.
    w, w_without : ndarray of shape (2,)
        The least-squares weights (w0, w1) with and without the outlier.
    leverage : float
        The outlier's H_nn.
    e_in : float
        Mean squared residual of the line over all points, outlier included.

    Examples
    --------
    >>> import numpy as np
    >>> box = OutlierRegression([-1.0, 0.0, 1.0], [-1.0, 0.0, 1.0], outlier=(0.0, 0.0))
    >>> np.round(box.w, 6).tolist()
    [0.0, 1.0]
    >>> box.y_slider.value = 2.0
    >>> round(float(box.w[0]), 6)  # the outlier at x = 0 lifts the whole line by 2/4
    0.5
    """

    def __init__(self, x, y, *, outlier=(0.8, -2.0), xlim=(-1.2, 1.2), ylim=(-3.0, 3.0)):
        from matplotlib.collections import LineCollection

        from .regression import linear_regression

        x = _check_points_1d(x, "x")
        y = _check_points_1d(y, "y")
        if len(x) != len(y) or len(x) < 2:
            raise ValueError(f"x and y must have the same length, at least 2; got {len(x)} and {len(y)}")
        ox, oy = (float(v) for v in outlier)
        if not (xlim[0] <= ox <= xlim[1] and ylim[0] <= oy <= ylim[1]):
            raise ValueError(f"outlier must lie within xlim {xlim} and ylim {ylim}; got {outlier!r}")
        super().__init__(figsize=(6.0, 4.0))
        self.x, self.y = x, y
        self.w_without = linear_regression(np.column_stack([np.ones(len(x)), x]), y)
        self.x_slider = _slider(widgets.FloatSlider, value=ox, min=xlim[0], max=xlim[1], step=0.05,
                                description="outlier x")
        self.y_slider = _slider(widgets.FloatSlider, value=oy, min=ylim[0], max=ylim[1], step=0.1,
                                description="outlier y")
        ax = self.ax
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        ax.set_xlabel("$x$")
        ax.set_ylabel("$y$")
        xs = np.array(xlim, dtype=float)
        ax.plot(xs, self.w_without[0] + self.w_without[1] * xs, color="tab:grey", linestyle="--", linewidth=1.5,
                label="fit without the outlier")
        self._residuals = LineCollection([], colors="tab:red", linewidths=1, alpha=0.6, label="residual")
        ax.add_collection(self._residuals, autolim=False)
        ax.scatter(x, y, s=18, color="black", zorder=3, label="data")
        (self._line,) = ax.plot(xs, xs * 0, color=plotting.POSITIVE_COLOR, linewidth=2, label="least-squares fit")
        (self._outlier,) = ax.plot([ox], [oy], "o", color="tab:red", markersize=9, zorder=4, label="outlier")
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        self.fig.subplots_adjust(left=0.1, right=0.68, bottom=0.13, top=0.97)
        self._moving(self._residuals, self._line, self._outlier)
        self._xs = xs
        self.x_slider.observe(lambda _: self.draw(), names="value")
        self.y_slider.observe(lambda _: self.draw(), names="value")
        self.widget = widgets.VBox([self.x_slider, self.y_slider, self.image, self.status])
        self.draw()

    def draw(self):
        """Refit with the outlier where the sliders put it, and redraw."""
        from .regression import linear_regression

        ox, oy = self.x_slider.value, self.y_slider.value
        x_all, y_all = np.append(self.x, ox), np.append(self.y, oy)
        X = np.column_stack([np.ones(len(x_all)), x_all])
        self.w = linear_regression(X, y_all)
        fit = X @ self.w
        self.e_in = float(np.mean((fit - y_all) ** 2))
        centred = x_all - x_all.mean()
        self.leverage = float(1 / len(x_all) + centred[-1] ** 2 / np.dot(centred, centred))
        self._line.set_ydata(self.w[0] + self.w[1] * self._xs)
        self._outlier.set_data([ox], [oy])
        self._residuals.set_segments(np.stack([np.column_stack([x_all, y_all]), np.column_stack([x_all, fit])], axis=1))
        self._render()
        self.status.value = (
            f"with the outlier: w = ({self.w[0]:+.2f}, {self.w[1]:+.2f}), E<sub>in</sub> = {self.e_in:.3f}; "
            f"without it: w = ({self.w_without[0]:+.2f}, {self.w_without[1]:+.2f})<br>"
            f"the outlier's leverage H<sub>nn</sub> = <b>{self.leverage:.3f}</b> "
            f"(its prediction moves by {self.leverage:.3f} for every unit its y moves)"
        )


class HatProjection(_LiveFigure):
    """The hat matrix as a projection, for N = 3 examples and the line w0 + w1 x.

    The target vector y = (y1, y2, y3) is a point of R^3 (three sliders). Every
    prediction vector X w lies in the plane spanned by the two columns of X, the
    ones (1, 1, 1) and the inputs (x1, x2, x3). The fit y_hat = H y is the foot of the
    perpendicular from y to that plane, and the residual y - y_hat is that
    perpendicular.

    Parameters
    ----------
    x : array-like of shape (3,), default=(-1.0, 0.2, 1.0)
        The three inputs (not all equal).
    y : array-like of shape (3,), default=(1.2, -1.0, 1.0)
        Starting targets, each within [-2, 2].

    Attributes
    ----------
    sliders : list of three ipywidgets.FloatSlider
        y1, y2, y3.
    turn_slider : ipywidgets.IntSlider
        Turns the picture about the vertical axis (degrees), to see the plane from other sides.
    H : ndarray of shape (3, 3)
    y_hat, residual : ndarray of shape (3,)

    Notes
    -----
    The camera looks at the plane from 25 degrees above it (an orthographic view): the
    plane shows as a flat parallelogram and anything perpendicular to it, the residual
    above all, at 90 % of its length. Looked at along the plane's normal, the residual
    would shrink to a point.

    Examples
    --------
    >>> import numpy as np
    >>> box = HatProjection()
    >>> box.sliders[1].value = 2.0
    >>> bool(np.allclose(box.H @ box.y_hat, box.y_hat)), bool(abs(box.residual.sum()) < 1e-12)
    (True, True)
    """

    def __init__(self, x=(-1.0, 0.2, 1.0), y=(1.2, -1.0, 1.0)):
        from .regression import hat_matrix

        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        if x.shape != (3,) or y.shape != (3,) or not np.all(np.isfinite(x)) or np.ptp(x) == 0:
            raise ValueError(f"x must be 3 finite inputs, not all equal, and y 3 targets; got x={x!r}, y={y!r}")
        if np.any(np.abs(y) > 2):
            raise ValueError(f"y must lie within [-2, 2]; got {y!r}")
        super().__init__(figsize=(5.6, 4.6), projection="3d", proj_type="ortho")
        self.X = np.column_stack([np.ones(3), x])
        self.H = hat_matrix(self.X)
        self.sliders = self._sliders(y, [f"y{i + 1}" for i in range(3)], low=-2.0, high=2.0, step=0.05)
        self.turn_slider = _slider(widgets.IntSlider, value=0, min=-180, max=180, step=5, description="turn (°)")
        ax = self.ax
        # the column space: a patch of the plane s (1, 1, 1) + t x, drawn once
        c0, c1 = self.X[:, 0], self.X[:, 1] - self.X[:, 1].mean()   # orthogonal directions in the plane
        s, t = np.meshgrid(np.linspace(-1.0, 1.0, 2), np.linspace(-1.6, 1.6, 2) / np.linalg.norm(c1))
        P = s[..., None] * c0 + t[..., None] * c1
        ax.plot_surface(P[..., 0], P[..., 1], P[..., 2], color=plotting.POSITIVE_COLOR, alpha=0.15, linewidth=0)
        for col, name in [(self.X[:, 0], "column 1s"), (self.X[:, 1], "column x")]:
            ax.plot([0, col[0]], [0, col[1]], [0, col[2]], color=plotting.POSITIVE_COLOR, linewidth=1.5)
            ax.text(*col, name, fontsize=8, color=plotting.POSITIVE_COLOR)
        (self._y,) = ax.plot([0, 0], [0, 0], [0, 0], color="black", linewidth=2, marker="o", markevery=[1],
                             label="y")
        (self._yhat,) = ax.plot([0, 0], [0, 0], [0, 0], color="tab:orange", linewidth=2, marker="o", markevery=[1],
                                label="ŷ = H y")
        (self._res,) = ax.plot([0, 0], [0, 0], [0, 0], color="tab:red", linestyle="--", linewidth=1.5,
                               label="y − ŷ")
        lim = (-2.0, 2.0)
        ax.set_xlim(*lim)
        ax.set_ylim(*lim)
        ax.set_zlim(*lim)
        ax.set_xlabel("example 1")
        ax.set_ylabel("example 2")
        ax.set_zlabel("example 3")
        ax.set_box_aspect((1, 1, 1))           # equal scales: right angles look right
        # the camera 25 degrees above the plane, looking across it along the inputs' column
        normal = np.cross(c0, c1)
        normal /= np.linalg.norm(normal)
        along = c1 / np.linalg.norm(c1)
        eye = np.cos(np.radians(25)) * along + np.sin(np.radians(25)) * normal
        if eye[2] < 0:                          # from above rather than from below
            eye = -eye
        self._elev = float(np.degrees(np.arcsin(eye[2])))
        self._azim = float(np.degrees(np.arctan2(eye[1], eye[0])))
        ax.view_init(elev=self._elev, azim=self._azim)
        ax.legend(fontsize=8, loc="upper left")
        self.fig.subplots_adjust(left=0.02, right=0.93, bottom=0.07, top=0.99)
        self._moving(self._y, self._yhat, self._res)
        self.turn_slider.observe(lambda _: self._turn(), names="value")
        self.widget = widgets.VBox([*self.sliders, self.turn_slider, self.image, self.status])
        self.draw()

    def _turn(self):
        self.ax.view_init(elev=self._elev, azim=self._azim + self.turn_slider.value)
        self._background = None                 # the axes, seen from elsewhere, are drawn again
        self.draw()

    def view_direction(self):
        """The unit vector from the plot's centre towards the camera."""
        e, a = np.radians(self.ax.elev), np.radians(self.ax.azim)
        return np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])

    @property
    def y(self):
        """The current targets (y1, y2, y3)."""
        return np.array([s.value for s in self.sliders])

    def draw(self):
        """Project the current y and redraw."""
        y = self.y
        self.y_hat = self.H @ y
        self.residual = y - self.y_hat
        self._y.set_data_3d([0, y[0]], [0, y[1]], [0, y[2]])
        self._yhat.set_data_3d([0, self.y_hat[0]], [0, self.y_hat[1]], [0, self.y_hat[2]])
        self._res.set_data_3d([y[0], self.y_hat[0]], [y[1], self.y_hat[1]], [y[2], self.y_hat[2]])
        self._render()
        fmt = lambda v: "(" + ", ".join(f"{a:+.2f}" for a in v) + ")"  # noqa: E731
        orth = np.abs(self.X.T @ self.residual).max()
        self.status.value = (
            f"y = {fmt(y)} &nbsp; ŷ = H y = {fmt(self.y_hat)} &nbsp; y − ŷ = {fmt(self.residual)}<br>"
            f"largest |(column of X) · (y − ŷ)| = {orth:.1e} (the residual is perpendicular to the plane); "
            f"E<sub>in</sub> = ‖y − ŷ‖²/3 = <b>{np.dot(self.residual, self.residual) / 3:.3f}</b>; "
            f"trace H = {np.trace(self.H):.2f}; seen from {self.ax.elev:.0f}° up, turned {self.turn_slider.value:+d}°"
        )


class WeightDecayExplorer(_LiveFigure):
    """Weight decay's lambda against E_in and E_out, with the learned curve on the data.

    Fits ``linear_classifier(Z, y, weight_decay=lam)`` on the polynomial features of
    the training points for every lambda of the slider (a log scale), once, and shows
    for the current lambda the decision curve over the training data (left) and where
    it sits on the E_in and E_out curves (right).

    Parameters
    ----------
    X, y : training points of shape (N, 2) and labels +1 / -1
    X_test, y_test : fresh points from the same target, for E_out
    degree : int, default=6
        The polynomial transform's degree.
    lam : float, default=1e-4
        The starting lambda (moved to the nearest slider value).
    exponents : (float, float, float), default=(-4, 2, 0.25)
        The slider's lambda runs over 10**min ... 10**max in steps of ``step`` in the exponent.

    Attributes
    ----------
    slider : ipywidgets.FloatLogSlider
    lambdas, e_in_curve, e_out_curve : ndarray
        Every lambda of the slider and the 0/1 errors of its fit.
    w : ndarray
        The weights for the current lambda.
    e_in, e_out : float

    Examples
    --------
    >>> import course_lib as cl
    >>> X, y = cl.make_circle_data(30, rng=0)
    >>> Xt, yt = cl.make_circle_data(200, rng=1)
    >>> box = WeightDecayExplorer(X, y, Xt, yt, degree=4)
    >>> box.slider.value = 1.0
    >>> box.e_in == cl.error_rate(box.w, cl.poly_transform(X, degree=4), y)
    True
    """

    def __init__(self, X, y, X_test, y_test, *, degree=6, lam=1e-4, exponents=(-4, 2, 0.25)):
        from matplotlib.collections import LineCollection

        from .perceptron import error_rate as err
        from .regression import linear_classifier, poly_transform

        P = plotting._points_2d(X)
        y = check_labels(y, "y", n_samples=P.shape[0])
        Pt = plotting._points_2d(X_test)
        y_test = check_labels(y_test, "y_test", n_samples=Pt.shape[0])
        lo, hi, step = (float(v) for v in exponents)
        if not (hi > lo and step > 0):
            raise ValueError(f"exponents must be (min, max, step) with max > min and step > 0; got {exponents!r}")
        super().__init__(figsize=(9.6, 4.0), ncols=2)
        self.degree = degree
        self.transform = lambda Q: poly_transform(Q, degree=degree)
        Z, Zt = self.transform(P), self.transform(Pt)
        self.lambdas = 10.0 ** np.arange(lo, hi + step / 2, step)
        self._weights = [linear_classifier(Z, y, weight_decay=lam_) for lam_ in self.lambdas]
        self.e_in_curve = np.array([err(w, Z, y) for w in self._weights])
        self.e_out_curve = np.array([err(w, Zt, y_test) for w in self._weights])
        start = float(self.lambdas[np.argmin(np.abs(np.log10(self.lambdas) - np.log10(lam)))])
        self.slider = _slider(widgets.FloatLogSlider, value=start, base=10, min=lo, max=hi, step=step,
                              description="λ", readout_format=".1e")
        left, right = self.axes
        plotting.plot_data(P, y, ax=left)
        g = np.linspace(-1.05, 1.05, 120)
        self._gx, self._gy = np.meshgrid(g, g)
        self._grid_features = self.transform(np.column_stack([self._gx.ravel(), self._gy.ravel()]))
        self._curve = LineCollection([], colors="black", linewidths=1.8, label=f"degree {degree} fit")
        left.add_collection(self._curve, autolim=False)
        theta_ = np.linspace(0, 2 * np.pi, 200)
        left.plot(np.sqrt(0.6) * np.cos(theta_), np.sqrt(0.6) * np.sin(theta_), color="tab:green", linestyle=":",
                  linewidth=1.5, label="target circle")
        left.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.16), ncol=2)   # below the x1 label
        right.semilogx(self.lambdas, self.e_in_curve, "o-", ms=3, color="tab:blue", label="$E_{in}$")
        right.semilogx(self.lambdas, self.e_out_curve, "s-", ms=3, color="tab:red", label="$E_{out}$")
        self._marker = right.axvline(start, color="black", linewidth=1)
        right.set_xlabel("λ (weight decay)")
        right.set_ylabel("0/1 error")
        right.set_ylim(0, max(0.55, float(self.e_out_curve.max()) + 0.05))
        right.legend(fontsize=8, loc="upper left")
        self.fig.subplots_adjust(left=0.06, right=0.98, bottom=0.28, top=0.92, wspace=0.28)
        self._moving(self._curve, self._marker, left.title, right.title)
        self.slider.observe(lambda _: self.draw(), names="value")
        self.widget = widgets.VBox([self.slider, self.image, self.status])
        self.draw()

    def draw(self):
        """Show the fit for the current lambda."""
        k = int(np.argmin(np.abs(np.log10(self.lambdas) - np.log10(self.slider.value))))
        lam = float(self.lambdas[k])
        self.w = self._weights[k]
        self.e_in, self.e_out = float(self.e_in_curve[k]), float(self.e_out_curve[k])
        score = (self._grid_features @ self.w).reshape(self._gx.shape)
        segments = []
        if score.min() < 0 < score.max():
            import contourpy

            gen = contourpy.contour_generator(self._gx, self._gy, score)
            segments = gen.lines(0.0)
        self._curve.set_segments(segments)
        self._marker.set_xdata([lam, lam])
        self.axes[0].set_title(f"λ = {lam:.1e}: the curve w·Φ(x) = 0", fontsize=10)
        self.axes[1].set_title(f"E_in = {self.e_in:.2f}, E_out = {self.e_out:.2f}", fontsize=10)
        self._render()
        self.status.value = (
            f"λ = <b>{lam:.1e}</b>: E<sub>in</sub> = <b>{self.e_in:.3f}</b>, "
            f"E<sub>out</sub> = <b>{self.e_out:.3f}</b>, "
            f"‖w‖ = {np.linalg.norm(self.w):.3g} ({len(self.w)} weights)"
        )


class DescentExplorer(_LiveFigure):
    """Gradient descent against SGD on the cross-entropy error surface, with a learning-rate slider.

    Logistic regression with two weights and no bias, so the error E_in(w1, w2) is a
    surface over the plane, drawn as contour lines. Both methods start at w = 0 and
    run the same number of epochs: GD takes one step per epoch, SGD one step per
    example (in fixed random orders, drawn once, so only eta changes between moves).

    Parameters
    ----------
    X : array-like of shape (N, 2)
        Inputs (no x0 column: the weights are (w1, w2)).
    y : array-like of shape (N,)
        Labels +1 / -1.
    eta : float, default=0.5
    epochs : int, default=5
    max_epochs : int, default=30
    wlim : float, default=5.0
        The picture shows w1, w2 in [-wlim, wlim], widened when the minimum lies outside.
    rng : None, int or numpy.random.Generator
        The SGD orders.

    Attributes
    ----------
    eta_slider : ipywidgets.FloatLogSlider
    epoch_slider : ipywidgets.IntSlider
    gd, sgd : ndarray
        The weights visited: GD after each epoch, SGD after each single step.
    ein_gd, ein_sgd : float
        E_in where each method is after the chosen number of epochs.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.2], [-0.8, 0.5], [0.3, -1.0], [-0.2, -0.4]])
    >>> box = DescentExplorer(X, [1, -1, 1, -1], rng=0)
    >>> box.gd.shape, box.sgd.shape
    ((6, 2), (21, 2))
    """

    def __init__(self, X, y, *, eta=0.5, epochs=5, max_epochs=30, wlim=5.0, rng=None):
        from .regression import cross_entropy_error

        X, y = check_Xy(X, y)
        if X.shape[1] != 2:
            raise ValueError(f"X must have 2 columns (the weights are (w1, w2), no bias); got {X.shape[1]}")
        if not 1 <= epochs <= max_epochs:
            raise ValueError(f"epochs must be within [1, max_epochs={max_epochs}]; got {epochs!r}")
        super().__init__(figsize=(8.4, 4.2), ncols=2)
        self.X, self.y = X, y
        rng = np.random.default_rng(rng)
        self.orders = np.array([rng.permutation(len(y)) for _ in range(max_epochs)])
        self.eta_slider = _slider(widgets.FloatLogSlider, value=eta, base=10, min=-2, max=2, step=0.1,
                                  description="η", readout_format=".3g")
        self.epoch_slider = _slider(widgets.IntSlider, value=epochs, min=1, max=max_epochs, description="epochs")
        left, right = self.axes
        from .regression import logistic_regression

        best = logistic_regression(X, y, eta=1.0, tol=1e-9, max_epochs=20_000).w
        self.ein_min = cross_entropy_error(best, X, y)
        wlim = max(wlim, 1.25 * float(np.abs(best).max()))          # the minimum is always in the picture
        g = np.linspace(-wlim, wlim, 90)
        W1, W2 = np.meshgrid(g, g)
        W = np.column_stack([W1.ravel(), W2.ravel()])
        E = np.mean(np.logaddexp(0.0, -(W @ X.T) * y), axis=1).reshape(W1.shape)
        left.contour(W1, W2, E, levels=self.ein_min * (1 + np.geomspace(0.01, 4, 12)), colors="tab:grey",
                     linewidths=0.8)
        left.plot(*best, "*", color="black", ms=12, label="minimum of $E_{in}$")
        (self._sgd,) = left.plot([], [], "-", color="tab:orange", linewidth=0.8, alpha=0.8, label="SGD (every step)")
        (self._gd,) = left.plot([], [], "o-", color=plotting.POSITIVE_COLOR, ms=3, linewidth=1.5, label="GD")
        left.set_xlim(-wlim, wlim)
        left.set_ylim(-wlim, wlim)
        left.set_xlabel("$w_1$")
        left.set_ylabel("$w_2$")
        left.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.13), ncol=3)
        (self._gd_curve,) = right.plot([], [], "o-", ms=3, color=plotting.POSITIVE_COLOR, label="GD")
        (self._sgd_curve,) = right.plot([], [], "s-", ms=3, color="tab:orange", label="SGD")
        right.axhline(self.ein_min, color="black", linestyle=":", linewidth=1, label="minimum")
        right.set_xlim(0, max_epochs)
        right.set_yscale("log")
        right.set_ylim(self.ein_min * 0.9, 4 * np.log(2))   # fixed: the axes are drawn once
        right.set_xlabel("epoch")
        right.set_ylabel("$E_{in}$ (cross-entropy)")
        right.legend(fontsize=8, loc="upper right")
        self.fig.subplots_adjust(left=0.08, right=0.98, bottom=0.27, top=0.93, wspace=0.3)
        self._moving(self._sgd, self._gd, self._gd_curve, self._sgd_curve, left.title)
        self.eta_slider.observe(lambda _: self.draw(), names="value")
        self.epoch_slider.observe(lambda _: self.draw(), names="value")
        self.widget = widgets.VBox([self.eta_slider, self.epoch_slider, self.image, self.status])
        self.draw()

    def draw(self):
        """Rerun both methods for the current eta and number of epochs, and redraw."""
        from .regression import cross_entropy_error, gradient_descent_path, sgd_path

        eta, k = float(self.eta_slider.value), int(self.epoch_slider.value)
        n = len(self.y)
        with np.errstate(over="ignore", under="ignore"):
            self.gd = gradient_descent_path(self.X, self.y, eta=eta, n_steps=k)
            self.sgd = sgd_path(self.X, self.y, eta=eta, orders=self.orders[:k])
        ends = self.sgd[::n]
        gd_curve = [cross_entropy_error(w, self.X, self.y) for w in self.gd]
        sgd_curve = [cross_entropy_error(w, self.X, self.y) for w in ends]
        self.ein_gd, self.ein_sgd = gd_curve[-1], sgd_curve[-1]
        self._gd.set_data(self.gd[:, 0], self.gd[:, 1])
        self._sgd.set_data(self.sgd[:, 0], self.sgd[:, 1])
        self._gd_curve.set_data(np.arange(k + 1), gd_curve)
        self._sgd_curve.set_data(np.arange(k + 1), sgd_curve)
        self.axes[0].set_title(f"η = {eta:.3g}, {k} epochs: paths from w = 0", fontsize=10)
        self._render()
        self.status.value = (
            f"after {k} epochs at η = <b>{eta:.3g}</b>: GD made {k} steps, E<sub>in</sub> = <b>{self.ein_gd:.4f}</b>; "
            f"SGD made {k * n} steps, E<sub>in</sub> = <b>{self.ein_sgd:.4f}</b>; "
            f"the minimum is {self.ein_min:.4f}"
        )


class PocketExplorer(_LiveFigure):
    """Digits 1 against 5: PLA's line and pocket's line after t updates, with a slider for t.

    Runs PLA once over a fixed random cycle for ``max_updates`` updates. After t
    updates PLA holds w_t; pocket holds the w_s (s <= t) with the fewest training
    mistakes (the first such, as pocket only swaps for a strictly better line). The
    left picture shows both lines over the training features, the right one E_in of
    both along the run with the current t marked.

    Parameters
    ----------
    X, y : array-like, shapes (N, 2) and (N,)
        Training features (e.g. intensity, symmetry) and labels +1 / -1.
    X_test, y_test : array-like
        Test features and labels, for E_test.
    max_updates : int, default=1000
    names : (str, str), default=("1", "5")
        What +1 and -1 stand for, for the legend.
    axis_labels : (str, str), default=("average intensity", "symmetry")
    rng : None, int or numpy.random.Generator
        The visiting order.

    Attributes
    ----------
    slider : ipywidgets.IntSlider
        The number of updates t.
    trajectory : ndarray of shape (T + 1, 3)
        PLA's weights after every update.
    w_pla, w_pocket : ndarray of shape (3,)
        The two lines after t updates.
    errors : dict
        ``{"PLA": (E_in, E_test), "pocket": (E_in, E_test)}`` after t updates.

    Examples
    --------
    >>> import course_lib as cl
    >>> X, y, _ = cl.make_noisy(60, 2, noise=0.1, rng=0)
    >>> box = PocketExplorer(X, y, X, y, max_updates=50, rng=0)
    >>> box.slider.value = 50
    >>> box.errors["pocket"][0] <= box.errors["PLA"][0]
    True
    """

    def __init__(self, X, y, X_test, y_test, *, max_updates=1000, names=("1", "5"),
                 axis_labels=("average intensity", "symmetry"), rng=None):
        from .perceptron import add_bias

        P = plotting._points_2d(X)
        y = check_labels(y, "y", n_samples=P.shape[0])
        Pt = plotting._points_2d(X_test)
        y_test = check_labels(y_test, "y_test", n_samples=Pt.shape[0])
        super().__init__(figsize=(9.6, 4.0), ncols=2)
        self.names = names
        Xb, Xt = add_bias(P), add_bias(Pt)
        self.order = order = np.random.default_rng(rng).permutation(len(y))
        run = pla(Xb, y, cycle=order, max_updates=max_updates)
        self.trajectory = run.trajectory
        T = len(self.trajectory) - 1
        scores_in = self.trajectory @ Xb.T
        scores_te = self.trajectory @ Xt.T
        self.ein = np.mean(np.where(scores_in > 0, 1.0, -1.0) != y, axis=1)
        self.etest = np.mean(np.where(scores_te > 0, 1.0, -1.0) != y_test, axis=1)
        # pocket after t updates: the first weights with the smallest E_in among w_0 ... w_t
        best = np.zeros(T + 1, dtype=int)
        for t in range(1, T + 1):
            best[t] = t if self.ein[t] < self.ein[best[t - 1]] else best[t - 1]
        self.pocket_index = best
        self.slider = _slider(widgets.IntSlider, value=T, min=0, max=T, description="updates t")
        left, right = self.axes
        plotting.plot_digit_features(P, y, names=names, ax=left)
        left.set_xlabel(axis_labels[0])
        left.set_ylabel(axis_labels[1])
        self._xlim, self._ylim = left.get_xlim(), left.get_ylim()
        (self._pla,) = left.plot([], [], color="black", linewidth=1.8, label="PLA $w_t$")
        (self._pocket,) = left.plot([], [], color="tab:orange", linestyle="--", linewidth=1.8, label="pocket")
        left.set_xlim(*self._xlim)
        left.set_ylim(*self._ylim)
        left.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.14), ncol=4)
        steps = np.arange(T + 1)
        right.plot(steps, self.ein, color="tab:grey", linewidth=0.8, label="PLA $w_t$")
        right.plot(steps, self.ein[best], color="tab:orange", linewidth=1.8, label="pocket")
        self._marker = right.axvline(T, color="black", linewidth=1)
        right.set_xlabel("updates t")
        right.set_ylabel("$E_{in}$")
        right.set_ylim(0, min(1.0, float(self.ein.max()) * 1.1 + 0.01))
        right.legend(fontsize=8, loc="upper right")
        self.fig.subplots_adjust(left=0.08, right=0.98, bottom=0.27, top=0.92, wspace=0.28)
        self._moving(self._pla, self._pocket, self._marker, left.title)
        self.slider.observe(lambda _: self.draw(), names="value")
        self.widget = widgets.VBox([self.slider, self.image, self.status])
        self.draw()

    def draw(self):
        """Show both lines after the current number of updates."""
        t = int(self.slider.value)
        s = int(self.pocket_index[t])
        self.w_pla, self.w_pocket = self.trajectory[t], self.trajectory[s]
        self.errors = {"PLA": (float(self.ein[t]), float(self.etest[t])),
                       "pocket": (float(self.ein[s]), float(self.etest[s]))}
        for line, w in [(self._pla, self.w_pla), (self._pocket, self.w_pocket)]:
            seg = plotting.boundary_segment(w, self._xlim, self._ylim)
            line.set_data(*(seg if seg is not None else ([], [])))
        self._marker.set_xdata([t, t])
        self.axes[0].set_title(f"after t = {t} updates (pocket holds w_{s})", fontsize=10)
        self._render()
        (pi, pt), (ki, kt) = self.errors["PLA"], self.errors["pocket"]
        self.status.value = (
            f"<b>t = {t}</b>: PLA's w<sub>t</sub>: E<sub>in</sub> = <b>{pi:.2%}</b>, E<sub>test</sub> = {pt:.2%}; "
            f"pocket (w<sub>{s}</sub>): E<sub>in</sub> = <b>{ki:.2%}</b>, E<sub>test</sub> = {kt:.2%}"
        )


class MarginExplorer(_LiveFigure):
    """How the gap between the classes drives PLA: a slider for the margin, PLA's corrections against R²/ρ².

    For each margin (the width of the empty band around the target line that
    ``make_separable`` keeps free) the widget draws one separable data set, always
    from the same seed, runs PLA with a random cycle and checks Novikoff's
    inequalities along the run. Left: the data, the target line and PLA's final line.
    Right: the cosine between w_t and w_f along the run and its lower bound
    sqrt(t) rho / R. The status line compares T with the bound R²/ρ².

    Parameters
    ----------
    n : int, default=100
        Examples per data set.
    margin : float, default=0.1
    rng : None or int
        Seed of the data sets and PLA's cycles (a margin always gets the same data set).

    Attributes
    ----------
    slider : ipywidgets.FloatSlider
        The margin.
    result : PLAResult
    check : NovikoffCheck
    X, y, w_f : the current data set and its target

    Examples
    --------
    >>> box = MarginExplorer(n=40, margin=0.2, rng=0)
    >>> box.check.holds and box.result.n_updates <= box.check.bound
    True
    """

    def __init__(self, *, n=100, margin=0.1, rng=None):
        from .data import make_separable

        make_separable(n, 2, margin=margin, rng=0)   # validates n and margin
        super().__init__(figsize=(9.0, 4.0), ncols=2)
        self.n = n
        self.seed = int(np.random.default_rng(rng).integers(2**31))
        self._cache = {}
        self.slider = _slider(widgets.FloatSlider, value=margin, min=0.01, max=0.3, step=0.01, description="margin",
                              readout_format=".2f")
        left, right = self.axes
        left.set_xlim(-1.05, 1.05)
        left.set_ylim(-1.05, 1.05)
        left.set_aspect("equal")
        left.set_xlabel("$x_1$")
        left.set_ylabel("$x_2$")
        self._pos = left.scatter([], [], marker="o", facecolors="none", edgecolors=plotting.POSITIVE_COLOR, s=22,
                                 label="+1")
        self._neg = left.scatter([], [], marker="x", color=plotting.NEGATIVE_COLOR, s=22, label="−1")
        (self._target,) = left.plot([], [], color="tab:green", linestyle="--", linewidth=1.5, label="target $w_f$")
        (self._final,) = left.plot([], [], color="black", linewidth=1.8, label="PLA's $w_T$")
        left.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.18), ncol=4)   # below the x1 label
        (self._cos,) = right.plot([], [], "o-", ms=2, linewidth=1, label="cosine($w_f$, $w_t$)")
        (self._low,) = right.plot([], [], "--", color="tab:orange", label=r"$\sqrt{t}\,\rho/R$")
        right.axhline(1.0, color="grey", linewidth=0.8)
        right.set_ylim(0, 1.05)
        right.set_xlim(0, 1.0)
        right.set_xlabel("$t / T$ (how far into the run)")
        right.legend(fontsize=8, loc="lower right")
        self.fig.subplots_adjust(left=0.07, right=0.98, bottom=0.3, top=0.92, wspace=0.25)
        self._moving(self._pos, self._neg, self._target, self._final, self._cos, self._low, left.title, right.title)
        self.slider.observe(lambda _: self.draw(), names="value")
        self.widget = widgets.VBox([self.slider, self.image, self.status])
        self.draw()

    def _run(self, margin):
        key = round(margin, 4)
        if key not in self._cache:
            from .data import make_separable
            from .perceptron import add_bias
            from .theory import check_novikoff

            rng = np.random.default_rng([self.seed, int(round(margin * 1000))])
            X, y, w_f = make_separable(self.n, 2, margin=margin, rng=rng)
            Xb = add_bias(X)
            result = pla(Xb, y, cycle="random", rng=rng)
            check = check_novikoff(result.trajectory, result.corrected, Xb, y, w_f)
            self._cache[key] = (X, y, w_f, result, check)
        return self._cache[key]

    def draw(self):
        """Draw the data set of the current margin and PLA's run on it."""
        from .theory import margin as rho_of
        from .theory import radius

        self.X, self.y, self.w_f, self.result, self.check = self._run(float(self.slider.value))
        X, y = self.X, self.y
        self._pos.set_offsets(X[y > 0])
        self._neg.set_offsets(X[y < 0])
        lim = (-1.05, 1.05)
        for line, w in [(self._target, self.w_f), (self._final, self.result.w)]:
            seg = plotting.boundary_segment(w, lim, lim)
            line.set_data(*(seg if seg is not None else ([], [])))
        T = self.result.n_updates
        t = np.arange(T + 1)
        self._cos.set_data(t[1:] / max(T, 1), self.check.cosine[1:])
        self._low.set_data(t[1:] / max(T, 1), self.check.cosine_lower[1:])
        Xb = np.column_stack([np.ones(len(y)), X])
        R, rho = radius(Xb), rho_of(self.w_f, Xb, y)
        self.axes[0].set_title(f"margin {self.slider.value:.2f}: PLA halted after T = {T}", fontsize=10)
        self.axes[1].set_title(f"T = {T} against R²/ρ² = {self.check.bound:.0f}", fontsize=10)
        self._render()
        self.status.value = (
            f"margin {self.slider.value:.2f}: R = {R:.3f}, ρ = {rho:.4f}; PLA made <b>T = {T}</b> corrections, "
            f"the bound R²/ρ² is <b>{self.check.bound:.0f}</b> (T is {T / self.check.bound:.1%} of it); "
            f"every inequality held: {bool(self.check.holds)}"
        )


class SVMExplorer(_LiveFigure):
    """An SVM on 2-D data with controls for C, the kernel and its parameters, and the price of slack.

    Every change refits :func:`course_lib.svm.fit_svm` and redraws the regions, the
    boundary (solid), the margin (dashed, where the score is +1 and -1) and the
    support vectors (ringed). The status line counts the support vectors, the
    examples inside the margin and the training errors.

    Parameters
    ----------
    X : array-like of shape (N, 2)
        Raw 2-D examples (no constant column).
    y : array-like of shape (N,)
        Labels +1 / -1.
    kernel : {"linear", "poly", "rbf"}, default="linear"
    C : float or None, default=1.0
        None starts with the hard margin ticked.
    gamma : float, default=1.0
    degree : int, default=2
    penalty : {"l1", "l2"}, default="l1"
        The soft margin's price of slack: ``C sum xi_n`` or ``C/2 sum xi_n^2``.

    Attributes
    ----------
    kernel_dropdown, penalty_dropdown, C_slider, gamma_slider, degree_slider : ipywidgets controls
    hard_checkbox : ipywidgets.Checkbox
        The hard margin (no slack): C = infinity.
    result : SVMResult or None
        The current fit (None when the hard margin has no solution).

    Notes
    -----
    The 1-norm soft margin is solved by libsvm (scikit-learn's ``SVC``, the solver
    `05-2` checks ``fit_svm`` against), which answers in a few milliseconds for a few
    hundred examples; where libsvm would need many steps (a large C with a polynomial or
    linear kernel), and for the hard and the 2-norm soft margin, the whole dual goes to
    Clarabel (``fit_svm(..., solver="clarabel")``, a few tens of milliseconds). Both give
    the same classifier (tested). Fits are remembered by the settings that matter, so
    moving a control the current kernel ignores, or going back to a setting already seen,
    costs only the drawing.

    Examples
    --------
    >>> import course_lib as cl
    >>> X, y = cl.make_spirals(40, rng=0)
    >>> box = SVMExplorer(X, y, kernel="rbf", C=10.0, gamma=5.0)
    >>> box.C_slider.value = 0.01
    >>> len(box.result.support) > 0
    True
    """

    RESOLUTION = 64
    _CACHED = 64

    def __init__(self, X, y, *, kernel="linear", C=1.0, gamma=1.0, degree=2, penalty="l1"):
        from matplotlib.collections import LineCollection

        from ._validation import check_choice, check_matrix
        from .kernels import KERNELS

        X = check_matrix(X, "X")
        if X.shape[1] != 2:
            raise ValueError(f"X must hold raw 2-D examples (2 columns); got {X.shape[1]} columns")
        y = check_labels(y, "y", n_samples=X.shape[0])
        check_choice(penalty, "penalty", ("l1", "l2"))
        super().__init__(figsize=(5.2, 5.2))
        self.X, self.y = X, y
        self._fits = {}
        self.kernel_dropdown = widgets.Dropdown(options=list(KERNELS), value=kernel, description="kernel",
                                                style=SLIDER_STYLE)
        self.penalty_dropdown = widgets.Dropdown(options=[("1-norm slack: C Σ ξ", "l1"), ("2-norm slack: C/2 Σ ξ²", "l2")],
                                                 value=penalty, description="slack", style=SLIDER_STYLE)
        self.hard_checkbox = widgets.Checkbox(value=C is None, description="hard margin (C = ∞)")
        self.C_slider = _slider(widgets.FloatLogSlider, value=1.0 if C is None else C, base=10, min=-2, max=4,
                                step=0.05, description="C", continuous_update=False)
        self.gamma_slider = _slider(widgets.FloatLogSlider, value=gamma, base=10, min=-2, max=2, step=0.05,
                                    description="γ (poly, rbf)", continuous_update=False)
        self.degree_slider = _slider(widgets.IntSlider, value=degree, min=1, max=6, description="degree (poly)")
        # the picture: points drawn once; regions, boundary, margins, rings and title move
        lo, hi = X.min(axis=0), X.max(axis=0)
        pad = 0.08 * np.maximum(hi - lo, 1e-9)
        self.limits = ((lo[0] - pad[0], hi[0] + pad[0]), (lo[1] - pad[1], hi[1] + pad[1]))
        gx, gy = (np.linspace(*lim, self.RESOLUTION) for lim in self.limits)
        self._gx, self._gy = np.meshgrid(gx, gy)
        self._grid = np.column_stack([self._gx.ravel(), self._gy.ravel()])
        from matplotlib.colors import to_rgba

        self._colors = np.array([to_rgba(plotting.NEGATIVE_COLOR, 0.13), to_rgba(plotting.POSITIVE_COLOR, 0.13)])
        ax = self.ax
        self._regions = ax.imshow(np.zeros((2, 2, 4)), extent=(*self.limits[0], *self.limits[1]), origin="lower",
                                  interpolation="bilinear", aspect="auto", zorder=0)
        self._boundary = LineCollection([], colors="black", linewidths=1.5, zorder=2)
        self._margins = LineCollection([], colors="black", linewidths=1.0, linestyles="--", zorder=2)
        ax.add_collection(self._boundary, autolim=False)
        ax.add_collection(self._margins, autolim=False)
        pos = y > 0
        ax.scatter(X[pos, 0], X[pos, 1], marker="o", facecolors="none", edgecolors=plotting.POSITIVE_COLOR, s=36,
                   zorder=3)
        ax.scatter(X[~pos, 0], X[~pos, 1], marker="x", color=plotting.NEGATIVE_COLOR, s=36, zorder=3)
        self._rings = ax.scatter(np.empty(0), np.empty(0), s=170, facecolors="none", edgecolors="black",
                                 linewidths=1.2, zorder=4)
        ax.set_xlim(*self.limits[0])
        ax.set_ylim(*self.limits[1])
        ax.set_xlabel("$x_1$")
        ax.set_ylabel("$x_2$")
        ax.set_aspect("equal", adjustable="box")
        self.fig.subplots_adjust(left=0.13, right=0.97, bottom=0.1, top=0.93)
        self._moving(self._regions, self._boundary, self._margins, self._rings, ax.title)
        for control in (self.kernel_dropdown, self.penalty_dropdown, self.hard_checkbox, self.C_slider,
                        self.gamma_slider, self.degree_slider):
            control.observe(lambda _: self.draw(), names="value")
        controls = widgets.VBox([widgets.HBox([self.kernel_dropdown, self.hard_checkbox]), self.penalty_dropdown,
                                 self.C_slider, self.gamma_slider, self.degree_slider])
        self.widget = widgets.VBox([controls, self.image, self.status])
        self.draw()

    def _fit(self, kernel, C, penalty, gamma, degree):
        """(result or None, scores on the grid, why there is no result) for these settings, remembered."""
        from .svm import NotSeparableError, fit_svm

        key = (kernel, C, penalty if C is not None else None, gamma if kernel != "linear" else None,
               degree if kernel == "poly" else None)
        if key not in self._fits:
            if len(self._fits) >= self._CACHED:
                self._fits.pop(next(iter(self._fits)))
            try:
                try:
                    res = None
                    if C is not None and penalty == "l1":
                        res = _libsvm_fit(self.X, self.y, C=C, kernel=kernel, gamma=gamma, degree=degree)
                    if res is None:
                        res = fit_svm(self.X, self.y, C=C, kernel=kernel, gamma=gamma, degree=degree, coef0=1.0,
                                      penalty=penalty, solver="clarabel")
                except RuntimeError:                              # badly scaled kernels: fit_svm's own route
                    res = fit_svm(self.X, self.y, C=C, kernel=kernel, gamma=gamma, degree=degree, coef0=1.0,
                                  penalty=penalty)
                scores, why = res.decision_function(self._grid).reshape(self._gx.shape), None
            except NotSeparableError:
                res, scores, why = None, None, "not separable"
            except RuntimeError as exc:                       # the solver gave up at this setting
                res, scores, why = None, None, str(exc)
            self._fits[key] = (res, scores, why)
        return self._fits[key]

    def draw(self):
        """Refit for the current controls (or recall the fit) and redraw."""
        import contourpy

        kernel = self.kernel_dropdown.value
        C = None if self.hard_checkbox.value else float(self.C_slider.value)
        penalty = self.penalty_dropdown.value
        gamma, degree = float(self.gamma_slider.value), int(self.degree_slider.value)
        self.result, scores, why = self._fit(kernel, C, penalty, gamma, degree)
        # every setting is named in the title and the status, also the ones this kernel ignores
        # (said so), so that whatever the student moves shows where the model stands now
        used = {"linear": "", "poly": f", γ = {gamma:.3g}, degree {degree}", "rbf": f", γ = {gamma:.3g}"}[kernel]
        unused = {"linear": f"γ = {gamma:.3g}, degree {degree} unused", "poly": "",
                  "rbf": f"degree {degree} unused"}[kernel]
        slack = {"l1": "1-norm slack", "l2": "2-norm slack"}[penalty]
        c_text = (f"hard margin (C = {self.C_slider.value:.3g}, {slack} unused)" if C is None
                  else f"C = {C:.3g}, {slack}")
        settings = f"{kernel} kernel{used}, {c_text}" + (f"; {unused}" if unused else "")
        if self.result is None:
            self._regions.set_data(np.zeros((2, 2, 4)))
            self._boundary.set_segments([])
            self._margins.set_segments([])
            self._rings.set_offsets(np.empty((0, 2)))
            status = ("<b>No hard-margin solution</b>: these data are not separable by this kernel. "
                      "Untick the hard margin." if why == "not separable" else
                      f"<b>No solution shown</b>: {why}. Move C a little.")
        else:
            res = self.result
            self._regions.set_data(self._colors[(scores > 0).astype(int)])
            gen = contourpy.contour_generator(self._gx, self._gy, scores)
            self._boundary.set_segments(gen.lines(0.0))
            self._margins.set_segments([*gen.lines(-1.0), *gen.lines(1.0)])
            self._rings.set_offsets(self.X[res.support])
            f = self.y * res.decision_function(self.X)
            width = f"; margin 1/‖w‖ = {res.margin:.3f}" if kernel == "linear" else ""
            status = (f"{len(res.support)} support vectors of {len(self.y)} examples; "
                      f"{int(np.sum(f < 1 - 1e-6))} inside the margin, {int(np.sum(f <= 0))} misclassified{width}")
        self.ax.set_title(settings, fontsize=9)
        self._render()
        self.status.value = f"{settings}: {status}"


def _libsvm_fit(X, y, *, C, kernel, gamma, degree, max_iter=20_000):
    """The 1-norm soft-margin SVM by libsvm as an :class:`SVMResult`, or None when libsvm needs more than ``max_iter`` steps."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import SVC

    from .svm import SVMResult

    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        try:
            model = SVC(C=C, kernel=kernel, gamma=gamma, degree=degree, coef0=1.0, tol=1e-8,
                        max_iter=max_iter).fit(X, y)
        except ConvergenceWarning:
            return None
    alpha = np.zeros(len(y))
    alpha[model.support_] = np.abs(model.dual_coef_[0])    # libsvm keeps alpha_n y_n; classes_ = (-1, +1)
    support = np.flatnonzero(alpha > 0)
    w = (alpha * y) @ X if kernel == "linear" else None
    return SVMResult(alpha, float(model.intercept_[0]), support, w, C, X, y, kernel, degree, gamma, 1.0)


class KNNExplorer(_FigureWidget):
    """k nearest neighbours on 2-D data: the regions for each k, distance and scaling.

    Parameters
    ----------
    X : array-like of shape (N, 2)
        Training inputs.
    y : array-like of shape (N,)
        Labels +1 / -1.
    X_val, y_val : array-likes, optional
        A validation set; its error is shown for every k (the way to choose k).
    k : int, default=1

    Attributes
    ----------
    k_slider : ipywidgets.IntSlider
        Odd values 1, 3, 5, ...
    metric_dropdown : ipywidgets.Dropdown
        "euclidean" or "mahalanobis".
    standardize_checkbox : ipywidgets.Checkbox
        Standardise the features with the training set's mean and deviation first.
    train_error, val_error : float
        Errors of the current classifier (``val_error`` is NaN without a validation set).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 2)); y = np.where(X[:, 0] > 0, 1.0, -1.0)
    >>> box = KNNExplorer(X, y, k=1)
    >>> box.train_error
    0.0
    >>> box.k_slider.value = 5
    >>> box.n_draws
    2
    """

    def __init__(self, X, y, *, X_val=None, y_val=None, k=1):
        from ._validation import check_matrix

        X = check_matrix(X, "X")
        if X.shape[1] != 2:
            raise ValueError(f"X must hold 2-D examples (2 columns); got {X.shape[1]} columns")
        y = check_labels(y, "y", n_samples=X.shape[0])
        if (X_val is None) != (y_val is None):
            raise ValueError("give both X_val and y_val, or neither")
        if X_val is not None:
            X_val = check_matrix(X_val, "X_val")
            y_val = check_labels(y_val, "y_val", n_samples=X_val.shape[0])
        super().__init__(figsize=(5.2, 5.2))
        self.X, self.y, self.X_val, self.y_val = X, y, X_val, y_val
        self._orders = {}
        top = max(1, min(25, X.shape[0] - (1 - X.shape[0] % 2)))
        self.k_slider = _slider(widgets.IntSlider, value=k, min=1, max=top, step=2, description="k")
        self.metric_dropdown = widgets.Dropdown(options=["euclidean", "mahalanobis"], value="euclidean",
                                                description="distance", style=SLIDER_STYLE)
        self.standardize_checkbox = widgets.Checkbox(value=False, description="standardise features")
        for control in (self.k_slider, self.metric_dropdown, self.standardize_checkbox):
            control.observe(lambda _: self.draw(), names="value")
        controls = widgets.VBox([self.k_slider, widgets.HBox([self.metric_dropdown, self.standardize_checkbox])])
        self.widget = widgets.VBox([controls, self.image, self.status])
        self.draw()

    def _neighbours(self, Z, metric, scale):
        """The order of the training points around each row of Z, for the largest k on the slider.

        Only the metric and the scaling change it; moving k just votes over a prefix.
        """
        from .neighbors import nearest_neighbours

        key = (metric, scale is not None, Z.shape, hashlib.blake2b(Z.tobytes(), digest_size=16).digest())
        if key not in self._orders:
            if len(self._orders) >= 12:
                self._orders.clear()
            X = self.X if scale is None else scale.transform(self.X)
            Z = Z if scale is None else scale.transform(Z)
            self._orders[key] = nearest_neighbours(X, Z, k=self.k_slider.max, metric=metric)
        return self._orders[key]

    def draw(self):
        """Reclassify for the current controls and redraw."""
        from .neighbors import fit_standardizer, majority_vote

        k, metric = int(self.k_slider.value), self.metric_dropdown.value
        scale = fit_standardizer(self.X) if self.standardize_checkbox.value else None

        def predict(Z):
            Z = np.asarray(Z, dtype=float)
            return majority_vote(self.y[self._neighbours(Z, metric, scale)[:, :k]])

        self.train_error = float(np.mean(predict(self.X) != self.y))
        self.val_error = float(np.mean(predict(self.X_val) != self.y_val)) if self.X_val is not None else float("nan")
        self._clear()
        plotting.plot_classifier(predict, self.X, self.y, ax=self.ax, resolution=100)
        self.ax.set_title(f"{k}-NN, {metric} distance" + (", standardised" if scale is not None else ""), fontsize=10)
        if self.n_draws == 0:
            self.fig.tight_layout()
        self._render()
        val = f"; validation error <b>{self.val_error:.3f}</b>" if self.X_val is not None else ""
        self.status.value = f"k = {k}: training error <b>{self.train_error:.3f}</b>{val}"



class NaiveBayesExplorer(_LiveFigure):
    """Gaussian naive Bayes against the Bayes-optimal classifier, as the features become correlated.

    Two classes, each a normal law in the plane with the same covariance
    ``[[1, rho], [rho, 1]]``, their means one unit apart along the first feature. The
    Bayes-optimal boundary (dashed) is the line ``w^T x + b = 0`` with
    ``w = Sigma^-1 (mu_+ - mu_-)``: it tilts as rho grows. Naive Bayes
    (:func:`course_lib.naive_bayes.fit_gaussian_nb`) treats the two features as independent
    within each class: its laws are ellipses with axes along the coordinates (drawn at one
    standard deviation), and its boundary (solid) ignores the tilt. The status line gives
    both classifiers' errors on 20,000 fresh points.

    Parameters
    ----------
    n : int, default=200
        Training points (half in each class).
    rho : float, default=0.0
        The correlation of the two features within each class, in [-0.9, 0.9].
    rng : None or int
        Seed of the data (a value of rho always gets the same data set).

    Attributes
    ----------
    rho_slider, n_slider : ipywidgets sliders
    X, y : ndarray
        The current training set.
    model : NaiveBayesResult
        The naive Bayes fit to it.
    nb_error, bayes_error : float
        Errors on the fresh points.

    Examples
    --------
    >>> box = NaiveBayesExplorer(n=100, rho=0.0, rng=0)
    >>> box.rho_slider.value = 0.8
    >>> box.nb_error > box.bayes_error
    True
    """

    MEANS = np.array([[0.5, 0.0], [-0.5, 0.0]])

    def __init__(self, *, n=200, rho=0.0, rng=None):
        from matplotlib.collections import LineCollection

        from ._validation import check_int, check_real

        n = check_int(n, "n", minimum=4)
        rho = check_real(rho, "rho", low=-0.9, high=0.9)
        super().__init__(figsize=(5.6, 5.0))
        self.seed = int(np.random.default_rng(rng).integers(2**31))
        self.rho_slider = _slider(widgets.FloatSlider, value=rho, min=-0.9, max=0.9, step=0.05,
                                  description="correlation ρ", readout_format=".2f")
        self.n_slider = _slider(widgets.IntSlider, value=n, min=20, max=max(400, n), step=20,
                                description="training N")
        ax = self.ax
        lim = (-3.2, 3.2)
        ax.set_xlim(*lim)
        ax.set_ylim(*lim)
        ax.set_aspect("equal")
        ax.set_xlabel("$x_1$")
        ax.set_ylabel("$x_2$")
        g = np.linspace(*lim, 121)
        self._gx, self._gy = np.meshgrid(g, g)
        self._grid = np.column_stack([self._gx.ravel(), self._gy.ravel()])
        self._pos = ax.scatter([], [], marker="o", facecolors="none", edgecolors=plotting.POSITIVE_COLOR, s=16,
                               label="+1")
        self._neg = ax.scatter([], [], marker="x", color=plotting.NEGATIVE_COLOR, s=16, label="−1")
        self._nb = LineCollection([], colors="black", linewidths=1.8, label="naive Bayes")
        self._ellipses = LineCollection([], colors=[plotting.POSITIVE_COLOR, plotting.NEGATIVE_COLOR],
                                        linewidths=1.0, linestyles=":", label="its laws (1 st. dev.)")
        ax.add_collection(self._nb, autolim=False)
        ax.add_collection(self._ellipses, autolim=False)
        (self._bayes,) = ax.plot([], [], color="tab:green", linestyle="--", linewidth=1.8, label="Bayes-optimal")
        ax.legend(fontsize=7, loc="upper left", ncol=2, framealpha=0.85)
        self.fig.subplots_adjust(left=0.12, right=0.97, bottom=0.1, top=0.93)
        self._moving(self._pos, self._neg, self._nb, self._ellipses, self._bayes, ax.title)
        for s in (self.rho_slider, self.n_slider):
            s.observe(lambda _: self.draw(), names="value")
        self.widget = widgets.VBox([self.rho_slider, self.n_slider, self.image, self.status])
        self.draw()

    def _sample(self, n, rho, rng):
        """n points, half from each class, with correlation rho; and their labels."""
        L = np.linalg.cholesky(np.array([[1.0, rho], [rho, 1.0]]))
        y = np.where(np.arange(n) < n // 2, 1.0, -1.0)
        X = self.MEANS[(y < 0).astype(int)] + rng.standard_normal((n, 2)) @ L.T
        return X, y

    def draw(self):
        """Draw a training set for the current rho and N, fit naive Bayes, compare with the Bayes boundary."""
        import contourpy

        from .naive_bayes import fit_gaussian_nb

        rho, n = float(self.rho_slider.value), int(self.n_slider.value)
        rng = np.random.default_rng([self.seed, int(round((rho + 1) * 100)), n])
        X, y = self._sample(n, rho, rng)
        Xt, yt = self._sample(20_000, rho, np.random.default_rng([self.seed, int(round((rho + 1) * 100)), 0]))
        self.X, self.y = X, y
        self.model = fit_gaussian_nb(X, y)
        Sigma = np.array([[1.0, rho], [rho, 1.0]])
        w = np.linalg.solve(Sigma, self.MEANS[0] - self.MEANS[1])
        b = -w @ self.MEANS.mean(axis=0)            # equal priors and covariances: halfway between the means
        self.nb_error = float(np.mean(self.model.predict(Xt) != yt))
        self.bayes_error = float(np.mean(np.where(Xt @ w + b > 0, 1.0, -1.0) != yt))
        self._pos.set_offsets(X[y > 0])
        self._neg.set_offsets(X[y < 0])
        jll = self.model.joint_log_likelihood(self._grid)
        diff = (jll[:, list(self.model.classes).index(1.0)] - jll[:, list(self.model.classes).index(-1.0)])
        self._nb.set_segments(contourpy.contour_generator(self._gx, self._gy, diff.reshape(self._gx.shape)).lines(0.0))
        seg = plotting.boundary_segment(np.r_[b, w], (-3.2, 3.2), (-3.2, 3.2))
        self._bayes.set_data(*(seg if seg is not None else ([], [])))
        t = np.linspace(0, 2 * np.pi, 80)
        rings = []
        for c in (1.0, -1.0):
            k = list(self.model.classes).index(c)
            mean, sd = self.model.params["mean"][k], np.sqrt(self.model.params["var"][k])
            rings.append(np.column_stack([mean[0] + sd[0] * np.cos(t), mean[1] + sd[1] * np.sin(t)]))
        self._ellipses.set_segments(rings)
        self.ax.set_title(f"ρ = {rho:+.2f}, N = {n}: naive Bayes {self.nb_error:.1%}, best possible "
                          f"{self.bayes_error:.1%}", fontsize=9)
        self._render()
        self.status.value = (
            f"correlation ρ = <b>{rho:+.2f}</b>, {n} training points: naive Bayes errs on "
            f"<b>{self.nb_error:.1%}</b> of 20,000 fresh points, the Bayes-optimal line on "
            f"<b>{self.bayes_error:.1%}</b> (the price of assuming independence: "
            f"{self.nb_error - self.bayes_error:+.1%})"
        )


# --- Why can machines learn? (the 06-* lectures) --------------------------------------------

def _signs(labels):
    return " ".join("+" if v > 0 else "−" for v in labels)


class DichotomyExplorer(_LiveFigure):
    """Which labelings of N points can a line (or a convex set) realise? Place the points and count.

    Right: every one of the 2^N labelings as a small tile, greyed and struck through when
    no hypothesis realises it. Left: the points with the chosen labeling and, when it is
    realised, a line that does it (for convex sets, the hull of the +1 points). The count
    is exact (:func:`course_lib.generalization.dichotomies`).

    Parameters
    ----------
    X : array-like of shape (N, 2), optional
        Starting points (1 <= N <= 6) within [-1, 1]^2; N random points if not given.
    n : int, default=4
        N, when X is not given.
    model : {"perceptron", "convex_set"}, default="perceptron"
    rng : None, int or numpy.random.Generator
        For the random points.

    Attributes
    ----------
    n_slider : ipywidgets.IntSlider
        N, from 1 to 6 (points are added or taken away at the end).
    arrangement : ipywidgets.Dropdown
        Where the "new points" button puts them: "random", "on a line" or "on a circle".
    new_button : ipywidgets.Button
    point_dropdown : ipywidgets.Dropdown
        Which point the two sliders move.
    x_slider, y_slider : ipywidgets.FloatSlider
        Its position (steps of 0.05, so points can be put exactly on a line: the count is made on
        the grid of the sliders, :meth:`grid_points`).
    labeling_slider : ipywidgets.IntSlider
        Which labeling (tile) the left picture shows.
    model_dropdown : ipywidgets.Dropdown
    X : ndarray of shape (N, 2)
        The points.
    count : int
        How many labelings the model realises on them.

    Examples
    --------
    >>> box = DichotomyExplorer([[-0.5, -0.5], [0.5, -0.5], [0.0, 0.5], [0.5, 0.5]])
    >>> box.count
    14
    >>> box.point_dropdown.value = 2
    >>> box.y_slider.value = -0.5          # three points on one line
    >>> box.count
    12
    """

    MAX_POINTS = 6
    LIMITS = (-1.05, 1.05)
    GRID = 0.05
    """The sliders' step: the points are counted on this grid (see :meth:`grid_points`)."""

    def __init__(self, X=None, *, n=4, model="perceptron", rng=None):
        from matplotlib.collections import LineCollection, PolyCollection
        from matplotlib.patches import Polygon

        from ._validation import check_choice, check_int, check_matrix

        check_choice(model, "model", ("perceptron", "convex_set"))
        self.rng = np.random.default_rng(rng)
        if X is None:
            n = check_int(n, "n", minimum=1)
            X = np.round(self.rng.uniform(-0.9, 0.9, size=(n, 2)) / 0.05) * 0.05
        X = check_matrix(X, "X")
        if X.shape[1] != 2 or not 1 <= X.shape[0] <= self.MAX_POINTS or np.any(np.abs(X) > 1):
            raise ValueError(f"X must hold 1 to {self.MAX_POINTS} points of [-1, 1]^2, shape (N, 2); got {X.shape}")
        super().__init__(figsize=(10.4, 4.4), ncols=2)
        self.X = X.copy()
        self._updating = False
        self._counted = None
        n = len(self.X)
        self.n_slider = _slider(widgets.IntSlider, value=n, min=1, max=self.MAX_POINTS, description="N points")
        self.arrangement = widgets.Dropdown(options=["random", "on a line", "on a circle"], value="random",
                                            description="new points", style=SLIDER_STYLE)
        self.new_button = widgets.Button(description="new points", layout=widgets.Layout(width="110px"))
        self.point_dropdown = widgets.Dropdown(options=list(range(n)), value=0, description="move point",
                                               style=SLIDER_STYLE, layout=widgets.Layout(width="170px"))
        self.x_slider = _slider(widgets.FloatSlider, value=float(self.X[0, 0]), min=-1, max=1, step=0.05,
                                description="its x₁")
        self.y_slider = _slider(widgets.FloatSlider, value=float(self.X[0, 1]), min=-1, max=1, step=0.05,
                                description="its x₂")
        self.labeling_slider = _slider(widgets.IntSlider, value=0, min=0, max=2**n - 1, description="labeling")
        self.model_dropdown = widgets.Dropdown(options=[("lines (perceptrons)", "perceptron"),
                                                        ("convex sets", "convex_set")],
                                               value=model, description="hypotheses", style=SLIDER_STYLE)
        left, right = self.axes
        left.set_xlim(*self.LIMITS)
        left.set_ylim(*self.LIMITS)
        left.set_aspect("equal")
        self._shade = Polygon(np.zeros((3, 2)), closed=True, facecolor=plotting.POSITIVE_COLOR, alpha=0.12,
                              edgecolor="none")
        left.add_patch(self._shade)
        (self._line,) = left.plot([], [], color="black", linewidth=1.5)
        self._pos = left.scatter([], [], marker="o", facecolors="none", edgecolors=plotting.POSITIVE_COLOR,
                                 linewidths=1.4, s=36, zorder=3)
        self._neg = left.scatter([], [], marker="x", color=plotting.NEGATIVE_COLOR, linewidths=1.4, s=36, zorder=3)
        self._ring = left.scatter([], [], s=200, facecolors="none", edgecolors="grey", linewidths=1)
        self._name = left.text(0, 0, "", fontsize=8, color="grey")
        right.axis("off")
        right.set_aspect("equal")
        right.set_xlim(0, 2)               # fixed limits: the tiles are scaled into them, so the frame stays as drawn
        right.set_ylim(0, 1)
        self._tiles = PolyCollection([], edgecolors="#999999", linewidths=0.6)
        right.add_collection(self._tiles, autolim=False)
        self._strikes = LineCollection([], colors="#666666", linewidths=1.0, zorder=2)
        right.add_collection(self._strikes, autolim=False)
        self._tpos = right.scatter([], [], marker="o", facecolors="none", edgecolors=plotting.POSITIVE_COLOR,
                                   linewidths=1.2, s=22, zorder=3)
        self._tneg = right.scatter([], [], marker="x", color=plotting.NEGATIVE_COLOR, linewidths=1.2, s=22, zorder=3)
        self._frame = PolyCollection([], facecolors="none", edgecolors="black", linewidths=2.2, zorder=4)
        right.add_collection(self._frame, autolim=False)
        self._moving(self._shade, self._line, self._pos, self._neg, self._ring, self._name, self._tiles,
                     self._strikes, self._tpos, self._tneg, self._frame, left.title, right.title)
        self.n_slider.observe(lambda _: self._resize(), names="value")
        self.new_button.on_click(lambda _: self._new_points())
        self.point_dropdown.observe(lambda _: self._select(), names="value")
        for control in (self.x_slider, self.y_slider):
            control.observe(lambda _: self._move(), names="value")
        for control in (self.labeling_slider, self.model_dropdown):
            control.observe(lambda _: self._redraw(), names="value")
        self.fig.subplots_adjust(left=0.04, right=0.99, bottom=0.08, top=0.9, wspace=0.05)
        controls = widgets.VBox([
            widgets.HBox([self.model_dropdown, self.arrangement, self.new_button]),
            self.n_slider, widgets.HBox([self.point_dropdown]), self.x_slider, self.y_slider, self.labeling_slider])
        self.widget = widgets.VBox([controls, self.image, self.status])
        self.draw()

    def _redraw(self):
        if not self._updating:
            self.draw()

    def _points(self, n):
        kind = self.arrangement.value
        if kind == "on a line":
            t = np.round(self.rng.uniform(-0.9, 0.9, size=n) / 0.1) * 0.1
            return np.column_stack([t, 0.5 * t])               # halving is exact: the points are exactly collinear
        if kind == "on a circle":
            a = np.sort(self.rng.uniform(0, 2 * np.pi, size=n))
            return 0.8 * np.column_stack([np.cos(a), np.sin(a)])
        return np.round(self.rng.uniform(-0.9, 0.9, size=(n, 2)) / 0.05) * 0.05       # on the sliders' grid

    def _sync(self):
        """Point the controls at the current points (one draw afterwards)."""
        n = len(self.X)
        self._updating = True
        try:
            self.point_dropdown.options = list(range(n))
            self.point_dropdown.value = min(self.point_dropdown.value or 0, n - 1)
            self.labeling_slider.max = 2**n - 1
            self.labeling_slider.value = min(self.labeling_slider.value, 2**n - 1)
            k = self.point_dropdown.value
            self.x_slider.value, self.y_slider.value = float(self.X[k, 0]), float(self.X[k, 1])
        finally:
            self._updating = False

    def _resize(self):
        n = int(self.n_slider.value)
        if n > len(self.X):
            self.X = np.vstack([self.X, self._points(n - len(self.X))])
        else:
            self.X = self.X[:n]
        self._sync()
        self.draw()

    def _new_points(self):
        self.X = self._points(len(self.X))
        self._sync()
        self.draw()

    def _select(self):
        if self._updating:
            return
        self._sync()
        self.draw()

    def _move(self):
        if self._updating:
            return
        k = self.point_dropdown.value
        self.X[k] = (self.x_slider.value, self.y_slider.value)
        self.draw()

    def grid_points(self):
        """The points in units of the sliders' step, those on the grid exactly: what the count is made on.

        A slider at 0.35 holds the binary number nearest to 0.35, which is not exactly 7 x 0.05,
        and 0.35 computed as 7 * 0.05 is yet another number; three points that lie on one line of
        the grid would, counted as they are stored, usually miss that line by 1e-17 and count as
        a triangle. Coordinates within 1e-6 of the grid are therefore replaced by whole numbers of
        steps (scaling all points by one factor changes no dichotomy); the others (points on a
        circle) are only scaled.
        """
        Z = self.X / self.GRID
        whole = np.round(Z)
        return np.where(np.abs(Z - whole) < 1e-6, whole, Z)

    def _count(self):
        """Which of all labelings the model realises on the current points (recounted only when they change)."""
        from .generalization import all_labelings, dichotomies

        key = (self.model_dropdown.value, self.X.tobytes())
        if self._counted is None or self._counted[0] != key:
            n = len(self.X)
            labelings = all_labelings(n)
            weights = 1 << np.arange(n - 1, -1, -1)
            realised = np.isin(labelings @ weights, dichotomies(self.grid_points(), model=key[0]) @ weights)
            self._counted = (key, labelings, realised)
        return self._counted[1], self._counted[2]

    def draw(self):
        """Count the dichotomies of the current points and redraw both panels."""
        from .generalization import _hull, growth_function, separating_weights

        model = self.model_dropdown.value
        n = len(self.X)
        labelings, realised = self._count()
        self.count = int(realised.sum())
        j = int(self.labeling_slider.value)
        y = labelings[j]
        left, right = self.axes
        self._pos.set_offsets(self.X[y > 0] if np.any(y > 0) else np.zeros((0, 2)))
        self._neg.set_offsets(self.X[y < 0] if np.any(y < 0) else np.zeros((0, 2)))
        k = self.point_dropdown.value
        self._ring.set_offsets(self.X[[k]])
        self._name.set_position((self.X[k, 0] + 0.05, self.X[k, 1] + 0.05))
        self._name.set_text(f"point {k}")
        shade, line, line_style = np.zeros((3, 2)), ([], []), ("black", 1.5)
        if realised[j] and model == "perceptron":
            w = separating_weights(self.X, y)
            if w is not None:
                part = plotting._positive_part(w, self.LIMITS, self.LIMITS)
                shade = part if len(part) >= 3 else shade
                seg = plotting.boundary_segment(w, self.LIMITS, self.LIMITS)
                line = seg if seg is not None else line
            what = "a line realises it"
        elif realised[j]:
            inside = self.X[y > 0]
            if len(inside):
                hull = np.array(_hull([tuple(p) for p in inside]), dtype=float)
                if len(hull) >= 3:
                    shade = hull
                else:
                    line, line_style = (hull[:, 0], hull[:, 1]), (plotting.POSITIVE_COLOR, 4)
            what = "the convex hull of the +1 points leaves every −1 point out"
        else:
            what = "no line realises it" if model == "perceptron" else "a −1 point lies in the hull of the +1 points"
        self._shade.set_xy(shade)
        self._line.set_data(*line)
        self._line.set_color(line_style[0])
        self._line.set_linewidth(line_style[1])
        left.set_title(f"labeling {j}: ({_signs(y)}): {what}", fontsize=9)
        tiles = plotting.dichotomy_tiles(self.X, labelings, realised=realised, highlight=j)
        ncols, nrows = tiles.shape
        scale = min(1.96 / ncols, 0.96 / nrows)                       # tile units into the panel's [0, 2] x [0, 1]
        shift = np.array([(2 - scale * ncols) / 2, (1 - scale * nrows) / 2])

        def place(points):
            return np.asarray(points).reshape(-1, 2) * scale + shift if len(points) else np.zeros((0, 2))
        self._tiles.set_verts(place(tiles.squares).reshape(-1, 4, 2))
        self._tiles.set_facecolors(tiles.colours)
        self._strikes.set_segments(place(tiles.strikes).reshape(-1, 2, 2))
        self._tpos.set_offsets(place(tiles.positive))
        self._tneg.set_offsets(place(tiles.negative))
        self._frame.set_verts(place(tiles.frame).reshape(-1, 4, 2))
        name = "lines" if model == "perceptron" else "convex sets"
        right.set_title(f"{name} realise {self.count} of the {2**n} labelings of these {n} points", fontsize=10)
        self._render()
        m_h = growth_function("perceptron_2d" if model == "perceptron" else "convex_set", n)
        self.status.value = (
            f"N = {n}: {name} realise <b>{self.count}</b> of 2<sup>{n}</sup> = {2**n} labelings; "
            f"the growth function is m<sub>H</sub>({n}) = {m_h}"
            f"{' (reached by these points)' if self.count == m_h else ' (these points reach fewer)'}.<br>"
            f"labeling {j} ({_signs(y)}): {what}; point {k} is at ({self.X[k, 0]:+.2f}, {self.X[k, 1]:+.2f})."
        )


class BoundingTableExplorer(_LiveFigure):
    """B(N, k) filled in by the recursion, one cell per step, with the proof's split of that cell.

    Left: the table of B(N, k); the current cell is yellow and the two cells it is the sum of,
    B(N-1, k) and B(N-1, k-1), blue. Right: B(N, k) dichotomies on N points with no k of them
    shattered (:func:`course_lib.generalization.largest_family`), one per row (blue +1, red -1),
    sorted as the proof sorts them: S_1 (their first N - 1 labels appear once), then the
    pairs S_2^+ and S_2^- (they appear twice, with x_N = +1 and -1).

    Parameters
    ----------
    n_max : int, default=6
    k_max : int, default=5

    Attributes
    ----------
    slider : ipywidgets.IntSlider
        The step: how many cells are filled (row by row, N = 1..n_max, k = 1..k_max).
    prev_button, next_button : ipywidgets.Button
    cell : (int, int)
        The current cell (N, k).
    value : int
        B(N, k) of the current cell.

    Examples
    --------
    >>> box = BoundingTableExplorer(n_max=4, k_max=3)
    >>> box.slider.value = box.slider.max
    >>> box.cell, box.value
    ((4, 3), 11)
    """

    def __init__(self, *, n_max=6, k_max=5):
        from matplotlib.collections import LineCollection, PolyCollection
        from matplotlib.colors import ListedColormap

        from ._validation import check_int
        from .generalization import bounding_function_table

        n_max = check_int(n_max, "n_max", minimum=2)
        k_max = check_int(k_max, "k_max", minimum=2)
        if n_max > 7 or k_max > 6:
            raise ValueError(f"n_max must be at most 7 and k_max at most 6 (the picture lists the dichotomies); "
                             f"got {n_max}, {k_max}")
        super().__init__(figsize=(10.4, 4.6), ncols=2)
        self.n_max, self.k_max = n_max, k_max
        self.table = bounding_function_table(n_max, k_max)
        self.cells = [(N, k) for N in range(1, n_max + 1) for k in range(1, k_max + 1)]
        self.slider = _slider(widgets.IntSlider, value=k_max + 2, min=1, max=len(self.cells), description="step")
        self.prev_button = widgets.Button(description="◀ back", layout=widgets.Layout(width="90px"))
        self.next_button = widgets.Button(description="next ▶", layout=widgets.Layout(width="90px"))
        self.prev_button.on_click(lambda _: self._step(-1))
        self.next_button.on_click(lambda _: self._step(+1))
        self.slider.observe(lambda _: self.draw(), names="value")
        left, right = self.axes
        # the whole table, numbers included, is drawn once; the cells not filled yet are covered on every move
        for (n, j) in self.cells:
            x, y0 = j - 1, self.n_max - n
            left.add_patch(_cell_square((x, y0), facecolor="white", edgecolor="#999999"))
            left.text(x + 0.5, y0 + 0.5, f"{self.table[n, j]}", ha="center", va="center", fontsize=10)
        for j in range(1, self.k_max + 1):
            left.text(j - 0.5, self.n_max + 0.25, f"k={j}", ha="center", va="center", fontsize=8)
        for n in range(1, self.n_max + 1):
            left.text(-0.35, self.n_max - n + 0.5, f"N={n}", ha="center", va="center", fontsize=8)
        left.set_xlim(-0.75, self.k_max + 0.05)
        left.set_ylim(-0.05, self.n_max + 0.55)
        left.set_aspect("equal")
        left.axis("off")
        self._cover = PolyCollection([], edgecolors="#999999", linewidths=0.8)
        left.add_collection(self._cover, autolim=False)
        # the right panel keeps fixed limits (so its frame is never drawn again): the dichotomies are placed in
        # [0, 1] x [0, 1], rows downwards, a column per point
        right.set_xlim(0, 1)
        right.set_ylim(1, 0)
        right.axis("off")
        self._image = right.imshow(np.zeros((1, 1)), cmap=ListedColormap([plotting.NEGATIVE_COLOR,
                                                                          plotting.POSITIVE_COLOR]),
                                   vmin=-1, vmax=1, aspect="auto", interpolation="nearest", extent=(0, 1, 1, 0))
        self._grid = LineCollection([], colors="white", linewidths=0.6)
        self._groups = LineCollection([], colors="black", linewidths=1.5)
        right.add_collection(self._grid, autolim=False)
        right.add_collection(self._groups, autolim=False)
        self._names = [right.text(0, 0, name, va="center", fontsize=9) for name in ("$S_1$", "$S_2^+$", "$S_2^-$")]
        self._columns = [right.text(0, 0, f"$x_{i}$", ha="center", va="top", fontsize=9) for i in range(1, n_max + 1)]
        self._moving(self._cover, self._image, self._grid, self._groups, *self._names, *self._columns, left.title,
                     right.title)
        self.fig.subplots_adjust(left=0.06, right=0.98, bottom=0.06, top=0.88, wspace=0.25)
        self.widget = widgets.VBox([widgets.HBox([self.prev_button, self.slider, self.next_button]), self.image,
                                    self.status])
        self.draw()

    def _step(self, by):
        self.slider.value = int(np.clip(self.slider.value + by, 1, self.slider.max))

    def draw(self):
        """Fill the table up to the current step and show the current cell's proof."""
        from .generalization import largest_family, recursion_split

        step = int(self.slider.value)
        N, k = self.cell = self.cells[step - 1]
        self.value = int(self.table[N, k])
        left, right = self.axes
        parents = {(N - 1, k), (N - 1, k - 1)} if N >= 2 and k >= 2 else set()
        squares, colours = [], []
        for index, (n, j) in enumerate(self.cells):
            colour = ((1.0, 0.85, 0.1, 0.45) if (n, j) == self.cell else (0.3, 0.55, 1.0, 0.3) if (n, j) in parents
                      else (1.0, 1.0, 1.0, 1.0) if index >= step else None)
            if colour is not None:
                x, y0 = j - 1, self.n_max - n
                squares.append([(x, y0), (x + 1, y0), (x + 1, y0 + 1), (x, y0 + 1)])
                colours.append(colour)
        self._cover.set_verts(squares)
        self._cover.set_facecolors(colours)
        if parents:
            how = f"B({N},{k}) = B({N - 1},{k}) + B({N - 1},{k - 1}) = {self.table[N - 1, k]} + {self.table[N - 1, k - 1]}"
        elif k == 1:
            how = f"B({N},1) = 1: no single point shattered, every point has one label"
        else:
            how = f"B(1,{k}) = 2: one point, both labels"
        left.set_title(how, fontsize=9)
        family = largest_family(N, k)
        split = recursion_split(family)
        order = np.concatenate([split["S1"], split["S2+"], split["S2-"]])
        rows = len(order)
        width, height = 0.8 / self.n_max, min(0.92 / rows, 0.08)       # one cell of the picture
        self._image.set_data(family[order])
        self._image.set_extent((0, N * width, rows * height, 0))
        alpha, beta = len(split["S1"]), len(split["S2+"])
        grid = [[(0, r * height), (N * width, r * height)] for r in range(1, rows)]
        grid += [[(c * width, 0), (c * width, rows * height)] for c in range(1, N)]
        self._grid.set_segments(grid)
        self._groups.set_segments([[(0, e * height), (N * width, e * height)] for e in (alpha, alpha + beta)
                                   if 0 < e < rows])
        for text, start, size in zip(self._names, (0, alpha, alpha + beta), (alpha, beta, beta), strict=True):
            text.set_position((N * width + 0.02, (start + size / 2) * height))
            text.set_visible(size > 0)
        for c, text in enumerate(self._columns):
            text.set_position(((c + 0.5) * width, rows * height + 0.015))
            text.set_visible(c < N)
        right.set_title(f"{rows} dichotom{'y' if rows == 1 else 'ies'} (blue +1, red −1), no {k} point"
                        f"{'s' if k > 1 else ''} shattered: α = {alpha}, β = {beta}", fontsize=9)
        self._render()
        if parents:
            proof = (f"α + β = {alpha + beta} ≤ B({N - 1},{k}) = {self.table[N - 1, k]} (the first {N - 1} labels "
                     f"of S<sub>1</sub> and S<sub>2</sub><sup>+</sup> all differ); β = {beta} ≤ B({N - 1},{k - 1}) = "
                     f"{self.table[N - 1, k - 1]} (S<sub>2</sub><sup>+</sup> shatters no {k - 1} of the first "
                     f"{N - 1} points); adding them, α + 2β = {alpha + 2 * beta} ≤ B({N - 1},{k}) + B({N - 1},{k - 1}) = "
                     f"{self.table[N - 1, k] + self.table[N - 1, k - 1]}, for this set and for every set with no {k} "
                     f"points shattered")
        else:
            proof = "a base case of the recursion"
        self.status.value = (f"step {step} of {len(self.cells)}: <b>B({N}, {k}) = {self.value}</b> "
                             f"= Σ<sub>i&lt;{k}</sub> C({N}, i)<br>{proof}")


def _cell_square(xy, **style):
    """A unit square patch (the table's cells)."""
    from matplotlib.patches import Rectangle

    return Rectangle(xy, 1, 1, linewidth=0.8, **style)


class VCBoundExplorer(_LiveFigure):
    """The four generalization bounds against N, for a VC dimension and a confidence you choose.

    Draws epsilon(N) of :func:`course_lib.generalization.generalization_bounds` (the VC
    bound, the Rademacher penalty bound, Parrondo and Van den Broeck's, Devroye's; every
    growth function bounded by N^d_vc) on logarithmic axes, with a line at the chosen N.
    The status line gives the four values at N, the N the VC bound asks for epsilon = 0.1,
    and the rule of thumb N = 10 d_vc.

    Parameters
    ----------
    d_vc : int, default=3
    delta : float, default=0.1
    n : int, default=1000

    Attributes
    ----------
    d_slider : ipywidgets.IntSlider
    delta_slider, n_slider : ipywidgets.FloatLogSlider
    bounds : dict
        The four bounds at the current N.

    Examples
    --------
    >>> box = VCBoundExplorer(d_vc=3, delta=0.1, n=10_000)
    >>> round(box.bounds["vc"], 3)
    0.163
    """

    N_GRID = np.unique(np.round(np.logspace(0.5, 7, 140))).astype(int)

    def __init__(self, *, d_vc=3, delta=0.1, n=1000):
        from .generalization import generalization_bounds

        generalization_bounds(n, d_vc=d_vc, delta=delta)        # validates the three
        super().__init__(figsize=(6.4, 4.0))
        self.d_slider = _slider(widgets.IntSlider, value=d_vc, min=1, max=30, description="d_vc")
        self.delta_slider = _slider(widgets.FloatLogSlider, value=delta, base=10, min=-4, max=np.log10(0.5),
                                    step=0.1, description="δ", readout_format=".2g")
        self.n_slider = _slider(widgets.FloatLogSlider, value=n, base=10, min=0.5, max=7, step=0.05, description="N",
                                readout_format=",.0f")
        ax = self.ax
        self._lines = {name: ax.plot([], [], linewidth=1.6, label=label)[0] for name, label in
                       [("vc", "VC"), ("rademacher", "Rademacher"), ("parrondo_van_den_broek", "Parrondo–Van den Broeck"),
                        ("devroye", "Devroye")]}
        self._marker = ax.axvline(n, color="grey", linewidth=1)
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(self.N_GRID[0], self.N_GRID[-1])
        ax.set_ylim(1e-3, 1e2)
        ax.set_xlabel("N")
        ax.set_ylabel("ε (|E_in − E_out| ≤ ε with probability 1 − δ)")
        ax.legend(fontsize=8, loc="lower left")
        self.fig.subplots_adjust(left=0.13, right=0.97, bottom=0.13, top=0.92)
        self._moving(*self._lines.values(), self._marker, ax.title)
        for control in (self.d_slider, self.delta_slider, self.n_slider):
            control.observe(lambda _: self.draw(), names="value")
        self.widget = widgets.VBox([self.d_slider, self.delta_slider, self.n_slider, self.image, self.status])
        self.draw()

    def draw(self):
        """Recompute the curves for d_vc and delta, and the values at N."""
        from .generalization import generalization_bounds, vc_sample_size

        d, delta, n = int(self.d_slider.value), float(self.delta_slider.value), int(round(self.n_slider.value))
        curves = generalization_bounds(self.N_GRID, d_vc=d, delta=delta)
        for name, line in self._lines.items():
            line.set_data(self.N_GRID, curves[name])
        self._marker.set_xdata([n, n])
        self.bounds = generalization_bounds(n, d_vc=d, delta=delta)
        best = min(self.bounds, key=self.bounds.get)
        self.ax.set_title(f"d_vc = {d}, δ = {delta:.2g}: at N = {n:,} the smallest is {best.split('_')[0]}", fontsize=9)
        self._render()
        shown = ", ".join(f"{name.split('_')[0]} <b>{value:.3g}</b>" for name, value in self.bounds.items())
        self.status.value = (
            f"N = {n:,}, d_vc = {d}, δ = {delta:.2g}: ε = {shown}<br>"
            f"the VC bound asks for N ≥ <b>{vc_sample_size(d_vc=d, epsilon=0.1, delta=delta):,}</b> for ε = 0.1 "
            f"(about 10,000 d_vc); the rule of thumb of practice is N ≥ 10 d_vc = {10 * d}")


class BiasVarianceExplorer(_LiveFigure):
    """Example 2.8 with a slider for N: the average hypothesis, its band, and the learning curves.

    Left: the target sin(pi x), twenty of the hypotheses g^(D) learned from data sets of N
    points, their average g_bar and the band g_bar +- sqrt(var(x)). Right: the expected E_out
    (and E_in) of the constant and the line against N, computed once, with the current N marked.
    Every move re-estimates bias and variance from ``n_datasets`` fresh data sets.

    Parameters
    ----------
    model : {"constant", "line", "line_through_origin"}, default="line"
    n : int, default=2
    n_datasets : int, default=4000
    rng : None, int or numpy.random.Generator

    Attributes
    ----------
    model_dropdown : ipywidgets.Dropdown
    n_slider : ipywidgets.IntSlider
    new_button : ipywidgets.Button
        Draws new data sets.
    result : BiasVariance

    Examples
    --------
    >>> box = BiasVarianceExplorer(model="constant", n_datasets=2000, rng=0)
    >>> abs(box.result.bias - 0.5) < 0.05
    True
    """

    N_MAX = 20

    def __init__(self, *, model="line", n=2, n_datasets=4000, rng=None):
        from matplotlib.collections import LineCollection
        from matplotlib.patches import Polygon
        from matplotlib.ticker import MaxNLocator

        from .tradeoff import BIAS_VARIANCE_MODELS, bias_variance

        bias_variance(model, n_datasets=2, n_points=n, rng=0)        # validates model and n
        super().__init__(figsize=(10.0, 4.0), ncols=2)
        self.rng = np.random.default_rng(rng)
        self.n_datasets = n_datasets
        ns = np.arange(2, self.N_MAX + 1)
        self.curves = {m: [bias_variance(m, n_datasets=3000, n_points=int(k), rng=self.rng) for k in ns]
                       for m in ("constant", "line")}
        self.model_dropdown = widgets.Dropdown(options=list(BIAS_VARIANCE_MODELS), value=model, description="model",
                                               style=SLIDER_STYLE)
        self.n_slider = _slider(widgets.IntSlider, value=n, min=2, max=self.N_MAX, description="N")
        self.new_button = widgets.Button(description="new data sets", layout=widgets.Layout(width="120px"))
        left, right = self.axes
        self._x = np.linspace(-1, 1, 101)
        self._hyps = LineCollection([], colors="grey", linewidths=0.6, alpha=0.6)
        left.add_collection(self._hyps, autolim=False)
        self._band = Polygon(np.zeros((3, 2)), closed=True, facecolor="tab:orange", alpha=0.25, linewidth=0,
                             label=r"$\bar g \pm \sqrt{\mathrm{var}(x)}$")
        left.add_patch(self._band)
        left.plot(self._x, np.sin(np.pi * self._x), color="tab:green", linewidth=2, label=r"$\sin(\pi x)$")
        (self._gbar,) = left.plot([], [], color="tab:orange", linewidth=2.2, label=r"$\bar g$")
        left.set_xlim(-1, 1)
        left.set_ylim(-3, 3)
        left.set_xlabel("$x$")
        left.legend(fontsize=7, loc="upper left")
        colours = {"constant": "tab:blue", "line": "tab:red"}
        for m, results in self.curves.items():
            right.plot(ns, [r.e_out for r in results], "o-", ms=3, color=colours[m], label=f"{m}: $E_{{out}}$")
            right.plot(ns, [r.e_in for r in results], "--", color=colours[m], label=f"{m}: $E_{{in}}$")
        self._marker = right.axvline(n, color="black", linewidth=1)
        right.set_ylim(0, 2)
        right.xaxis.set_major_locator(MaxNLocator(integer=True))          # N is a whole number of points
        right.set_xlabel("N (points per data set)")
        right.set_ylabel("expected squared error")
        right.legend(fontsize=7, loc="upper right")
        self.fig.subplots_adjust(left=0.06, right=0.98, bottom=0.13, top=0.9, wspace=0.22)
        self._moving(self._hyps, self._band, self._gbar, self._marker, left.title, right.title)
        self.model_dropdown.observe(lambda _: self.draw(), names="value")
        self.n_slider.observe(lambda _: self.draw(), names="value")
        self.new_button.on_click(lambda _: self.draw())
        self.widget = widgets.VBox([widgets.HBox([self.model_dropdown, self.new_button]), self.n_slider, self.image,
                                    self.status])
        self.draw()

    def draw(self):
        """Learn from fresh data sets of the current N and redraw."""
        from .tradeoff import bias_variance

        model, n = self.model_dropdown.value, int(self.n_slider.value)
        r = self.result = bias_variance(model, n_datasets=self.n_datasets, n_points=n, rng=self.rng)
        x = self._x
        self._hyps.set_segments([np.column_stack([x, a * x + b]) for a, b in r.coefficients[:20]])
        g, s = r.average_hypothesis(x), r.spread(x)
        self._band.set_xy(np.concatenate([np.column_stack([x, g + s]), np.column_stack([x[::-1], (g - s)[::-1]])]))
        self._gbar.set_data(x, g)
        self._marker.set_xdata([n, n])
        self.axes[0].set_title(f"{model.replace('_', ' ')}, N = {n}: ḡ(x) = {r.g_bar[0]:.2f} x + {r.g_bar[1]:.2f}",
                               fontsize=9)
        self.axes[1].set_title(f"bias {r.bias:.3f} + var {r.variance:.3f} = E_out {r.e_out:.3f}", fontsize=9)
        self._render()
        self.status.value = (
            f"{model.replace('_', ' ')} learned from N = {n} points, over {self.n_datasets:,} data sets: "
            f"bias <b>{r.bias:.3f}</b>, variance <b>{r.variance:.3f}</b>, "
            f"E<sub>out</sub> = <b>{r.e_out:.3f}</b> ± {2 * r.e_out_se:.3f}, E<sub>in</sub> = {r.e_in:.3f}")


class CostExplorer(_LiveFigure):
    """The weighted pocket algorithm with a slider for what a false accept costs against a false reject.

    The slider sets the ratio r of the two costs, from 0.1 (the supermarket: a false reject,
    y = +1 classified -1, costs 10 and a false accept 1) to 1000 (the CIA: a false accept,
    y = -1 classified +1, costs 1000 and a false reject 1); the smaller cost is 1 and the
    larger is rounded to a whole number of virtual copies. For each ratio the weighted pocket
    (:func:`course_lib.error_measures.weighted_pocket`) runs once; the picture shows its line
    and rings its mistakes, its accepted (+1) side shaded, with the plain pocket's line dashed.

    Parameters
    ----------
    X : array-like of shape (N, 2)
    y : array-like of shape (N,)
        Labels +1 / -1.
    max_updates : int, default=300
    rng : None, int or numpy.random.Generator

    Attributes
    ----------
    slider : ipywidgets.FloatLogSlider
        The ratio (false accept cost) / (false reject cost).
    cost : ndarray of shape (2, 2)
        The current cost matrix (rows y = +1, -1; columns h = +1, -1).
    false_accepts, false_rejects : int
        Of the current weighted pocket on the data.

    Examples
    --------
    >>> import course_lib as cl
    >>> X, y, _ = cl.make_noisy(60, 2, noise=0.1, rng=0)
    >>> box = CostExplorer(X, y, max_updates=100, rng=1)
    >>> box.slider.value = 1000
    >>> box.cost.tolist(), box.false_accepts
    ([[0.0, 1.0], [1000.0, 0.0]], 0)
    """

    def __init__(self, X, y, *, max_updates=300, rng=None):
        from matplotlib.collections import LineCollection

        from ._validation import check_int
        from .error_measures import weighted_pocket
        from .perceptron import add_bias, pocket

        P = plotting._points_2d(X)
        y = check_labels(y, "y", n_samples=P.shape[0])
        self.max_updates = check_int(max_updates, "max_updates", minimum=1)
        super().__init__(figsize=(5.6, 5.2))
        self.X, self.Xb, self.y = P, add_bias(P), y
        seed = int(np.random.default_rng(rng).integers(2**31))
        self.exponents = np.arange(-1.0, 3.01, 0.25)
        self.runs = {}
        for k, e in enumerate(self.exponents):
            fr, fa = self._costs(e)
            self.runs[k] = weighted_pocket(self.Xb, y, weights=np.where(y > 0, fr, fa), max_updates=max_updates,
                                           rng=[seed, k]).w
        self.plain = pocket(self.Xb, y, max_updates=max_updates, rng=seed).w
        self.slider = _slider(widgets.FloatLogSlider, value=1.0, base=10, min=-1, max=3, step=0.25,
                              description="FA / FR cost", readout_format=".3g")
        ax = self.ax
        plotting.plot_data(P, y, ax=ax)
        seg = plotting.boundary_segment(self.plain, (-1.05, 1.05), (-1.05, 1.05))
        if seg is not None:
            ax.plot(*seg, color="grey", linestyle="--", linewidth=1.2, label="plain pocket")
        from matplotlib.patches import Polygon

        self._accepted = Polygon(np.zeros((3, 2)), closed=True, facecolor=plotting.POSITIVE_COLOR, alpha=0.1,
                                 edgecolor="none", label="accepted (+1)")
        ax.add_patch(self._accepted)
        self._line = LineCollection([], colors="black", linewidths=2, label="weighted pocket")
        ax.add_collection(self._line, autolim=False)
        self._wrong = ax.scatter([], [], s=170, facecolors="none", edgecolors="black", linewidths=1.2,
                                 label="its mistakes")
        ax.set_xlim(-1.05, 1.05)
        ax.set_ylim(-1.05, 1.05)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.1), ncol=3)
        self.fig.subplots_adjust(left=0.12, right=0.97, bottom=0.2, top=0.93)
        self._moving(self._accepted, self._line, self._wrong, ax.title)
        self.slider.observe(lambda _: self.draw(), names="value")
        self.widget = widgets.VBox([self.slider, self.image, self.status])
        self.draw()

    @staticmethod
    def _costs(exponent):
        """(false reject, false accept) costs for the ratio 10**exponent: the smaller is 1, the larger whole."""
        ratio = 10.0**exponent
        return (1, int(round(ratio))) if ratio >= 1 else (int(round(1 / ratio)), 1)

    def draw(self):
        """Show the weighted pocket of the current costs."""
        from .error_measures import weighted_error

        k = int(np.argmin(np.abs(self.exponents - np.log10(self.slider.value))))
        fr, fa = self._costs(self.exponents[k])
        self.cost = np.array([[0.0, fr], [fa, 0.0]])
        w = self.runs[k]
        seg = plotting.boundary_segment(w, (-1.05, 1.05), (-1.05, 1.05))
        self._line.set_segments([] if seg is None else [np.column_stack(seg)])
        part = plotting._positive_part(w, (-1.05, 1.05), (-1.05, 1.05))
        self._accepted.set_xy(part if len(part) >= 3 else np.zeros((3, 2)))
        h = np.where(self.Xb @ w > 0, 1, -1)
        wrong = h != self.y
        self._wrong.set_offsets(self.X[wrong] if wrong.any() else np.zeros((0, 2)))
        self.false_accepts = int(np.sum(wrong & (self.y < 0)))
        self.false_rejects = int(np.sum(wrong & (self.y > 0)))
        h_plain = np.where(self.Xb @ self.plain > 0, 1, -1)
        self.ax.set_title(f"false accept {fa}, false reject {fr}: {self.false_accepts} false accepts, "
                          f"{self.false_rejects} false rejects", fontsize=9)
        self._render()
        self.status.value = (
            f"a false accept costs {fa}, a false reject {fr}: the weighted pocket makes <b>{self.false_accepts}</b> "
            f"false accepts and <b>{self.false_rejects}</b> false rejects, weighted E<sub>in</sub> = "
            f"<b>{weighted_error(h, self.y, cost=self.cost):.3f}</b>; "
            f"the plain pocket's is {weighted_error(h_plain, self.y, cost=self.cost):.3f}")


__all__ += ["DichotomyExplorer", "BoundingTableExplorer", "VCBoundExplorer", "BiasVarianceExplorer", "CostExplorer"]


# --- How can machines learn better? Transforms, overfitting, regularization, validation -------

def _zero_curve(gx, gy, score):
    """Segments of the curve score = 0 on a grid (none when the score never changes sign)."""
    if not score.min() < 0 < score.max():
        return []
    import contourpy

    return contourpy.contour_generator(gx, gy, score).lines(0.0)


class TransformExplorer(_LiveFigure):
    """The polynomial transform of order Q on 2-D data: a slider for Q, the curve it learns, E_in and E_out.

    For every Q from 1 to ``max_degree`` the widget fits ``linear_classifier`` on
    ``poly_transform(X, degree=Q)`` once (the minimum-norm fit when there are more features
    than examples) and shows, for the Q you choose, the learned curve over the training
    data (left) and where Q sits on the E_in and E_out curves (right, E_out on the test
    points). The status line gives the number of weights, 1 + d~ = binomial(Q + 2, 2): the
    VC dimension of the transformed perceptron is at most that.

    Parameters
    ----------
    X, y : training points of shape (N, 2) and labels +1 / -1
    X_test, y_test : fresh points from the same target, for E_out
    degree : int, default=2
        The starting Q.
    max_degree : int, default=8

    Attributes
    ----------
    slider : ipywidgets.IntSlider
    degrees, n_weights, e_in_curve, e_out_curve : ndarray
        Every Q, its number of weights and the 0/1 errors of its fit.
    w : ndarray
        The weights for the current Q.
    e_in, e_out : float

    Examples
    --------
    >>> import course_lib as cl
    >>> X, y = cl.make_circle_data(40, rng=0)
    >>> Xt, yt = cl.make_circle_data(300, rng=1)
    >>> box = TransformExplorer(X, y, Xt, yt, max_degree=6)
    >>> box.slider.value = 6
    >>> len(box.w), box.e_in == cl.error_rate(box.w, cl.poly_transform(X, degree=6), y)
    (28, True)
    """

    def __init__(self, X, y, X_test, y_test, *, degree=2, max_degree=8):
        from matplotlib.collections import LineCollection

        from ._validation import check_int
        from .regression import linear_classifier, poly_transform

        P = plotting._points_2d(X)
        y = check_labels(y, "y", n_samples=P.shape[0])
        Pt = plotting._points_2d(X_test)
        y_test = check_labels(y_test, "y_test", n_samples=Pt.shape[0])
        max_degree = check_int(max_degree, "max_degree", minimum=1)
        if max_degree > 12:
            raise ValueError(f"max_degree must be at most 12 (binomial(14, 2) = 91 weights); got {max_degree}")
        degree = check_int(degree, "degree", minimum=1)
        if degree > max_degree:
            raise ValueError(f"degree must be between 1 and max_degree = {max_degree}; got {degree}")
        super().__init__(figsize=(9.6, 4.0), ncols=2)
        g = np.linspace(-1.05, 1.05, 120)
        self._gx, self._gy = np.meshgrid(g, g)
        grid = np.column_stack([self._gx.ravel(), self._gy.ravel()])
        self.degrees = np.arange(1, max_degree + 1)
        self._weights, self._curves = [], []
        e_in, e_out, n_weights = [], [], []
        for q in self.degrees:
            Z = poly_transform(P, degree=int(q))
            w = linear_classifier(Z, y)
            self._weights.append(w)
            e_in.append(error_rate(w, Z, y))
            e_out.append(error_rate(w, poly_transform(Pt, degree=int(q)), y_test))
            n_weights.append(len(w))
            self._curves.append(_zero_curve(self._gx, self._gy, (poly_transform(grid, degree=int(q)) @ w)
                                            .reshape(self._gx.shape)))
        self.e_in_curve, self.e_out_curve, self.n_weights = np.array(e_in), np.array(e_out), np.array(n_weights)
        self.n_examples = len(y)
        self.slider = _slider(widgets.IntSlider, value=degree, min=1, max=max_degree, description="order Q")
        left, right = self.axes
        plotting.plot_data(P, y, ax=left)
        self._curve = LineCollection([], colors="black", linewidths=1.8, label="learned curve")
        left.add_collection(self._curve, autolim=False)
        left.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.19), ncol=3)
        right.plot(self.degrees, self.e_in_curve, "o-", ms=3, color="tab:blue", label="$E_{in}$")
        right.plot(self.degrees, self.e_out_curve, "s-", ms=3, color="tab:red", label="$E_{out}$ (test points)")
        self._marker = right.axvline(degree, color="black", linewidth=1)
        right.set_xlabel("order Q of the polynomial transform")
        right.set_ylabel("0/1 error")
        right.set_ylim(0, max(0.55, float(self.e_out_curve.max()) + 0.05))
        right.legend(fontsize=8, loc="upper right")
        self.fig.subplots_adjust(left=0.06, right=0.98, bottom=0.3, top=0.92, wspace=0.28)
        self._moving(self._curve, self._marker, left.title, right.title)
        self.slider.observe(lambda _: self.draw(), names="value")
        self.widget = widgets.VBox([self.slider, self.image, self.status])
        self.draw()

    def draw(self):
        """Show the fit of the current order Q."""
        k = int(self.slider.value) - 1
        q, n_w = int(self.degrees[k]), int(self.n_weights[k])
        self.w = self._weights[k]
        self.e_in, self.e_out = float(self.e_in_curve[k]), float(self.e_out_curve[k])
        self._curve.set_segments(self._curves[k])
        self._marker.set_xdata([q, q])
        self.axes[0].set_title(f"Q = {q}: {n_w} weights for {self.n_examples} examples", fontsize=10)
        self.axes[1].set_title(f"E_in = {self.e_in:.2f}, E_out = {self.e_out:.2f}", fontsize=10)
        self._render()
        self.status.value = (
            f"Q = <b>{q}</b>: 1 + d̃ = <b>{n_w}</b> weights (the VC dimension of the transformed perceptron is at "
            f"most {n_w}); E<sub>in</sub> = <b>{self.e_in:.3f}</b>, E<sub>out</sub> = <b>{self.e_out:.3f}</b>"
        )


class OverfittingExplorer(_LiveFigure):
    """The overfitting experiment on one data set: sliders for N, the noise sigma^2 and the target's degree Q_f.

    A random Legendre target of degree Q_f (:func:`course_lib.legendre_target`), N noisy
    examples of it, and the least-squares fits of degree 2 and 10 (g_2 and g_10), with
    their E_in and exact E_out. Moving a slider keeps the same random numbers (the first N
    inputs and noise values, the first Q_f + 1 coefficients), so you watch one data set
    change; the button draws new ones.

    Parameters
    ----------
    n : int, default=15
    noise_variance : float, default=0.25
    target_degree : int, default=10
    max_n : int, default=100
    rng : None, int or numpy.random.Generator

    Attributes
    ----------
    n_slider, noise_slider, degree_slider : ipywidgets sliders
    new_button : ipywidgets.Button
    x, y, target : the current data and target coefficients
    w : dict
        ``{2: w_2, 10: w_10}``, the fits' weights on the normalised Legendre features.
    e_in, e_out : dict
        Their errors.

    Examples
    --------
    >>> box = OverfittingExplorer(n=40, noise_variance=0.0, target_degree=2, rng=0)
    >>> bool(box.e_out[2] < 1e-12 and box.e_out[10] < 1e-12)      # both learn a quadratic exactly
    True
    >>> box.noise_slider.value = 1.0
    >>> bool(box.e_in[10] <= box.e_in[2])
    True
    """

    DEGREES = (2, 10)

    def __init__(self, *, n=15, noise_variance=0.25, target_degree=10, max_n=100, rng=None):
        from ._validation import check_int, check_real

        max_n = check_int(max_n, "max_n", minimum=5)
        n = check_int(n, "n", minimum=3)
        if n > max_n:
            raise ValueError(f"n must be at most max_n = {max_n}; got {n}")
        noise_variance = check_real(noise_variance, "noise_variance", low=0.0, high=2.0)
        target_degree = check_int(target_degree, "target_degree", minimum=0)
        if target_degree > 50:
            raise ValueError(f"target_degree must be at most 50; got {target_degree}")
        super().__init__(figsize=(6.4, 4.2))
        self.rng = np.random.default_rng(rng)
        self.max_n = max_n
        self.n_slider = _slider(widgets.IntSlider, value=n, min=3, max=max_n, description="N")
        self.noise_slider = _slider(widgets.FloatSlider, value=noise_variance, min=0.0, max=2.0, step=0.05,
                                    description="σ² (noise)")
        self.degree_slider = _slider(widgets.IntSlider, value=target_degree, min=0, max=50, description="Q_f (target)")
        self.new_button = widgets.Button(description="new data set", layout=widgets.Layout(width="140px"))
        self._grid = np.linspace(-1.0, 1.0, 300)
        from .overfitting import legendre_features

        self._grid_features = legendre_features(self._grid, 50)
        ax = self.ax
        ax.set_xlim(-1.05, 1.05)
        ax.set_ylim(-3.0, 3.0)
        ax.set_xlabel("$x$")
        ax.set_ylabel("$y$")
        (self._target_line,) = ax.plot([], [], color="tab:green", linewidth=2.2, label="target $f$")
        (self._g2,) = ax.plot([], [], color="tab:blue", linewidth=1.6, label="$g_2$ (degree 2)")
        (self._g10,) = ax.plot([], [], color="tab:red", linewidth=1.6, label="$g_{10}$ (degree 10)")
        self._points = ax.scatter([], [], s=22, color="black", zorder=3, label="data")
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        self.fig.subplots_adjust(left=0.1, right=0.72, bottom=0.13, top=0.92)
        self._moving(self._target_line, self._g2, self._g10, self._points, ax.title)
        self._redraw_numbers()
        for control in (self.n_slider, self.noise_slider, self.degree_slider):
            control.observe(lambda _: self.draw(), names="value")
        self.new_button.on_click(lambda _: (self._redraw_numbers(), self.draw()))
        controls = widgets.VBox([self.n_slider, self.noise_slider, self.degree_slider, self.new_button])
        self.widget = widgets.VBox([controls, self.image, self.status])
        self.draw()

    def _redraw_numbers(self):
        self._a = self.rng.standard_normal(51)
        self._x = self.rng.uniform(-1.0, 1.0, size=self.max_n)
        self._eps = self.rng.standard_normal(self.max_n)

    def draw(self):
        """Refit on the data the sliders describe and redraw."""
        from .overfitting import _target_coefficients, legendre_features, legendre_out_of_sample_error
        from .regression import linear_regression

        n, sigma2, qf = int(self.n_slider.value), float(self.noise_slider.value), int(self.degree_slider.value)
        self.target = _target_coefficients(self._a[:qf + 1])
        self.x = self._x[:n]
        F = legendre_features(self.x, max(qf, 10))
        self.y = F[:, :qf + 1] @ self.target + np.sqrt(sigma2) * self._eps[:n]
        self.w, self.e_in, self.e_out = {}, {}, {}
        for q in self.DEGREES:
            w = linear_regression(F[:, :q + 1], self.y)
            self.w[q] = w
            self.e_in[q] = float(np.mean((F[:, :q + 1] @ w - self.y) ** 2))
            self.e_out[q] = legendre_out_of_sample_error(w, self.target, noise_variance=sigma2)
        G = self._grid_features
        self._target_line.set_data(self._grid, G[:, :qf + 1] @ self.target)
        self._g2.set_data(self._grid, G[:, :3] @ self.w[2])
        self._g10.set_data(self._grid, G[:, :11] @ self.w[10])
        self._points.set_offsets(np.column_stack([self.x, self.y]))
        gap = self.e_out[10] - self.e_out[2]
        self.ax.set_title(f"N = {n}, σ² = {sigma2:.2f}, Q_f = {qf}: "
                          f"E_out(g_10) − E_out(g_2) = {gap:+.3g}", fontsize=9)
        self._render()
        self.status.value = (
            f"g<sub>2</sub>: E<sub>in</sub> = {self.e_in[2]:.3f}, E<sub>out</sub> = <b>{self.e_out[2]:.3g}</b>; "
            f"g<sub>10</sub>: E<sub>in</sub> = {self.e_in[10]:.3f}, E<sub>out</sub> = <b>{self.e_out[10]:.3g}</b> "
            f"({'g_10 overfits: it did worse' if gap > 0 else 'g_10 did better'} on new data)"
        )


class RegularizationExplorer(_LiveFigure):
    """Weight decay (or the L1 regularizer) on a Legendre fit: a slider for lambda, the fit, E_in, E_out, d_eff.

    Fits the polynomial of degree ``degree`` on :func:`course_lib.legendre_features` to
    the data for every lambda of the slider once (the weight-decay path; the L1 fits by
    :func:`course_lib.l1_regression`) and shows, for the current lambda and regularizer,
    the fit over the data (left) and where lambda sits on the E_in and exact E_out curves
    (right). The status line gives the effective number of parameters d_eff(lambda) of
    weight decay and the number of weights the L1 fit keeps.

    Parameters
    ----------
    x, y : array-like of shape (N,)
        The examples (one input in [-1, 1]).
    target : array-like
        The target's Legendre coefficients (for E_out and the picture).
    degree : int, default=15
    noise_variance : float, default=0.0
        sigma^2 of the data's noise, for E_out.
    lam : float, default=1e-4
        The starting lambda.
    exponents : (float, float, float), default=(-6, 2, 0.25)
        lambda runs over 10**min ... 10**max in steps of ``step`` in the exponent.

    Attributes
    ----------
    slider : ipywidgets.FloatLogSlider
    penalty_buttons : ipywidgets.ToggleButtons
        "L2 (weight decay)" or "L1".
    lambdas : ndarray
    curves : dict
        ``{"L2": (e_in, e_out), "L1": (e_in, e_out)}`` over ``lambdas``.
    d_eff_curve : ndarray
        d_eff(lambda) of weight decay.
    w : ndarray
        The current weights.

    Examples
    --------
    >>> import course_lib as cl
    >>> b = cl.legendre_target(10, rng=0)
    >>> x, y = cl.make_legendre_data(30, b, noise_variance=0.5, rng=1)
    >>> box = RegularizationExplorer(x, y, b, degree=10, noise_variance=0.5)
    >>> box.slider.value = 1.0
    >>> bool(np.allclose(box.w, cl.linear_regression(cl.legendre_features(x, 10), y, weight_decay=1.0)))
    True
    """

    PENALTIES = ("L2 (weight decay)", "L1")

    def __init__(self, x, y, target, *, degree=15, noise_variance=0.0, lam=1e-4, exponents=(-6, 2, 0.25)):
        from ._validation import check_int, check_real, check_vector
        from .overfitting import legendre_features, legendre_out_of_sample_error
        from .regularization import d_eff, l1_regression, weight_decay_path

        x = check_vector(x, "x")
        y = check_vector(y, "y", length=x.shape[0])
        self.target = check_vector(target, "target")
        degree = check_int(degree, "degree", minimum=0)
        sigma2 = check_real(noise_variance, "noise_variance", low=0.0)
        lo, hi, step = (float(v) for v in exponents)
        if not (hi > lo and step > 0):
            raise ValueError(f"exponents must be (min, max, step) with max > min and step > 0; got {exponents!r}")
        super().__init__(figsize=(9.6, 4.0), ncols=2)
        self.x, self.y, self.degree = x, y, degree
        Z = legendre_features(x, degree)
        self.lambdas = 10.0 ** np.arange(lo, hi + step / 2, step)
        self._weights = {"L2": weight_decay_path(Z, y, self.lambdas),
                         "L1": np.array([l1_regression(Z, y, penalty=lam_, tol=1e-8) for lam_ in self.lambdas])}
        self.curves = {}
        for name, W in self._weights.items():
            e_in = np.mean((W @ Z.T - y) ** 2, axis=1)
            e_out = legendre_out_of_sample_error(W, self.target, noise_variance=sigma2)
            self.curves[name] = (e_in, np.atleast_1d(e_out))
        self.d_eff_curve = d_eff(Z, self.lambdas)
        start = float(self.lambdas[np.argmin(np.abs(np.log10(self.lambdas) - np.log10(lam)))])
        self.slider = _slider(widgets.FloatLogSlider, value=start, base=10, min=lo, max=hi, step=step,
                              description="λ", readout_format=".1e")
        self.penalty_buttons = widgets.ToggleButtons(options=self.PENALTIES, value=self.PENALTIES[0],
                                                     description="regularizer", style=SLIDER_STYLE)
        left, right = self.axes
        self._grid = np.linspace(-1.0, 1.0, 300)
        self._G = legendre_features(self._grid, max(degree, len(self.target) - 1))
        left.scatter(x, y, s=22, color="black", zorder=3, label="data")
        left.plot(self._grid, self._G[:, :len(self.target)] @ self.target, color="tab:green", linewidth=2.2,
                  label="target $f$")
        (self._fit,) = left.plot([], [], color="tab:red", linewidth=1.6, label=f"fit of degree {degree}")
        spread = float(np.ptp(y)) or 1.0
        left.set_xlim(-1.05, 1.05)
        left.set_ylim(float(y.min()) - 0.5 * spread, float(y.max()) + 0.5 * spread)
        left.set_xlabel("$x$")
        left.set_ylabel("$y$")
        left.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.19), ncol=3)
        (self._e_in,) = right.plot([], [], "o-", ms=2.5, color="tab:blue", label="$E_{in}$")
        (self._e_out,) = right.plot([], [], "s-", ms=2.5, color="tab:red", label="$E_{out}$")
        self._marker = right.axvline(start, color="black", linewidth=1)
        right.set_xscale("log")
        right.set_yscale("log")
        everything = np.concatenate([c for pair in self.curves.values() for c in pair])
        right.set_xlim(self.lambdas[0], self.lambdas[-1])
        right.set_ylim(max(float(everything.min()) * 0.5, 1e-4), float(everything.max()) * 2.0)
        right.set_xlabel("λ")
        right.set_ylabel("squared error")
        right.legend(fontsize=8, loc="upper left")
        self.fig.subplots_adjust(left=0.07, right=0.98, bottom=0.3, top=0.92, wspace=0.28)
        self._moving(self._fit, self._e_in, self._e_out, self._marker, left.title, right.title)
        self.slider.observe(lambda _: self.draw(), names="value")
        self.penalty_buttons.observe(lambda _: self.draw(), names="value")
        self.widget = widgets.VBox([self.penalty_buttons, self.slider, self.image, self.status])
        self.draw()

    def draw(self):
        """Show the fit for the current lambda and regularizer."""
        name = "L2" if self.penalty_buttons.value == self.PENALTIES[0] else "L1"
        k = int(np.argmin(np.abs(np.log10(self.lambdas) - np.log10(self.slider.value))))
        lam = float(self.lambdas[k])
        self.w = self._weights[name][k]
        e_in, e_out = self.curves[name]
        self.e_in, self.e_out = float(e_in[k]), float(e_out[k])
        self._fit.set_data(self._grid, self._G[:, :self.degree + 1] @ self.w)
        self._e_in.set_data(self.lambdas, e_in)
        self._e_out.set_data(self.lambdas, e_out)
        self._marker.set_xdata([lam, lam])
        kept = int(np.count_nonzero(self.w))
        self.axes[0].set_title(f"{name}, λ = {lam:.1e}: {kept} of {len(self.w)} weights nonzero", fontsize=10)
        self.axes[1].set_title(f"E_in = {self.e_in:.3g}, E_out = {self.e_out:.3g}", fontsize=10)
        self._render()
        size = f"d<sub>eff</sub>(λ) = <b>{self.d_eff_curve[k]:.2f}</b> of {len(self.w)}" if name == "L2" else \
            f"<b>{kept}</b> of {len(self.w)} weights are not 0"
        self.status.value = (
            f"{name}, λ = <b>{lam:.1e}</b>: E<sub>in</sub> = <b>{self.e_in:.4f}</b>, "
            f"E<sub>out</sub> = <b>{self.e_out:.4f}</b>; {size}; ‖w‖ = {np.linalg.norm(self.w):.3g}"
        )


class ValidationExplorer(_LiveFigure):
    """Model selection by validation: a slider for the validation set's size K, the errors of the chosen model.

    Runs :func:`course_lib.validation.validation_experiment` once for every K and shows,
    averaged over the runs, the validation error of the chosen model g_m*^- (trained on
    N - K examples), its E_out, and the E_out of the same choice retrained on all N
    examples (left), with the current K marked; and how often each model was chosen at
    that K (right). The gap E_out(g_m*^-) - E_val(g_m*^-) is the optimistic bias of the
    choice.

    Parameters
    ----------
    n : int, default=100
    degrees : sequence of int, default=range(11)
        The candidate models H_Q.
    target_degree : int, default=10
    noise_variance : float, default=0.5
    k : int, default=20
        The starting K.
    n_runs : int, default=300
    rng : None, int or numpy.random.Generator

    Attributes
    ----------
    slider : ipywidgets.IntSlider
    curves : ValidationCurves
    bias : float
        E_out(g_m*^-) - E_val(g_m*^-) at the current K.

    Examples
    --------
    >>> box = ValidationExplorer(n=25, degrees=[1, 2, 3], target_degree=3, n_runs=50, rng=0)
    >>> box.slider.value = 5
    >>> int(box.curves.chosen[box.slider.value - 1].sum())
    50
    """

    def __init__(self, *, n=100, degrees=tuple(range(11)), target_degree=10, noise_variance=0.5, k=20, n_runs=300,
                 rng=None):
        from ._validation import check_int
        from .validation import validation_experiment

        n = check_int(n, "n", minimum=3)
        sizes = np.arange(1, n - 1)
        k = check_int(k, "k", minimum=1)
        if k > n - 2:
            raise ValueError(f"k must be between 1 and n - 2 = {n - 2}; got {k}")
        self.curves = validation_experiment(n, sizes, degrees=degrees, target_degree=target_degree,
                                            noise_variance=noise_variance, n_runs=n_runs, rng=rng)
        self.n = n
        self.degrees = list(np.atleast_1d(degrees).tolist())
        super().__init__(figsize=(9.6, 4.0), ncols=2)
        self.slider = _slider(widgets.IntSlider, value=k, min=1, max=n - 2, description="K (validation)")
        left, right = self.axes
        c = self.curves
        left.plot(c.sizes, c.e_val, "o-", ms=2, color="tab:blue", label="$E_{val}(g^-_{m^*})$")
        left.plot(c.sizes, c.e_out_minus, "s-", ms=2, color="tab:red", label="$E_{out}(g^-_{m^*})$")
        left.plot(c.sizes, c.e_out, "^-", ms=2, color="tab:purple", label="$E_{out}(g_{m^*})$, retrained on all N")
        left.axhline(float(c.e_out_best[0]), color="tab:grey", linestyle=":", label="best model in hindsight")
        self._marker = left.axvline(k, color="black", linewidth=1)
        values = np.concatenate([c.e_val, c.e_out_minus, c.e_out])
        if values.max() > 10 * values.min():
            left.set_yscale("log")
        left.set_xlabel(f"validation set size K (of N = {n})")
        left.set_ylabel("mean squared error")
        left.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.19), ncol=2)
        self._bars = right.bar([str(q) for q in self.degrees], np.zeros(len(self.degrees)), color="tab:blue")
        right.set_ylim(0, 1.0)
        right.set_xlabel("degree Q of the chosen model")
        right.set_ylabel("share of the runs")
        self.fig.subplots_adjust(left=0.07, right=0.98, bottom=0.34, top=0.92, wspace=0.25)
        self._moving(self._marker, *self._bars, left.title, right.title)
        self.slider.observe(lambda _: self.draw(), names="value")
        self.widget = widgets.VBox([self.slider, self.image, self.status])
        self.draw()

    def draw(self):
        """Show the errors and the choices at the current K."""
        k = int(self.slider.value)
        i = k - 1
        c = self.curves
        share = c.chosen[i] / c.chosen[i].sum()
        for bar, h in zip(self._bars, share, strict=True):
            bar.set_height(h)
        self._marker.set_xdata([k, k])
        self.bias = float(c.e_out_minus[i] - c.e_val[i])
        self.axes[0].set_title(f"K = {k}: optimistic bias E_out − E_val = {self.bias:.3g}", fontsize=10)
        self.axes[1].set_title(f"models chosen at K = {k}", fontsize=10)
        self._render()
        self.status.value = (
            f"K = <b>{k}</b>: the chosen model's E<sub>val</sub> = <b>{c.e_val[i]:.3g}</b>, its E<sub>out</sub> = "
            f"<b>{c.e_out_minus[i]:.3g}</b> (trained on N − K = {self.n - k}), retrained on all N: "
            f"E<sub>out</sub> = <b>{c.e_out[i]:.3g}</b>; the best model in hindsight: {c.e_out_best[i]:.3g}"
        )


class SnoopingExplorer(_LiveFigure):
    """Data snooping: features chosen on all the data before cross-validation, against choosing them honestly.

    For every number of (pure-noise) features d of the slider, runs
    :func:`course_lib.validation.snooping_experiment` once and shows the histograms of the
    cross-validation estimates over the data sets, with the true E_out = 1/2 marked.

    Parameters
    ----------
    n : int, default=40
    features : sequence of int, default=(5, 10, 20, 50, 100, 200, 500, 1000)
        The values of d the slider offers.
    n_selected : int, default=5
    folds : int, default=5
    n_sets : int, default=100
    rng : None, int or numpy.random.Generator

    Attributes
    ----------
    slider : ipywidgets.SelectionSlider
    results : dict
        d -> SnoopingResult.
    snooped, honest : float
        The mean estimates at the current d.

    Examples
    --------
    >>> box = SnoopingExplorer(features=(5, 200), n_sets=40, rng=0)
    >>> box.slider.value = 200
    >>> bool(box.snooped < box.honest)
    True
    """

    def __init__(self, *, n=40, features=(5, 10, 20, 50, 100, 200, 500, 1000), n_selected=5, folds=5, n_sets=100,
                 rng=None):
        from .validation import snooping_experiment

        features = [int(d) for d in features]
        if not features or min(features) < n_selected:
            raise ValueError(f"features must be numbers of features d >= n_selected = {n_selected}; got {features!r}")
        gen = np.random.default_rng(rng)
        self.results = {d: snooping_experiment(n, d, n_selected=n_selected, folds=folds, n_sets=n_sets, rng=gen)
                        for d in features}
        super().__init__(figsize=(6.4, 3.8))
        self.slider = widgets.SelectionSlider(options=features, value=features[-1], description="features d",
                                              layout=widgets.Layout(**SLIDER_LAYOUT), style=SLIDER_STYLE)
        ax = self.ax
        self._edges = np.linspace(0.0, 1.0, 21)
        self._snooped = ax.stairs(np.zeros(20), self._edges, fill=True, alpha=0.45, color="tab:red",
                                  label="features chosen on all the data")
        self._honest = ax.stairs(np.zeros(20), self._edges, fill=True, alpha=0.45, color="tab:blue",
                                 label="chosen inside every training part")
        ax.axvline(0.5, color="black", linestyle="--", linewidth=1.2, label="true $E_{out}$ = 0.5")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, n_sets * 0.6)
        ax.set_xlabel("cross-validation estimate $E_{cv}$")
        ax.set_ylabel("data sets")
        ax.legend(fontsize=7, loc="upper right")
        self.fig.subplots_adjust(left=0.11, right=0.97, bottom=0.14, top=0.9)
        self._moving(self._snooped, self._honest, ax.title)
        self.slider.observe(lambda _: self.draw(), names="value")
        self.widget = widgets.VBox([self.slider, self.image, self.status])
        self.draw()

    def draw(self):
        """Show the two histograms for the current number of features."""
        d = int(self.slider.value)
        r = self.results[d]
        self._snooped.set_data(np.histogram(r.snooped, self._edges)[0])
        self._honest.set_data(np.histogram(r.honest, self._edges)[0])
        self.snooped, self.honest = float(r.snooped.mean()), float(r.honest.mean())
        self.ax.set_title(f"d = {d} noise features, labels random: no classifier beats 0.5", fontsize=10)
        self._render()
        self.status.value = (
            f"d = <b>{d}</b>: mean E<sub>cv</sub> with the features chosen on all the data: <b>{self.snooped:.3f}</b>; "
            f"with the choice made inside each training part: <b>{self.honest:.3f}</b>; the truth: 0.5"
        )


__all__ += ["TransformExplorer", "OverfittingExplorer", "RegularizationExplorer", "ValidationExplorer",
            "SnoopingExplorer"]
