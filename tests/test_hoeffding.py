"""course_lib.hoeffding against closed forms, exact binomial values and enumeration.

Statistical checks use tolerances that a correct implementation fails with
probability below about 1e-6 (stated at each test), on fixed seeds.
"""
import itertools
import math
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from course_lib import hoeffding as h

P_FAIL = 1e-6


def chi_square_pvalue(observed_values, support, pmf):
    """Goodness of fit of samples to a discrete distribution, pooling tiny cells."""
    counts = np.array([np.sum(np.isclose(observed_values, v)) for v in support], dtype=float)
    assert counts.sum() == len(observed_values), "samples outside the support"
    expected = pmf * len(observed_values)
    keep = expected >= 5
    obs = np.append(counts[keep], counts[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue


def test_sample_nu_follows_the_binomial_distribution():
    n, mu = 20, 0.3
    nu = h.sample_nu(mu, n, n_samples=50_000, rng=1)
    support = np.arange(n + 1) / n
    assert chi_square_pvalue(nu, support, stats.binom.pmf(np.arange(n + 1), n, mu)) > P_FAIL


def test_sample_nu_is_reproducible_and_leaves_global_state_alone():
    state = np.random.get_state()[1].copy()
    a = h.sample_nu(0.5, 10, n_samples=100, rng=7)
    b = h.sample_nu(0.5, 10, n_samples=100, rng=np.random.default_rng(7))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, h.sample_nu(0.5, 10, n_samples=100, rng=8))
    assert np.array_equal(state, np.random.get_state()[1])


def test_hoeffding_bound_closed_form_and_union():
    assert h.hoeffding_bound(0.1, 100) == pytest.approx(2 * math.exp(-2))
    eps = np.array([0.05, 0.1, 0.2])
    np.testing.assert_allclose(h.hoeffding_bound(eps, 50, n_hypotheses=7), 14 * np.exp(-100 * eps**2))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 200), mu=st.floats(0, 1), eps=st.floats(0.01, 0.99))
def test_the_exact_deviation_probability_never_exceeds_hoeffding(n, mu, eps):
    assert h.binomial_deviation_probability(eps, n, mu) <= h.hoeffding_bound(eps, n) + 1e-12


def test_binomial_deviation_probability_by_enumeration():
    n, mu, eps = 6, 0.3, 0.25
    exact = sum(math.comb(n, k) * mu**k * (1 - mu) ** (n - k) for k in range(n + 1) if abs(k / n - mu) > eps)
    assert h.binomial_deviation_probability(eps, n, mu) == pytest.approx(exact)


def test_deviation_probability_interval_covers_the_exact_value():
    # The Clopper-Pearson interval at confidence 1 - 1e-6 misses with probability <= 1e-6.
    n, mu = 10, 0.5
    nu = h.sample_nu(mu, n, n_samples=20_000, rng=3)
    eps = np.array([0.05, 0.15, 0.25, 0.35])
    est = h.deviation_probability(nu, mu, eps, confidence=1 - P_FAIL)
    exact = h.binomial_deviation_probability(eps, n, mu)
    assert np.all(est.low <= exact) and np.all(exact <= est.high), (est, exact)
    assert np.all(np.diff(est.p) <= 0), "a larger eps cannot be exceeded more often"


def test_deviation_probability_counts_strictly_greater():
    est = h.deviation_probability([0.3, 0.7, 0.5, 0.5], 0.5, 0.2)
    assert est.p == 0.0  # |0.3 - 0.5| = 0.2 is not > 0.2


@settings(max_examples=80, deadline=None)
@given(eps=st.floats(0.005, 0.5), delta=st.floats(1e-6, 0.999), m=st.integers(1, 10_000))
def test_sample_size_is_the_smallest_that_suffices(eps, delta, m):
    n = h.sample_size(eps, delta, n_hypotheses=m)
    assert 2 * m * math.exp(-2 * eps**2 * n) <= delta * (1 + 1e-12)
    if n > 1:
        assert 2 * m * math.exp(-2 * eps**2 * (n - 1)) > delta


def test_nu_min_distribution_by_enumerating_every_outcome():
    n_coins, n_flips = 3, 2
    counts = np.zeros(n_flips + 1)
    for flips in itertools.product([0, 1], repeat=n_coins * n_flips):
        heads = [sum(flips[i * n_flips:(i + 1) * n_flips]) for i in range(n_coins)]
        counts[min(heads)] += 1
    values, pmf = h.nu_min_distribution(n_coins, n_flips)
    np.testing.assert_allclose(pmf, counts / counts.sum())
    np.testing.assert_allclose(values, np.arange(n_flips + 1) / n_flips)


def test_one_coin_is_just_the_binomial():
    _, pmf = h.nu_min_distribution(1, 10)
    np.testing.assert_allclose(pmf, stats.binom.pmf(np.arange(11), 10, 0.5))


@pytest.fixture(scope="module")
def full_experiment():
    return h.coin_experiment(rng=2026)


def test_coin_experiment_shapes_and_order(full_experiment):
    res = full_experiment
    assert all(a.shape == (100_000,) for a in res)
    assert np.all(res.nu_min <= res.nu_1) and np.all(res.nu_min <= res.nu_rand)


def test_nu_min_matches_the_exact_distribution(full_experiment):
    values, pmf = h.nu_min_distribution(1_000, 10)
    assert chi_square_pvalue(full_experiment.nu_min, values, pmf) > P_FAIL
    # mean within 5.3 standard errors: two-sided normal tail ~1e-7
    exact_mean = h.expected_nu_min(1_000, 10)
    sd = math.sqrt(values**2 @ pmf - exact_mean**2)
    assert abs(full_experiment.nu_min.mean() - exact_mean) < 5.3 * sd / math.sqrt(100_000)


@pytest.mark.parametrize("which", ["nu_1", "nu_rand"])
def test_first_and_random_coins_are_fair_binomials(full_experiment, which):
    nu = getattr(full_experiment, which)
    values = np.arange(11) / 10
    assert chi_square_pvalue(nu, values, stats.binom.pmf(np.arange(11), 10, 0.5)) > P_FAIL


def test_random_coin_is_not_always_the_same_coin():
    # with 2 coins of 1 flip, the random coin equals coin 1 about half the time, not always
    res = h.coin_experiment(4_000, 2, 30, rng=5)
    same = np.mean(res.nu_rand == res.nu_1)
    assert 0.4 < same < 0.7


def test_coin_experiment_is_reproducible():
    a = h.coin_experiment(30_000, 50, 10, rng=11, chunk_runs=7_000)
    b = h.coin_experiment(30_000, 50, 10, rng=np.random.default_rng(11), chunk_runs=7_000)
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x, y)
    c = h.coin_experiment(30_000, 50, 10, rng=12, chunk_runs=7_000)
    assert not np.array_equal(a.nu_min, c.nu_min)


def test_memory_stays_bounded_whatever_the_number_of_runs():
    def peak(n_runs):
        tracemalloc.start()
        h.coin_experiment(n_runs, 1_000, 10, rng=0, chunk_runs=5_000)
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top

    small, large = peak(20_000), peak(80_000)
    # output grows by 3 bytes + a float array per run; the per-chunk work does not grow
    per_run_output = 3 * 8 + 3
    assert large - small < 1.5 * per_run_output * 60_000 + 5e6


@pytest.mark.parametrize("call, name", [
    (lambda: h.sample_nu(1.5, 10), "mu"),
    (lambda: h.sample_nu(0.5, 0), "n"),
    (lambda: h.hoeffding_bound(-0.1, 10), "eps"),
    (lambda: h.hoeffding_bound(0.1, 10, n_hypotheses=0), "n_hypotheses"),
    (lambda: h.sample_size(0.1, 1.0), "delta"),
    (lambda: h.deviation_probability([], 0.5, 0.1), "nu"),
    (lambda: h.deviation_probability([0.5, np.nan], 0.5, 0.1), "nu"),
    (lambda: h.coin_experiment(0), "n_runs"),
    (lambda: h.coin_experiment(10, n_flips=2.5), "n_flips"),
    (lambda: h.nu_min_distribution(10, 10, p=2), "p"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_nu_histogram_bars_are_the_sample_frequencies_coloured_by_the_band():
    from matplotlib.figure import Figure

    from course_lib.plotting import plot_nu_histogram

    rng = np.random.default_rng(11)
    n, mu, eps = 20, 0.4, 0.1
    nu = rng.binomial(n, mu, size=5_000) / n
    ax = Figure().add_subplot()
    plot_nu_histogram(nu, mu, n, eps, ax=ax)
    bars = {}  # bar centre -> (height, is outside the band), read back from the drawn polygons
    for collection, outside in zip(ax.collections, (False, True), strict=False):
        for path in collection.get_paths():
            x, y = path.vertices.T
            assert y.min() == 0
            bars[round((x.min() + x.max()) / 2 * n)] = (y.max(), outside)
    counts = np.bincount(np.round(nu * n).astype(int), minlength=n + 1)
    expected = {k: c / len(nu) for k, c in enumerate(counts) if c}
    assert set(bars) == set(expected)
    for k, (height, outside) in bars.items():
        assert height == pytest.approx(expected[k])
        assert outside == (abs(k - 8) > 2)  # in whole marbles: mu N = 8, eps N = 2; exactly 2 away is inside
    assert ax.get_ylim()[0] == 0.0


def test_a_deviation_of_exactly_eps_does_not_count_anywhere():
    # whole numbers of marbles: k red of N = 10, mu = 0.4, eps = 0.1 -> bad exactly when |k - 4| > 1
    k = np.arange(11)
    nu = k / 10
    np.testing.assert_array_equal(h.deviates(nu, 0.4, 0.1), np.abs(k - 4) > 1)
    assert h.deviation_probability(nu, 0.4, 0.1).p == np.mean(np.abs(k - 4) > 1)
    exact = sum(math.comb(10, j) * 0.4**j * 0.6 ** (10 - j) for j in range(11) if abs(j - 4) > 1)
    assert h.binomial_deviation_probability(0.1, 10, 0.4) == pytest.approx(exact)


def test_the_chance_that_the_best_of_1000_hypotheses_has_e_in_zero_depends_on_independence():
    # 03-1's question: 1 - (1 - 2^-10)^1000 = 0.62 holds for independent hypotheses only
    values, pmf = h.nu_min_distribution(1_000, 10)
    assert values[0] == 0 and pmf[0] == pytest.approx(1 - (1 - 2.0**-10) ** 1000)
    rng = np.random.default_rng(0)
    runs = 20_000
    independent = rng.binomial(10, 0.5, size=(runs, 50)).min(axis=1) == 0      # 50 independent hypotheses
    identical = np.repeat(rng.binomial(10, 0.5, size=(runs, 1)), 50, axis=1).min(axis=1) == 0
    assert independent.mean() == pytest.approx(1 - (1 - 2.0**-10) ** 50, abs=0.005)
    assert identical.mean() == pytest.approx(2.0**-10, abs=0.001)           # the same hypothesis 50 times
    assert identical.mean() <= 50 * 2.0**-10 and independent.mean() <= 50 * 2.0**-10   # the union bound, always


# --- plot_deviation_curves draws values computed beforehand -------------------------------

def test_deviation_curves_draw_the_given_estimates_and_the_bound_capped_at_one():
    from matplotlib.figure import Figure

    from course_lib.plotting import plot_deviation_curves

    eps = np.linspace(0.01, 0.6, 60)
    rng = np.random.default_rng(5)
    nu = rng.binomial(10, 0.5, size=2_000) / 10
    first = np.array([np.mean(np.abs(nu - 0.5) > e + 1e-12) for e in eps])  # counted here, independently
    closed_form = 2 * np.exp(-2 * eps**2 * 10)
    ax = plot_deviation_curves(eps, {"coin": first, "none": np.zeros(60)}, bound=closed_form, ax=Figure().add_subplot())
    lines = {line.get_label(): line for line in ax.lines}
    np.testing.assert_array_equal(lines["coin"].get_ydata(), first)
    np.testing.assert_array_equal(lines["coin"].get_xdata(), eps)
    assert lines["coin"].get_drawstyle() == "steps-post"
    np.testing.assert_array_equal(lines["none"].get_ydata(), np.zeros(60))
    (bound,) = [line for label, line in lines.items() if "min(1" in label]
    np.testing.assert_allclose(bound.get_ydata(), np.minimum(closed_form, 1.0))
    assert bound.get_ydata()[0] == 1.0 and bound.get_ydata()[-1] < 1.0
    # without a bound only the estimates are drawn
    assert len(plot_deviation_curves(eps, {"coin": first}, ax=Figure().add_subplot()).lines) == 1


@pytest.mark.parametrize("call, match", [
    (lambda p: p([0.1, 0.2], {"coin": [0.5]}), r"probabilities\['coin'\] must have length 2"),
    (lambda p: p([0.1, 0.2], [[0.5, 0.4]]), "probabilities must be a dict"),
    (lambda p: p([0.1, 0.2], {"coin": [0.5, 1.5]}), r"probabilities\['coin'\] must lie in \[0, 1\]"),
    (lambda p: p([0.2, 0.1], {"coin": [0.5, 0.4]}), "eps must be increasing"),
    (lambda p: p([0.1, 0.2], {"coin": [0.5, 0.4]}, bound=[1.0]), "bound must have length 2"),
])
def test_deviation_curves_refuse_bad_input(call, match):
    from course_lib.plotting import plot_deviation_curves

    with pytest.raises(ValueError, match=match):
        call(plot_deviation_curves)


def test_deviation_curves_draw_while_ps2_withholds_the_hoeffding_functions(tmp_path):
    # ps2's demonstration cell runs in students' feedback with these functions taken out of
    # course_lib: the picture must come from the values the student's own functions computed
    import subprocess
    import sys
    from pathlib import Path

    import course_lib
    from grading.withhold import withheld_copy, withheld_names

    root = Path(__file__).resolve().parents[1]
    names = withheld_names(root / "source" / "ps2_hoeffding")
    assert {"deviation_probability", "hoeffding_bound"} <= set(names)
    withheld_copy(names, "ps2_hoeffding", tmp_path / "course_lib", source=Path(course_lib.__file__).parent)
    script = (
        "import matplotlib; matplotlib.use('Agg')\n"
        "import numpy as np, course_lib as cl\n"
        f"assert cl.__file__.startswith({str(tmp_path)!r}), cl.__file__\n"
        "try:\n    cl.hoeffding.deviation_probability([0.5], 0.5, 0.1)\nexcept Exception:\n    pass\n"
        "else:\n    raise SystemExit('deviation_probability was not withheld')\n"
        "eps = np.linspace(0.01, 0.6, 60)\n"
        "ax = cl.plotting.plot_deviation_curves(eps, {'c': np.zeros(60)}, bound=2 * np.exp(-20 * eps**2))\n"
        "print(len(ax.lines))\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                         env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg",
                              "HOME": str(tmp_path)}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2"]
