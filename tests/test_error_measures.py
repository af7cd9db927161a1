"""course_lib.error_measures against scikit-learn's metrics, plain loops and the virtual-copy argument."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import course_lib as cl
from course_lib import error_measures as E


def test_pointwise_errors_average_to_scikit_learns_metrics():
    from sklearn.metrics import mean_squared_error, zero_one_loss

    rng = np.random.default_rng(0)
    y = np.where(rng.random(200) < 0.5, 1.0, -1.0)
    h = np.where(rng.random(200) < 0.3, -y, y)
    assert E.pointwise_error(h, y).mean() == pytest.approx(zero_one_loss(y, h))
    r, t = rng.normal(size=50), rng.normal(size=50)
    assert E.pointwise_error(r, t, measure="squared").mean() == pytest.approx(mean_squared_error(t, r))


def test_weighted_error_counts_false_accepts_and_false_rejects_by_their_costs():
    rng = np.random.default_rng(1)
    y = np.where(rng.random(300) < 0.5, 1.0, -1.0)
    h = np.where(rng.random(300) < 0.2, -y, y)
    false_reject = np.sum((y > 0) & (h < 0))
    false_accept = np.sum((y < 0) & (h > 0))
    assert cl.weighted_error(h, y, cost="supermarket") == pytest.approx((10 * false_reject + false_accept) / 300)
    assert cl.weighted_error(h, y, cost="cia") == pytest.approx((false_reject + 1000 * false_accept) / 300)
    weights = E.example_weights(y, cost="cia")
    assert cl.weighted_error(h, y, cost="cia") == pytest.approx(np.mean(weights * (h != y)))
    assert cl.weighted_error(h, y, cost=[[0, 1], [1, 0]]) == pytest.approx(np.mean(h != y))


def test_ideal_mini_targets_of_lins_lecture():
    # P(y = 1 | x) = 0.2, P(y = 2 | x) = 0.7, P(y = 3 | x) = 0.1: 0/1 error -> 2, squared error -> 1.9
    assert E.ideal_mini_target([1, 2, 3], [0.2, 0.7, 0.1]) == 2.0
    assert E.ideal_mini_target([1, 2, 3], [0.2, 0.7, 0.1], measure="squared") == pytest.approx(1.9)
    values = np.linspace(0, 4, 4001)
    expected_sq = [np.dot([0.2, 0.7, 0.1], (np.array([1, 2, 3]) - v) ** 2) for v in values]
    assert values[int(np.argmin(expected_sq))] == pytest.approx(1.9)


def noisy_data(seed, n=30):
    rng = np.random.default_rng(seed)
    X = cl.add_bias(rng.uniform(-1, 1, size=(n, 2)))
    y = np.where(X @ [0.1, 1.0, -0.5] > 0, 1.0, -1.0)
    y[rng.random(n) < 0.15] *= -1
    return X, y, rng


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 60))
def test_weighted_pocket_is_pocket_on_the_virtual_copies(seed, max_updates):
    X, y, rng = noisy_data(seed)
    weights = rng.integers(1, 6, size=len(y))
    copies = np.repeat(np.arange(len(y)), weights)
    order = rng.permutation(len(copies))
    mine = cl.weighted_pocket(X, y, weights=weights, max_updates=max_updates, cycle=copies[order])
    theirs = cl.pocket(X[copies], y[copies], max_updates=max_updates, cycle=order)
    np.testing.assert_array_equal(mine.w, theirs.w)
    np.testing.assert_array_equal(mine.w_last, theirs.w_last)
    assert mine.n_updates == theirs.n_updates
    np.testing.assert_allclose(mine.ein_pocket * len(y) / weights.sum(), theirs.ein_pocket, atol=1e-12)


def plain_weighted_pocket(X, y, weights, max_updates, cycle):
    """The algorithm written plainly: walk the cycle one entry at a time, recount the weighted errors after each update."""
    w = np.zeros(X.shape[1])

    def cost(v):
        return sum(wt for x, t, wt in zip(X, y, weights, strict=True) if (1.0 if x @ v > 0 else -1.0) != t)
    best, best_cost, pos = w.copy(), cost(w), 0
    for _ in range(max_updates):
        for k in range(len(cycle)):
            i = cycle[(pos + k) % len(cycle)]
            if (1.0 if X[i] @ w > 0 else -1.0) != y[i]:
                break
        else:
            break
        w, pos = w + y[i] * X[i], (pos + k + 1) % len(cycle)
        if cost(w) < best_cost:
            best, best_cost = w.copy(), cost(w)
    return best


def test_weighted_pocket_with_real_weights_matches_a_plain_loop():
    for seed in range(5):
        X, y, rng = noisy_data(seed, n=25)
        weights = rng.uniform(0.1, 5.0, size=25)
        cycle = rng.permutation(np.concatenate([np.arange(25), rng.integers(0, 25, size=10)]))
        got = cl.weighted_pocket(X, y, weights=weights, max_updates=40, cycle=cycle)
        np.testing.assert_array_equal(got.w, plain_weighted_pocket(X, y, weights, 40, cycle))
        assert np.all(np.diff(got.ein_pocket) <= 0)


def test_costs_change_what_the_pocket_keeps():
    X, y, rng = noisy_data(3, n=80)
    weights = E.example_weights(y, cost="cia")
    weighted = cl.weighted_pocket(X, y, weights=weights, max_updates=300, rng=4)
    plain = cl.pocket(X, y, max_updates=300, rng=4)
    accepts = lambda w: int(np.sum((y < 0) & (X @ w > 0)))  # noqa: E731
    assert accepts(weighted.w) < accepts(plain.w)
    assert cl.weighted_error(np.where(X @ weighted.w > 0, 1, -1), y, cost="cia") < \
        cl.weighted_error(np.where(X @ plain.w > 0, 1, -1), y, cost="cia")
    again = cl.weighted_pocket(X, y, weights=weights, max_updates=300, rng=4)
    assert np.array_equal(again.w, weighted.w) and np.array_equal(again.cycle, weighted.cycle)


def test_bad_input_is_named():
    X, y, _ = noisy_data(0, n=5)
    with pytest.raises(ValueError, match="weights must all be > 0"):
        cl.weighted_pocket(X, y, weights=[1, 0, 1, 1, 1], max_updates=5)
    with pytest.raises(ValueError, match="whole numbers"):
        cl.weighted_pocket(X, y, weights=[1, 0.5, 1, 1, 1], max_updates=5)
    with pytest.raises(ValueError, match="every example at least once"):
        cl.weighted_pocket(X, y, weights=[1] * 5, max_updates=5, cycle=[0, 1, 2])
    with pytest.raises(ValueError, match="cost must be"):
        cl.weighted_error([1], [1], cost=[[0, -1], [1, 0]])
    with pytest.raises(ValueError, match="measure must be one of"):
        cl.pointwise_error([1], [1], measure="hinge")
    with pytest.raises(ValueError, match="add up to 1"):
        E.ideal_mini_target([1, 2], [0.5, 0.6])
