"""Wrong answers to ps2_hoeffding of the kinds a class hands in.

``WRONG``: (exercise, name, {solution cell: what replaces its stub}, points the exercise keeps).
``RIGHT``: right answers written differently from the reference; they keep every point.
``CHOICES``: the wrong choices of every multiple-choice cell.
"""
ASSIGNMENT = "ps2_hoeffding"

WRONG = [
    # -- sample_nu: 2 points for the binomial law, 1 for reproducibility -------------------
    ("sample", "counts_not_fractions", {"sample-solution": """
rng = np.random.default_rng(rng)
return rng.binomial(N, mu, size=n_samples)          # the number of red marbles, not the fraction
"""}, 1),
    ("sample", "global_generator", {"sample-solution": """
return np.random.binomial(N, mu, size=n_samples) / N   # NumPy's global generator: rng is ignored
"""}, 2),
    ("sample", "global_generator_and_counts", {"sample-solution": """
return np.random.binomial(N, mu, size=n_samples)     # counts, and from NumPy's global generator
"""}, 0),
    ("sample", "one_marble_per_sample", {"sample-solution": """
rng = np.random.default_rng(rng)
return (rng.random(n_samples) < mu).astype(float)   # a sample of one marble: nu is 0 or 1
"""}, 1),
    ("sample", "ignores_a_generator", {"sample-solution": """
rng = np.random.default_rng(None if isinstance(rng, np.random.Generator) else rng)   # a Generator: a fresh one
red = rng.random((n_samples, N)) < mu
return red.mean(axis=1)
"""}, 2),
    ("sample", "fixed_seed_for_none", {"sample-solution": """
rng = np.random.default_rng(12345 if rng is None else rng)      # rng=None gives the same samples every time
return rng.binomial(N, mu, size=n_samples) / N
"""}, 2),
    ("sample", "calls_course_lib", {"sample-solution": """
return cl.hoeffding.sample_nu(mu, N, n_samples=n_samples, rng=rng)
"""}, 0),
    ("sample", "seeds_the_global_generator", {"sample-solution": """
rng = np.random.default_rng(rng)
np.random.seed(int(rng.integers(2**32)))            # one seed from rng, then NumPy's global generator
return np.random.binomial(N, mu, size=n_samples) / N
"""}, 2),
    ("sample", "draws_from_a_copy_of_the_generator", {"sample-solution": """
import copy
rng = copy.deepcopy(np.random.default_rng(rng))     # "leaves the caller's generator unchanged"
return rng.binomial(N, mu, size=n_samples) / N
"""}, 2),
    # -- hoeffding_bound: 1 point for one bin, 1 for M bins ---------------------------------
    ("bound", "without_factor_2", {"bound-solution": """
return M * np.exp(-2.0 * np.asarray(eps, dtype=float) ** 2 * N)
"""}, 0),
    ("bound", "eps_not_squared", {"bound-solution": """
return 2.0 * M * np.exp(-2.0 * np.asarray(eps, dtype=float) * N)
"""}, 0),
    ("bound", "ignores_m", {"bound-solution": """
return 2.0 * np.exp(-2.0 * np.asarray(eps, dtype=float) ** 2 * N)
"""}, 1),
    ("bound", "only_floats", {"bound-solution": """
import math
return 2.0 * M * math.exp(-2.0 * float(eps) ** 2 * N)   # fails for an array of tolerances
"""}, 1),
    # -- deviation_probability: 1 point for the fraction, 1 for ties -------------------------
    ("deviation", "at_least_eps", {"deviation-solution": """
return float(np.mean(np.abs(np.asarray(nu, dtype=float) - mu) >= eps))
"""}, 1),
    ("deviation", "no_rounding_tolerance", {"deviation-solution": """
return float(np.mean(np.abs(np.asarray(nu, dtype=float) - mu) > eps))   # a tie a hair above eps counts
"""}, 1),
    ("deviation", "count_not_fraction", {"deviation-solution": """
return float(np.sum(np.abs(np.asarray(nu, dtype=float) - mu) > eps))
"""}, 0),
    ("deviation", "shifts_nu_in_place", {"deviation-solution": """
nu = np.asarray(nu, dtype=float)                      # no copy for an array: the caller's samples
nu -= mu
np.abs(nu, out=nu)                                    # the right distances, written over the caller's nu
return float(np.mean(nu > eps + 1e-12))
"""}, 1),
    ("deviation", "mean_deviation", {"deviation-solution": """
return float(np.mean(np.abs(np.asarray(nu, dtype=float) - mu)))
"""}, 0),
    # -- coin_experiment: 1 + 1 + 2 points -------------------------------------------------
    ("coins", "min_over_all_runs", {"coins-solution": """
rng = np.random.default_rng(rng)
nu = rng.binomial(n_flips, 0.5, size=(n_runs, n_coins)) / n_flips
pick = rng.integers(0, n_coins, size=n_runs)
return nu[:, 0], nu[np.arange(n_runs), pick], np.full(n_runs, nu.min())   # the minimum of all runs
"""}, 2),
    ("coins", "same_random_coin_every_run", {"coins-solution": """
rng = np.random.default_rng(rng)
nu = rng.binomial(n_flips, 0.5, size=(n_runs, n_coins)) / n_flips
pick = int(rng.integers(0, n_coins))                  # one pick for all runs
return nu[:, 0], nu[:, pick], nu.min(axis=1)
"""}, 3),
    ("coins", "counts_not_fractions", {"coins-solution": """
rng = np.random.default_rng(rng)
heads = rng.binomial(n_flips, 0.5, size=(n_runs, n_coins))
pick = rng.integers(0, n_coins, size=n_runs)
return heads[:, 0], heads[np.arange(n_runs), pick], heads.min(axis=1)   # counts of heads, not fractions
"""}, 0),
    ("coins", "ignores_a_generator", {"coins-solution": """
rng = np.random.default_rng(None if isinstance(rng, np.random.Generator) else rng)   # a Generator: a fresh one
heads = rng.binomial(n_flips, 0.5, size=(n_runs, n_coins))
pick = rng.integers(0, n_coins, size=n_runs)
nu = heads / n_flips
return nu[:, 0], nu[np.arange(n_runs), pick], nu.min(axis=1)
"""}, 3),
    ("coins", "shuffles_with_the_global_generator", {"coins-solution": """
rng = np.random.default_rng(rng)
heads = rng.binomial(n_flips, 0.5, size=(n_runs, n_coins))
np.random.seed(int(rng.integers(2**32)))              # the random coins from NumPy's global generator, seeded once
pick = np.random.randint(0, n_coins, size=n_runs)
nu = heads / n_flips
return nu[:, 0], nu[np.arange(n_runs), pick], nu.min(axis=1)
"""}, 3),
    ("coins", "calls_course_lib", {"coins-solution": """
from course_lib.hoeffding import coin_experiment as experiment
result = experiment(n_runs, n_coins, n_flips, rng=rng)
return result.nu_1, result.nu_rand, result.nu_min
"""}, 0),
]

RIGHT = [
    ("binomial_counts_and_choice", {"sample-solution": """
generator = np.random.default_rng(rng)
return generator.binomial(N, mu, size=n_samples) / N
""", "deviation-solution": """
far = 0
for value in nu:
    if abs(value - mu) - eps > 1e-12:
        far += 1
return far / len(nu)
""", "coins-solution": """
rng = np.random.default_rng(rng)
nu = rng.binomial(n_flips, 0.5, size=(n_runs, n_coins)) / n_flips
pick = rng.choice(n_coins, size=n_runs)
nu_rand = np.take_along_axis(nu, pick[:, None], axis=1)[:, 0]
return nu[:, 0].copy(), nu_rand, np.min(nu, axis=1)
"""}),
]

CHOICES = {"obey-answer": (1, 3, 4)}
