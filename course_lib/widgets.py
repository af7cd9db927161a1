"""Interactive pictures for the notebooks (ipywidgets).

Each widget keeps its own matplotlib figure (not registered with pyplot, so it is
never shown twice) and shows it as a PNG in an ``ipywidgets.Image``; moving a
control recomputes the numbers, redraws the figure and updates a status line.
Every control is an attribute, so tests and notebooks can drive a widget by
setting ``widget.slider.value`` or calling ``widget.next_button.click()``.
"""
import io

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from . import plotting
from ._validation import check_labels, check_Xy
from .perceptron import error_rate, pla

__all__ = ["PLAStepper", "PerceptronExplorer", "BinExplorer", "SVMExplorer", "KNNExplorer"]


class _FigureWidget:
    """Shared machinery: a private figure rendered into an Image widget."""

    def __init__(self, figsize=(4.8, 4.8), dpi=80):
        self.fig = Figure(figsize=figsize, dpi=dpi)
        FigureCanvasAgg(self.fig)  # drawn by Agg directly: no canvas switch on every redraw
        self.ax = self.fig.add_subplot()
        self.ax.set_title("", y=1.0)  # titles sit at the top: not placed by measuring the axes on every draw
        self.image = widgets.Image(format="png", layout=widgets.Layout(width=f"{int(figsize[0] * dpi)}px"))
        self.status = widgets.HTML()
        self.n_draws = 0

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

    def _render(self):
        buf = io.BytesIO()
        self.fig.canvas.print_png(buf)
        self.image.value = buf.getvalue()
        self.n_draws += 1

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


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
        self.slider = widgets.IntSlider(value=0, min=0, max=T, description="step t", continuous_update=True)
        self.prev_button = widgets.Button(description="◀ back", layout=widgets.Layout(width="90px"))
        self.next_button = widgets.Button(description="next ▶", layout=widgets.Layout(width="90px"))
        self.prev_button.on_click(lambda _: self._move(-1))
        self.next_button.on_click(lambda _: self._move(+1))
        self.slider.observe(lambda _: self.draw(), names="value")
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
            plotting.plot_pla_step(self.X, self.y, w_t, res.trajectory[t + 1], n, ax=self.ax, t=t)
            what = f"next: example {n} (y = {self.y[n]:+.0f}) is misclassified and gets corrected"
        else:
            plotting.plot_data(self.X, self.y, ax=self.ax)
            if np.any(w_t[1:] != 0):
                plotting.plot_boundary(w_t, ax=self.ax, label=f"$w_{{{t}}}$")
            done = "PLA halted: a full cycle found no mistake" if res.halted else "stopped at max_updates"
            self.ax.set_title(f"t = {t}: {done}", fontsize=10)
            what = done
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
        self.sliders = [
            widgets.FloatSlider(value=float(v), min=-limit, max=limit, step=0.05, description=f"w{i}",
                                continuous_update=True)
            for i, v in enumerate(w)
        ]
        for s in self.sliders:
            s.observe(lambda _: self.draw(), names="value")
        self.widget = widgets.VBox([widgets.HBox([widgets.VBox(self.sliders), self.status]), self.image])
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
        self.mu_slider = widgets.FloatSlider(value=mu, min=0.0, max=1.0, step=0.01, description="μ")
        self.n_slider = widgets.IntSlider(value=n, min=1, max=500, description="N")
        self.eps_slider = widgets.FloatSlider(value=eps, min=0.01, max=0.5, step=0.01, description="ε")
        self.mu_slider.observe(lambda _: self._resample(), names="value")
        self.n_slider.observe(lambda _: self._resample(), names="value")
        self.eps_slider.observe(lambda _: self.draw(), names="value")
        controls = widgets.HBox([self.mu_slider, self.n_slider, self.eps_slider])
        self.widget = widgets.VBox([controls, self.image, self.status])
        self._resample()

    def _resample(self):
        self.nu = self._hoeffding.sample_nu(self.mu_slider.value, self.n_slider.value,
                                            n_samples=self.n_samples, rng=self.rng)
        self.draw()

    def draw(self):
        """Recount and redraw for the current slider values."""
        mu, n, eps = self.mu_slider.value, self.n_slider.value, self.eps_slider.value
        self.probability = self._hoeffding.deviation_probability(self.nu, mu, eps).p
        self.bound = self._hoeffding.hoeffding_bound(eps, n)
        self._clear()
        plotting.plot_nu_histogram(self.nu, mu, n, eps, ax=self.ax)
        if self.n_draws == 0:  # margins fitted to the labels once; refitting costs as much as drawing
            self.fig.tight_layout()
        self._render()
        verdict = "below the bound, as Hoeffding promises" if self.probability <= self.bound else "ABOVE the bound"
        self.status.value = (
            f"{self.n_samples:,} samples of N = {n}: <b>{self.probability:.4f}</b> of them have |ν − μ| > {eps:.2f}; "
            f"Hoeffding's bound is <b>{self.bound:.4f}</b> ({verdict})"
        )


_WIDE = widgets.Layout(width="420px")
_WIDE_STYLE = {"description_width": "90px"}


class SVMExplorer(_FigureWidget):
    """An SVM on 2-D data with controls for C, the kernel and its parameters.

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

    Attributes
    ----------
    kernel_dropdown, C_slider, gamma_slider, degree_slider : ipywidgets controls
    hard_checkbox : ipywidgets.Checkbox
        The hard margin (no slack): C = infinity.
    result : SVMResult or None
        The current fit (None when the hard margin has no solution).

    Examples
    --------
    >>> import course_lib as cl
    >>> X, y = cl.make_spirals(40, rng=0)
    >>> box = SVMExplorer(X, y, kernel="rbf", C=10.0, gamma=5.0)
    >>> box.C_slider.value = 0.01
    >>> len(box.result.support) > 0
    True
    """

    def __init__(self, X, y, *, kernel="linear", C=1.0, gamma=1.0, degree=2):
        from .kernels import KERNELS
        from ._validation import check_matrix

        X = check_matrix(X, "X")
        if X.shape[1] != 2:
            raise ValueError(f"X must hold raw 2-D examples (2 columns); got {X.shape[1]} columns")
        y = check_labels(y, "y", n_samples=X.shape[0])
        super().__init__(figsize=(5.2, 5.2))
        self.X, self.y = X, y
        self.kernel_dropdown = widgets.Dropdown(options=list(KERNELS), value=kernel, description="kernel",
                                                style=_WIDE_STYLE)
        self.hard_checkbox = widgets.Checkbox(value=C is None, description="hard margin (C = ∞)")
        self.C_slider = widgets.FloatLogSlider(value=1.0 if C is None else C, base=10, min=-2, max=4, step=0.05,
                                               description="C", layout=_WIDE, style=_WIDE_STYLE)
        self.gamma_slider = widgets.FloatLogSlider(value=gamma, base=10, min=-2, max=2, step=0.05,
                                                   description="γ (poly, rbf)", layout=_WIDE, style=_WIDE_STYLE)
        self.degree_slider = widgets.IntSlider(value=degree, min=1, max=6, description="degree (poly)",
                                               layout=_WIDE, style=_WIDE_STYLE)
        for control in (self.kernel_dropdown, self.hard_checkbox, self.C_slider, self.gamma_slider,
                        self.degree_slider):
            control.observe(lambda _: self.draw(), names="value")
        controls = widgets.VBox([widgets.HBox([self.kernel_dropdown, self.hard_checkbox]), self.C_slider,
                                 self.gamma_slider, self.degree_slider])
        self.widget = widgets.VBox([controls, self.image, self.status])
        self.draw()

    def draw(self):
        """Refit for the current controls and redraw."""
        from .svm import NotSeparableError, fit_svm

        kernel = self.kernel_dropdown.value
        C = None if self.hard_checkbox.value else float(self.C_slider.value)
        self._clear()
        try:
            self.result = fit_svm(self.X, self.y, C=C, kernel=kernel, gamma=float(self.gamma_slider.value),
                                  degree=int(self.degree_slider.value), coef0=1.0)
        except NotSeparableError:
            self.result = None
        if self.result is None:
            plotting.plot_classifier(lambda Z: np.zeros(len(Z)), self.X, self.y, ax=self.ax, resolution=2)
            status = "<b>No hard-margin solution</b>: these data are not separable by this kernel. Untick the hard margin."
        else:
            res = self.result
            plotting.plot_classifier(res.decision_function, self.X, self.y, ax=self.ax, support=res.support,
                                     margins=True, resolution=90)
            f = self.y * res.decision_function(self.X)
            width = f"; margin 1/‖w‖ = {res.margin:.3f}" if kernel == "linear" else ""
            status = (f"{len(res.support)} support vectors of {len(self.y)} examples; "
                      f"{int(np.sum(f < 1 - 1e-6))} inside the margin, {int(np.sum(f <= 0))} misclassified{width}")
        self.ax.set_title(f"{kernel} kernel, " + ("hard margin" if C is None else f"C = {C:.3g}"), fontsize=10)
        if self.n_draws == 0:
            self.fig.tight_layout()
        self._render()
        self.status.value = status


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
        top = max(1, min(25, X.shape[0] - (1 - X.shape[0] % 2)))
        self.k_slider = widgets.IntSlider(value=k, min=1, max=top, step=2, description="k", layout=_WIDE,
                                          style=_WIDE_STYLE)
        self.metric_dropdown = widgets.Dropdown(options=["euclidean", "mahalanobis"], value="euclidean",
                                                description="distance", style=_WIDE_STYLE)
        self.standardize_checkbox = widgets.Checkbox(value=False, description="standardise features")
        for control in (self.k_slider, self.metric_dropdown, self.standardize_checkbox):
            control.observe(lambda _: self.draw(), names="value")
        controls = widgets.VBox([self.k_slider, widgets.HBox([self.metric_dropdown, self.standardize_checkbox])])
        self.widget = widgets.VBox([controls, self.image, self.status])
        self.draw()

    def draw(self):
        """Reclassify for the current controls and redraw."""
        from .neighbors import fit_standardizer, knn_predict

        k, metric = int(self.k_slider.value), self.metric_dropdown.value
        scale = fit_standardizer(self.X) if self.standardize_checkbox.value else None

        def predict(Z):
            if scale is None:
                return knn_predict(self.X, self.y, Z, k=k, metric=metric)
            return knn_predict(scale.transform(self.X), self.y, scale.transform(Z), k=k, metric=metric)

        self.train_error = float(np.mean(predict(self.X) != self.y))
        self.val_error = float(np.mean(predict(self.X_val) != self.y_val)) if self.X_val is not None else float("nan")
        self._clear()
        plotting.plot_classifier(predict, self.X, self.y, ax=self.ax, resolution=100)
        self.ax.set_title(f"{k}-NN, {metric} distance" + (", standardised" if scale is not None else ""), fontsize=10)
        if self.n_draws == 0:
            self.fig.tight_layout()
        self._render()
        val = f"; validation error <b>{self.val_error:.3f}</b>" if self.X_val is not None else ""
        self.status.value = f"training error <b>{self.train_error:.3f}</b>{val}"

