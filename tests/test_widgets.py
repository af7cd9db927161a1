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
    return sum((1.0 if float(np.dot(w, x)) > 0 else -1.0) != t for x, t in zip(X, y))


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
    for s, v in zip(ex.sliders, w_f):
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
