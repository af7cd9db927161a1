"""course_lib.widgets driven as a student would: move a slider, click a button, read what changed.

The numbers a widget shows are checked against counts computed here from the data.
"""
import re

import numpy as np
import pytest

import course_lib as cl
from course_lib.widgets import PerceptronExplorer, PLAStepper


def mistakes(w, X, y):
    """Misclassified examples of w on X (with x0 first), sign(0) = -1, by a plain loop."""
    return sum((1.0 if float(np.dot(w, x)) > 0 else -1.0) != t for x, t in zip(X, y, strict=True))


@pytest.fixture
def data():
    X, y, _ = cl.make_separable(25, 2, margin=0.1, rng=4)
    return cl.add_bias(X), y


# --- PerceptronExplorer ----------------------------------------------------------------------

def test_moving_a_slider_redraws_and_recounts(data):
    X, y = data
    ex = PerceptronExplorer(X[:, 1:], y, w=(0.0, 1.0, 1.0))
    assert ex.image.value[:8] == b"\x89PNG\r\n\x1a\n"
    assert ex.n_errors == mistakes([0.0, 1.0, 1.0], X, y)
    for i, value in [(0, 0.5), (1, -2.0), (2, 0.75)]:
        png, draws = ex.image.value, ex.n_draws
        ex.sliders[i].value = value
        assert ex.n_draws == draws + 1
        assert ex.image.value != png, "the picture did not change"
        w = np.array([s.value for s in ex.sliders])
        np.testing.assert_array_equal(ex.w, w)
        expected = mistakes(w, X, y)
        assert ex.n_errors == expected
        assert re.search(rf"<b>{expected}</b> of {len(y)} examples misclassified", ex.status.value)
        assert f"{expected / len(y):.2f}" in ex.status.value


def test_the_explorer_reaches_zero_errors_at_the_target(data):
    X, y, w_f = cl.make_separable(25, 2, margin=0.1, rng=4)
    ex = PerceptronExplorer(X, y, w=(0.0, 0.0, 0.0))
    assert ex.n_errors == int(np.sum(y > 0))              # w = 0: every point scores 0, i.e. -1
    for s, v in zip(ex.sliders, w_f, strict=False):
        s.value = float(v)                                # sliders move in steps of 0.05
    w = ex.w
    assert ex.n_errors == mistakes(w, cl.add_bias(X), y)
    ringed = [c for c in ex.ax.collections if c.get_label() == "mistake"]
    assert len(ringed) == (1 if ex.n_errors else 0)


def test_the_explorer_refuses_bad_input(data):
    X, y = data
    with pytest.raises(ValueError, match="w must be 3 numbers within"):
        PerceptronExplorer(X, y, w=(0.0, 5.0, 1.0))
    with pytest.raises(ValueError, match="y must contain only"):
        PerceptronExplorer(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="X must hold 2-D points"):
        PerceptronExplorer(np.ones((3, 4)), [1, -1, 1])


# --- PLAStepper --------------------------------------------------------------------------------

def test_the_stepper_walks_through_the_pla_run(data):
    X, y = data
    st = PLAStepper(X, y)
    run = cl.pla(X, y)                                     # the same run, computed independently
    assert st.result.n_updates == run.n_updates and st.slider.max == run.n_updates
    assert run.n_updates >= 2
    assert "<b>t = 0</b>" in st.status.value
    assert f"<b>{mistakes(np.zeros(3), X, y)}</b> of {len(y)}" in st.status.value
    for t in range(1, 3):
        png, draws = st.image.value, st.n_draws
        st.next_button.click()
        assert st.slider.value == t
        assert st.n_draws == draws + 1 and st.image.value != png
        assert f"<b>t = {t}</b> of T = {run.n_updates}" in st.status.value
        assert f"<b>{mistakes(run.trajectory[t], X, y)}</b> of {len(y)} examples" in st.status.value
        assert f"example {run.corrected[t]} " in st.status.value
    st.prev_button.click()
    assert st.slider.value == 1


def test_the_stepper_ends_with_a_halted_run_and_no_mistake(data):
    X, y = data
    st = PLAStepper(X, y, cycle="random", rng=3)
    st.slider.value = st.slider.max
    assert "PLA halted" in st.status.value
    assert f"<b>0</b> of {len(y)}" in st.status.value
    draws = st.n_draws
    st.next_button.click()                                 # past the end: stays at T
    assert st.slider.value == st.slider.max and st.n_draws == draws
    st.slider.value = 0
    st.prev_button.click()                                 # before the start: stays at 0
    assert st.slider.value == 0


def test_the_stepper_is_reproducible_and_shows_a_capped_run():
    X, y, _ = cl.make_noisy(30, 2, noise=0.2, rng=1)
    X = cl.add_bias(X)
    a = PLAStepper(X, y, cycle="random", max_updates=15, rng=8)
    b = PLAStepper(X, y, cycle="random", max_updates=15, rng=np.random.default_rng(8))
    assert a.result.corrected.tolist() == b.result.corrected.tolist()
    a.slider.value = 15
    assert "stopped at max_updates" in a.status.value
    with pytest.raises(ValueError, match="3 columns"):
        PLAStepper(X[:, 1:], y)

# -- the quick redraw -------------------------------------------------------------------
# A widget redraws by taking its last drawing off the axes (``_clear``) rather than by
# ``ax.clear()``, which rebuilds every tick. The reference is matplotlib's own
# ``ax.clear()``: after any sequence of moves, the picture must be byte-for-byte the one a
# full clear gives. (The widgets in JupyterLab: tests/test_browser.py; their speed in the
# browser: benchmarks/bench_widgets.py.)
from course_lib import widgets as W  # noqa: E402


def separable(seed):
    X, y, _ = cl.make_separable(30, 2, margin=0.1, rng=seed)
    return X, y


def full_redraw(widget):
    """The picture drawn from an ax.clear(), for the widget's current state."""
    quick = widget._clear
    widget._clear = widget.ax.clear
    try:
        widget.draw()
        return widget.image.value
    finally:
        widget._clear = quick


def moves(widget, rng):
    """Random moves of every slider of a widget (value changes go through the observers)."""
    sliders = [v for k, v in vars(widget).items() if k.endswith("slider")] + list(getattr(widget, "sliders", []))
    for _ in range(6):
        s = sliders[rng.integers(len(sliders))]
        n_steps = int(round((s.max - s.min) / s.step))
        yield s, s.min + s.step * rng.integers(n_steps + 1)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("make", [
    lambda X, y, seed: W.PerceptronExplorer(X, y),
    lambda X, y, seed: W.PLAStepper(cl.add_bias(X), y, cycle="random", rng=seed),
    lambda X, y, seed: W.BinExplorer(mu=0.3, n=20, eps=0.1, rng=seed),
], ids=["PerceptronExplorer", "PLAStepper", "BinExplorer"])
def test_quick_redraw_draws_what_a_full_clear_draws(make, seed):
    X, y = separable(seed)
    widget = make(X, y, seed)
    rng = np.random.default_rng(seed)
    for slider, value in moves(widget, rng):
        draws, before = widget.n_draws, widget.image.value
        slider.value = value
        if widget.n_draws == draws:  # the value did not change
            continue
        assert widget.image.value != before, f"{slider.description} = {value} did not change the picture"
        assert widget.image.value == full_redraw(widget), f"{type(widget).__name__}: {slider.description} = {value}"


def test_plastepper_every_step_matches_a_full_redraw_and_names_the_step():
    X, y = separable(3)
    stepper = W.PLAStepper(cl.add_bias(X), y, rng=3)
    T = stepper.result.n_updates
    assert T >= 1
    for t in list(range(T + 1)) + [0]:
        stepper.slider.value = t
        assert f"t = {t}</b> of T = {T}" in stepper.status.value
        assert stepper.image.value == full_redraw(stepper)


def test_perceptron_explorer_status_shows_weights_and_error_count():
    X, y = separable(4)
    explorer = W.PerceptronExplorer(X, y, w=(0.0, 1.0, 1.0))
    explorer.sliders[0].value = -0.5
    w = np.array([-0.5, 1.0, 1.0])
    wrong = int(np.sum(np.where(cl.add_bias(X) @ w > 0, 1, -1) != y))  # independent count
    assert explorer.n_errors == wrong
    assert "w = (-0.50, +1.00, +1.00)" in explorer.status.value
    assert f"<b>{wrong}</b> of {len(y)}" in explorer.status.value


# -- the bin explorer: colours, status line and title tell the same story --------------------

def bin_state(box):
    """What the picture and the status line say: red bar positions and heights, title and status numbers."""
    red = [c for c in box.ax.collections if c.get_label() == "$|\\nu-\\mu| > \\epsilon$"][0]
    grey = [c for c in box.ax.collections if c.get_label() == "$|\\nu-\\mu| \\leq \\epsilon$"][0]
    centre = lambda coll: [float(p.vertices[:4, 0].mean()) for p in coll.get_paths()]  # noqa: E731
    height = lambda coll: [float(p.vertices[:4, 1].max()) for p in coll.get_paths()]  # noqa: E731
    numbers = lambda text: [float(v) for v in re.findall(r"\d+(?:\.\d+)?(?:e[-+]\d+)?", text)]  # noqa: E731
    return centre(red), height(red), centre(grey), numbers(box.ax.get_title()), box.status.value


@pytest.mark.parametrize("mu, n, eps", [(0.4, 10, 0.1), (0.5, 20, 0.15), (0.3, 200, 0.1), (0.5, 1, 0.5)])
def test_bin_explorer_colours_status_and_title_agree(mu, n, eps):
    box = W.BinExplorer(mu=mu, n=n, eps=eps, n_samples=4_000, rng=5)
    red_x, red_h, grey_x, title, status = bin_state(box)
    # the reference: whole numbers of red marbles k, and "bad" when |k - mu N| > eps N exactly
    k = np.round(box.nu * n).astype(int)
    far = np.abs(k - round(mu * n)) > round(eps * n) if float(mu * n).is_integer() and float(eps * n).is_integer() \
        else np.abs(k / n - mu) - eps > 1e-9
    assert box.probability == pytest.approx(far.mean(), abs=0)
    assert sum(red_h) == pytest.approx(box.probability, abs=1e-12)          # red bars add up to the status
    for x in red_x:
        assert abs(x - mu) > eps + 1e-9, f"a bar at nu = {x} is red but lies within eps"
    for x in grey_x:
        assert abs(x - mu) <= eps + 1e-9, f"a bar at nu = {x} is grey but lies outside eps"
    p_title, bound_title = title[1], title[2]
    assert re.search(r"<b>([\d.e+-]+)</b>", status)
    shown = [float(v) for v in re.findall(r"<b>([\d.e+-]+)</b>", status)]
    assert shown == [p_title, bound_title]                                  # the same numbers in both places
    assert bound_title == pytest.approx(2 * np.exp(-2 * eps**2 * n), rel=1e-3)
    if box.bound >= 1:
        assert "says nothing" in status and "says nothing" in box.ax.get_title()
        assert "below the bound" not in status


def test_bin_explorer_default_state_has_the_tie_on_the_right_side():
    box = W.BinExplorer(mu=0.4, n=10, eps=0.1, rng=0)
    red_x, _, grey_x, _, _ = bin_state(box)
    assert any(abs(x - 0.3) < 1e-9 for x in grey_x) and any(abs(x - 0.5) < 1e-9 for x in grey_x)
    assert not any(abs(x - 0.3) < 1e-9 or abs(x - 0.5) < 1e-9 for x in red_x)


def test_bin_explorer_never_prints_a_small_probability_as_zero():
    box = W.BinExplorer(mu=0.5, n=500, eps=0.2, n_samples=1_000, rng=1)
    assert box.probability == 0
    assert "0.0000" not in box.status.value and "0.0000" not in box.ax.get_title()
    assert f"{2 * np.exp(-2 * 0.04 * 500):.1e}" in box.status.value


# -- the lectures' newer widgets, each against an independent computation ---------------------

def test_outlier_regression_refits_as_numpy_does():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, 20)
    y = 0.5 + x + 0.2 * rng.standard_normal(20)
    box = W.OutlierRegression(x, y, outlier=(0.8, -2.0))
    for xo, yo in [(0.8, -2.0), (1.1, 2.9), (-1.0, 0.0), (0.0, -3.0)]:
        png = box.image.value
        box.x_slider.value, box.y_slider.value = xo, yo
        xa, ya = np.append(x, box.x_slider.value), np.append(y, box.y_slider.value)
        slope, intercept = np.polyfit(xa, ya, 1)
        np.testing.assert_allclose(box.w, [intercept, slope], atol=1e-10)
        X = np.column_stack([np.ones(21), xa])
        assert box.leverage == pytest.approx((X @ np.linalg.pinv(X))[-1, -1])
        assert f"{box.leverage:.3f}" in box.status.value
        if (xo, yo) != (0.8, -2.0):
            assert box.image.value != png
    slope0, intercept0 = np.polyfit(x, y, 1)
    np.testing.assert_allclose(box.w_without, [intercept0, slope0], atol=1e-10)


def test_an_outlier_far_out_drags_the_line_more_than_one_in_the_middle():
    x = np.linspace(-1, 1, 15)
    box = W.OutlierRegression(x, x.copy(), outlier=(0.0, 0.0))
    box.y_slider.value = -3.0
    middle = abs(box.w[1] - 1.0)
    box.x_slider.value = 1.2
    edge = abs(box.w[1] - 1.0)
    assert edge > 3 * middle


def test_hat_projection_is_the_orthogonal_projection():
    box = W.HatProjection(x=(-1.0, 0.2, 1.0))
    X = np.array([[1, -1.0], [1, 0.2], [1, 1.0]])
    for values in [(-0.5, 1.2, 0.4), (2.0, -2.0, 0.0), (1.0, 1.0, 1.0)]:
        for s, v in zip(box.sliders, values, strict=True):
            s.value = v
        w, *_ = np.linalg.lstsq(X, np.array(values), rcond=None)
        np.testing.assert_allclose(box.y_hat, X @ w, atol=1e-12)
        np.testing.assert_allclose(X.T @ box.residual, 0, atol=1e-12)
        assert f"{np.sum(box.residual**2) / 3:.3f}" in box.status.value
    assert np.trace(box.H) == pytest.approx(2)
    np.testing.assert_allclose(box.residual, 0, atol=1e-12)          # (1, 1, 1) lies in the plane


def visible_fraction(box, v):
    """How much of a 3-D vector's length the hat widget's (orthographic) picture shows, from the camera's angles."""
    e, a = np.radians(box.ax.elev), np.radians(box.ax.azim)
    eye = np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])
    v = np.asarray(v) / np.linalg.norm(v)
    return float(np.sqrt(1 - (v @ eye) ** 2))


@pytest.mark.parametrize("x", [(-1.0, 0.2, 1.0), (0.0, 1.0, 3.0), (2.0, -1.0, 0.5)])
def test_the_hat_widget_shows_the_residual_at_nearly_its_full_length(x):
    box = W.HatProjection(x=x)
    assert box.ax.get_proj()[3, 3] != 0 or box.ax._focal_length == np.inf     # orthographic: no perspective
    normal = np.cross(box.X[:, 0], box.X[:, 1])          # every residual lies along the plane's normal
    assert visible_fraction(box, normal) >= 0.85
    assert visible_fraction(box, box.residual) >= 0.85
    # and the plane is not seen edge-on: both columns keep a good part of their length
    assert min(visible_fraction(box, box.X[:, 0]), visible_fraction(box, box.X[:, 1])) >= 0.4
    png, azim = box.image.value, box.ax.azim
    box.turn_slider.value = 90                           # the picture turns about the vertical axis
    assert box.ax.azim == pytest.approx(azim + 90) and box.image.value != png


def test_weight_decay_explorer_matches_scikit_learn_ridge():
    from sklearn.linear_model import Ridge

    X, y = cl.make_circle_data(30, rng=3)
    Xt, yt = cl.make_circle_data(500, rng=4)
    box = W.WeightDecayExplorer(X, y, Xt, yt, degree=6)
    Z, Zt = cl.poly_transform(X, degree=6), cl.poly_transform(Xt, degree=6)
    norms = []
    for lam in [1e-4, 1e-2, 1.0, 100.0]:
        png = box.image.value
        box.slider.value = lam
        w = Ridge(alpha=lam, fit_intercept=False, solver="svd").fit(Z, y).coef_
        np.testing.assert_allclose(box.w, w, rtol=1e-5, atol=1e-7)
        assert box.e_in == np.mean(np.where(Z @ w > 0, 1, -1) != y)
        assert box.e_out == np.mean(np.where(Zt @ w > 0, 1, -1) != yt)
        assert f"{box.e_out:.3f}" in box.status.value
        norms.append(np.linalg.norm(box.w))
        if lam != 1e-4:
            assert box.image.value != png
    assert norms == sorted(norms, reverse=True)                        # more decay, shorter weights


def test_descent_explorer_takes_the_steps_of_gd_and_sgd():
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, size=(40, 2))
    y = np.where(rng.random(40) < cl.theta(X @ np.array([2.0, -1.5])), 1.0, -1.0)
    box = W.DescentExplorer(X, y, eta=0.5, epochs=5, rng=9)
    for eta, k in [(0.5, 5), (2.0, 3), (10.0, 8)]:
        png = box.image.value
        box.eta_slider.value, box.epoch_slider.value = eta, k
        eta = box.eta_slider.value
        gd = cl.logistic_regression(X, y, method="gd", eta=eta, tol=0.0, max_epochs=k)
        np.testing.assert_allclose(box.gd[-1], gd.w, rtol=1e-10, atol=1e-12)
        assert len(box.gd) == k + 1
        w = np.zeros(2)
        for order in box.orders[:k]:
            w = cl.logistic_sgd_epoch(w, X, y, eta=eta, order=order)
        np.testing.assert_allclose(box.sgd[-1], w, rtol=1e-10, atol=1e-12)
        assert len(box.sgd) == k * len(y) + 1
        assert box.ein_gd == pytest.approx(cl.cross_entropy_error(gd.w, X, y))
        assert box.ein_min <= min(box.ein_gd, box.ein_sgd) + 1e-9
        assert f"{box.ein_sgd:.4f}" in box.status.value
        if (eta, k) != (0.5, 5):
            assert box.image.value != png


def test_pocket_explorer_shows_what_pla_and_pocket_hold_after_t_updates():
    X, y, _ = cl.make_noisy(80, 2, noise=0.15, rng=6)
    Xt, yt, _ = cl.make_noisy(80, 2, noise=0.15, rng=7)
    box = W.PocketExplorer(X, y, Xt, yt, max_updates=60, rng=3)
    Xb, Xtb = cl.add_bias(X), cl.add_bias(Xt)
    for t in [60, 0, 1, 17, 42]:
        box.slider.value = t
        ref_pla = cl.pla(Xb, y, cycle=box.order, max_updates=t) if t else None
        w_pla = ref_pla.w if t else np.zeros(3)
        np.testing.assert_allclose(box.w_pla, w_pla)
        if t:
            ref = cl.pocket(Xb, y, cycle=box.order, max_updates=t)
            np.testing.assert_allclose(box.w_pocket, ref.w)
        assert box.errors["PLA"] == (cl.error_rate(w_pla, Xb, y), cl.error_rate(w_pla, Xtb, yt))
        assert box.errors["pocket"][0] == cl.error_rate(box.w_pocket, Xb, y)
        assert box.errors["pocket"][0] <= box.errors["PLA"][0]
        assert f"<b>t = {t}</b>" in box.status.value


def test_sliders_are_wide_and_take_typed_values():
    X, y = separable(0)
    for widget in [W.PerceptronExplorer(X, y), W.BinExplorer(rng=0), W.HatProjection()]:
        sliders = [v for k, v in vars(widget).items() if k.endswith("slider")] + list(getattr(widget, "sliders", []))
        for s in sliders:
            assert s.layout.width == "460px" and s.readout


def test_new_widgets_refuse_bad_input():
    with pytest.raises(ValueError, match="same length"):
        W.OutlierRegression([0.0, 1.0], [0.0])
    with pytest.raises(ValueError, match="outlier must lie within"):
        W.OutlierRegression([0.0, 1.0], [0.0, 1.0], outlier=(5.0, 0.0))
    with pytest.raises(ValueError, match="not all equal"):
        W.HatProjection(x=(1.0, 1.0, 1.0))
    with pytest.raises(ValueError, match="2 columns"):
        W.DescentExplorer(np.ones((4, 3)), [1, -1, 1, -1])
    with pytest.raises(ValueError, match="exponents"):
        W.WeightDecayExplorer(np.zeros((2, 2)), [1, -1], np.zeros((2, 2)), [1, -1], exponents=(2, -4, 1))


def test_margin_explorer_runs_pla_on_the_data_it_shows():
    box = W.MarginExplorer(n=60, margin=0.2, rng=1)
    for margin in [0.2, 0.05, 0.12, 0.2]:
        png = box.image.value
        box.slider.value = margin
        Xb = cl.add_bias(box.X)
        gap = np.min(box.y * (Xb @ box.w_f)) / np.linalg.norm(box.w_f[1:])
        assert gap >= box.slider.value - 1e-9                        # the data keep the margin shown
        assert np.all(cl.predict(box.result.w, Xb) == box.y)          # PLA halted with no mistake
        rho = np.min(box.y * (Xb @ box.w_f)) / np.linalg.norm(box.w_f)
        R2 = np.max(np.sum(Xb**2, axis=1))
        assert box.check.bound == pytest.approx(R2 / rho**2)
        assert box.result.n_updates <= R2 / rho**2
        assert f"T = {box.result.n_updates}</b>" in box.status.value
        if margin == 0.05:
            assert box.image.value != png
    first = box.result.w.copy()
    box.slider.value = 0.05
    box.slider.value = 0.2
    np.testing.assert_array_equal(box.result.w, first)               # a margin always shows the same run


# --- SVMExplorer and KNNExplorer --------------------------------------------------------------

def test_svm_explorer_refits_for_every_control_and_agrees_with_libsvm():
    from sklearn.svm import SVC

    X, y = cl.make_spirals(60, noise=0.05, rng=4)
    box = cl.widgets.SVMExplorer(X, y, kernel="rbf", C=1.0, gamma=3.0)
    for C in (0.1, 10.0):
        box.C_slider.value = C
        ref = SVC(C=box.C_slider.value, kernel="rbf", gamma=box.gamma_slider.value, tol=1e-8).fit(X, y)
        assert set(box.result.support) == set(ref.support_)
        assert f"{len(ref.support_)} support vectors" in box.status.value
    draws = box.n_draws
    box.kernel_dropdown.value = "linear"
    assert box.n_draws == draws + 1 and box.result.w is not None
    box.hard_checkbox.value = True  # spirals: no line separates them
    assert box.result is None and "No hard-margin solution" in box.status.value


def test_svm_explorer_hard_margin_on_separable_data_has_no_violations():
    X, y, _ = cl.make_separable(40, 2, margin=0.1, rng=2)
    box = cl.widgets.SVMExplorer(X, y, C=None)
    f = y * box.result.decision_function(X)
    assert np.all(f >= 1 - 1e-6)
    assert "0 inside the margin, 0 misclassified" in box.status.value
    assert f"margin 1/‖w‖ = {1 / np.linalg.norm(box.result.w):.3f}" in box.status.value


def test_knn_explorer_errors_match_scikit_learn():
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(5)
    X = rng.normal(size=(80, 2)) * [1.0, 30.0]
    y = np.where(X[:, 0] + rng.normal(scale=0.5, size=80) > 0, 1.0, -1.0)
    Xv = rng.normal(size=(60, 2)) * [1.0, 30.0]
    yv = np.where(Xv[:, 0] > 0, 1.0, -1.0)
    box = cl.widgets.KNNExplorer(X, y, X_val=Xv, y_val=yv)
    for k in (1, 5, 9):
        box.k_slider.value = k
        ref = KNeighborsClassifier(n_neighbors=k, algorithm="brute").fit(X, y)
        assert box.val_error == pytest.approx(np.mean(ref.predict(Xv) != yv))
    box.standardize_checkbox.value = True
    sc = StandardScaler().fit(X)
    ref = KNeighborsClassifier(n_neighbors=9, algorithm="brute").fit(sc.transform(X), y)
    assert box.val_error == pytest.approx(np.mean(ref.predict(sc.transform(Xv)) != yv))
    with pytest.raises(ValueError, match="X_val and y_val"):
        cl.widgets.KNNExplorer(X, y, X_val=Xv)


def test_knn_explorer_keeps_agreeing_with_knn_predict_as_every_control_moves():
    """The explorer reuses the neighbour order across k; each state must equal a fresh computation."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(70, 2)) * [1.0, 8.0]
    y = np.where(X[:, 0] * X[:, 1] + rng.normal(scale=0.5, size=70) > 0, 1.0, -1.0)
    Xv = rng.normal(size=(50, 2)) * [1.0, 8.0]
    yv = np.where(Xv[:, 0] * Xv[:, 1] > 0, 1.0, -1.0)
    box = cl.widgets.KNNExplorer(X, y, X_val=Xv, y_val=yv)
    for k, metric, scaled in [(7, "euclidean", False), (3, "mahalanobis", False), (11, "mahalanobis", True),
                              (1, "euclidean", True), (7, "euclidean", False), (25, "mahalanobis", False)]:
        box.k_slider.value, box.metric_dropdown.value, box.standardize_checkbox.value = k, metric, scaled
        st = cl.neighbors.fit_standardizer(X) if scaled else None
        tr = (lambda A: A) if st is None else st.transform
        for Z, labels, got in ((X, y, box.train_error), (Xv, yv, box.val_error)):
            want = np.mean(cl.knn_predict(tr(X), y, tr(Z), k=k, metric=metric) != labels)
            assert got == pytest.approx(want), (k, metric, scaled)


# --- NaiveBayesExplorer ------------------------------------------------------------------------

def test_naive_bayes_explorer_fits_as_scikit_learn_and_knows_the_best_possible_error():
    from scipy.stats import norm
    from sklearn.naive_bayes import GaussianNB

    box = W.NaiveBayesExplorer(n=200, rho=0.0, rng=3)
    gaps = []
    for rho in (0.0, 0.5, 0.9, -0.7):
        png = box.image.value
        box.rho_slider.value = rho
        if rho:
            assert box.image.value != png
        ref = GaussianNB().fit(box.X, box.y)
        np.testing.assert_allclose(box.model.params["mean"], ref.theta_, atol=1e-12)
        np.testing.assert_allclose(box.model.params["var"], ref.var_, rtol=1e-9)
        within = np.vstack([box.X[box.y == c] - box.X[box.y == c].mean(axis=0) for c in (1, -1)])
        assert np.corrcoef(within.T)[0, 1] == pytest.approx(rho, abs=0.25)    # the data have that correlation (sd 0.07)
        # the Bayes error of two normal laws with a shared covariance: Phi(-Delta / 2), Delta the Mahalanobis distance
        d = np.array([1.0, 0.0])
        delta = np.sqrt(d @ np.linalg.solve(np.array([[1, rho], [rho, 1]]), d))
        assert box.bayes_error == pytest.approx(norm.cdf(-delta / 2), abs=0.015)      # 20,000 points: sd 0.0035
        assert f"{box.nb_error:.1%}" in box.status.value and f"{box.bayes_error:.1%}" in box.status.value
        gaps.append(box.nb_error - box.bayes_error)
    assert gaps[0] < 0.02 and gaps[2] > 0.1          # independent features cost nothing; correlated ones a lot
    with pytest.raises(ValueError, match="rho must be"):
        W.NaiveBayesExplorer(rho=0.99)


@pytest.mark.parametrize("kernel, C, gamma, degree", [("rbf", 0.1, 3.0, 2), ("rbf", 100.0, 30.0, 2), ("linear", 1.0, 1.0, 2),
                                                      ("poly", 10.0, 1.0, 3), ("poly", 1e4, 10.0, 2)])
def test_svm_explorer_shows_the_classifier_of_fit_svm(kernel, C, gamma, degree):
    X, y = cl.make_spirals(120, noise=0.05, rng=8)
    box = cl.widgets.SVMExplorer(X, y, kernel=kernel, C=C, gamma=gamma, degree=degree)
    ref = cl.fit_svm(X, y, C=box.C_slider.value, kernel=kernel, gamma=box.gamma_slider.value, degree=degree, coef0=1.0)
    G = box._grid
    scale = max(1.0, np.abs(ref.decision_function(G)).max())
    np.testing.assert_allclose(box.result.decision_function(G), ref.decision_function(G), atol=1e-4 * scale)
    f = y * ref.decision_function(X)
    assert f"{int(np.sum(f <= 0))} misclassified" in box.status.value


# -- the widgets of the 06-* lectures ---------------------------------------------------------------

def lp_count(X, model="perceptron"):
    """Labelings realised on X, decided one by one with SciPy's LP (an independent reference)."""
    from scipy.optimize import linprog

    from course_lib.generalization import all_labelings

    count = 0
    for y in all_labelings(len(X)):
        if model == "perceptron":
            Z = np.column_stack([np.ones(len(X)), X])
            res = linprog(np.zeros(3), A_ub=-(y[:, None] * Z), b_ub=-np.ones(len(y)), bounds=[(None, None)] * 3,
                          method="highs")
            count += res.status == 0
        else:
            P = X[y > 0]
            inside = False
            for q in X[y < 0]:
                if len(P):
                    A = np.vstack([P.T, np.ones(len(P))])
                    res = linprog(np.zeros(len(P)), A_eq=A, b_eq=np.append(q, 1.0), bounds=[(0, None)] * len(P),
                                  method="highs")
                    inside |= res.status == 0
            count += not inside
    return count


def test_dichotomy_explorer_counts_what_the_lp_counts_as_points_move():
    box = W.DichotomyExplorer(n=4, rng=1)
    assert box.count == lp_count(box.X) == 14
    from matplotlib.collections import LineCollection

    struck = [c for c in box.axes[1].collections if isinstance(c, LineCollection)]
    assert sum(len(c.get_segments()) for c in struck) == 16 - box.count          # one stroke per greyed tile
    png = box.image.value
    box.point_dropdown.value = 3
    box.x_slider.value, box.y_slider.value = 0.0, 0.0
    assert np.allclose(box.X[3], [0.0, 0.0]) and box.image.value != png
    assert box.count == lp_count(box.X)
    assert f"<b>{box.count}</b> of 2<sup>4</sup>" in box.status.value and "point 3 is at (+0.00, +0.00)" in box.status.value
    box.arrangement.value = "on a line"
    box.new_button.click()
    assert box.count == lp_count(box.X) == 2 * len(np.unique(box.X[:, 0]))
    box.n_slider.value = 6
    assert len(box.X) == 6 and box.labeling_slider.max == 63 and box.point_dropdown.options == tuple(range(6))
    box.model_dropdown.value = "convex_set"
    box.arrangement.value = "random"
    box.new_button.click()
    assert box.count == lp_count(box.X, "convex_set")
    box.labeling_slider.value = 63                              # all +1: the hull of every point is realised
    assert "leaves every −1 point out" in box.status.value


def test_dichotomy_explorer_counts_points_put_on_a_grid_line_as_collinear():
    # 0.35 typed on a slider and 7 * 0.05 are different floats, and neither is 7/20: counted as stored, three points
    # on one line of the sliders' grid would miss it by 1e-17 and count as a triangle (8 labelings)
    assert cl.count_dichotomies([[7 * 0.05, 0.75], [0.6, 0.9], [-0.4, 0.3]]) == 8
    box = W.DichotomyExplorer([[7 * 0.05, 0.75], [12 * 0.05, 0.9], [-0.55, -0.15]])
    assert box.count == 8
    box.point_dropdown.value = 2
    for x, y in [(-0.4, 0.3), (0.1, 0.6), (-0.9, 0.0)]:                  # on the line through points 0 and 1
        box.x_slider.value, box.y_slider.value = x, y
        assert box.count == 6 == lp_count(np.round(box.X / 0.05))
    box.x_slider.value = 0.35                                          # the same x1 as point 0, typed
    box.point_dropdown.value = 1
    box.x_slider.value = 0.35
    assert box.count == 6 and np.array_equal(box.grid_points()[:, 0], [7, 7, 7])
    box.arrangement.value = "on a circle"                              # off the grid: only scaled
    box.new_button.click()
    assert box.count == 8 and np.allclose(box.grid_points(), box.X / 0.05)


def test_dichotomy_explorer_picture_after_moves_is_the_picture_of_a_fresh_one():
    box = W.DichotomyExplorer([[-0.5, -0.5], [0.5, -0.5], [0.0, 0.5]])
    box.point_dropdown.value = 1
    box.y_slider.value = 0.25
    box.labeling_slider.value = 5
    fresh = W.DichotomyExplorer(box.X)
    fresh.point_dropdown.value = 1
    fresh.labeling_slider.value = 5
    assert fresh.image.value == box.image.value


def test_bounding_table_explorer_steps_through_the_recursion():
    import math

    box = W.BoundingTableExplorer(n_max=5, k_max=4)
    for step in range(1, box.slider.max + 1):
        box.slider.value = step
        N, k = box.cell
        assert box.value == sum(math.comb(N, i) for i in range(k))
        assert f"<b>B({N}, {k}) = {box.value}</b>" in box.status.value
        if N >= 2 and k >= 2:
            alpha = sum(math.comb(N - 1, i) for i in range(k)) - sum(math.comb(N - 1, i) for i in range(k - 1))
            beta = sum(math.comb(N - 1, i) for i in range(k - 1))
            assert f"α + β = {alpha + beta} ≤ B({N - 1},{k})" in box.status.value
            assert f"β = {beta} ≤ B({N - 1},{k - 1})" in box.status.value
            assert f"α + 2β = {alpha + 2 * beta} ≤ B({N - 1},{k}) + B({N - 1},{k - 1})" in box.status.value
    box.next_button.click()
    assert box.slider.value == box.slider.max
    png = box.image.value
    box.prev_button.click()
    assert box.slider.value == box.slider.max - 1 and box.image.value != png


def test_vc_bound_explorer_shows_the_bounds_of_the_module():
    box = W.VCBoundExplorer(d_vc=3, delta=0.1, n=1000)
    for d, delta, n in [(5, 0.05, 10_000), (10, 0.01, 200), (1, 0.3, 3)]:
        box.d_slider.value, box.delta_slider.value, box.n_slider.value = d, delta, n
        want = cl.generalization_bounds(int(round(box.n_slider.value)), d_vc=d, delta=float(box.delta_slider.value))
        assert box.bounds == pytest.approx(want)
        assert f"{cl.vc_sample_size(d_vc=d, epsilon=0.1, delta=float(box.delta_slider.value)):,}" in box.status.value
        x, y = box._lines["vc"].get_data()
        assert np.allclose(y, [cl.vc_bound(int(v), d_vc=d, delta=float(box.delta_slider.value)) for v in x])


def test_bias_variance_explorer_reports_its_result():
    box = W.BiasVarianceExplorer(model="line", n=2, n_datasets=3000, rng=2)
    for model, n in [("constant", 2), ("line", 10), ("line_through_origin", 5), ("line", 2)]:
        png = box.image.value
        box.model_dropdown.value, box.n_slider.value = model, n
        r = box.result
        assert (r.model, r.n_points) == (model, n) and r.e_out == pytest.approx(r.bias + r.variance)
        assert f"bias <b>{r.bias:.3f}</b>" in box.status.value and f"E<sub>out</sub> = <b>{r.e_out:.3f}</b>" in box.status.value
        assert box.image.value != png
    before = box.result.coefficients.copy()
    box.new_button.click()
    assert not np.array_equal(before, box.result.coefficients)


def test_cost_explorer_counts_the_mistakes_of_the_weighted_pocket():
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(80, 2))
    y = np.where(rng.random(80) < cl.theta(4 * (X @ [1.0, -1.0])), 1.0, -1.0)
    box = W.CostExplorer(X, y, max_updates=200, rng=4)
    accepts, rejects = {}, {}
    for ratio, matrix in [(0.1, [[0, 10], [1, 0]]), (1, [[0, 1], [1, 0]]), (1000, [[0, 1], [1000, 0]])]:
        box.slider.value = ratio
        assert box.cost.tolist() == matrix
        k = int(np.argmin(np.abs(box.exponents - np.log10(ratio))))
        h = np.where(cl.add_bias(X) @ box.runs[k] > 0, 1, -1)
        assert box.false_accepts == np.sum((h > 0) & (y < 0)) and box.false_rejects == np.sum((h < 0) & (y > 0))
        assert f"<b>{box.false_accepts}</b> false accepts" in box.status.value
        assert f"{cl.weighted_error(h, y, cost=matrix):.3f}" in box.status.value
        accepts[ratio], rejects[ratio] = box.false_accepts, box.false_rejects
    assert accepts[1000] < accepts[1] and rejects[0.1] < rejects[1000]


# --- the widgets of the lectures on learning better (07-*) ------------------------------------------

def test_transform_explorer_fits_what_scikit_learns_polynomial_features_fit():
    from sklearn.preprocessing import PolynomialFeatures

    X, y = cl.make_circle_data(40, rng=3)
    Xt, yt = cl.make_circle_data(400, rng=4)
    box = cl.widgets.TransformExplorer(X, y, Xt, yt, max_degree=5)
    for q in (1, 3, 5):
        png = box.image.value
        box.slider.value = q
        assert box.image.value != png or q == 2
        F, Ft = PolynomialFeatures(q).fit_transform(X), PolynomialFeatures(q).fit_transform(Xt)   # another column order
        w = np.linalg.lstsq(F, y, rcond=None)[0]
        assert box.e_in == np.mean(np.where(F @ w > 0, 1.0, -1.0) != y)
        assert box.e_out == np.mean(np.where(Ft @ w > 0, 1.0, -1.0) != yt)
        assert len(box.w) == F.shape[1] == (q + 1) * (q + 2) // 2
        assert f"<b>{len(box.w)}</b> weights" in box.status.value and f"<b>{box.e_in:.3f}</b>" in box.status.value


def test_overfitting_explorer_keeps_its_data_as_sliders_move_and_reports_exact_errors():
    from numpy.polynomial import legendre as npleg

    box = cl.widgets.OverfittingExplorer(n=20, noise_variance=0.5, target_degree=8, rng=5)
    x20 = box.x.copy()
    box.n_slider.value = 30
    np.testing.assert_array_equal(box.x[:20], x20)                  # the same inputs, ten more
    nodes, weights = npleg.leggauss(60)
    f = cl.legendre_features(nodes, 8) @ box.target
    for q in (2, 10):
        F = cl.legendre_features(box.x, q)
        w = np.linalg.lstsq(F, box.y, rcond=None)[0]
        np.testing.assert_allclose(box.w[q], w, rtol=1e-8, atol=1e-10)
        exact = weights @ (cl.legendre_features(nodes, q) @ w - f) ** 2 / 2 + 0.5
        assert box.e_out[q] == pytest.approx(exact, rel=1e-9)
    assert f"{box.e_out[2]:.3g}" in box.status.value
    old = box.x.copy()
    box.new_button.click()
    assert not np.array_equal(box.x, old)


def test_regularization_explorer_matches_ridge_and_lasso():
    from sklearn.linear_model import Lasso, Ridge

    b = cl.legendre_target(10, rng=6)
    x, y = cl.make_legendre_data(30, b, noise_variance=0.5, rng=7)
    Z = cl.legendre_features(x, 12)
    box = cl.widgets.RegularizationExplorer(x, y, b, degree=12, noise_variance=0.5, exponents=(-4, 2, 0.5))
    for lam in (1e-3, 0.1, 10.0):
        box.slider.value = lam
        np.testing.assert_allclose(box.w, Ridge(alpha=lam, fit_intercept=False, solver="svd").fit(Z, y).coef_,
                                   rtol=1e-7, atol=1e-9)
        trace = np.trace(Z @ np.linalg.solve(Z.T @ Z + lam * np.eye(13), Z.T))
        assert f"<b>{trace:.2f}</b>" in box.status.value
    box.penalty_buttons.value = "L1"
    box.slider.value = 1.0
    ref = Lasso(alpha=1.0 / 60, fit_intercept=False, tol=1e-12, max_iter=1_000_000).fit(Z, y).coef_
    np.testing.assert_allclose(box.w, ref, atol=1e-5)
    assert f"<b>{np.count_nonzero(box.w)}</b> of 13 weights are not 0" in box.status.value


def test_validation_explorer_shows_the_experiment_at_every_k():
    box = cl.widgets.ValidationExplorer(n=30, degrees=[0, 1, 2, 4], target_degree=4, k=5, n_runs=60, rng=8)
    ref = cl.validation_experiment(30, np.arange(1, 29), degrees=[0, 1, 2, 4], target_degree=4, noise_variance=0.5,
                                   n_runs=60, rng=8)
    np.testing.assert_allclose(box.curves.e_val, ref.e_val)
    for k in (1, 12, 28):
        box.slider.value = k
        assert box.bias == pytest.approx(ref.e_out_minus[k - 1] - ref.e_val[k - 1])
        heights = [bar.get_height() for bar in box._bars]
        assert sum(heights) == pytest.approx(1.0)
        assert f"N − K = {30 - k}" in box.status.value


def test_snooping_explorer_shows_the_experiment_for_each_number_of_features():
    box = cl.widgets.SnoopingExplorer(features=(5, 50), n_sets=30, rng=9)
    gen = np.random.default_rng(9)
    refs = {d: cl.validation.snooping_experiment(40, d, n_sets=30, rng=gen) for d in (5, 50)}
    for d in (5, 50):
        box.slider.value = d
        assert box.snooped == pytest.approx(refs[d].snooped.mean()) and box.honest == pytest.approx(refs[d].honest.mean())
        assert f"<b>{box.snooped:.3f}</b>" in box.status.value
    with pytest.raises(ValueError, match="features must be numbers of features d >= n_selected"):
        cl.widgets.SnoopingExplorer(features=(3,))
