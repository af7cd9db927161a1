"""Counting dichotomies exactly: course_lib's combinatorial count against a linear program per labeling.

``cl.count_dichotomies`` decides which labelings perceptrons realise from the hyperplanes through
the points (exact integer arithmetic, about N^d of them). The plain way, the one the problem set
asks for, decides each of the 2^N labelings with SciPy's linear-programming solver (HiGHS): the
labeling y is realised exactly when y_n (w0 + w^T x_n) >= 1 has a solution. Both count the same
(checked before anything is timed); they are timed in alternation, in the same process
(benchmarks/paired.py). Goal: at least 10 times faster, for 10 points in the plane and for 8 points
in R^3.
"""
import itertools

import numpy as np
from scipy.optimize import linprog

import course_lib as cl
from benchmarks import paired

GOAL = 10.0


def brute_force_lp(X):
    """The number of labelings for which the LP y_n (w0 + w^T x_n) >= 1 is feasible, over all 2^N of them."""
    Z = np.column_stack([np.ones(len(X)), X])
    count = 0
    for labels in itertools.product((-1.0, 1.0), repeat=len(X)):
        y = np.array(labels)
        res = linprog(np.zeros(Z.shape[1]), A_ub=-(y[:, None] * Z), b_ub=-np.ones(len(X)),
                      bounds=[(None, None)] * Z.shape[1], method="highs")
        count += res.status == 0
    return count


def main():
    rng = np.random.default_rng(2024)
    for n, d in ((10, 2), (8, 3)):
        X = rng.uniform(-1, 1, size=(n, d))
        exact, lp = cl.count_dichotomies(X), brute_force_lp(X)
        assert exact == lp == cl.growth_function("perceptron", n, dimension=d), (exact, lp)
        print(f"{n} points in R^{d}: {exact} of {2**n} labelings realised (both ways)")
        timing = paired.alternate(lambda X=X: cl.count_dichotomies(X), lambda X=X: brute_force_lp(X), runs=3)
        speedup = 1 / timing.ratio
        paired.row(f"count_dichotomies, {n} points in R^{d} (vs LP per labeling)", timing,
                   goal=f">= {GOAL:g}x faster", met=speedup >= GOAL, note=f"{speedup:.0f}x faster")


if __name__ == "__main__":
    main()
    paired.print_table()
