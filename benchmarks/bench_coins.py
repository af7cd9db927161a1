"""The coin experiment of *Learning From Data*: 100,000 runs x 1,000 coins x 10 flips (10^9 flips).

course_lib.hoeffding.coin_experiment works on chunks of runs at once (random bits and
a popcount table, two threads); the plain version does one run at a time, as one
first writes it. Goal: the full experiment in under 0.5 s with peak memory (NumPy
allocations, measured with tracemalloc) under 300 MB.
"""
import time
import tracemalloc

import numpy as np

from course_lib import hoeffding

N_RUNS, N_COINS, N_FLIPS = 100_000, 1_000, 10


def plain_coin_experiment(n_runs, n_coins, n_flips, rng):
    nu_1, nu_rand, nu_min = np.empty(n_runs), np.empty(n_runs), np.empty(n_runs)
    for r in range(n_runs):
        heads = rng.integers(0, 2, size=(n_coins, n_flips)).sum(axis=1)
        nu_1[r] = heads[0] / n_flips
        nu_rand[r] = heads[rng.integers(n_coins)] / n_flips
        nu_min[r] = heads.min() / n_flips
    return nu_1, nu_rand, nu_min


def main():
    hoeffding.coin_experiment(1_000, N_COINS, N_FLIPS, rng=0)  # warm-up
    tracemalloc.start()
    t0 = time.perf_counter()
    res = hoeffding.coin_experiment(N_RUNS, N_COINS, N_FLIPS, rng=1)
    t_lib = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    t0 = time.perf_counter()
    plain = plain_coin_experiment(N_RUNS, N_COINS, N_FLIPS, np.random.default_rng(2))
    t_plain = time.perf_counter() - t0

    exact = hoeffding.expected_nu_min(N_COINS, N_FLIPS)
    print(f"{N_RUNS:,} runs x {N_COINS:,} coins x {N_FLIPS} flips = {N_RUNS * N_COINS * N_FLIPS:.0e} flips")
    print(f"course_lib.coin_experiment : {t_lib:7.3f} s, peak {peak / 2**20:6.1f} MB   (goal < 0.5 s, < 300 MB)")
    print(f"one run at a time          : {t_plain:7.3f} s")
    print(f"speed-up                   : {t_plain / t_lib:7.1f} x")
    print(f"mean nu_min: course_lib {res.nu_min.mean():.5f}, plain {plain[2].mean():.5f}, exact {exact:.5f}")


if __name__ == "__main__":
    main()
