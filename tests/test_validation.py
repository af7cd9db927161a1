"""course_lib.validation against brute-force refits, scikit-learn's LeaveOneOut, KFold, cross_val_score and
train_test_split, a closed form (three points), and Hypothesis properties."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.polynomial import legendre as npleg
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.model_selection import KFold, LeaveOneOut, cross_val_score, train_test_split

import course_lib as cl
from course_lib.validation import (
    cross_validation_error,
    fold_indices,
    leave_one_out_error,
    validation_experiment,
    validation_split,
)

seeds = st.integers(0, 2**32 - 1)


def problem(seed, n=20, d=4):
    rng = np.random.default_rng(seed)
    Z = np.column_stack([np.ones(n), rng.uniform(-1, 1, size=(n, d - 1))])
    return Z, Z @ rng.normal(size=d) + 0.5 * rng.normal(size=n)


def refits(Z, y, lam):
    """Leave-one-out by N explicit refits."""
    errors = []
    for n in range(len(y)):
        keep = np.arange(len(y)) != n
        w = cl.linear_regression(Z[keep], y[keep], weight_decay=lam)
        errors.append((Z[n] @ w - y[n]) ** 2)
    return float(np.mean(errors))


# --- validation_split ------------------------------------------------------------------------------

def test_without_rng_the_validation_set_is_the_last_k_examples_in_order():
    X, y = np.arange(70.0).reshape(35, 2), np.arange(35.0)
    X_train, y_train, X_val, y_val = validation_split(X, y, size=10)
    ref = train_test_split(X, y, test_size=10, shuffle=False)
    for mine, theirs in zip((X_train, X_val, y_train, y_val), ref, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    assert y_train.tolist() == list(range(25)) and y_val.tolist() == list(range(25, 35))
    assert len(validation_split(X, y, size=0.2).y_val) == 7


def test_with_rng_the_validation_set_is_a_random_subset_and_nothing_is_lost():
    X, y = np.arange(70.0).reshape(35, 2), np.arange(35.0)
    a = validation_split(X, y, size=10, rng=3)
    assert np.array_equal(a.y_val, validation_split(X, y, size=10, rng=3).y_val)
    assert not np.array_equal(a.y_val, validation_split(X, y, size=10, rng=4).y_val)
    assert sorted(a.y_train.tolist() + a.y_val.tolist()) == list(range(35))
    assert np.all(np.diff(a.y_val) > 0) and np.all(np.diff(a.y_train) > 0)     # each part keeps the given order
    np.testing.assert_array_equal(a.X_val[:, 0], 2 * a.y_val)


@pytest.mark.parametrize("size", [0, 35, 1.0, -0.5, 2.5])
def test_a_split_must_leave_examples_on_both_sides(size):
    with pytest.raises(ValueError, match="size"):
        validation_split(np.zeros((35, 2)), np.zeros(35), size=size)


# --- leave_one_out_error -----------------------------------------------------------------------------

@pytest.mark.parametrize("lam", [0.0, 0.01, 1.0, 50.0])
def test_leave_one_out_equals_n_refits_and_scikit_learn(lam):
    Z, y = problem(1)
    e = leave_one_out_error(Z, y, weight_decay=lam)
    assert e == pytest.approx(refits(Z, y, lam), rel=1e-9)
    model = LinearRegression(fit_intercept=False) if lam == 0 else Ridge(alpha=lam, fit_intercept=False)
    scores = cross_val_score(model, Z, y, cv=LeaveOneOut(), scoring="neg_mean_squared_error")
    assert e == pytest.approx(-scores.mean(), rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(3, 25), d=st.integers(1, 5), lam=st.floats(0.0, 100.0))
def test_leave_one_out_equals_refits_for_every_lambda(seed, n, d, lam):
    rng = np.random.default_rng(seed)
    Z = np.column_stack([np.ones(n), rng.normal(size=(n, d - 1))])
    y = rng.normal(size=n)
    if lam == 0.0 and n <= d + 1:           # too few examples: some leave-one-out fit is not unique
        lam = 0.5
    try:
        e = leave_one_out_error(Z, y, weight_decay=lam)
    except ValueError as exc:               # an example of leverage 1: without weight decay, or within rounding
        assert lam < 1e-8 and "leverage" in str(exc)
        return
    assert e == pytest.approx(refits(Z, y, lam), rel=1e-7, abs=1e-10)


def test_an_example_of_leverage_one_is_named():
    Z = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 1.0]])        # only example 2 fixes the slope
    with pytest.raises(ValueError, match="example 2 has leverage H_nn = 1"):
        leave_one_out_error(Z, [0.0, 1.0, 2.0])
    assert leave_one_out_error(Z, [0.0, 1.0, 2.0], weight_decay=0.1) == pytest.approx(refits(Z, np.array([0.0, 1.0, 2.0]),
                                                                                             0.1))


def test_constant_against_line_on_three_points_tie_where_the_algebra_says():
    """Points (-1, 0), (rho, 1), (1, 0): E_loocv is 1/2 for the constant and (4/(1-rho)^2 + 1 + 4/(1+rho)^2)/3 for
    the line; they are equal where 16 (1 + rho^2) = (1 - rho^2)^2, rho^2 = 9 + 4 sqrt 6."""
    rho = np.sqrt(9 + 4 * np.sqrt(6))
    for r in (0.5, 3.0, rho, 6.0):
        x, y = np.array([-1.0, r, 1.0]), np.array([0.0, 1.0, 0.0])
        constant = leave_one_out_error(np.ones((3, 1)), y)
        line = leave_one_out_error(np.column_stack([np.ones(3), x]), y)
        assert constant == pytest.approx(0.5)
        assert line == pytest.approx((4 / (1 - r) ** 2 + 1 + 4 / (1 + r) ** 2) / 3)
    tie = leave_one_out_error(np.column_stack([np.ones(3), [-1.0, rho, 1.0]]), [0.0, 1.0, 0.0])
    assert tie == pytest.approx(0.5, rel=1e-12)


# --- folds and cross-validation ------------------------------------------------------------------------

@pytest.mark.parametrize("n, v", [(10, 2), (23, 5), (35, 10), (7, 7)])
def test_folds_without_rng_are_scikit_learns_kfold(n, v):
    mine = fold_indices(n, v)
    theirs = [test for _, test in KFold(n_splits=v).split(np.zeros(n))]
    assert [f.tolist() for f in mine] == [t.tolist() for t in theirs]


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(2, 60), v=st.integers(2, 60))
def test_shuffled_folds_partition_the_examples_into_nearly_equal_parts(seed, n, v):
    v = min(v, n)
    folds = fold_indices(n, v, rng=seed)
    assert sorted(np.concatenate(folds).tolist()) == list(range(n))
    sizes = [len(f) for f in folds]
    assert max(sizes) - min(sizes) <= 1 and len(folds) == v
    np.testing.assert_array_equal(np.concatenate(folds), np.random.default_rng(seed).permutation(n))


@pytest.mark.parametrize("v", [2, 5, 7])
def test_cross_validation_error_is_scikit_learns_cross_val_score(v):
    Z, y = problem(5, n=35)
    lam = 0.3
    e_cv = cross_validation_error(lambda Zt, yt: cl.linear_regression(Zt, yt, weight_decay=lam), Z, y, folds=v)
    cv = KFold(n_splits=v)
    scores = -cross_val_score(Ridge(alpha=lam, fit_intercept=False), Z, y, cv=cv, scoring="neg_mean_squared_error")
    sizes = [len(test) for _, test in cv.split(Z)]
    assert e_cv == pytest.approx(np.average(scores, weights=sizes), rel=1e-10)


def test_n_folds_is_leave_one_out_and_shuffling_is_a_permutation_first():
    Z, y = problem(6, n=15)
    fit = cl.linear_regression
    assert cross_validation_error(fit, Z, y, folds=15) == pytest.approx(leave_one_out_error(Z, y), rel=1e-10)
    order = np.random.default_rng(8).permutation(15)
    assert cross_validation_error(fit, Z, y, folds=4, rng=8) == pytest.approx(
        cross_validation_error(fit, Z[order], y[order], folds=4), rel=1e-12)


def test_a_fit_may_return_a_predictor_and_errors_may_be_counted():
    Z, y = problem(7, n=30)
    labels = np.where(y > np.median(y), 1.0, -1.0)

    def fit_predictor(Zt, yt):
        w = cl.linear_regression(Zt, yt)
        return lambda Zv: Zv @ w

    by_weights = cross_validation_error(cl.linear_regression, Z, labels, folds=5, error="classification")
    by_predictor = cross_validation_error(fit_predictor, Z, labels, folds=5, error="classification")
    assert by_weights == by_predictor
    mistakes = 0
    for val in fold_indices(30, 5):
        train = np.setdiff1d(np.arange(30), val)
        w = cl.linear_regression(Z[train], labels[train])
        mistakes += int(np.sum(np.where(Z[val] @ w > 0, 1.0, -1.0) != labels[val]))
    assert by_weights == mistakes / 30
    absolute = cross_validation_error(cl.linear_regression, Z, y, folds=5, error=lambda p, t: np.abs(p - t))
    assert absolute < np.sqrt(cross_validation_error(cl.linear_regression, Z, y, folds=5)) + 1e-12


@pytest.mark.parametrize("kwargs, match", [
    (dict(folds=1), "folds must be at least 2"), (dict(folds=31), "folds must be at most"),
    (dict(folds=3, error="absolute"), "error must be one of"),
])
def test_cross_validation_refuses_bad_input(kwargs, match):
    Z, y = problem(0, n=30)
    with pytest.raises(ValueError, match=match):
        cross_validation_error(cl.linear_regression, Z, y, **kwargs)
    with pytest.raises(ValueError, match="fit must be a callable"):
        cross_validation_error([1.0], Z, y, folds=3)


# --- the validation experiment ---------------------------------------------------------------------------

def test_validation_experiment_equals_a_plain_loop():
    n, sizes, degrees, qf, s2, runs = 25, [5, 12], [1, 3, 6], 6, 0.4, 30
    c = validation_experiment(n, sizes, degrees=degrees, target_degree=qf, noise_variance=s2, n_runs=runs, rng=3)
    gen = np.random.default_rng(3)
    q = np.arange(qf + 1)
    a = gen.standard_normal((runs, qf + 1)) / np.sqrt(np.sum(1 / (2 * q + 1)))
    X = gen.uniform(-1, 1, size=(runs, n))
    Y = np.stack([npleg.legval(X[r], a[r]) for r in range(runs)]) + np.sqrt(s2) * gen.standard_normal((runs, n))
    nodes, weights = npleg.leggauss(40)

    def feats(x, d):
        return npleg.legvander(x, d) * np.sqrt(2 * np.arange(d + 1) + 1)

    def e_out(w, r):
        return weights @ (feats(nodes, len(w) - 1) @ w - npleg.legval(nodes, a[r])) ** 2 / 2 + s2

    for i, k in enumerate(sizes):
        picks = []
        for r in range(runs):
            tr, va = slice(0, n - k), slice(n - k, n)
            fits = [np.linalg.lstsq(feats(X[r, tr], d), Y[r, tr], rcond=None)[0] for d in degrees]
            e_val = [np.mean((feats(X[r, va], d) @ w - Y[r, va]) ** 2) for d, w in zip(degrees, fits, strict=True)]
            m = int(np.argmin(e_val))
            full = np.linalg.lstsq(feats(X[r], degrees[m]), Y[r], rcond=None)[0]
            picks.append((e_val[m], e_out(fits[m], r), e_out(full, r), m))
        picks = np.array(picks)
        np.testing.assert_allclose([c.e_val[i], c.e_out_minus[i], c.e_out[i]], picks[:, :3].mean(axis=0), rtol=1e-8)
        assert c.chosen[i].tolist() == np.bincount(picks[:, 3].astype(int), minlength=3).tolist()


def test_snooping_experiment_equals_a_plain_loop_over_data_sets():
    from course_lib.validation import snooping_experiment

    n, d, k, v, sets = 30, 40, 3, 5, 8
    r = snooping_experiment(n, d, n_selected=k, folds=v, n_sets=sets, rng=2)
    gen = np.random.default_rng(2)
    X = gen.standard_normal((sets, n, d))
    y = np.where(gen.random((sets, n)) < 0.5, 1.0, -1.0)

    def top(Xs, ys):
        return np.argsort(-np.abs(Xs.T @ ys), kind="stable")[:k]

    for s in range(sets):
        errors = {"snooped": 0, "honest": 0}
        chosen_once = top(X[s], y[s])
        for val in fold_indices(n, v):
            train = np.setdiff1d(np.arange(n), val)
            for name, cols in (("snooped", chosen_once), ("honest", top(X[s, train], y[s, train]))):
                Z = np.column_stack([np.ones(n), X[s][:, cols]])
                w = np.linalg.lstsq(Z[train], y[s, train], rcond=None)[0]
                errors[name] += int(np.sum(np.where(Z[val] @ w > 0, 1.0, -1.0) != y[s, val]))
        assert r.snooped[s] == errors["snooped"] / n and r.honest[s] == errors["honest"] / n
    # with every feature chosen there is nothing to snoop: both ways agree
    same = snooping_experiment(n, k, n_selected=k, folds=v, n_sets=sets, rng=2)
    np.testing.assert_array_equal(same.snooped, same.honest)
