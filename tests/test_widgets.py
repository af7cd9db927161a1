"""course_lib.widgets: every control redraws, and the quick redraw draws what a full one does.

A widget redraws by taking its last drawing off the axes (``_clear``) rather than by
``ax.clear()``, which rebuilds every tick. The reference here is matplotlib's own
``ax.clear()``: after any sequence of moves, the picture must be byte-for-byte the one
a full clear gives. (The widgets in JupyterLab: tests/test_browser.py; their speed in
the browser: benchmarks/bench_widgets.py.)
"""
import numpy as np
import pytest

import course_lib as cl
from course_lib import widgets as W


def data(seed):
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
    X, y = data(seed)
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
    X, y = data(3)
    stepper = W.PLAStepper(cl.add_bias(X), y, rng=3)
    T = stepper.result.n_updates
    assert T >= 1
    for t in list(range(T + 1)) + [0]:
        stepper.slider.value = t
        assert f"t = {t}</b> of T = {T}" in stepper.status.value
        assert stepper.image.value == full_redraw(stepper)


def test_perceptron_explorer_status_shows_weights_and_error_count():
    X, y = data(4)
    explorer = W.PerceptronExplorer(X, y, w=(0.0, 1.0, 1.0))
    explorer.sliders[0].value = -0.5
    w = np.array([-0.5, 1.0, 1.0])
    wrong = int(np.sum(np.where(cl.add_bias(X) @ w > 0, 1, -1) != y))  # independent count
    assert explorer.n_errors == wrong
    assert "w = (-0.50, +1.00, +1.00)" in explorer.status.value
    assert f"<b>{wrong}</b> of {len(y)}" in explorer.status.value
