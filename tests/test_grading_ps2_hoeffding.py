"""End-to-end grading of the Hoeffding assignment (ps2_hoeffding), in a throwaway copy of the course.

One autograde run grades the reference solution, the untouched release, known-wrong answers
(each a mistake students make, confined to one exercise) and answers that call course_lib's
own implementation, with real nbgrader and real kernels; every exercise's score of every
submission is checked. The hidden tests are statistical and draw fresh random data, so this
file passes only if they separate right from wrong answers reliably.
"""
import subprocess
import sys
import time

import nbformat
import pytest
from traitlets.config import Config

from grading.autograde import autograde, release
from grading.report import collect
from grading_helpers import ROOT, fill, grade_id, make_course, reference_bodies, submit

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
    """The reference answers with some solution cells changed (None: leave that stub untouched)."""
    out = dict(REF)
    for gid, code in changes.items():
        gid = gid.replace("_", "-")
        if code is None:
            out.pop(gid)
        else:
            out[gid] = code
    return out


def scores(**lost):
    """Expected score of every exercise: full marks except the points lost in ``lost``."""
    return {ex: pts - lost.get(ex, 0) for ex, pts in POINTS.items()}


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


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A course copy with every kind of submission, released and autograded once."""
    course = make_course(tmp_path_factory.mktemp("grading_ps2"))
    release(course, ASSIGNMENT)
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for student, (ans, _) in CASES.items():
        submit(course, student, fill(released, ans), assignment=ASSIGNMENT)
    submit(course, "untouched", released, assignment=ASSIGNMENT)
    overrides = Config()
    overrides.Execute.timeout = TIMEOUT
    start = time.monotonic()
    status = autograde(course, ASSIGNMENT, overrides=overrides, echo=lambda *a: None)
    elapsed = time.monotonic() - start
    exercises, rows = collect(course, ASSIGNMENT)
    return {"course": course, "status": status, "rows": {r["student"]: r for r in rows},
            "exercises": exercises, "elapsed": elapsed}


def test_points_per_exercise(graded):
    assert graded["exercises"] == POINTS


def test_every_exercise_has_a_visible_test_and_a_known_wrong_answer():
    nb = nbformat.read(ROOT / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert {grade_id(c).split("-")[0] for c in tests} == set(POINTS)
    for c in tests:
        assert "assert" in c.source, f"{grade_id(c)} has no visible test"
    wrong = {s: parts for s, (_, parts) in CASES.items() if s not in ("reference", "partial") and "course_lib" not in s}
    zeroed = {ex for parts in wrong.values() for ex in POINTS if parts[ex] == 0}
    assert zeroed == set(POINTS), "every exercise has a known-wrong answer that earns none of its points"
    assert all(sum(parts[ex] < POINTS[ex] for ex in POINTS) == 1 for parts in wrong.values()), \
        "each known-wrong answer is confined to one exercise"


@pytest.mark.parametrize("student", sorted(CASES))
def test_grade(graded, student):
    _, parts = CASES[student]
    row = graded["rows"][student]
    assert row["status"] == "graded", row["reason"]
    assert row["parts"] == parts, f"{student}: expected {parts}, got {row['parts']}"
    assert row["score"] == sum(parts.values())


def test_untouched_release_scores_zero(graded):
    row = graded["rows"]["untouched"]
    assert row["status"] == "graded"
    assert row["score"] == 0 and all(v == 0 for v in row["parts"].values()), row["parts"]


def test_reference_passes_the_self_check(graded):
    course = graded["course"]
    for student, code in (("reference", 0), ("untouched", 1)):
        nb = course / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        out = subprocess.run([sys.executable, "-m", "grading", "check", str(nb), "--timeout", str(TIMEOUT)],
                             capture_output=True, text=True, cwd=course)
        assert out.returncode == code, out.stdout[-2000:]


def test_grading_run_time(graded):
    # each submission runs in its own kernel (about 10 s on a busy 2-core machine): a guard against a
    # hidden test that got slow, not a benchmark
    per_submission = graded["elapsed"] / len(graded["rows"])
    assert per_submission < 20, f"{graded['elapsed']:.0f} s for {len(graded['rows'])} submissions"
