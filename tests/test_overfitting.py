"""course_lib.overfitting against independent references: NumPy's legendre module, Gauss-Legendre
quadrature for every expectation over x, and a plain loop over the runs for the vectorised experiment."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.polynomial import legendre as npleg

import course_lib as cl
from course_lib.overfitting import (
    deterministic_noise,
    legendre_experiment,
    legendre_features,
    legendre_out_of_sample_error,
    legendre_target,
    make_legendre_data,
    overfit_measure,
)

NODES, WEIGHTS = npleg.leggauss(80)          # exact for polynomials of degree <= 159 on [-1, 1]


def expect_x(values):
    """E_x[values(x)] for x uniform on [-1, 1], by Gauss-Legendre quadrature (values at NODES)."""
    return float(WEIGHTS @ values) / 2.0


def standard(x, degree):
    """The normalised Legendre features from NumPy's legvander (P_q) times sqrt(2q + 1)."""
    return npleg.legvander(np.asarray(x, dtype=float), degree) * np.sqrt(2 * np.arange(degree + 1) + 1)


# --- legendre_features ------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(x=st.lists(st.floats(-1.0, 1.0), min_size=1, max_size=30), degree=st.integers(0, 25))
def test_legendre_features_are_numpys_polynomials_times_sqrt_2q_plus_1(x, degree):
    np.testing.assert_allclose(legendre_features(x, degree), standard(x, degree), rtol=1e-12, atol=1e-12)


def test_legendre_features_are_orthonormal_for_the_uniform_distribution():
    L = legendre_features(NODES, 30)
    gram = (L * WEIGHTS[:, None]).T @ L / 2.0
    np.testing.assert_allclose(gram, np.eye(31), atol=1e-12)
    assert legendre_features([0.3], 0).tolist() == [[1.0]]            # L_0 = 1: the constant feature
    np.testing.assert_array_equal(legendre_features(np.array([[0.2], [0.5]]), 3), legendre_features([0.2, 0.5], 3))


@pytest.mark.parametrize("x, degree, match", [
    ([[0.1, 0.2]], 2, "x must be a 1-D array"), ([0.1, np.nan], 2, "x contains NaN"), ([0.1], -1, "degree must be at least 0"),
    ([0.1], 2.0, "degree must be an integer"), ([], 2, "x must not be empty"),
])
def test_legendre_features_refuse_bad_input(x, degree, match):
    with pytest.raises(ValueError, match=match):
        legendre_features(x, degree)


# --- the target and its data --------------------------------------------------------------------

def test_legendre_target_is_the_books_normalised_random_polynomial():
    """b_q = c a_q / sqrt(2q + 1), a standard normal from the same generator, c^2 sum 1/(2q+1) = 1."""
    for degree in (0, 3, 20):
        a = np.random.default_rng(5).standard_normal(degree + 1)
        q = np.arange(degree + 1)
        c = 1.0 / np.sqrt(np.sum(1.0 / (2 * q + 1)))
        np.testing.assert_allclose(legendre_target(degree, rng=5), c * a / np.sqrt(2 * q + 1), rtol=1e-15)
        # the same function as the book's c sum a_q P_q(x), evaluated with NumPy
        x = np.linspace(-1, 1, 11)
        np.testing.assert_allclose(legendre_features(x, degree) @ legendre_target(degree, rng=5),
                                   npleg.legval(x, c * a), atol=1e-12)


def test_legendre_targets_have_mean_energy_one():
    """E over targets and x of f(x)^2 is 1: the mean of ||b||^2 over 20,000 targets, within 6 standard errors."""
    degree, n = 20, 20_000
    rng = np.random.default_rng(11)
    energy = np.array([np.sum(legendre_target(degree, rng=rng) ** 2) for _ in range(n)])
    q = np.arange(degree + 1)
    c2 = 1.0 / np.sum(1.0 / (2 * q + 1))
    sd = c2 * np.sqrt(np.sum(2.0 / (2 * q + 1) ** 2))            # Var ||b||^2 = c^4 sum 2 / (2q + 1)^2
    assert abs(energy.mean() - 1.0) < 6 * sd / np.sqrt(n)


def test_make_legendre_data_adds_noise_of_the_given_variance():
    b = legendre_target(8, rng=1)
    x, y = make_legendre_data(40_000, b, noise_variance=0.3, rng=2)
    assert x.min() >= -1 and x.max() <= 1 and abs(x.mean()) < 0.02
    noise = y - npleg.legval(x, b * np.sqrt(2 * np.arange(9) + 1))
    # the sample variance of 40,000 normal values has relative standard error sqrt(2/40000) = 0.007
    assert abs(noise.var() / 0.3 - 1) < 6 * np.sqrt(2 / 40_000)
    x0, y0 = make_legendre_data(10, b, rng=2)
    np.testing.assert_allclose(y0, legendre_features(x0, 8) @ b, atol=1e-12)
    assert np.array_equal(make_legendre_data(10, b, noise_variance=0.3, rng=4)[1],
                          make_legendre_data(10, b, noise_variance=0.3, rng=4)[1])


# --- exact errors ---------------------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), q=st.integers(0, 15), qf=st.integers(0, 40), sigma2=st.floats(0.0, 3.0))
def test_out_of_sample_error_is_the_integral_of_the_squared_difference(seed, q, qf, sigma2):
    rng = np.random.default_rng(seed)
    w, b = rng.normal(size=q + 1), legendre_target(qf, rng=rng)
    integral = expect_x((standard(NODES, q) @ w - standard(NODES, qf) @ b) ** 2)
    assert legendre_out_of_sample_error(w, b, noise_variance=sigma2) == pytest.approx(integral + sigma2, rel=1e-10,
                                                                                      abs=1e-12)


def test_deterministic_noise_is_the_error_of_the_best_polynomial_of_degree_q():
    b = legendre_target(12, rng=3)
    f = standard(NODES, 12) @ b
    for q in (0, 2, 5, 12, 14):
        # the best h in H_q in mean square: weighted least squares at the quadrature nodes
        A = standard(NODES, q) * np.sqrt(WEIGHTS / 2)[:, None]
        w = np.linalg.lstsq(A, f * np.sqrt(WEIGHTS / 2), rcond=None)[0]
        best = expect_x((standard(NODES, q) @ w - f) ** 2)
        assert deterministic_noise(b, q) == pytest.approx(best, abs=1e-12)


# --- the vectorised experiment against a plain loop over the runs -----------------------------------

def plain_runs(n, sigma2, qf, degrees, lam, n_runs, gen):
    """One cell, one run at a time, in the draw order legendre_experiment documents."""
    q = np.arange(qf + 1)
    c = 1.0 / np.sqrt(np.sum(1.0 / (2 * q + 1)))
    A = gen.standard_normal((n_runs, qf + 1))
    X = gen.uniform(-1.0, 1.0, size=(n_runs, n))
    E = gen.standard_normal((n_runs, n))
    e_in, e_out = np.zeros(len(degrees)), np.zeros(len(degrees))
    for r in range(n_runs):
        y = npleg.legval(X[r], c * A[r]) + np.sqrt(sigma2) * E[r]
        f_nodes = npleg.legval(NODES, c * A[r])
        for j, d in enumerate(degrees):
            Z = standard(X[r], d)
            if lam == 0:
                w = np.linalg.lstsq(Z, y, rcond=None)[0]
            else:
                from sklearn.linear_model import Ridge
                w = Ridge(alpha=lam, fit_intercept=False, solver="svd").fit(Z, y).coef_
            e_in[j] += np.mean((Z @ w - y) ** 2) / n_runs
            e_out[j] += (expect_x((standard(NODES, d) @ w - f_nodes) ** 2) + sigma2) / n_runs
    return e_in, e_out


@pytest.mark.parametrize("lam", [0.0, 0.5])
def test_legendre_experiment_equals_a_plain_loop_over_runs(lam):
    N, S, QF = np.array([15, 40]), np.array([0.0, 0.7]), np.array([3, 25])
    runs = legendre_experiment(N[:, None, None], S[None, :, None], QF[None, None, :], degrees=(2, 10),
                               weight_decay=lam, n_runs=6, rng=9)
    assert runs.e_in.shape == runs.e_out.shape == (2, 2, 2, 2) and runs.n_runs == 6
    gens = np.random.default_rng(9).spawn(8)
    for k, (i, j, m) in enumerate(np.ndindex(2, 2, 2)):
        e_in, e_out = plain_runs(int(N[i]), float(S[j]), int(QF[m]), (2, 10), lam, 6, gens[k])
        np.testing.assert_allclose(runs.e_in[i, j, m], e_in, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(runs.e_out[i, j, m], e_out, rtol=1e-8, atol=1e-12)


def test_fewer_points_than_weights_give_the_minimum_norm_fit():
    runs = legendre_experiment(6, 0.5, 4, degrees=(10,), n_runs=3, rng=2)
    e_in, e_out = plain_runs(6, 0.5, 4, (10,), 0.0, 3, np.random.default_rng(2).spawn(1)[0])
    assert runs.e_in[0] < 1e-20                           # eleven weights interpolate six points
    np.testing.assert_allclose(runs.e_out, e_out, rtol=1e-8)


def test_overfit_measure_is_the_difference_of_the_two_models_errors():
    m = overfit_measure([20, 60], [[0.1], [1.0]], 15, n_runs=30, rng=4)
    runs = legendre_experiment([20, 60], [[0.1], [1.0]], 15, degrees=(2, 10), n_runs=30, rng=4)
    np.testing.assert_allclose(m, runs.e_out[..., 1] - runs.e_out[..., 0], rtol=1e-14)
    # a target H_2 already holds, without noise: both models find it exactly, nothing to overfit
    assert abs(overfit_measure(30, 0.0, 2, n_runs=20, rng=1)) < 1e-12
    assert isinstance(overfit_measure(30, 0.0, 2, n_runs=2, rng=1), float)


def test_more_noise_makes_the_complex_model_overfit_more():
    """With N = 30 and Q_f = 5, the measure rises with sigma^2 (the expected gap grows linearly in sigma^2)."""
    m = overfit_measure(30, [0.0, 0.5, 2.0], 5, n_runs=400, rng=6)
    assert m[0] < m[1] < m[2]


def plain_out_of_sample_errors(n, sigma2, qf, degrees, n_runs, gen):
    """E_out of every run's least-squares fits, shape (n_runs, len(degrees)), by quadrature."""
    q = np.arange(qf + 1)
    c = 1.0 / np.sqrt(np.sum(1.0 / (2 * q + 1)))
    A = gen.standard_normal((n_runs, qf + 1))
    X = gen.uniform(-1.0, 1.0, size=(n_runs, n))
    E = gen.standard_normal((n_runs, n))
    out = np.empty((n_runs, len(degrees)))
    for r in range(n_runs):
        y = npleg.legval(X[r], c * A[r]) + np.sqrt(sigma2) * E[r]
        f_nodes = npleg.legval(NODES, c * A[r])
        for j, d in enumerate(degrees):
            w = np.linalg.lstsq(standard(X[r], d), y, rcond=None)[0]
            out[r, j] = expect_x((standard(NODES, d) @ w - f_nodes) ** 2) + sigma2
    return out


def test_the_median_measure_is_the_median_of_the_runs_own_differences():
    """average="median" is the typical run's E_out(g_10) - E_out(g_2), from the same runs as the mean."""
    N, QF = np.array([15, 40]), np.array([4, 20])
    median = overfit_measure(N[None, :], 0.5, QF[:, None], n_runs=9, average="median", rng=8)
    mean = overfit_measure(N[None, :], 0.5, QF[:, None], n_runs=9, rng=8)
    gens = np.random.default_rng(8).spawn(4)
    differ = False
    for k, (i, j) in enumerate(np.ndindex(2, 2)):
        out = plain_out_of_sample_errors(int(N[j]), 0.5, int(QF[i]), (2, 10), 9, gens[k])
        gap = out[:, 1] - out[:, 0]
        np.testing.assert_allclose(median[i, j], np.median(gap), rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(mean[i, j], np.mean(gap), rtol=1e-8, atol=1e-10)
        differ |= abs(np.median(gap) - (np.median(out[:, 1]) - np.median(out[:, 0]))) > 1e-6
    assert differ                            # the median of the differences, not the difference of the medians
    with pytest.raises(ValueError, match="average must be one of"):
        overfit_measure(40, 0.5, 10, average="trimmed")


def test_the_median_measure_is_robust_where_the_mean_is_not():
    """At N = 60 a few runs carry the mean: two batches of runs disagree on it far more than on the median."""
    kwargs = dict(n_runs=300)
    means = [overfit_measure(60, 0.1, 20, rng=seed, **kwargs) for seed in range(4)]
    medians = [overfit_measure(60, 0.1, 20, average="median", rng=seed, **kwargs) for seed in range(4)]
    assert np.ptp(medians) < 0.25 * np.ptp(means)      # about 0.01 to 0.07 of it, whatever the seeds
    assert max(medians) < 0                  # the typical run: g_10 wins at N = 60 with little noise


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_samples=0, noise_variance=0.1, target_degree=2), "n_samples must be at least 1"),
    (dict(n_samples=10, noise_variance=-0.1, target_degree=2), "noise_variance must be finite and >= 0"),
    (dict(n_samples=10, noise_variance=0.1, target_degree=2.5), "target_degree must be an integer"),
    (dict(n_samples=10, noise_variance=0.1, target_degree=2, degrees=(2, 5, 10)), "degrees must be two degrees"),
])
def test_overfit_measure_refuses_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        overfit_measure(**kwargs)


def test_same_seed_same_measure_and_global_state_untouched():
    state = np.random.get_state()[1].copy()
    a = cl.overfit_measure(25, 0.5, 10, n_runs=5, rng=3)
    assert a == cl.overfit_measure(25, 0.5, 10, n_runs=5, rng=3)
    assert a != cl.overfit_measure(25, 0.5, 10, n_runs=5, rng=4)
    assert np.array_equal(np.random.get_state()[1], state)



def test_the_median_summarises_the_same_runs():
    median = legendre_experiment(15, 0.5, 10, degrees=(2, 10), n_runs=7, average="median", rng=5)
    gen = np.random.default_rng(5).spawn(1)[0]
    q = np.arange(11)
    c = 1.0 / np.sqrt(np.sum(1.0 / (2 * q + 1)))
    A, X, E = gen.standard_normal((7, 11)), gen.uniform(-1, 1, size=(7, 15)), gen.standard_normal((7, 15))
    e_out = []
    for r in range(7):
        y = npleg.legval(X[r], c * A[r]) + np.sqrt(0.5) * E[r]
        f_nodes = npleg.legval(NODES, c * A[r])
        e_out.append([expect_x((standard(NODES, d) @ np.linalg.lstsq(standard(X[r], d), y, rcond=None)[0] - f_nodes) ** 2)
                      + 0.5 for d in (2, 10)])
    np.testing.assert_allclose(median.e_out, np.median(e_out, axis=0), rtol=1e-8)
    with pytest.raises(ValueError, match="average must be one of"):
        legendre_experiment(15, 0.5, 10, average="mode")
