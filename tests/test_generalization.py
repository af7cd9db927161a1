"""course_lib.generalization against independent references.

The exact counts are compared with a brute force over all 2^N labelings that decides each
one with SciPy's linear-programming solver (HiGHS): separable labelings are those with a
feasible (w0, w) such that y_n (w0 + w^T x_n) >= 1. Point sets are drawn on small integer
grids, so that collinear, coplanar and repeated points are common and the LP decides on
integers, where it is exact in practice. Closed forms, the book's and Lin's figures, and
Hypothesis properties do the rest.
"""
import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import course_lib as cl
from course_lib import generalization as G


def lp_separable(X, y):
    """A perceptron with bias realises y on X: the LP y_n (w0 + w^T x_n) >= 1 is feasible."""
    Z = np.column_stack([np.ones(len(X)), np.asarray(X, dtype=float)])
    res = linprog(np.zeros(Z.shape[1]), A_ub=-(np.asarray(y, dtype=float)[:, None] * Z), b_ub=-np.ones(len(y)),
                  bounds=[(None, None)] * Z.shape[1], method="highs")
    assert res.status in (0, 2), res.message
    return res.status == 0


def lp_in_hull(P, q):
    """q lies in the convex hull of the rows of P: lambda >= 0, sum lambda = 1, P^T lambda = q is feasible."""
    if len(P) == 0:
        return False
    A = np.vstack([np.asarray(P, dtype=float).T, np.ones(len(P))])
    res = linprog(np.zeros(len(P)), A_eq=A, b_eq=np.append(np.asarray(q, dtype=float), 1.0),
                  bounds=[(0, None)] * len(P), method="highs")
    return res.status == 0


def brute_force(X, realised):
    """The labelings (rows of all_labelings) for which ``realised(X, y)`` holds."""
    return [tuple(y) for y in G.all_labelings(len(X)) if realised(X, y)]


def convex_realised(X, y):
    X = np.asarray(X, dtype=float)
    return not any(lp_in_hull(X[y > 0], X[n]) for n in np.flatnonzero(y < 0))


def grid_points(draw, n_max, d_max, span=2):
    d = draw(st.integers(1, d_max))
    n = draw(st.integers(1, n_max))
    coords = draw(st.lists(st.lists(st.integers(-span, span), min_size=d, max_size=d), min_size=n, max_size=n))
    return np.array(coords, dtype=float)


@st.composite
def small_point_sets(draw):
    return grid_points(draw, 6, 3)


# -- perceptrons: the exact count against the LP over every labeling ------------------------------

@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_point_sets())
def test_perceptron_dichotomies_are_the_lp_separable_labelings(X):
    want = brute_force(X, lp_separable)
    got = [tuple(row) for row in cl.dichotomies(X)]
    assert got == want, f"X = {X.tolist()}"


@pytest.mark.parametrize("d, n, seed", [(1, 5, 0), (2, 7, 1), (2, 8, 2), (3, 7, 3), (4, 7, 4)])
def test_points_in_general_position_give_covers_count(d, n, seed):
    X = np.random.default_rng(seed).uniform(-1, 1, size=(n, d))
    count = cl.count_dichotomies(X)
    assert count == len(brute_force(X, lp_separable))
    assert count == 2 * sum(math.comb(n - 1, i) for i in range(d + 1))       # Cover (1965)
    assert count == cl.growth_function("perceptron", n, dimension=d)


def test_the_lecture_examples():
    square = [[0, 0], [1, 0], [0, 1], [1, 1]]
    assert cl.count_dichotomies(square) == 14                      # all but the two XOR labelings
    assert cl.count_dichotomies([[0, 0], [1, 1], [2, 2]]) == 6      # collinear: +-+ and -+- are missing
    assert cl.count_dichotomies([[0, 0], [0, 0], [1, 1]]) == 4      # a repeated point takes one label
    assert cl.count_dichotomies([[0.5, 0.5]] * 5) == 2
    assert cl.is_shattered([[0, 0], [1, 0], [0, 1]]) and not cl.is_shattered(square)
    # floats that are collinear only in exact arithmetic: 0.1, 0.2, 0.3 are not; 0.25, 0.5, 0.75 are
    assert cl.count_dichotomies([[0.25, 0.25], [0.5, 0.5], [0.75, 0.75]]) == 6
    from fractions import Fraction
    X = np.array([[0.1, 0.3], [0.2, 0.6], [0.3, 0.9]])
    (a, b), (c, d), (e, f) = ([Fraction(v) for v in row] for row in X)
    collinear = (c - a) * (f - b) == (d - b) * (e - a)                   # in the floats' exact values
    assert cl.count_dichotomies(X) == (6 if collinear else 8)


def test_points_in_a_lower_dimensional_flat_count_as_in_that_flat():
    rng = np.random.default_rng(5)
    plane = rng.integers(-1000, 1000, size=(6, 2)).astype(float)        # integers: the embedding below is exact
    basis = np.array([[1.0, 2.0, -1.0, 5.0], [0.0, 1.0, 3.0, -2.0]])
    embedded = plane @ basis + np.array([3.0, -5.0, 1.0, 2.0])          # the same affine picture in R^4
    assert cl.count_dichotomies(embedded) == cl.count_dichotomies(plane) == 6**2 - 6 + 2
    line = np.outer(rng.integers(-50, 50, size=5), [1.0, -2.0, 3.0])    # five points on a line of R^3
    assert cl.count_dichotomies(line) == 2 * len(np.unique(line[:, 0]))


def test_d_plus_1_points_are_shattered_and_the_lecture_s_set_realises_every_labeling():
    for d in range(1, 6):
        X = G.shattered_set(d)
        assert cl.is_shattered(X)
        Z = np.column_stack([np.ones(d + 1), X])
        for y in G.all_labelings(d + 1):
            w = np.linalg.solve(Z, y)                                  # the lecture's construction
            assert np.array_equal(np.where(Z @ w > 0, 1, -1), y)


@st.composite
def d_plus_2_points(draw):
    d = draw(st.integers(1, 3))
    n = draw(st.integers(d + 2, d + 3))
    coords = draw(st.lists(st.lists(st.integers(-3, 3), min_size=d, max_size=d), min_size=n, max_size=n))
    return np.array(coords, dtype=float)


@settings(max_examples=40, deadline=None)
@given(d_plus_2_points())
def test_no_d_plus_2_points_of_r_d_are_ever_shattered(X):
    assert not cl.is_shattered(X)
    y = G.unrealisable_labeling(X)
    assert not lp_separable(X, y), f"the proof's labeling {y.tolist()} of {X.tolist()} is separable"
    assert not (cl.dichotomies(X) == y).all(axis=1).any()


# -- rays, intervals and convex sets --------------------------------------------------------------

def ray_or_interval_labelings(x, model):
    """Every labeling h gives, from the hypotheses' definitions with ends at midpoints and beyond."""
    u = np.unique(x)
    cuts = np.concatenate([[u[0] - 1], (u[:-1] + u[1:]) / 2, [u[-1] + 1]])
    out = set()
    if model == "positive_ray":
        for a in cuts:
            out.add(tuple(np.where(x > a, 1, -1)))
    else:
        out.add(tuple(-np.ones(len(x), dtype=int)))
        for lo, hi in itertools.combinations(cuts, 2):
            out.add(tuple(np.where((x > lo) & (x < hi), 1, -1)))
    return sorted(out)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-4, 4), min_size=1, max_size=9), st.sampled_from(["positive_ray", "positive_interval"]))
def test_rays_and_intervals_against_their_definitions(values, model):
    x = np.array(values, dtype=float)
    got = [tuple(r) for r in cl.dichotomies(x, model=model)]
    assert got == ray_or_interval_labelings(x, model)
    distinct = len(np.unique(x))
    assert len(got) == cl.growth_function(model, distinct) <= cl.growth_function(model, len(x))


def test_convex_sets_against_the_lp_hull_test():
    rng = np.random.default_rng(6)
    for X in (rng.integers(-2, 3, size=(6, 2)).astype(float), rng.uniform(-1, 1, size=(6, 2)),
              np.array([[0, 0], [1, 1], [2, 2], [1, 1], [0, 2]], dtype=float)):
        assert [tuple(r) for r in cl.dichotomies(X, model="convex_set")] == brute_force(X, convex_realised)
    angles = rng.uniform(0, 2 * np.pi, 9)
    circle = np.column_stack([np.cos(angles), np.sin(angles)])
    assert cl.count_dichotomies(circle, model="convex_set") == 2**9 == cl.growth_function("convex_set", 9)


# -- growth functions -------------------------------------------------------------------------------

def test_closed_forms():
    for N in range(1, 30):
        assert cl.growth_function("positive_ray", N) == N + 1
        assert cl.growth_function("positive_interval", N) == N * (N + 1) // 2 + 1
        assert cl.growth_function("convex_set", N) == 2**N
        assert cl.growth_function("perceptron_2d", N) == N * N - N + 2
        assert cl.growth_function("perceptron", N, dimension=2) == N * N - N + 2


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["positive_ray", "positive_interval", "convex_set", "perceptron_2d"]), st.integers(1, 60))
def test_growth_functions_are_at_most_2_to_the_n_and_never_decrease(model, N):
    m = cl.growth_function(model, N)
    assert 1 <= m <= 2**N
    assert cl.growth_function(model, N + 1) >= m


def test_random_point_sets_reach_the_growth_function_and_degenerate_ones_do_not_exceed_it():
    rng = np.random.default_rng(7)
    for N in range(1, 9):
        counts = [cl.count_dichotomies(rng.uniform(-1, 1, size=(N, 2))) for _ in range(5)]
        assert max(counts) == min(counts) == cl.growth_function("perceptron_2d", N)
        grid = [cl.count_dichotomies(rng.integers(0, 3, size=(N, 2))) for _ in range(5)]
        assert max(grid) <= cl.growth_function("perceptron_2d", N)


# -- B(N, k) ------------------------------------------------------------------------------------------

def test_bounding_function_is_the_sum_of_binomials_and_the_table_agrees():
    table = G.bounding_function_table(40, 12)
    for N in range(41):
        for k in range(1, 13):
            want = sum(math.comb(N, i) for i in range(k))
            assert cl.bounding_function(N, k) == table[N, k] == want
    assert cl.bounding_function(1000, 5) == sum(math.comb(1000, i) for i in range(5))


@pytest.mark.parametrize("N", [1, 2, 3, 4])
def test_bounding_function_against_every_set_of_dichotomies(N):
    for k in range(1, N + 2):
        assert G.bounding_function_brute_force(N, k) == cl.bounding_function(N, k)


def shatters(family, subset):
    return len({tuple(row[list(subset)]) for row in family}) == 2 ** len(subset)


@pytest.mark.parametrize("N, k", [(4, 2), (5, 3), (6, 3), (6, 4)])
def test_the_largest_family_has_b_n_k_rows_and_shatters_no_k_points(N, k):
    family = G.largest_family(N, k)
    assert len(family) == len({tuple(r) for r in family}) == cl.bounding_function(N, k)
    assert not any(shatters(family, s) for s in itertools.combinations(range(N), k))
    assert any(shatters(family, s) for s in itertools.combinations(range(N), k - 1)) or k == 1


def test_break_points_bound_the_growth_functions():
    for model, k in [("positive_ray", 2), ("positive_interval", 3), ("perceptron_2d", 4)]:
        assert cl.growth_function(model, k) < 2**k and cl.growth_function(model, k - 1) == 2 ** (k - 1)
        for N in range(1, 40):
            assert cl.growth_function(model, N) <= cl.bounding_function(N, k)
    # for positive rays and intervals the bound is reached
    assert all(cl.growth_function("positive_interval", N) == cl.bounding_function(N, 3) for N in range(1, 30))


# -- sample sizes and bounds ----------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.integers(1, 10**12), st.floats(0.01, 0.5), st.floats(0.001, 0.5))
def test_hoeffding_sample_size_is_the_least_n(M, epsilon, delta):
    N = cl.hoeffding_sample_size(M, epsilon=epsilon, delta=delta)

    def bound(n):
        return 2 * M * math.exp(-2 * epsilon**2 * n)
    assert bound(N) <= delta * (1 + 1e-12)
    assert N == 1 or bound(N - 1) > delta * (1 - 1e-12)


def test_hoeffding_sample_size_agrees_with_the_single_bin_version():
    for M in (1, 10, 1000):
        assert cl.hoeffding_sample_size(M, epsilon=0.05, delta=0.03) == cl.hoeffding.sample_size(0.05, 0.03, n_hypotheses=M)


def test_vc_bound_formula_and_the_book_s_examples():
    for N, d, delta in [(100, 1, 0.1), (1000, 1, 0.1), (10_000, 3, 0.05), (37, 7, 0.2)]:
        assert cl.vc_bound(N, d_vc=d, delta=delta) == pytest.approx(math.sqrt(8 / N * math.log(4 * (2 * N) ** d / delta)))
    # Learning From Data, Example 2.7: E_in + 0.848 for N = 100 and + 0.301 for N = 1000 (d_vc = 1, delta = 0.1)
    assert round(cl.vc_bound(100, d_vc=1, delta=0.1), 3) == 0.848
    assert round(cl.vc_bound(1000, d_vc=1, delta=0.1), 3) == 0.301
    np.testing.assert_allclose(cl.vc_bound(np.array([100, 1000]), d_vc=1, delta=0.1),
                               [cl.vc_bound(100, d_vc=1, delta=0.1), cl.vc_bound(1000, d_vc=1, delta=0.1)])


def test_vc_delta_reproduces_lins_table():
    # Machine Learning Foundations, Lecture 7: eps = delta = 0.1, d_vc = 3
    for N, shown in [(100, "2.82e+07"), (1000, "9.17e+09"), (10_000, "1.19e+08"), (100_000, "1.65e-38"),
                     (29_300, "0.0999")]:
        assert f"{G.vc_delta(N, d_vc=3, epsilon=0.1):.3g}" == shown


def satisfies(N, d, eps, delta):
    return N >= 8 / eps**2 * (math.log(4 * (2 * N) ** d) - math.log(delta))     # math.log takes big integers


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 60), st.floats(0.01, 1.0), st.floats(1e-6, 0.5))
def test_vc_sample_size_is_the_least_integer_satisfying_the_inequality(d, eps, delta):
    N = cl.vc_sample_size(d_vc=d, epsilon=eps, delta=delta)
    assert satisfies(N, d, eps, delta)
    assert not satisfies(N - 1, d, eps, delta)
    assert cl.vc_bound(N, d_vc=d, delta=delta) <= eps


def test_vc_sample_size_at_the_book_s_settings():
    # Example 2.6 (eps = delta = 0.1): "about 30,000" for d_vc = 3, 40,000 for 4, 50,000 for 5; Lin: N = 29,300
    assert cl.vc_sample_size(d_vc=3, epsilon=0.1, delta=0.1) == 29_300
    assert [round(cl.vc_sample_size(d_vc=d, epsilon=0.1, delta=0.1), -4) for d in (3, 4, 5)] == [30_000, 40_000, 50_000]
    # the book's own iteration N <- 8/eps^2 ln(4((2N)^3 + 1)/delta) from N = 1000 settles on the same integer
    N = 1000.0
    for _ in range(100):
        N = 800 * math.log(4 * ((2 * N) ** 3 + 1) / 0.1)
    assert math.ceil(N) == 29_300
    # the Caltech homework's d_vc = 10, eps = delta = 0.05: about 460,000
    assert cl.vc_sample_size(d_vc=10, epsilon=0.05, delta=0.05) == 452_957


def test_generalization_bounds_solve_their_implicit_inequalities():
    for N in (5, 50, 500, 10_000):
        for d, delta in [(50, 0.05), (3, 0.1)]:
            b = cl.generalization_bounds(N, d_vc=d, delta=delta)
            eps = b["parrondo_van_den_broek"]
            assert eps == pytest.approx(math.sqrt((2 * eps + math.log(6 * (2 * N) ** d) - math.log(delta)) / N),
                                        rel=1e-12)
            eps = b["devroye"]
            log_m = math.log(4 * N ** (2 * d)) - math.log(delta)
            assert eps == pytest.approx(math.sqrt((4 * eps * (1 + eps) + log_m) / (2 * N)), rel=1e-12)
            assert b["vc"] == pytest.approx(cl.vc_bound(N, d_vc=d, delta=delta))
            assert b["rademacher"] == pytest.approx(math.sqrt(2 * math.log(2 * N * N**d) / N)
                                                    + math.sqrt(2 / N * math.log(1 / delta)) + 1 / N)
    assert cl.generalization_bounds(2, d_vc=3, delta=0.1)["devroye"] == math.inf


def test_which_bound_is_smallest_in_the_homework():
    large = cl.generalization_bounds(10_000, d_vc=50, delta=0.05)
    small = cl.generalization_bounds(5, d_vc=50, delta=0.05)
    assert min(large, key=large.get) == "devroye"
    assert min(small, key=small.get) == "parrondo_van_den_broek"
    curves = cl.generalization_bounds(np.array([5, 10_000]), d_vc=50, delta=0.05)
    assert curves["devroye"][1] == pytest.approx(large["devroye"]) and curves["vc"][0] == pytest.approx(small["vc"])


def test_the_pocket_gap_is_far_below_the_vc_bound():
    gap = G.pocket_generalization_gap([50, 400], n_runs=8, n_test=5_000, rng=8)
    assert gap.vc_dimension == 3
    assert np.all(gap.e_out >= 0.1 - 1e-12)                          # the flipped labels alone cost 0.1
    mean_gap = np.abs(gap.e_out - gap.e_in).mean(axis=0)
    assert np.all(mean_gap < 0.2)
    assert np.all(mean_gap < np.array([cl.vc_bound(50, d_vc=3, delta=0.1), cl.vc_bound(400, d_vc=3, delta=0.1)]) / 4)


# -- bad input ------------------------------------------------------------------------------------

def test_bad_input_is_named():
    with pytest.raises(ValueError, match="model must be one of"):
        cl.count_dichotomies([[0, 0]], model="lines")
    with pytest.raises(ValueError, match="X contains NaN"):
        cl.count_dichotomies([[0, np.nan]])
    with pytest.raises(ValueError, match="convex_set.*2 columns"):
        cl.count_dichotomies([[0, 0, 0]], model="convex_set")
    with pytest.raises(ValueError, match="N must be at least 1"):
        cl.growth_function("positive_ray", 0)
    with pytest.raises(ValueError, match="dimension"):
        cl.growth_function("perceptron", 5)
    with pytest.raises(ValueError, match="k must be at least 1"):
        cl.bounding_function(3, 0)
    with pytest.raises(ValueError, match="delta must be"):
        cl.vc_bound(10, d_vc=2, delta=1.5)
    with pytest.raises(ValueError, match="epsilon must be"):
        cl.vc_sample_size(d_vc=2, epsilon=0.0, delta=0.1)
    with pytest.raises(ValueError, match="M must be an integer"):
        cl.hoeffding_sample_size(2.5, epsilon=0.1, delta=0.1)
    with pytest.raises(ValueError, match="N must be"):
        cl.generalization_bounds(0, d_vc=2, delta=0.1)
    with pytest.raises(ValueError, match="at least d \\+ 2"):
        G.unrealisable_labeling([[0, 0], [1, 1], [2, 3]])
