"""PLA and pocket on the course homework sizes, against the plain loops one writes first.

* ``pla`` and ``pocket`` called once per run, as a student does, against a plain
  NumPy loop over the same cycles (hw1_15: 400 x 4; hw1_18: 500 x 4);
* ``pla_runs``: the homework's 2,000 random cycles of PLA on hw1_15 at once;
* ``pocket_runs``: 2,000 runs x 50 updates on hw1_18 at once (goal: 0.3 s), on the machine
  as it is and again on a busy machine: the same paired comparison while the benchmark keeps
  the other cores busy itself (benchmarks/load.py, one CPU-bound process per core but one).

Every comparison is paired (benchmarks/paired.py): the course_lib version and the plain
one alternate, in the same process, on the same cycles, several times; the medians and
the median of the per-pair ratios go into the table. Both must return the same weights, checked
before anything is timed. The homework files come from the course data folder, the
cache or a download; offline a synthetic stand-in of the same size is used (said so).
"""
import statistics
import time

import numpy as np

import course_lib as cl
from benchmarks import paired
from benchmarks.load import busy_cores, loadavg

N_RUNS, MAX_UPDATES, REPEATS = 2000, 50, 5


# --- the plain versions: one run at a time, one example at a time -------------------------

def plain_pla(X, y, order):
    """PLA written plainly: walk the cycle one example at a time until a full cycle is clean."""
    n, w, pos, t = len(y), np.zeros(X.shape[1]), 0, 0
    while True:
        for k in range(n):
            i = order[(pos + k) % n]
            if (1 if X[i] @ w > 0 else -1) != y[i]:
                break
        else:
            return w, t
        w, t, pos = w + y[i] * X[i], t + 1, (pos + k + 1) % n


def plain_pocket(X, y, order, max_updates):
    """Pocket written plainly: walk the cycle one example at a time, E_in after every update."""
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


def load(name, fallback):
    try:
        X, y = cl.load_homework(name)
    except cl.DataUnavailableError as exc:
        print(f"{exc}: using {fallback[0]}")
        X, y = fallback[1]()
    return cl.add_bias(X), y


def main():
    rng = np.random.default_rng(2026)
    X15, y15 = load("hw1_15_train.dat", ("separable synthetic data, 400 x 4",
                                         lambda: cl.make_separable(400, 4, margin=0.01, rng=rng)[:2]))
    X18, y18 = load("hw1_18_train.dat", ("noisy synthetic data, 500 x 4",
                                         lambda: cl.make_noisy(500, 4, noise=0.1, rng=rng)[:2]))
    print(f"pla: N = {len(y15)}; pocket: N = {len(y18)}, {MAX_UPDATES} updates; {REPEATS} paired repeats\n")

    # one call per run, 200 runs
    orders15 = [rng.permutation(len(y15)) for _ in range(200)]
    orders18 = [rng.permutation(len(y18)) for _ in range(200)]
    for o in orders15[:20]:
        one, (w, t) = cl.pla(X15, y15, cycle=o), plain_pla(X15, y15, o)
        assert np.array_equal(one.w, w) and one.n_updates == t, "cl.pla and the plain loop disagree"
    for o in orders18[:20]:
        assert np.array_equal(cl.pocket(X18, y18, max_updates=MAX_UPDATES, cycle=o).w,
                              plain_pocket(X18, y18, o, MAX_UPDATES)), "cl.pocket and the plain loop disagree"
    paired.row("cl.pla once per run, 200 runs of hw1_15 (vs plain loop)",
               paired.alternate(lambda: [cl.pla(X15, y15, cycle=o) for o in orders15],
                                lambda: [plain_pla(X15, y15, o) for o in orders15], runs=REPEATS))
    paired.row("cl.pocket once per run, 200 runs of hw1_18 (vs plain loop)",
               paired.alternate(lambda: [cl.pocket(X18, y18, max_updates=MAX_UPDATES, cycle=o) for o in orders18],
                                lambda: [plain_pocket(X18, y18, o, MAX_UPDATES) for o in orders18], runs=REPEATS))

    # the homework experiments, all runs at once
    runs = cl.pla_runs(X15, y15, n_runs=N_RUNS, rng=1)
    assert all(np.array_equal(runs.w[r], plain_pla(X15, y15, runs.orders[r])[0]) for r in range(0, N_RUNS, 100))
    print(f"\nhw1_15: {N_RUNS} random cycles, {runs.n_updates.mean():.1f} updates on average")
    paired.row(f"cl.pla_runs, {N_RUNS} random cycles (vs cl.pla in a loop)",
               paired.alternate(lambda: cl.pla_runs(X15, y15, n_runs=N_RUNS, rng=1),
                                lambda: [cl.pla(X15, y15, cycle=o) for o in runs.orders], runs=3))
    paired.row(f"cl.pla_runs, {N_RUNS} random cycles (vs plain loop)",
               paired.alternate(lambda: cl.pla_runs(X15, y15, n_runs=N_RUNS, rng=1),
                                lambda: [plain_pla(X15, y15, o) for o in runs.orders], runs=3))

    pr = cl.pocket_runs(X18, y18, n_runs=N_RUNS, max_updates=MAX_UPDATES, rng=2)
    assert all(np.array_equal(pr.w[r], plain_pocket(X18, y18, pr.orders[r], MAX_UPDATES))
               for r in range(0, N_RUNS, 100)), "cl.pocket_runs and the plain loop disagree"
    print(f"\nhw1_18: {N_RUNS} runs x {MAX_UPDATES} updates")
    def pocket_pair():
        """Paired wall times, and the CPU time pocket_runs itself used in each of its runs."""
        cpu = []

        def project():
            c0 = time.process_time()
            cl.pocket_runs(X18, y18, n_runs=N_RUNS, max_updates=MAX_UPDATES, rng=2)
            cpu.append(time.process_time() - c0)

        pair = paired.alternate(project, lambda: [plain_pocket(X18, y18, o, MAX_UPDATES) for o in pr.orders],
                                runs=3)
        # the CPU time shows the work; wall time above it is time spent waiting for a core
        return pair, f"CPU {statistics.median(cpu[1:]):.3g} s, 1-min load average {loadavg()[0]:.1f}"

    timing, cpu = pocket_pair()
    paired.row(f"cl.pocket_runs, {N_RUNS} x {MAX_UPDATES} updates (vs plain loop)", timing,
               goal="<= 0.3 s", met=timing.project <= 0.3, note=cpu)
    with busy_cores() as machine:
        print(machine.describe(), flush=True)
        busy, cpu = pocket_pair()
    print(machine.summary())
    paired.row(f"cl.pocket_runs, {N_RUNS} x {MAX_UPDATES} updates, busy machine (vs plain loop)", busy,
               goal="<= 0.3 s", met=busy.project <= 0.3, note=f"{len(machine.pids)} busy process(es); {cpu}")

if __name__ == "__main__":
    main()
    paired.print_table()
