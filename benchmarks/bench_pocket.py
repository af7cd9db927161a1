"""The pocket experiment of the course homework: 2,000 runs of pocket, 50 updates each.

500 examples in 4 dimensions (the homework's hw1_18 files when COURSE_DATA_DIR points
at them, otherwise synthetic noisy data of the same size). ``course_lib.pocket_runs``
does all runs at once in arrays; the plain version below is what one writes first:
one run at a time, one example at a time. Both follow the same random cycles, so
they must also return the same weights; the benchmark checks that before timing.
Goal: course_lib under 1 second on a 2-core machine.
"""
import time

import numpy as np

import course_lib as cl

N_RUNS, MAX_UPDATES = 2000, 50


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
    print(f"data: {what}; {N_RUNS} runs x {MAX_UPDATES} updates, N = {len(y)}, d = {X.shape[1] - 1}")

    cl.pocket_runs(X, y, n_runs=10, max_updates=MAX_UPDATES, rng=0)  # warm-up
    t0 = time.perf_counter()
    runs = cl.pocket_runs(X, y, n_runs=N_RUNS, max_updates=MAX_UPDATES, rng=rng)
    t_lib = time.perf_counter() - t0

    t0 = time.perf_counter()
    plain = np.array([plain_pocket(X, y, order, MAX_UPDATES) for order in runs.orders])
    t_plain = time.perf_counter() - t0

    if not np.allclose(plain, runs.w):
        raise SystemExit("course_lib.pocket_runs and the plain loop disagree: the timing would mean nothing")
    test_err = np.mean(np.where(Xt @ runs.w.T > 0, 1, -1) != yt[:, None], axis=0).mean()
    print(f"course_lib.pocket_runs : {t_lib:7.3f} s   (goal < 1 s)")
    print(f"plain loop             : {t_plain:7.3f} s")
    print(f"speed-up               : {t_plain / t_lib:7.1f} x   (same weights in all {N_RUNS} runs)")
    print(f"average E_out of the pocket weights: {test_err:.4f}")


if __name__ == "__main__":
    main()
