"""course_lib.theory: Novikoff's proof, recomputed step by step here and checked by the library.

Each property test recomputes every inequality of the proof (Machine Learning Foundations,
Lecture 2) from the PLA trajectory with plain numpy, independently of ``check_novikoff``,
and also asks ``check_novikoff`` for the same verdict.
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import course_lib as cl
from course_lib.theory import bias_form_bound, check_novikoff, margin, novikoff_bound, radius

seeds = st.integers(0, 2**32 - 1)
TOL = 1e-9


def separable(seed, n, d, m):
    X, y, w_f = cl.make_separable(n, d, margin=m, rng=seed)
    return cl.add_bias(X), y, w_f


# --- R and rho against their formulas -------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(seed=seeds, n=st.integers(1, 30), d=st.integers(1, 5))
def test_radius_and_margin_match_their_formulas(seed, n, d):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.choice([-1.0, 1.0], size=n)
    w = rng.normal(size=d)
    assert radius(X) == pytest.approx(max(math.sqrt(sum(v * v for v in x)) for x in X))
    expected = min(t * float(np.dot(w, x)) for x, t in zip(X, y, strict=True)) / math.sqrt(float(np.dot(w, w)))
    assert margin(w, X, y) == pytest.approx(expected)
    assert margin(3.5 * w, X, y) == pytest.approx(expected), "rho must not depend on the length of w_f"


def test_margin_is_the_distance_of_the_closest_point_to_a_line():
    # w_f = (0, 0, 1): the line x2 = 0; the points are 0.4 and 1.5 away from it
    X = cl.add_bias([[3.0, 0.4], [-2.0, -1.5]])
    assert margin([0.0, 0.0, 2.0], X, [1, -1]) == pytest.approx(0.4)
    assert margin([0.0, 0.0, 2.0], X, [-1, -1]) == pytest.approx(-0.4)
    assert novikoff_bound(X, [1, -1], [0.0, 0.0, 1.0]) == pytest.approx((1 + 9 + 0.16) / 0.16)


# --- the proof, step by step ---------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(seed=seeds, n=st.integers(2, 60), d=st.integers(1, 5), m=st.floats(0.05, 0.3),
       cycle=st.sampled_from(["naive", "random"]), eta=st.sampled_from([1.0, 0.3]))
def test_every_inequality_of_the_proof_holds_at_every_step(seed, n, d, m, cycle, eta):
    X, y, w_f = separable(seed, n, d, m)
    run = cl.pla(X, y, cycle=cycle, eta=eta, rng=seed)
    W, T = run.trajectory, run.n_updates

    # the quantities, from their definitions
    min_score = min(y_n * float(w_f @ x_n) for x_n, y_n in zip(X, y, strict=True))   # min_n y_n w_f^T x_n
    max_sq = max(float(x_n @ x_n) for x_n in X)                          # max_n ||x_n||^2
    rho = min_score / np.linalg.norm(w_f)
    R = math.sqrt(max_sq)
    assert min_score > 0, "w_f must separate the data"

    for t in range(T):
        n_t = run.corrected[t]
        w_t, w_next = W[t], W[t + 1]
        assert y[n_t] * (w_t @ X[n_t]) <= 0, f"update {t} corrected a point that was not a mistake"
        # 1. w_f^T w_{t+1} >= w_f^T w_t + min_n y_n w_f^T x_n
        assert w_f @ w_next >= w_f @ w_t + eta * min_score - TOL * (1 + abs(w_f @ w_t))
        # 2. ||w_{t+1}||^2 <= ||w_t||^2 + max_n ||x_n||^2
        assert w_next @ w_next <= w_t @ w_t + eta**2 * max_sq + TOL * (1 + w_t @ w_t)
    for t in range(1, T + 1):
        # 3. the normalised inner product is at least sqrt(t) rho / R (and at most 1)
        cosine = (w_f @ W[t]) / (np.linalg.norm(w_f) * np.linalg.norm(W[t]))
        assert cosine >= math.sqrt(t) * rho / R - TOL
        assert cosine <= 1 + TOL
    # hence T <= R^2 / rho^2
    assert T <= R**2 / rho**2 * (1 + TOL)

    check = check_novikoff(W, run.corrected, X, y, w_f, eta=eta)
    assert check.holds
    assert check.inner_ok and check.norm_ok and check.cosine_ok and check.within_bound
    assert check.bound == pytest.approx(R**2 / rho**2)
    np.testing.assert_allclose(check.inner, W @ w_f / np.linalg.norm(w_f))
    np.testing.assert_allclose(check.norm_sq, np.sum(W**2, axis=1))
    np.testing.assert_allclose(check.cosine_lower, np.sqrt(np.arange(T + 1)) * rho / R)


def test_check_novikoff_catches_a_trajectory_that_breaks_the_proof():
    X, y, w_f = separable(0, 40, 2, 0.1)
    run = cl.pla(X, y)
    assert check_novikoff(run.trajectory, run.corrected, X, y, w_f).holds
    # an "update" that moves away from w_f breaks step 1 and the cosine bound
    bad = run.trajectory.copy()
    bad[1:] -= 2 * np.outer(np.arange(1, len(bad)), w_f)
    check = check_novikoff(bad, run.corrected, X, y, w_f)
    assert not check.inner_ok and not check.holds
    # a step that is far too long breaks step 2
    long = run.trajectory.copy()
    long[-1] *= 50
    assert not check_novikoff(long, run.corrected, X, y, w_f).norm_ok
    # correcting a point that was already right is not a PLA step
    if run.n_updates >= 2:
        right = run.corrected.copy()
        w1 = run.trajectory[1]
        ok = np.flatnonzero(y * (X @ w1) > 0)
        right[1] = ok[0]
        assert not check_novikoff(run.trajectory, right, X, y, w_f).holds


def test_bias_form_bound_matches_its_formula():
    X = np.array([[1.0, 2.0], [-3.0, 0.5], [2.0, -1.0]])
    y = np.array([1.0, -1.0, 1.0])
    w, b = np.array([2.0, 0.0]), 1.0
    R = max(np.linalg.norm(x) for x in X)
    gamma = min(t * (w @ x + b) for x, t in zip(X, y, strict=True)) / np.linalg.norm(w)
    assert bias_form_bound(X, y, w, b) == pytest.approx((2 * R / gamma) ** 2)


# --- bad input -----------------------------------------------------------------------------

X0 = cl.add_bias([[0.5, 0.5], [-0.5, -0.5]])
Y0 = [1.0, -1.0]


@pytest.mark.parametrize("call, match", [
    (lambda: radius([1.0, 2.0]), "X must be a 2-D array"),
    (lambda: radius(np.empty((0, 2))), "X must have at least 1 row"),
    (lambda: radius([[np.nan, 1.0]]), "X contains NaN"),
    (lambda: margin([0.0, 1.0], X0, Y0), "w_f has 2 entries but X has 3 columns"),
    (lambda: margin([0.0, 0.0, 0.0], X0, Y0), "w_f must not be the zero vector"),
    (lambda: margin([0.0, 1.0, 1.0], X0, [1, 0]), "y must contain only"),
    (lambda: novikoff_bound(X0, Y0, [0.0, -1.0, -1.0]), "w_f does not separate the data"),
    (lambda: bias_form_bound([[1.0], [-1.0]], [1, -1], [-1.0], 0.0), r"\(w, b\) does not separate"),
    (lambda: bias_form_bound([[1.0], [-1.0]], [1, -1], [0.0], 0.0), "w must not be the zero vector"),
    (lambda: bias_form_bound([[1.0], [-1.0]], [1, -1], [1.0], np.nan), "b must be a finite number"),
    (lambda: check_novikoff([[1.0, 0.0, 0.0]], [], X0, Y0, [0.0, 1.0, 1.0]), "trajectory\\[0\\] must be the zero vector"),
    (lambda: check_novikoff([[0.0, 0.0]], [], X0, Y0, [0.0, 1.0, 1.0]), "trajectory has 2 columns but X has 3"),
    (lambda: check_novikoff([[0.0, 0.0, 0.0], [1.0, 0.5, 0.5]], [], X0, Y0, [0.0, 1.0, 1.0]), "corrected must hold 1"),
    (lambda: check_novikoff([[0.0, 0.0, 0.0], [1.0, 0.5, 0.5]], [5], X0, Y0, [0.0, 1.0, 1.0]),
     "corrected holds an index outside"),
    (lambda: check_novikoff([[0.0, 0.0, 0.0], [1.0, 0.5, 0.5]], [0.0], X0, Y0, [0.0, 1.0, 1.0]), "corrected must hold 1 integer"),
    (lambda: check_novikoff([[0.0, 0.0, 0.0]], [], X0, Y0, [0.0, 1.0, 1.0], eta=0), "eta must be > 0"),
    (lambda: check_novikoff([[0.0, 0.0, 0.0]], [], X0, Y0, [0.0, -1.0, -1.0]), "w_f does not separate"),
])
def test_bad_input_is_refused_with_a_message_naming_it(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# -- statements of 02-3, checked ---------------------------------------------------------------

def test_the_cosine_and_the_length_of_w_t_can_fall_while_the_bound_rises():
    rng = np.random.default_rng(0)
    cos_falls = norm_falls = 0
    for _ in range(30):
        X, y, w_f = cl.make_separable(200, 2, margin=0.03, rng=rng)
        X = cl.add_bias(X)
        run = cl.pla(X, y, cycle="random", rng=rng)
        check = check_novikoff(run.trajectory, run.corrected, X, y, w_f)
        assert check.holds and np.all(np.diff(check.cosine_lower) > 0)
        # an independent cosine, from the trajectory itself
        W = run.trajectory[1:]
        cosine = W @ w_f / np.linalg.norm(W, axis=1) / np.linalg.norm(w_f)
        cos_falls += bool(np.any(np.diff(cosine) < 0))
        norm_falls += bool(np.any(np.diff(np.sum(run.trajectory**2, axis=1)) < 0))
    assert cos_falls >= 25       # in nearly every run the cosine falls at some step
    assert norm_falls >= 1


def test_rho_in_the_lifted_space_is_the_gap_in_the_plane_over_sqrt_1_plus_w0_squared():
    for seed in range(5):
        X, y, w_f = cl.make_separable(200, 2, margin=0.03, rng=seed)
        assert np.linalg.norm(w_f[1:]) == pytest.approx(1.0)
        gap = np.min(y * (w_f[0] + X @ w_f[1:]))          # distance to the line, since ||(w1, w2)|| = 1
        assert gap >= 0.03 - 1e-12
        assert margin(w_f, cl.add_bias(X), y) == pytest.approx(gap / np.sqrt(1 + w_f[0] ** 2))


def test_a_separating_line_with_unit_normal_has_its_bias_within_r():
    # the condition |b| <= R of the bias form's (2R/gamma)^2 holds whenever both classes are present
    rng = np.random.default_rng(3)
    for _ in range(50):
        X, y, w_f = cl.make_separable(int(rng.integers(5, 100)), int(rng.integers(2, 6)), margin=0.02, rng=rng)
        if len(set(y)) == 2:
            assert abs(w_f[0]) / np.linalg.norm(w_f[1:]) <= np.max(np.linalg.norm(X, axis=1))
