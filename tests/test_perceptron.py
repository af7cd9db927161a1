"""course_lib.perceptron against plain loops, scikit-learn and the properties the lecture proves.

Every random test draws its data from a seed (fixed, or drawn by Hypothesis), so a
failure can be replayed; each must pass for any seed.
"""
import math
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import Perceptron

import course_lib as cl
from course_lib.perceptron import (
    add_bias,
    error_rate,
    perceptron_dual,
    perceptron_with_bias,
    pla,
    pla_runs,
    pocket,
    pocket_runs,
    predict,
)

seeds = st.integers(0, 2**32 - 1)
SETTINGS = settings(max_examples=25, deadline=None)


def separable(seed, n, d, margin):
    X, y, w_f = cl.make_separable(n, d, margin=margin, rng=seed)
    return add_bias(X), y, w_f


# --- plain references, written as the lecture states the algorithms ------------------------

def sign(s):
    return 1.0 if s > 0 else -1.0


def predict_loop(w, X):
    return np.array([sign(sum(wi * xi for wi, xi in zip(w, x, strict=True))) for x in X])


def pla_loop(X, y, order, max_updates=None):
    """PLA with a cycle: look for the next mistake after the last one corrected."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    w = np.zeros(X.shape[1])
    n, pos, updates = len(y), 0, []
    while max_updates is None or len(updates) < max_updates:
        for k in range(n):
            p = (pos + k) % n
            i = order[p]
            if sign(w @ X[i]) != y[i]:
                w = w + y[i] * X[i]
                updates.append(i)
                pos = (p + 1) % n
                break
        else:
            return w, updates, True
    return w, updates, all(sign(w @ x) == t for x, t in zip(X, y, strict=True))


def mistakes(w, X, y):
    return sum(sign(w @ x) != t for x, t in zip(X, y, strict=True))


def pocket_loop(X, y, order, max_updates):
    """Pocket as in the lecture: PLA, plus keep w_{t+1} if it makes fewer mistakes than the pocket."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    w = np.zeros(X.shape[1])
    best, best_err = w.copy(), mistakes(w, X, y)
    ein_pla, ein_pocket = [best_err], [best_err]
    n, pos = len(y), 0
    for _ in range(max_updates):
        wrong = [p for p in range(n) if sign(w @ X[order[(pos + p) % n]]) != y[order[(pos + p) % n]]]
        if wrong:
            p = (pos + wrong[0]) % n
            i = order[p]
            w = w + y[i] * X[i]
            pos = (p + 1) % n
            err = mistakes(w, X, y)
            if err < best_err:
                best, best_err = w.copy(), err
        ein_pla.append(mistakes(w, X, y))
        ein_pocket.append(best_err)
    return best, w, np.array(ein_pla) / n, np.array(ein_pocket) / n


# --- add_bias, predict, error_rate ---------------------------------------------------------

def test_add_bias_prepends_a_column_of_ones():
    X = np.arange(6.0).reshape(3, 2)
    Z = add_bias(X)
    assert Z.shape == (3, 3)
    np.testing.assert_array_equal(Z[:, 0], 1.0)
    np.testing.assert_array_equal(Z[:, 1:], X)


@SETTINGS
@given(seed=seeds, n=st.integers(1, 30), d=st.integers(1, 5))
def test_predict_and_error_rate_agree_with_plain_loops(seed, n, d):
    rng = np.random.default_rng(seed)
    X = add_bias(rng.normal(size=(n, d)))
    w = rng.normal(size=d + 1)
    y = rng.choice([-1.0, 1.0], size=n)
    expected = predict_loop(w, X)
    np.testing.assert_array_equal(predict(w, X), expected)
    assert error_rate(w, X, y) == pytest.approx(np.mean(expected != y))


def test_a_score_of_exactly_zero_is_negative():
    X = add_bias([[1.0, 1.0], [2.0, -1.0]])
    np.testing.assert_array_equal(predict([0.0, 1.0, -1.0], X), [-1.0, 1.0])
    np.testing.assert_array_equal(predict(np.zeros(3), X), [-1.0, -1.0])


# --- PLA -----------------------------------------------------------------------------------

@SETTINGS
@given(seed=seeds, n=st.integers(2, 60), d=st.integers(1, 5), margin=st.floats(0.05, 0.3))
def test_pla_halts_with_no_mistake_within_the_novikoff_bound(seed, n, d, margin):
    X, y, w_f = separable(seed, n, d, margin)
    run = pla(X, y)
    assert run.halted
    assert np.all(predict_loop(run.w, X) == y), "PLA halted with a training mistake left"
    R2 = max(float(x @ x) for x in X)
    rho = min(t * float(w_f @ x) for x, t in zip(X, y, strict=True)) / math.sqrt(float(w_f @ w_f))
    assert rho > 0
    assert run.n_updates <= R2 / rho**2 * (1 + 1e-9)
    assert len(run.trajectory) == run.n_updates + 1 and len(run.corrected) == run.n_updates
    np.testing.assert_allclose(run.trajectory[-1], run.w)


@SETTINGS
@given(seed=seeds, n=st.integers(2, 40), d=st.integers(1, 4), cycle=st.sampled_from(["naive", "random"]))
def test_pla_makes_exactly_the_updates_of_a_plain_loop(seed, n, d, cycle):
    X, y, _ = separable(seed, n, d, 0.05)
    order = np.arange(n) if cycle == "naive" else np.random.default_rng(seed + 1).permutation(n)
    run = pla(X, y, cycle=cycle, rng=seed + 1)
    w, updates, halted = pla_loop(X, y, order)
    assert run.halted == halted
    assert run.corrected.tolist() == updates
    np.testing.assert_allclose(run.w, w)


@SETTINGS
@given(seed=seeds, n=st.integers(2, 40), d=st.integers(1, 4))
def test_every_update_was_a_mistake_and_tries_to_correct_it(seed, n, d):
    X, y, _ = separable(seed, n, d, 0.05)
    run = pla(X, y, cycle="random", rng=seed)
    for t, i in enumerate(run.corrected):
        w_t, w_next = run.trajectory[t], run.trajectory[t + 1]
        assert sign(w_t @ X[i]) != y[i]
        np.testing.assert_allclose(w_next, w_t + y[i] * X[i])
        # Fun Time 2: y_n w_{t+1}^T x_n >= y_n w_t^T x_n (by ||x_n||^2 exactly)
        assert y[i] * (w_next @ X[i]) == pytest.approx(y[i] * (w_t @ X[i]) + X[i] @ X[i])


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_sklearn_perceptron_also_separates_what_pla_separates(seed):
    # scikit-learn's Perceptron with these options is the perceptron rule with eta = 1 and
    # no intercept on the x0-augmented data; it updates on y w^T x <= 0 (a point on the
    # boundary counts for both labels), so its weights may differ from PLA's. Novikoff's
    # argument covers that rule too, so it must also reach zero training error within the
    # bound (one epoch per update at worst, plus a clean epoch).
    X, y, w_f = separable(seed, 80, 3, 0.1)
    bound = cl.novikoff_bound(X, y, w_f)
    clf = Perceptron(fit_intercept=False, shuffle=False, eta0=1.0, alpha=0.0, tol=None,
                     max_iter=int(bound) + 2)
    clf.fit(X, y)
    assert clf.score(X, y) == 1.0
    run = pla(X, y)
    assert error_rate(run.w, X, y) == 0.0
    assert np.all(y * (X @ clf.coef_.ravel()) > 0)


def test_pla_respects_max_updates_on_data_it_cannot_separate():
    X = add_bias([[0.0, 0.0], [1.0, 1.0], [0.5, 0.5]])
    y = [1, 1, -1]                                     # the middle point sits between two +1s
    run = pla(X, y, max_updates=25)
    assert run.n_updates == 25 and not run.halted
    assert run.trajectory.shape == (26, 3)


def test_pla_with_eta_only_rescales_the_weights():
    X, y, _ = separable(5, 40, 2, 0.1)
    a, b = pla(X, y), pla(X, y, eta=0.25)
    assert a.corrected.tolist() == b.corrected.tolist()
    np.testing.assert_allclose(b.w, 0.25 * a.w)


def test_pla_follows_an_explicit_cycle():
    X, y, _ = separable(6, 30, 2, 0.1)
    order = np.random.default_rng(0).permutation(30)
    w, updates, _ = pla_loop(X, y, order)
    run = pla(X, y, cycle=order)
    assert run.corrected.tolist() == updates


def test_the_random_cycle_is_reproducible_and_uses_the_generator_it_is_given():
    X, y, _ = separable(7, 50, 3, 0.05)
    state = np.random.get_state()[1].copy()
    a = pla(X, y, cycle="random", rng=11)
    b = pla(X, y, cycle="random", rng=np.random.default_rng(11))
    assert a.corrected.tolist() == b.corrected.tolist()
    np.testing.assert_array_equal(a.w, b.w)
    assert np.array_equal(state, np.random.get_state()[1]), "PLA touched NumPy's global random state"
    gen = np.random.default_rng(3)
    before = gen.bit_generator.state
    pla(X, y, cycle="random", rng=gen)
    assert gen.bit_generator.state != before, "the Generator passed in was not used"
    runs = {tuple(pla(X, y, cycle="random", rng=s).corrected[:10]) for s in range(5)}
    assert len(runs) > 1, "different seeds should give different cycles"


# --- pocket --------------------------------------------------------------------------------

@SETTINGS
@given(seed=seeds, n=st.integers(5, 80), d=st.integers(1, 4), noise=st.floats(0.0, 0.3),
       max_updates=st.integers(0, 60))
def test_pocket_never_gets_worse_and_beats_pla_at_every_t(seed, n, d, noise, max_updates):
    X, y, _ = cl.make_noisy(n, d, noise=noise, rng=seed)
    X = add_bias(X)
    res = pocket(X, y, max_updates=max_updates, rng=seed)
    assert res.ein_pocket.shape == res.ein_pla.shape == (max_updates + 1,)
    assert np.all(np.diff(res.ein_pocket) <= 0), "the pocket's E_in went up"
    assert np.all(res.ein_pocket <= res.ein_pla + 1e-12)
    assert res.ein_pocket[-1] == pytest.approx(mistakes(res.w, X, y) / n)
    assert res.ein_pla[-1] == pytest.approx(mistakes(res.w_last, X, y) / n)
    # the pocket holds the best of all the PLA weights it saw
    assert res.ein_pocket[-1] == pytest.approx(res.ein_pla.min())


@SETTINGS
@given(seed=seeds, n=st.integers(2, 50), d=st.integers(1, 3), noise=st.floats(0.0, 0.3),
       max_updates=st.integers(0, 40))
def test_pocket_agrees_with_a_plain_loop(seed, n, d, noise, max_updates):
    X, y, _ = cl.make_noisy(n, d, noise=noise, rng=seed)
    X = add_bias(X)
    order = np.random.default_rng(seed).permutation(n)
    res = pocket(X, y, max_updates=max_updates, cycle=order)
    best, last, ein_pla, ein_pocket = pocket_loop(X, y, order, max_updates)
    np.testing.assert_allclose(res.w, best)
    np.testing.assert_allclose(res.w_last, last)
    np.testing.assert_allclose(res.ein_pla, ein_pla)
    np.testing.assert_allclose(res.ein_pocket, ein_pocket)


@settings(max_examples=15, deadline=None)
@given(seed=seeds, n=st.integers(2, 60), d=st.integers(1, 4), n_runs=st.integers(1, 12),
       max_updates=st.integers(0, 40))
def test_each_of_pocket_runs_is_one_pocket_run(seed, n, d, n_runs, max_updates):
    X, y, _ = cl.make_noisy(n, d, noise=0.15, rng=seed)
    X = add_bias(X)
    runs = pocket_runs(X, y, n_runs=n_runs, max_updates=max_updates, rng=seed)
    assert runs.orders.shape == (n_runs, n)
    for r in range(n_runs):
        assert sorted(runs.orders[r]) == list(range(n))
        one = pocket(X, y, max_updates=max_updates, cycle=runs.orders[r])
        np.testing.assert_allclose(runs.w[r], one.w)
        np.testing.assert_allclose(runs.w_last[r], one.w_last)
        assert runs.n_updates[r] == one.n_updates
        np.testing.assert_allclose(runs.ein_pocket[r], one.ein_pocket)
        np.testing.assert_allclose(runs.ein_pla[r], one.ein_pla)


@st.composite
def grid_data(draw, max_n=40, max_d=3):
    """Small integer features and random labels: every sum is exact, and scores of exactly 0
    (classified as -1) happen often, so the fast paths must follow the rules to the letter."""
    n = draw(st.integers(2, max_n))
    d = draw(st.integers(1, max_d))
    seed = draw(seeds)
    rng = np.random.default_rng(seed)
    X = add_bias(rng.integers(-3, 4, size=(n, d)).astype(float))
    y = rng.choice([-1.0, 1.0], size=n)
    return X, y, seed


@settings(max_examples=40, deadline=None)
@given(data=grid_data(), max_updates=st.integers(0, 60), n_runs=st.integers(1, 6))
def test_pocket_and_pocket_runs_equal_the_plain_loop_exactly_even_with_ties(data, max_updates, n_runs):
    X, y, seed = data
    runs = pocket_runs(X, y, n_runs=n_runs, max_updates=max_updates, rng=seed)
    for r in range(n_runs):
        best, last, ein_pla, ein_pocket = pocket_loop(X, y, runs.orders[r], max_updates)
        one = pocket(X, y, max_updates=max_updates, cycle=runs.orders[r])
        for res in (one, (runs.w[r], runs.w_last[r], None, runs.ein_pocket[r], runs.ein_pla[r])):
            np.testing.assert_array_equal(res[0], best)
            np.testing.assert_array_equal(res[1], last)
            np.testing.assert_array_equal(res[3], ein_pocket)
            np.testing.assert_array_equal(res[4], ein_pla)


@settings(max_examples=40, deadline=None)
@given(data=grid_data(), max_updates=st.integers(0, 60), n_runs=st.integers(1, 6))
def test_pla_and_pla_runs_equal_the_plain_loop_exactly_even_with_ties(data, max_updates, n_runs):
    X, y, seed = data
    runs = pla_runs(X, y, n_runs=n_runs, max_updates=max_updates, rng=seed)
    for r in range(n_runs):
        w, updates, halted = pla_loop(X, y, runs.orders[r], max_updates)
        one = pla(X, y, cycle=runs.orders[r], max_updates=max_updates)
        np.testing.assert_array_equal(one.w, w)
        np.testing.assert_array_equal(one.corrected, updates)
        assert one.halted == halted and one.n_updates == len(updates)
        np.testing.assert_array_equal(runs.w[r], w)
        assert runs.n_updates[r] == len(updates) and runs.halted[r] == halted


@settings(max_examples=20, deadline=None)
@given(seed=seeds, n=st.integers(2, 80), d=st.integers(1, 4), n_runs=st.integers(1, 10))
def test_pla_runs_on_separable_data_all_halt_as_pla_does(seed, n, d, n_runs):
    X, y, _ = separable(seed, n, d, 0.05)
    runs = pla_runs(X, y, n_runs=n_runs, rng=seed)
    assert runs.halted.all() and runs.orders.shape == (n_runs, n)
    for r in range(n_runs):
        one = pla(X, y, cycle=runs.orders[r])
        np.testing.assert_array_equal(runs.w[r], one.w)
        assert runs.n_updates[r] == one.n_updates
        assert error_rate(runs.w[r], X, y) == 0.0


def test_runs_in_different_blocks_are_each_one_run():
    """More runs than one block holds: every run still equals its own single run."""
    X, y, _ = cl.make_noisy(30, 2, noise=0.2, rng=3)
    X = add_bias(X)
    runs = pocket_runs(X, y, n_runs=700, max_updates=25, rng=5)
    for r in list(range(0, 700, 37)) + [255, 256, 511, 512, 699]:
        one = pocket(X, y, max_updates=25, cycle=runs.orders[r])
        np.testing.assert_array_equal(runs.w[r], one.w)
        np.testing.assert_array_equal(runs.ein_pla[r], one.ein_pla)


def test_pla_runs_reproducible_and_refuses_bad_input():
    X, y, _ = separable(1, 40, 2, 0.1)
    a, b = pla_runs(X, y, n_runs=4, rng=7), pla_runs(X, y, n_runs=4, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(a.orders, b.orders)
    np.testing.assert_array_equal(a.w, b.w)
    with pytest.raises(ValueError, match="n_runs"):
        pla_runs(X, y, n_runs=0)
    with pytest.raises(ValueError, match="max_updates"):
        pla_runs(X, y, n_runs=2, max_updates=-1)
    with pytest.raises(ValueError, match="eta"):
        pla_runs(X, y, n_runs=2, eta=0)


_HOMEWORK = os.environ.get("COURSE_DATA_DIR")


def homework(name):
    """A course homework file from the reference folder (never downloaded here), or skip saying why."""
    if not _HOMEWORK:
        pytest.skip("COURSE_DATA_DIR is not set; point it at the reference data folder (../shared/data) to run this test")
    try:
        X, y = cl.load_homework(name, data_dir=_HOMEWORK, download=False)
    except FileNotFoundError:
        pytest.skip(f"COURSE_DATA_DIR={_HOMEWORK} holds no ntu_hw1/{name}")
    return add_bias(X), y


@pytest.mark.data
def test_the_homework_runs_equal_plain_runs_on_the_real_files():
    X15, y15 = homework("hw1_15_train.dat")
    runs = pla_runs(X15, y15, n_runs=40, rng=2026)
    assert runs.halted.all()
    for r in range(0, 40, 4):
        w, updates, halted = pla_loop(X15, y15, runs.orders[r])
        np.testing.assert_array_equal(runs.w[r], w)
        assert runs.n_updates[r] == len(updates) and halted
    X18, y18 = homework("hw1_18_train.dat")
    pr = pocket_runs(X18, y18, n_runs=40, max_updates=50, rng=2026)
    for r in range(0, 40, 8):
        best, last, _, ein_pocket = pocket_loop(X18, y18, pr.orders[r], 50)
        np.testing.assert_array_equal(pr.w[r], best)
        np.testing.assert_array_equal(pr.w_last[r], last)
        np.testing.assert_array_equal(pr.ein_pocket[r], ein_pocket)


def test_pocket_on_separable_data_ends_where_pla_ends():
    # Fun Time 4: on separable data both return a perfect w; pocket only costs more.
    X, y, _ = separable(8, 60, 2, 0.1)
    run = pla(X, y)
    res = pocket(X, y, max_updates=run.n_updates + 5, cycle="naive")
    assert res.n_updates == run.n_updates
    np.testing.assert_allclose(res.w, run.w)
    assert res.ein_pocket[-1] == 0.0


def test_pocket_and_pocket_runs_are_reproducible_and_leave_global_state_alone():
    X, y, _ = cl.make_noisy(100, 3, noise=0.1, rng=1)
    X = add_bias(X)
    state = np.random.get_state()[1].copy()
    a = pocket(X, y, max_updates=30, rng=4)
    b = pocket(X, y, max_updates=30, rng=np.random.default_rng(4))
    np.testing.assert_array_equal(a.w, b.w)
    r1 = pocket_runs(X, y, n_runs=5, max_updates=20, rng=9)
    r2 = pocket_runs(X, y, n_runs=5, max_updates=20, rng=np.random.default_rng(9))
    np.testing.assert_array_equal(r1.orders, r2.orders)
    np.testing.assert_array_equal(r1.w, r2.w)
    assert np.array_equal(state, np.random.get_state()[1])
    gen = np.random.default_rng(2)
    before = gen.bit_generator.state
    pocket_runs(X, y, n_runs=2, max_updates=3, rng=gen)
    assert gen.bit_generator.state != before


# --- the NCTU forms: primal with bias, and dual ------------------------------------------------

def bias_form_loop(X, y, eta=1.0):
    """The primal form with a bias, as the NCTU slides write it."""
    R2 = max(float(x @ x) for x in X)
    w, b, k = np.zeros(X.shape[1]), 0.0, 0
    i, clean = 0, 0                      # stop after len(y) examples in a row are right
    while clean < len(y):
        if y[i] * (w @ X[i] + b) <= 0:
            w, b, k, clean = w + eta * y[i] * X[i], b + eta * y[i] * R2, k + 1, 0
        else:
            clean += 1
        i = (i + 1) % len(y)
    return w, b, k


@SETTINGS
@given(seed=seeds, n=st.integers(2, 50), d=st.integers(1, 4), margin=st.floats(0.05, 0.3),
       eta=st.sampled_from([1.0, 0.5, 0.1]))
def test_the_dual_form_makes_the_updates_of_the_primal_form(seed, n, d, margin, eta):
    X, y, _ = cl.make_separable(n, d, margin=margin, rng=seed)
    primal = perceptron_with_bias(X, y, eta=eta)
    dual = perceptron_dual(X, y, eta=eta)
    assert primal.halted and dual.halted
    assert dual.n_updates == primal.n_updates
    assert dual.alpha.sum() == pytest.approx(eta * dual.n_updates)
    assert np.all(dual.alpha >= 0)
    np.testing.assert_allclose((dual.alpha * y) @ X, primal.w, atol=1e-9)
    assert dual.b == pytest.approx(primal.b)
    np.testing.assert_allclose(dual.gram, X @ X.T)
    assert np.all(y * (X @ primal.w + primal.b) > 0)


@SETTINGS
@given(seed=seeds, n=st.integers(2, 50), d=st.integers(1, 4), margin=st.floats(0.05, 0.3))
def test_the_bias_form_halts_within_its_novikoff_bound(seed, n, d, margin):
    X, y, w_f = cl.make_separable(n, d, margin=margin, rng=seed)
    res = perceptron_with_bias(X, y)
    assert res.halted
    # (2R / gamma)^2 with R = max ||x_i|| and gamma the margin of the unit-normal target
    R = max(math.sqrt(float(x @ x)) for x in X)
    gamma = min(t * (w_f[1:] @ x + w_f[0]) for x, t in zip(X, y, strict=True)) / np.linalg.norm(w_f[1:])
    assert gamma >= margin * (1 - 1e-9)
    assert res.n_updates <= (2 * R / gamma) ** 2 * (1 + 1e-9)
    assert res.n_updates <= cl.bias_form_bound(X, y, w_f[1:], w_f[0]) * (1 + 1e-9)
    w, b, k = bias_form_loop(X, y)
    assert k == res.n_updates
    np.testing.assert_allclose(res.w, w)
    assert res.b == pytest.approx(b)


def test_the_bias_form_stops_at_max_updates():
    X = np.array([[0.0], [1.0], [2.0]])
    y = [1, -1, 1]
    res = perceptron_with_bias(X, y, max_updates=7)
    dual = perceptron_dual(X, y, max_updates=7)
    assert res.n_updates == dual.n_updates == 7
    assert not res.halted and not dual.halted


# --- bad input -----------------------------------------------------------------------------

GOOD_X = add_bias([[0.5, 0.5], [-0.5, -0.5]])
GOOD_Y = [1.0, -1.0]


@pytest.mark.parametrize("call, match", [
    (lambda: pla(GOOD_X[:, :, None], GOOD_Y), "X must be a 2-D array"),
    (lambda: pla(GOOD_X, [1, 0]), r"y must contain only the labels \+1 and -1"),
    (lambda: pla(GOOD_X, [1, 2]), r"y\[1\] is 2.0"),
    (lambda: pla(GOOD_X, [1, -1, 1]), "same number of examples"),
    (lambda: pla(np.empty((0, 3)), []), "X must have at least 1 row"),
    (lambda: pla([[1.0, np.nan, 0.0], [1.0, 0.0, 0.0]], GOOD_Y), "X contains NaN or infinity"),
    (lambda: pla([[1.0, np.inf, 0.0], [1.0, 0.0, 0.0]], GOOD_Y), "X contains NaN or infinity"),
    (lambda: pla(GOOD_X, [1.0, np.nan]), "y contains NaN"),
    (lambda: pla(GOOD_X, GOOD_Y, cycle="shuffled"), "cycle must be one of"),
    (lambda: pla(GOOD_X, GOOD_Y, cycle=[0, 0]), r"cycle must be .* a permutation of range\(2\)"),
    (lambda: pla(GOOD_X, GOOD_Y, cycle=[0.0, 1.0]), "cycle must be"),
    (lambda: pla(GOOD_X, GOOD_Y, eta=0), "eta must be > 0"),
    (lambda: pla(GOOD_X, GOOD_Y, eta="1"), "eta must be a finite number"),
    (lambda: pla(GOOD_X, GOOD_Y, max_updates=-1), "max_updates must be at least 0"),
    (lambda: pla(GOOD_X, GOOD_Y, max_updates=2.5), "max_updates must be an integer"),
    (lambda: pla(GOOD_X, GOOD_Y, w0=[0.0, 0.0]), "w0 has 2 entries but X has 3 columns"),
    (lambda: predict([0.0, 1.0], GOOD_X), "w has 2 entries but X has 3 columns"),
    (lambda: predict([[0.0, 1.0, 1.0]], GOOD_X), "w must be a 1-D array"),
    (lambda: predict([0.0, np.nan, 1.0], GOOD_X), "w contains NaN"),
    (lambda: error_rate([0.0, 1.0, 1.0], GOOD_X, [1, -3]), "y must contain only"),
    (lambda: add_bias([1.0, 2.0]), "X must be a 2-D array"),
    (lambda: pocket(GOOD_X, GOOD_Y), None),
    (lambda: pocket(GOOD_X, GOOD_Y, max_updates=-2), "max_updates must be at least 0"),
    (lambda: pocket(GOOD_X, GOOD_Y, max_updates=5, cycle="sorted"), "cycle must be one of"),
    (lambda: pocket(GOOD_X, GOOD_Y, max_updates=5, w0=[1.0]), "w0 has 1 entries"),
    (lambda: pocket_runs(GOOD_X, GOOD_Y, n_runs=0, max_updates=5), "n_runs must be at least 1"),
    (lambda: pocket_runs(GOOD_X, GOOD_Y, n_runs=True, max_updates=5), "n_runs must be an integer"),
    (lambda: perceptron_with_bias([[1.0], [2.0]], [1, 0]), "y must contain only"),
    (lambda: perceptron_with_bias([[1.0], [2.0]], [1, -1], eta=-1.0), "eta must be > 0"),
    (lambda: perceptron_dual([1.0, 2.0], [1, -1]), "X must be a 2-D array"),
    (lambda: perceptron_dual([[1.0], [np.inf]], [1, -1]), "X contains NaN"),
])
def test_bad_input_is_refused_with_a_message_naming_it(call, match):
    if match is None:                                       # a required keyword left out
        with pytest.raises(TypeError, match="max_updates"):
            call()
        return
    with pytest.raises(ValueError, match=match):
        call()


# -- statements of the Lecture 2 notebooks, checked ---------------------------------------

def test_negating_all_weights_swaps_every_answer_but_negating_w1_w2_mirrors_the_line():
    # 02-1 "Try it": -w gives N minus the mistakes of w; (w0, -w1, -w2) does not in general
    X, y, _ = cl.make_separable(40, 2, margin=0.1, rng=np.random.default_rng(21))
    Xb = add_bias(X)
    mistakes = lambda w: int(np.sum(predict(w, Xb) != y))  # noqa: E731
    w = np.array([0.5, 1.0, 1.0])
    assert np.all(Xb @ w != 0)
    assert mistakes(-w) == len(y) - mistakes(w)
    assert mistakes(w * [1, -1, -1]) != len(y) - mistakes(w)
    # the mirrored line: (w0, -w1, -w2) classifies x as w classifies -x
    np.testing.assert_array_equal(predict(w * [1, -1, -1], Xb), predict(w, add_bias(-X)))


def test_pocket_and_pla_agree_on_separable_data_only_with_the_same_order():
    # 02-4, the answer to its first question
    X, y, _ = cl.make_separable(200, 3, margin=0.05, rng=5)
    Xb = add_bias(X)
    for cycle in ["naive", np.random.default_rng(1).permutation(200)]:
        run = pla(Xb, y, cycle=cycle)
        kept = pocket(Xb, y, max_updates=run.n_updates + 50, cycle=cycle)
        np.testing.assert_array_equal(kept.w, run.w)
        assert kept.ein_pocket[-1] == 0
    others = [pocket(Xb, y, max_updates=2_000, cycle="random", rng=s).w for s in range(5)]
    assert all(error_rate(w, Xb, y) == 0 for w in others)
    assert any(not np.allclose(w, pla(Xb, y).w) for w in others)   # another order, another perfect line
