"""The coin experiment of *Learning From Data*: 100,000 runs x 1,000 coins x 10 flips (10^9 flips).

course_lib.hoeffding.coin_experiment works on chunks of runs at once (random bits and
a popcount table, two threads); the plain version does one run at a time, as one
first writes it, given the same two threads (half the runs each). The two alternate over
several runs (benchmarks/paired.py). Goal: the full experiment in under 0.5 s with peak
memory (NumPy allocations, measured with tracemalloc) under 300 MB.
"""
import time
import tracemalloc

import numpy as np

from benchmarks import paired
from course_lib import hoeffding

N_RUNS, N_COINS, N_FLIPS = 100_000, 1_000, 10
N_PLAIN = 4_000  # runs of the plain loop per timing (it is slow), scaled up to N_RUNS
RUNS = 5


def plain_coin_experiment(n_runs, n_coins, n_flips, rng):
    nu_1, nu_rand, nu_min = np.empty(n_runs), np.empty(n_runs), np.empty(n_runs)
    for r in range(n_runs):
        heads = rng.integers(0, 2, size=(n_coins, n_flips)).sum(axis=1)
        nu_1[r] = heads[0] / n_flips
        nu_rand[r] = heads[rng.integers(n_coins)] / n_flips
        nu_min[r] = heads.min() / n_flips
    return nu_1, nu_rand, nu_min


def plain_two_threads(n_runs, rng):
    """The plain loop given the same two threads as course_lib: each thread does half the runs."""
    import concurrent.futures

    gens = np.random.default_rng(rng).spawn(2)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        halves = list(pool.map(lambda g: plain_coin_experiment(n_runs // 2, N_COINS, N_FLIPS, g), gens))
    return [np.concatenate(parts) for parts in zip(*halves, strict=True)]


def main():
    hoeffding.coin_experiment(1_000, N_COINS, N_FLIPS, rng=0)  # warm-up
    tracemalloc.start()
    res = hoeffding.coin_experiment(N_RUNS, N_COINS, N_FLIPS, rng=1)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    def lib():
        hoeffding.coin_experiment(N_RUNS, N_COINS, N_FLIPS, rng=1)

    def plain():  # timed on N_PLAIN runs, scaled to all of them
        t0 = time.perf_counter()
        plain_two_threads(N_PLAIN, 2)
        return (time.perf_counter() - t0) * N_RUNS / N_PLAIN

    timing = paired.alternate(lib, plain, runs=RUNS)
    exact = hoeffding.expected_nu_min(N_COINS, N_FLIPS)
    check = plain_two_threads(N_PLAIN, 3)
    print(f"{N_RUNS:,} runs x {N_COINS:,} coins x {N_FLIPS} flips = {N_RUNS * N_COINS * N_FLIPS:.0e} flips; "
          f"both sides on two threads; the plain loop timed on {N_PLAIN:,} runs and scaled")
    print(f"mean nu_min: course_lib {res.nu_min.mean():.5f}, plain {check[2].mean():.5f}, exact {exact:.5f}")
    paired.row("coin experiment, 1e9 flips (2 threads each)", timing, goal="< 0.5 s", met=timing.project < 0.5)
    paired.row("coin experiment, peak memory", project=peak / 2**20, unit="MB", goal="< 300 MB",
               met=peak / 2**20 < 300)


if __name__ == "__main__":
    main()
    paired.print_table()
