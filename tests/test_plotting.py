"""course_lib.plotting for the perceptron lectures: what is drawn where, read back from the artists."""
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.markers import MarkerStyle

import course_lib as cl
from course_lib import plotting


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def marker_vertices(marker):
    style = MarkerStyle(marker)
    return style.get_path().transformed(style.get_transform()).vertices


def scatter_by_label(ax):
    return {c.get_label(): c for c in ax.collections if c.get_label() in ("+1", "-1", "mistake")}


X2 = np.array([[0.5, 0.5], [-0.5, -0.2], [0.1, 0.9], [-0.8, 0.3]])
Y2 = np.array([1.0, -1.0, 1.0, -1.0])


# --- plot_data -----------------------------------------------------------------------------

def test_plot_data_draws_circles_for_plus_one_and_crosses_for_minus_one():
    ax = plotting.plot_data(X2, Y2)
    found = scatter_by_label(ax)
    np.testing.assert_array_equal(found["+1"].get_offsets(), X2[Y2 > 0])
    np.testing.assert_array_equal(found["-1"].get_offsets(), X2[Y2 < 0])
    np.testing.assert_allclose(found["+1"].get_paths()[0].vertices, marker_vertices("o"))
    np.testing.assert_allclose(found["-1"].get_paths()[0].vertices, marker_vertices("x"))
    assert ax.get_xlim() == (-1.05, 1.05) and ax.get_ylim() == (-1.05, 1.05)


def test_plot_data_accepts_the_x0_column_and_rings_the_highlighted_points():
    fig, ax = plt.subplots()
    out = plotting.plot_data(cl.add_bias(X2), Y2, ax=ax, highlight=[1, 3])
    assert out is ax
    np.testing.assert_array_equal(scatter_by_label(ax)["mistake"].get_offsets(), X2[[1, 3]])


@pytest.mark.parametrize("call, match", [
    (lambda: plotting.plot_data(np.ones((3, 4)), [1, 1, 1]), "X must hold 2-D points"),
    (lambda: plotting.plot_data(X2, [1, -1, 1]), "y must have length 4"),
    (lambda: plotting.plot_data(X2, [1, -1, 1, 0]), "y must contain only"),
    (lambda: plotting.plot_boundary([1.0, 2.0]), "w must have length 3"),
    (lambda: plotting.plot_pla_step(X2, Y2, [0.0, 1.0], [0.0, 1.0, 1.0], 0), "w_t must have length 3"),
    (lambda: plotting.plot_ein_history([0.5, 0.4], [0.5]), "ein_pocket must have length 2"),
    (lambda: plotting.plot_ein_history([]), "ein_pla must not be empty"),
])
def test_bad_input_is_refused(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --- plot_boundary -------------------------------------------------------------------------

@pytest.mark.parametrize("w", [[0.2, 1.0, -0.5], [-0.3, 0.1, 2.0], [0.5, -3.0, 0.2], [0.0, 0.0, 1.0], [0.4, 1.0, 0.0]])
def test_the_decision_line_is_where_w0_plus_w1_x1_plus_w2_x2_is_zero(w):
    ax = plotting.plot_boundary(w, ax=plotting.plot_data(X2, Y2))
    (line,) = ax.lines
    pts = line.get_xydata()
    np.testing.assert_allclose(w[0] + pts @ np.asarray(w[1:]), 0.0, atol=1e-12)
    # the line spans the picture: its ends lie on the border of the axes
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    on_border = np.isclose(pts[:, 0], x0) | np.isclose(pts[:, 0], x1) | np.isclose(pts[:, 1], y0) | np.isclose(pts[:, 1], y1)
    assert on_border.all()


def test_the_shading_covers_the_positive_side():
    w = np.array([0.1, 1.0, -1.0])
    ax = plotting.plot_boundary(w, ax=plotting.plot_data(X2, Y2))
    pts = np.array([[0.8, -0.8], [-0.8, 0.8], [0.5, 0.0], [0.0, 0.5], [0.9, 0.1], [-0.2, 0.6]])
    np.testing.assert_array_equal(shaded(ax, pts), w[0] + pts @ w[1:] > 0)


def shaded(ax, pts):
    """Which points lie in the shaded (positive) region of plot_boundary."""
    shades = [c for c in ax.collections if c.get_label() not in ("+1", "-1", "mistake")]
    inside = np.zeros(len(pts), dtype=bool)
    for c in shades:
        for path in c.get_paths():
            if len(path.vertices):
                inside |= path.contains_points(pts)
    return inside


def test_plot_boundary_without_a_line_shades_by_the_sign_of_w0():
    pts = np.array([[0.0, 0.0], [0.7, -0.6], [-0.9, 0.9]])
    ax = plotting.plot_boundary([1.0, 0.0, 0.0], ax=plotting.plot_data(X2, Y2))
    assert len(ax.lines) == 0 and shaded(ax, pts).all()
    ax = plotting.plot_boundary([-1.0, 0.0, 0.0], ax=plotting.plot_data(X2, Y2))
    assert len(ax.lines) == 0 and not shaded(ax, pts).any()      # sign(-1) = -1: nothing positive
    ax = plotting.plot_boundary([0.0, 0.0, 0.0], ax=plotting.plot_data(X2, Y2))
    assert not shaded(ax, pts).any()                               # sign(0) = -1 too


# --- every plot function: ax=None makes axes, a given ax is drawn on and returned -------------

def novikoff_check():
    X, y, w_f = cl.make_separable(30, 2, margin=0.1, rng=0)
    X = cl.add_bias(X)
    run = cl.pla(X, y)
    return cl.check_novikoff(run.trajectory, run.corrected, X, y, w_f), run, X, y


@pytest.mark.parametrize("draw", [
    lambda ax: plotting.plot_data(X2, Y2, ax=ax),
    lambda ax: plotting.plot_boundary([0.1, 1.0, 1.0], ax=ax),
    lambda ax: plotting.plot_pla_step(X2, Y2, [0.0, 0.0, 0.0], [1.0, 0.5, 0.5], 0, ax=ax, t=0),
    lambda ax: plotting.plot_ein_history([0.5, 0.3, 0.4], [0.5, 0.3, 0.3], ax=ax),
])
def test_plot_functions_make_or_reuse_axes(draw):
    made = draw(None)
    assert isinstance(made, matplotlib.axes.Axes)
    fig, ax = plt.subplots()
    assert draw(ax) is ax
    assert ax.has_data() or ax.lines or ax.collections


def test_plot_novikoff_check_draws_both_sides_of_each_inequality():
    check, run, _, _ = novikoff_check()
    axes = plotting.plot_novikoff_check(check)
    assert len(axes) == 3
    t = np.arange(run.n_updates + 1)
    left, lower = axes[0].lines
    np.testing.assert_allclose(left.get_ydata(), check.inner)
    # the drawn lower bound is t * rho (eta = 1), and the curve stays above it
    np.testing.assert_allclose(lower.get_ydata(), t * (check.inner_lower[1] - check.inner[0]))
    assert np.all(left.get_ydata() >= lower.get_ydata() - 1e-9)
    norm, upper = axes[1].lines
    np.testing.assert_allclose(norm.get_ydata(), check.norm_sq)
    assert np.all(norm.get_ydata() <= upper.get_ydata() + 1e-9)
    cosine, bound = axes[2].lines[:2]
    np.testing.assert_allclose(bound.get_ydata(), check.cosine_lower)
    assert np.all(cosine.get_ydata() >= bound.get_ydata() - 1e-9)
    fig, given = plt.subplots(1, 3)
    out = plotting.plot_novikoff_check(check, axes=given)
    assert all(a is b for a, b in zip(out, given, strict=True))


def test_plot_pla_step_shows_old_and_new_boundary_and_the_mistake():
    _, run, X, y = novikoff_check()
    t = 1
    w_t, w_next, n = run.trajectory[t], run.trajectory[t + 1], run.corrected[t]
    ax = plotting.plot_pla_step(X, y, w_t, w_next, n, t=t)
    old, new = ax.lines
    for line, w in ((old, w_t), (new, w_next)):
        np.testing.assert_allclose(w[0] + line.get_xydata() @ w[1:], 0.0, atol=1e-9)
    assert old.get_linestyle() == "--" and new.get_linestyle() == "-"
    np.testing.assert_array_equal(scatter_by_label(ax)["mistake"].get_offsets(), X[[n], 1:])
    assert "update 2" in ax.get_title()


def test_plot_ein_history_draws_the_two_curves():
    ax = plotting.plot_ein_history([0.5, 0.3, 0.4], [0.5, 0.3, 0.3])
    pla_line, pocket_line = ax.lines
    np.testing.assert_array_equal(pla_line.get_ydata(), [0.5, 0.3, 0.4])
    np.testing.assert_array_equal(pocket_line.get_xdata(), [0, 1, 2])
    assert ax.get_ylim()[0] == 0


def test_importing_course_lib_leaves_matplotlib_settings_alone():
    code = (
        "import matplotlib, copy\n"
        "before = copy.deepcopy(dict(matplotlib.rcParams))\n"
        "import course_lib, course_lib.plotting, course_lib.widgets\n"
        "after = dict(matplotlib.rcParams)\n"
        "changed = sorted(k for k in before if before[k] != after[k])\n"
        "assert not changed, changed\n"
        "assert matplotlib.get_backend().lower() == 'agg', matplotlib.get_backend()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={"MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr


def test_pla_step_arrow_labels_do_not_overlap():
    from matplotlib.figure import Figure

    import course_lib as cl
    from course_lib.plotting import plot_pla_step

    for seed in range(6):
        X, y, _ = cl.make_separable(20, 2, margin=0.15, rng=seed)
        X = cl.add_bias(X)
        run = cl.pla(X, y)
        for t in range(min(run.n_updates, 3)):
            fig = Figure(figsize=(4.3, 4.3))
            ax = fig.add_subplot()
            plot_pla_step(X, y, run.trajectory[t], run.trajectory[t + 1], run.corrected[t], ax=ax, t=t)
            renderer = fig.canvas.get_renderer() if hasattr(fig.canvas, "get_renderer") else None
            if renderer is None:
                from matplotlib.backends.backend_agg import FigureCanvasAgg
                renderer = FigureCanvasAgg(fig).get_renderer()
            fig.canvas.draw() if hasattr(fig.canvas, "draw") else None
            boxes = [a.get_window_extent(renderer) for a in ax.texts if a.get_text()]
            for i in range(len(boxes)):
                for j in range(i + 1, len(boxes)):
                    assert not boxes[i].overlaps(boxes[j]), f"seed {seed}, step {t}: arrow labels overlap"


def test_pla_step_labels_stay_inside_the_axes_and_the_legend_covers_nothing():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    import course_lib as cl
    from course_lib.plotting import plot_pla_step

    for seed in range(4):       # the first update's labels lie far out, near the edge: every seed has one
        X, y, _ = cl.make_separable(20, 2, margin=0.15, rng=seed)
        X = cl.add_bias(X)
        run = cl.pla(X, y)
        for t in sorted({0, run.n_updates - 1}):
            fig = Figure(figsize=(4.3, 4.3), layout="constrained")
            renderer = FigureCanvasAgg(fig).get_renderer()
            ax = fig.add_subplot()
            plot_pla_step(X, y, run.trajectory[t], run.trajectory[t + 1], run.corrected[t], ax=ax, t=t)
            fig.canvas.draw()
            inside = ax.get_window_extent(renderer)
            for text in (a for a in ax.texts if a.get_text()):
                box = text.get_window_extent(renderer)
                assert inside.x0 - 1 <= box.x0 and box.x1 <= inside.x1 + 1 and inside.y0 - 1 <= box.y0 \
                    and box.y1 <= inside.y1 + 1, f"seed {seed}, step {t}: label {text.get_text()} leaves the axes"
            legend = ax.get_legend().get_window_extent(renderer)
            assert legend.y1 <= inside.y0, f"seed {seed}, step {t}: the legend lies over the picture"
            label = ax.xaxis.label.get_window_extent(renderer)
            assert not legend.overlaps(label), f"seed {seed}, step {t}: the legend covers the x label"


def test_digit_boundaries_point_each_line_to_the_side_it_calls_a_1():
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.uniform(0.1, 0.5, 60), rng.uniform(-6, 0, 60)])   # the 8x8 features' scales
    y = np.where(X[:, 1] > -3, 1.0, -1.0)
    weights = {"a": [3.0, 0.0, 1.0], "b": [-1.0, 10.0, 0.2], "c": [-2.5, -1.0, -1.0]}
    ax = plotting.plot_digit_boundaries(X, y, weights)
    arrows = [a for a in ax.texts if getattr(a, "arrow_patch", None) is not None]
    assert len(arrows) == len(weights)
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    for arrow, w in zip(arrows, weights.values(), strict=True):
        start, tip = np.array(arrow.xyann), np.array(arrow.xy)
        assert abs(w[0] + start @ w[1:]) < 1e-9 * max(1.0, np.abs(w).max() * 10)   # it starts on the line
        assert w[0] + tip @ w[1:] > 0                                                # and points to the +1 side
        assert x0 < tip[0] < x1 and y0 < tip[1] < y1
    assert "the side called digit 1" in ax.get_legend().get_title().get_text()


def test_digit_sheets_have_no_frame_and_labels_off_the_images():
    images = np.ones((6, 8, 8))                          # all ink: a label over an image would sit on black
    ax = plotting.plot_digits(images, [1, 5, 1, 5, 1, 5], n=6, ncols=3)
    assert not any(s.get_visible() for s in ax.spines.values())
    mosaic = ax.images[0].get_array()
    for text in ax.texts:
        x, y = text.get_position()
        assert mosaic[int(np.floor(y)), int(round(x))] == -1     # the label's anchor is on paper


def test_overfit_map_puts_the_sign_in_colour_and_says_how_runs_were_summarised():
    values = np.array([[0.5, -0.05], [0.1, -3.0]])
    ax = plotting.plot_overfit_map(values, [20, 40], [0.0, 1.0], label="median of the runs' measures")
    mesh = ax.collections[0]
    assert mesh.norm.vmin == -0.2 and mesh.norm.vmax == 0.2           # the book's scale, saturated beyond it
    colours = mesh.to_rgba(np.asarray(mesh.get_array()).ravel())
    red, blue = colours[:, 0] > colours[:, 2], colours[:, 2] > colours[:, 0]
    assert red.tolist() == [True, False, True, False] and blue.tolist() == [False, True, False, True]
    assert ax.figure.axes[-1].get_ylabel() == "median of the runs' measures"
