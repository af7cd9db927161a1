"""The overfitting heat map and the leave-one-out error, against the plain loops they replace.

1. The heat map of the book's Figure 4.3, left, on its grid: the mean overfit measure
   E_out(g_10) - E_out(g_2) over N = 80, 84, ..., 120 and sigma^2 = 0, 0.1, ..., 2 with a target of
   degree 20, 100 runs per cell (231 cells, 23,100 runs, 46,200 least-squares fits). (The maps of
   `notebooks/07-2-overfitting.ipynb` run the same code on N = 20, 25, ..., 120 and summarise each
   cell by its median run.) ``course_lib.overfit_measure`` solves the runs of every N as one stack of
   small normal equations.
   The plain version is what one writes first: one run at a time, NumPy's ``legvander`` and
   ``lstsq`` for each fit. Both draw every cell's numbers from the same spawned generator in the
   same order, so they must give the same measure; the benchmark checks that on the cells the
   plain loop runs. The plain loop is slow, so it runs one cell in three (spread over the grid)
   and its time is scaled to all cells (said so in the output). Goal: ratio <= 0.1.
2. ``course_lib.leave_one_out_error`` at N = 1,000 (Legendre features of degree 10, weight decay
   lambda = 0.1): one fit and the hat matrix's diagonal, against N explicit refits on N - 1
   examples; the two must agree to 1e-9. Ratio printed.

BLAS on one thread on both sides; A and B alternate over several runs (benchmarks/paired.py).
"""
import numpy as np
from numpy.polynomial import legendre as npleg
from threadpoolctl import threadpool_limits

import course_lib as cl
from benchmarks import paired

N_GRID = np.arange(80, 121, 4)
NOISE_GRID = np.round(np.arange(0.0, 2.01, 0.1), 2)
TARGET_DEGREE, N_RUNS, SEED = 20, 100, 2107
EVERY = 3                                   # the plain loop runs one cell in EVERY
RUNS = 3
N_LOO, DEGREE_LOO, LAMBDA_LOO = 1000, 10, 0.1


def cells():
    """(N, sigma^2) of every cell, in the C order ``overfit_measure`` spawns generators in."""
    n, s = np.broadcast_arrays(N_GRID[None, :], NOISE_GRID[:, None])
    return list(zip(n.ravel().tolist(), s.ravel().tolist(), strict=True))


def plain_measure(n, sigma2, gen, q_f=TARGET_DEGREE, n_runs=N_RUNS, degrees=(2, 10)):
    """One cell of the heat map, one run at a time (the draw order of course_lib.legendre_experiment)."""
    q = np.arange(q_f + 1)
    c = 1.0 / np.sqrt(np.sum(1.0 / (2 * q + 1)))
    A = gen.standard_normal((n_runs, q_f + 1))
    X = gen.uniform(-1.0, 1.0, size=(n_runs, n))
    E = gen.standard_normal((n_runs, n))
    total = 0.0
    for r in range(n_runs):
        b = c * A[r] / np.sqrt(2 * q + 1)                       # the target in the normalised basis
        y = npleg.legval(X[r], c * A[r]) + np.sqrt(sigma2) * E[r]
        e_out = []
        for d in degrees:
            Z = npleg.legvander(X[r], d) * np.sqrt(2 * np.arange(d + 1) + 1)
            w = np.linalg.lstsq(Z, y, rcond=None)[0]
            m = max(d, q_f) + 1
            diff = np.pad(w, (0, m - d - 1)) - np.pad(b, (0, m - q_f - 1))
            e_out.append(diff @ diff + sigma2)
        total += e_out[1] - e_out[0]
    return total / n_runs


def heat_map():
    grid = cells()
    subset = list(range(0, len(grid), EVERY))
    print(f"heat map: {len(N_GRID)} x {len(NOISE_GRID)} cells, {N_RUNS} runs each, target degree {TARGET_DEGREE}; "
          f"the plain loop runs {len(subset)} of the {len(grid)} cells and its time is scaled by "
          f"{len(grid) / len(subset):.2f}")

    def measure_map():
        return cl.overfit_measure(N_GRID[None, :], NOISE_GRID[:, None], TARGET_DEGREE, n_runs=N_RUNS, rng=SEED)

    def lib():
        measure_map()                        # returns None: paired times the whole call

    def plain():
        gens = np.random.default_rng(SEED).spawn(len(grid))
        return {k: plain_measure(*grid[k], gens[k]) for k in subset}

    measure = measure_map().ravel()
    reference = plain()
    worst = max(abs(measure[k] - v) / max(1.0, abs(v)) for k, v in reference.items())
    if worst > 1e-8:
        raise SystemExit(f"course_lib and the plain loop disagree (relative {worst:.2e}): the timing would mean nothing")
    print(f"  the two agree on {len(reference)} cells (largest relative difference {worst:.1e}); the measure runs "
          f"from {measure.min():+.3f} to {measure.max():+.3f}")
    scale = len(grid) / len(subset)

    def plain_scaled():
        import time

        t0 = time.perf_counter()
        plain()
        return (time.perf_counter() - t0) * scale

    result = paired.alternate(lib, plain_scaled, runs=RUNS)
    paired.row("overfit_measure: Figure 4.3's map (231 cells x 100 runs)", result, goal="<= 0.1x",
               met=result.ratio <= 0.1)


def leave_one_out():
    rng = np.random.default_rng(SEED)
    target = cl.legendre_target(15, rng=rng)
    x, y = cl.make_legendre_data(N_LOO, target, noise_variance=0.5, rng=rng)
    Z = cl.legendre_features(x, DEGREE_LOO)

    def lib():
        cl.leave_one_out_error(Z, y, weight_decay=LAMBDA_LOO)    # returns None: paired times the call

    def refits():
        refit_error()

    def refit_error():
        keep = np.ones(N_LOO, dtype=bool)
        total = 0.0
        for n in range(N_LOO):
            keep[n] = False
            w = cl.linear_regression(Z[keep], y[keep], weight_decay=LAMBDA_LOO)
            keep[n] = True
            total += (Z[n] @ w - y[n]) ** 2
        return total / N_LOO

    a, b = cl.leave_one_out_error(Z, y, weight_decay=LAMBDA_LOO), refit_error()
    if abs(a - b) > 1e-9 * max(1.0, b):
        raise SystemExit(f"leave_one_out_error {a} and {N_LOO} refits {b} disagree: the timing would mean nothing")
    print(f"leave-one-out, N = {N_LOO}, {DEGREE_LOO + 1} features, lambda = {LAMBDA_LOO}: E_loocv = {a:.6f} both ways")
    result = paired.alternate(lib, refits, runs=RUNS)
    paired.row(f"leave_one_out_error against {N_LOO} refits", result, goal="<= 0.01x", met=result.ratio <= 0.01)


def main():
    with threadpool_limits(limits=1):
        heat_map()
        leave_one_out()


if __name__ == "__main__":
    main()
    paired.print_table()
