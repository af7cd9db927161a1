"""The pocket experiment of the course homework: 2,000 runs of pocket, 50 updates each.

500 examples in 4 dimensions (the homework's hw1_18 files when COURSE_DATA_DIR points
at them, otherwise synthetic noisy data of the same size). ``course_lib.pocket_runs``
does all runs at once in arrays; the plain version below is what one writes first:
one run at a time, one example at a time. Both follow the same random cycles, so
they must also return the same weights; the benchmark checks that before timing. The two
alternate over several runs, BLAS on one thread on both sides (benchmarks/paired.py).
Goal: course_lib in at most 0.3 s, on a busy 2-core machine too.
"""
import numpy as np
from threadpoolctl import threadpool_limits

import course_lib as cl
from benchmarks import paired

N_RUNS, MAX_UPDATES = 2000, 50
RUNS = 5


def plain_pocket(X, y, order, max_updates):
    """Pocket written plainly: walk the cycle one example at a time."""
    n = len(y)
    w = np.zeros(X.shape[1])
    best, best_err = w.copy(), np.mean(np.where(X @ w > 0, 1, -1) != y)
    pos = 0
    for _ in range(max_updates):
        for k in range(n):
            i = order[(pos + k) % n]
            if (1 if X[i] @ w > 0 else -1) != y[i]:
                break
        else:
            break  # no mistake left
        w = w + y[i] * X[i]
        pos = (pos + k + 1) % n
        err = np.mean(np.where(X @ w > 0, 1, -1) != y)
        if err < best_err:
            best, best_err = w.copy(), err
    return best


def load_data(rng):
    base = cl.data.data_dir()
    if base is not None and (base / "ntu_hw1" / "hw1_18_train.dat").is_file():
        X, y = cl.load_labeled_points(base / "ntu_hw1" / "hw1_18_train.dat")
        Xt, yt = cl.load_labeled_points(base / "ntu_hw1" / "hw1_18_test.dat")
        return cl.add_bias(X), y, cl.add_bias(Xt), yt, "hw1_18 (course homework files)"
    X, y, _ = cl.make_noisy(1000, 4, noise=0.1, rng=rng)
    Xb = cl.add_bias(X)
    return Xb[:500], y[:500], Xb[500:], y[500:], "synthetic noisy data, 500 x 4 (set COURSE_DATA_DIR for hw1_18)"


def main():
    rng = np.random.default_rng(2026)
    X, y, Xt, yt, what = load_data(rng)
    print(f"data: {what}; {N_RUNS} runs x {MAX_UPDATES} updates, N = {len(y)}, d = {X.shape[1] - 1}; "
          "BLAS on one thread on both sides")
    with threadpool_limits(limits=1):
        runs = cl.pocket_runs(X, y, n_runs=N_RUNS, max_updates=MAX_UPDATES, rng=rng)
        plain = np.array([plain_pocket(X, y, order, MAX_UPDATES) for order in runs.orders])
        if not np.allclose(plain, runs.w):
            raise SystemExit("course_lib.pocket_runs and the plain loop disagree: the timing would mean nothing")
        orders = runs.orders
        timing = paired.alternate(
            lambda: cl.pocket_runs(X, y, n_runs=N_RUNS, max_updates=MAX_UPDATES, rng=7),
            lambda: [plain_pocket(X, y, order, MAX_UPDATES) for order in orders], runs=RUNS)
    test_err = np.mean(np.where(Xt @ runs.w.T > 0, 1, -1) != yt[:, None], axis=0).mean()
    print(f"same weights in all {N_RUNS} runs; average E_out of the pocket weights: {test_err:.4f}")
    paired.row(f"pocket_runs, {N_RUNS:,} x {MAX_UPDATES} updates", timing, goal="<= 0.3 s",
               met=timing.project <= 0.3)


if __name__ == "__main__":
    main()
    paired.print_table()
