"""The SGD experiment of *Learning From Data* (Problem set 5): logistic regression by SGD.

100 runs; in each, a fresh random-line target on [-1, 1]^2 and N = 100 points labelled by
it; SGD from w = 0 with eta = 0.01, a fresh random order of the examples every epoch,
until the weights move less than 0.01 in an epoch. Reported: the mean number of epochs
(the book's answer: about 340) and the mean E_out, the cross-entropy error on fresh points
(about 0.10).

SGD is sequential within a run, so ``course_lib.logistic_sgd_runs`` runs the 100
independent runs side by side: step k of every run is one array operation across the
runs, and only the examples of an epoch are looped over in Python. The plain version is
what one writes first: one run at a time, one example at a time. Both draw the random
orders from the same per-run generators, so they must return the same weights and epochs;
the benchmark checks that on the runs it times. The plain loop is slow, so it is timed on
the first N_PLAIN runs and the time scaled up to all runs (said so in the output). The two
alternate over several runs, BLAS on one thread on both sides (benchmarks/paired.py).
Goal: course_lib under 5 seconds on a 2-core machine.
"""
import math
import time

import numpy as np
from threadpoolctl import threadpool_limits

import course_lib as cl
from benchmarks import paired

N_RUNS, N, ETA, TOL = 100, 100, 0.01, 0.01
N_PLAIN = 20
RUNS = 3
N_TEST = 10_000


def plain_sgd(X, y, gen, eta=ETA, tol=TOL):
    """SGD for logistic regression written plainly: one example at a time."""
    w = np.zeros(X.shape[1])
    epochs = 0
    while True:
        epochs += 1
        w_before = w.copy()
        for i in gen.permutation(len(y)):
            w = w + eta * y[i] * X[i] / (1.0 + math.exp(y[i] * (X[i] @ w)))
        if np.linalg.norm(w - w_before) < tol:
            return w, epochs


def make_runs(rng):
    X, y, targets = [], [], []
    for _ in range(N_RUNS):
        x, t, w_f = cl.make_random_line_data(N, rng=rng)
        X.append(cl.add_bias(x))
        y.append(t)
        targets.append(w_f)
    return np.stack(X), np.stack(y), targets


def main():
    rng = np.random.default_rng(2026)
    X, y, targets = make_runs(rng)
    seed = 7
    print(f"{N_RUNS} runs, N = {N}, eta = {ETA}, stop when an epoch moves w by less than {TOL}; "
          f"BLAS on one thread on both sides; the per-example loops timed on {N_PLAIN} runs and scaled")

    with threadpool_limits(limits=1):
        runs = cl.logistic_sgd_runs(X, y, eta=ETA, tol=TOL, rng=seed)
        gens = np.random.default_rng(seed).spawn(N_RUNS)
        plain = [plain_sgd(X[r], y[r], gens[r]) for r in range(N_PLAIN)]
        gens = np.random.default_rng(seed).spawn(N_RUNS)
        single = [cl.logistic_regression(X[r], y[r], method="sgd", eta=ETA, tol=TOL, rng=gens[r])
                  for r in range(N_PLAIN)]
        same = all(e == runs.n_epochs[r] and np.allclose(w, runs.w[r], rtol=1e-9, atol=1e-12)
                   for r, (w, e) in enumerate(plain))
        same_single = all(s.n_epochs == runs.n_epochs[r] and np.allclose(s.w, runs.w[r], rtol=1e-9, atol=1e-12)
                          for r, s in enumerate(single))
        if not (same and same_single):
            raise SystemExit("course_lib and the plain loop disagree: the timing would mean nothing")

        def lib():
            cl.logistic_sgd_runs(X, y, eta=ETA, tol=TOL, rng=seed)

        def scaled(one_run):
            def run():
                gens = np.random.default_rng(seed).spawn(N_RUNS)
                t0 = time.perf_counter()
                for r in range(N_PLAIN):
                    one_run(r, gens[r])
                return (time.perf_counter() - t0) * N_RUNS / N_PLAIN
            return run

        plain_loop = scaled(lambda r, g: plain_sgd(X[r], y[r], g))
        one_at_a_time = scaled(lambda r, g: cl.logistic_regression(X[r], y[r], method="sgd", eta=ETA, tol=TOL, rng=g))
        timing = paired.alternate(lib, plain_loop, runs=RUNS)
        timing_single = paired.alternate(one_at_a_time, plain_loop, runs=RUNS)

    eout, err = [], []
    for w, w_f in zip(runs.w, targets, strict=True):
        Xt = cl.add_bias(rng.uniform(-1.0, 1.0, size=(N_TEST, 2)))
        yt = np.where(Xt @ w_f > 0, 1.0, -1.0)
        eout.append(cl.cross_entropy_error(w, Xt, yt))
        err.append(cl.error_rate(w, Xt, yt))
    print(f"mean epochs: {runs.n_epochs.mean():.1f} (min {runs.n_epochs.min()}, max {runs.n_epochs.max()}); "
          f"book: about 340")
    print(f"mean E_out (cross-entropy, {N_TEST} fresh points per run): {np.mean(eout):.4f}; book: about 0.10")
    print(f"mean classification error on the fresh points: {np.mean(err):.4f}")
    paired.row(f"logistic_sgd_runs, {N_RUNS} runs of SGD", timing, goal="< 5 s", met=timing.project < 5)
    paired.row("logistic_regression(method='sgd'), one run at a time", timing_single,
               note="against the same per-example loop")


if __name__ == "__main__":
    main()
    paired.print_table()
