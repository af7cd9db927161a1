"""End-to-end grading of the Hoeffding assignment (ps2_hoeffding), in a throwaway copy of the course.

One autograde run grades the reference solution, the untouched release, known-wrong answers
(each a mistake students make, confined to one exercise) and answers that call course_lib's
own implementation, with real nbgrader and real kernels; every exercise's score of every
submission is checked. The hidden tests are statistical and draw fresh random data, so this
file passes only if they separate right from wrong answers reliably.
"""
from grading_helpers import class_grading_tests, reference_bodies, scores_with, with_answers

ASSIGNMENT = "ps2_hoeffding"
POINTS = {"sample": 3, "bound": 2, "deviation": 2, "coins": 4, "obey": 1}
TOTAL = sum(POINTS.values())
TIMEOUT = 10  # seconds per cell, as in the course configuration

REF = reference_bodies(ASSIGNMENT)

SAMPLE_COUNTS = """
rng = np.random.default_rng(rng)
return rng.binomial(N, mu, size=n_samples)          # the number of red marbles, not the fraction
"""

SAMPLE_GLOBAL_COUNTS = """
return np.random.binomial(N, mu, size=n_samples)     # counts, and from NumPy's global generator
"""

SAMPLE_GLOBAL_NUMPY = """
return np.random.binomial(N, mu, size=n_samples) / N   # NumPy's global generator: rng is ignored
"""

BOUND_WITHOUT_FACTOR_2 = """
return M * np.exp(-2.0 * np.asarray(eps, dtype=float) ** 2 * N)
"""

BOUND_EPS_NOT_SQUARED = """
return 2.0 * M * np.exp(-2.0 * np.asarray(eps, dtype=float) * N)
"""

DEVIATION_AT_LEAST = """
return float(np.mean(np.abs(np.asarray(nu, dtype=float) - mu) >= eps))
"""

DEVIATION_COUNT = """
return float(np.sum(np.abs(np.asarray(nu, dtype=float) - mu) > eps))
"""

COINS_MIN_OVER_RUNS = """
rng = np.random.default_rng(rng)
nu = rng.binomial(n_flips, 0.5, size=(n_runs, n_coins)) / n_flips
pick = rng.integers(0, n_coins, size=n_runs)
return nu[:, 0], nu[np.arange(n_runs), pick], np.full(n_runs, nu.min())   # the minimum of all runs
"""

COINS_SAME_RANDOM_COIN = """
rng = np.random.default_rng(rng)
nu = rng.binomial(n_flips, 0.5, size=(n_runs, n_coins)) / n_flips
pick = int(rng.integers(0, n_coins))                  # one pick for all runs
return nu[:, 0], nu[:, pick], nu.min(axis=1)
"""

COINS_COUNTS = """
rng = np.random.default_rng(rng)
heads = rng.binomial(n_flips, 0.5, size=(n_runs, n_coins))
pick = rng.integers(0, n_coins, size=n_runs)
return heads[:, 0], heads[np.arange(n_runs), pick], heads.min(axis=1)   # counts of heads, not fractions
"""

SAMPLE_CALLS_COURSE_LIB = """
return cl.hoeffding.sample_nu(mu, N, n_samples=n_samples, rng=rng)
"""

COINS_CALLS_COURSE_LIB = """
from course_lib.hoeffding import coin_experiment as experiment
result = experiment(n_runs, n_coins, n_flips, rng=rng)
return result.nu_1, result.nu_rand, result.nu_min
"""


def answers(**changes):
    return with_answers(REF, **changes)


def scores(**lost):
    return scores_with(POINTS, **lost)


# student -> (answers, expected score of every exercise)
CASES = {
    "reference": (answers(), scores()),
    "partial": (answers(coins_solution=None, obey_answer=None), scores(coins=4, obey=1)),
    "sample_counts": (answers(sample_solution=SAMPLE_COUNTS), scores(sample=2)),
    "sample_global_numpy": (answers(sample_solution=SAMPLE_GLOBAL_NUMPY), scores(sample=1)),
    "sample_global_counts": (answers(sample_solution=SAMPLE_GLOBAL_COUNTS), scores(sample=3)),
    "bound_without_factor_2": (answers(bound_solution=BOUND_WITHOUT_FACTOR_2), scores(bound=2)),
    "bound_eps_not_squared": (answers(bound_solution=BOUND_EPS_NOT_SQUARED), scores(bound=2)),
    "deviation_at_least": (answers(deviation_solution=DEVIATION_AT_LEAST), scores(deviation=1)),
    "deviation_count": (answers(deviation_solution=DEVIATION_COUNT), scores(deviation=2)),
    "coins_min_over_runs": (answers(coins_solution=COINS_MIN_OVER_RUNS), scores(coins=2)),
    "coins_same_random_coin": (answers(coins_solution=COINS_SAME_RANDOM_COIN), scores(coins=1)),
    "coins_counts": (answers(coins_solution=COINS_COUNTS), scores(coins=4)),
    "obey_all_three": (answers(obey_answer="answer_obey = 1"), scores(obey=1)),
    "sample_calls_course_lib": (answers(sample_solution=SAMPLE_CALLS_COURSE_LIB), scores(sample=3)),
    "coins_calls_course_lib": (answers(coins_solution=COINS_CALLS_COURSE_LIB), scores(coins=4)),
}


globals().update(class_grading_tests(ASSIGNMENT, POINTS, CASES, timeout=TIMEOUT))
