"""Wrong answers to ps6_generalization of the kinds a class hands in.

``WRONG``: (exercise, name, {solution cell: what replaces its stub}, points the exercise keeps).
Each one breaks one exercise; grading must take points there and nowhere else.
``RIGHT``: right answers written differently from the reference; they keep every point.
``CHOICES``: the wrong choices of every multiple-choice cell.
"""
ASSIGNMENT = "ps6_generalization"

# bias_variance with the line that draws the data sets left to a placeholder
_BIASVAR = """{rng}
y = np.sin(np.pi * x)
if model == "constant":
    a, b = np.zeros(n_datasets), y.mean(axis=1)
else:
    a = (y[:, 1] - y[:, 0]) / (x[:, 1] - x[:, 0])
    b = y[:, 0] - a * x[:, 0]
a_bar, b_bar = a.mean(), b.mean()
return float(a_bar**2 / 3 + b_bar**2 - 2 * a_bar / np.pi + 0.5), float(np.mean((a - a_bar) ** 2 / 3 + (b - b_bar) ** 2))
"""

WRONG = [
    # -- growth_function: 2 points for rays and intervals, 1 for convex sets and lines ---------------------
    ("growth", "rays_off_by_one", {"growth-solution": """
if model == "positive_ray":
    return N                                   # the N points, forgetting that there are N + 1 gaps
if model == "positive_interval":
    return N * (N + 1) // 2 + 1
if model == "convex_set":
    return 2**N
return N * N - N + 2
"""}, 1),
    ("growth", "intervals_choose_from_n", {"growth-solution": """
import math
if model == "positive_ray":
    return N + 1
if model == "positive_interval":
    return math.comb(N, 2) + 1                 # the ends among N points instead of N + 1 gaps
if model == "convex_set":
    return 2**N
return N * N - N + 2
"""}, 1),
    ("growth", "intervals_without_the_empty_one", {"growth-solution": """
if model == "positive_ray":
    return N + 1
if model == "positive_interval":
    return N * (N + 1) // 2                    # the labeling with no point inside is forgotten
if model == "convex_set":
    return 2**N
return N * N - N + 2
"""}, 1),
    ("growth", "lines_shatter_everything", {"growth-solution": """
if model == "positive_ray":
    return N + 1
if model == "positive_interval":
    return N * (N + 1) // 2 + 1
return 2**N                                    # lines as powerful as convex sets
"""}, 2),
    ("growth", "lines_n_squared_plus_n", {"growth-solution": """
if model == "positive_ray":
    return N + 1
if model == "positive_interval":
    return N * (N + 1) // 2 + 1
if model == "convex_set":
    return 2**N
return N * N + N + 2                           # a sign slip in Cover's count
"""}, 2),
    # -- count_dichotomies: 2 points in the plane, 1 in other dimensions ------------------------------------
    ("dichotomies", "lp_with_zero_margin", {"dichotomies-solution": """
import itertools
from scipy.optimize import linprog
X = np.asarray(X, dtype=float)
Z = np.column_stack([np.ones(len(X)), X])
count = 0
for labels in itertools.product((-1.0, 1.0), repeat=len(X)):
    y = np.array(labels)
    # y (w^T z) >= 0: w = 0 always solves it, so every labeling looks realisable
    result = linprog(np.zeros(Z.shape[1]), A_ub=-(y[:, None] * Z), b_ub=np.zeros(len(X)),
                     bounds=[(None, None)] * Z.shape[1], method="highs")
    count += result.status == 0
return int(count)
"""}, 0),
    ("dichotomies", "no_bias_term", {"dichotomies-solution": """
import itertools
from scipy.optimize import linprog
X = np.asarray(X, dtype=float)
count = 0
for labels in itertools.product((-1.0, 1.0), repeat=len(X)):
    y = np.array(labels)
    # sign(w^T x): lines through the origin only
    result = linprog(np.zeros(X.shape[1]), A_ub=-(y[:, None] * X), b_ub=-np.ones(len(X)),
                     bounds=[(None, None)] * X.shape[1], method="highs")
    count += result.status == 0
return int(count)
"""}, 0),
    ("dichotomies", "growth_function_instead_of_counting", {"dichotomies-solution": """
N = len(X)
return N * N - N + 2                           # what points in general position in the plane would give
"""}, 0),
    ("dichotomies", "plane_only", {"dichotomies-solution": """
import itertools
from scipy.optimize import linprog
X = np.asarray(X, dtype=float)[:, :2]          # the first two coordinates only
Z = np.column_stack([np.ones(len(X)), X])
count = 0
for labels in itertools.product((-1.0, 1.0), repeat=len(X)):
    y = np.array(labels)
    result = linprog(np.zeros(Z.shape[1]), A_ub=-(y[:, None] * Z), b_ub=-np.ones(len(X)),
                     bounds=[(None, None)] * Z.shape[1], method="highs")
    count += result.status == 0
return int(count)
"""}, 2),
    ("dichotomies", "arrays_only", {"dichotomies-solution": """
import itertools
from scipy.optimize import linprog
N = X.shape[0]                                 # X used as it came: a list of points has no shape
Z = np.column_stack([np.ones(N), X])
count = 0
for labels in itertools.product((-1.0, 1.0), repeat=N):
    y = np.array(labels)
    result = linprog(np.zeros(Z.shape[1]), A_ub=-(y[:, None] * Z), b_ub=-np.ones(N),
                     bounds=[(None, None)] * Z.shape[1], method="highs")
    count += result.status == 0
return int(count)
"""}, 2),
    # -- bounding_function: 2 points for the table, 1 for exact large values --------------------------------
    ("bounding", "base_case_k1_gives_two", {"bounding-solution": """
table = {}
for n in range(1, N + 1):
    for j in range(1, k + 1):
        if j == 1:
            table[n, j] = 2                    # "one point: two labels", but k = 1 means no point is shattered
        elif n == 1:
            table[n, j] = 2
        else:
            table[n, j] = table[n - 1, j] + table[n - 1, j - 1]
return table[N, k]
"""}, 0),
    ("bounding", "n_equal_k_is_two_to_the_n", {"bounding-solution": """
from functools import lru_cache

@lru_cache(maxsize=None)
def B(n, j):
    if j == 1:
        return 1
    if n <= j:
        return 2**n                            # N = k should leave one labeling out: 2^N - 1
    return B(n - 1, j) + B(n - 1, j - 1)
return B(N, k)
"""}, 0),
    ("bounding", "one_point_one_labeling", {"bounding-solution": """
table = {}
for n in range(1, N + 1):
    for j in range(1, k + 1):
        if j == 1 or n == 1:
            table[n, j] = 1                    # one point has two labelings when k >= 2
        else:
            table[n, j] = table[n - 1, j] + table[n - 1, j - 1]
return table[N, k]
"""}, 0),
    ("bounding", "floats_from_scipy", {"bounding-solution": """
from scipy.special import comb
return sum(comb(N, i) for i in range(k))       # floats: exact only while they stay below 2^53
"""}, 2),
    # -- vc_sample_size: 2 points for the least integer, 1 for large answers ---------------------------------
    ("samplesize", "coarse_search", {"samplesize-solution": """
import math
N = 1000
while N < 8 / epsilon**2 * (math.log(4) + d_vc * math.log(2 * N) - math.log(delta)):
    N += 1000                                  # in steps of 1,000, as the book's iterations are rounded
return N
"""}, 0),
    ("samplesize", "three_iterations", {"samplesize-solution": """
import math
N = 1000.0
for _ in range(3):                             # the book's iteration, stopped before it settles
    N = 8 / epsilon**2 * (math.log(4) + d_vc * math.log(2 * N) - math.log(delta))
return math.ceil(N)
"""}, 0),
    ("samplesize", "common_logarithm", {"samplesize-solution": """
import math
N = 1000.0
for _ in range(200):
    N = 8 / epsilon**2 * (math.log10(4) + d_vc * math.log10(2 * N) - math.log10(delta))   # log10, not ln
return math.ceil(N)
"""}, 0),
    ("samplesize", "real_root_not_an_integer", {"samplesize-solution": """
import math
N = 1000.0
for _ in range(200):
    N = 8 / epsilon**2 * (math.log(4) + d_vc * math.log(2 * N) - math.log(delta))
return N                                       # the boundary itself, not the least integer above it
"""}, 0),
    # -- bias_variance: 2 points for the values, 1 for the generator ----------------------------------------
    ("biasvar", "bias_on_the_training_points", {"biasvar-solution": """
rng = np.random.default_rng(rng)
x = rng.uniform(-1.0, 1.0, size=(n_datasets, 2))
y = np.sin(np.pi * x)
if model == "constant":
    a, b = np.zeros(n_datasets), y.mean(axis=1)
else:
    a = (y[:, 1] - y[:, 0]) / (x[:, 1] - x[:, 0])
    b = y[:, 0] - a * x[:, 0]
# each hypothesis measured on its own two points: this is E_in, not the bias
bias = np.mean((a[:, None] * x + b[:, None] - y) ** 2)
a_bar, b_bar = a.mean(), b.mean()
variance = np.mean((a - a_bar) ** 2 / 3 + (b - b_bar) ** 2)
return float(bias), float(variance)
"""}, 1),
    ("biasvar", "variance_on_the_training_points", {"biasvar-solution": """
rng = np.random.default_rng(rng)
x = rng.uniform(-1.0, 1.0, size=(n_datasets, 2))
y = np.sin(np.pi * x)
if model == "constant":
    a, b = np.zeros(n_datasets), y.mean(axis=1)
else:
    a = (y[:, 1] - y[:, 0]) / (x[:, 1] - x[:, 0])
    b = y[:, 0] - a * x[:, 0]
a_bar, b_bar = a.mean(), b.mean()
bias = a_bar**2 / 3 + b_bar**2 - 2 * a_bar / np.pi + 0.5
# the spread of g around g_bar measured only where that data set had its points
variance = np.mean((a[:, None] * x + b[:, None] - (a_bar * x + b_bar)) ** 2)
return float(bias), float(variance)
"""}, 1),
    ("biasvar", "global_generator", {"biasvar-solution": """
x = np.random.uniform(-1.0, 1.0, size=(n_datasets, 2))   # NumPy's global generator: rng is ignored
y = np.sin(np.pi * x)
if model == "constant":
    a, b = np.zeros(n_datasets), y.mean(axis=1)
else:
    a = (y[:, 1] - y[:, 0]) / (x[:, 1] - x[:, 0])
    b = y[:, 0] - a * x[:, 0]
a_bar, b_bar = a.mean(), b.mean()
return float(a_bar**2 / 3 + b_bar**2 - 2 * a_bar / np.pi + 0.5), float(np.mean((a - a_bar) ** 2 / 3 + (b - b_bar) ** 2))
"""}, 2),
    ("biasvar", "second_moment_one_half", {"biasvar-solution": """
rng = np.random.default_rng(rng)
x = rng.uniform(-1.0, 1.0, size=(n_datasets, 2))
y = np.sin(np.pi * x)
if model == "constant":
    a, b = np.zeros(n_datasets), y.mean(axis=1)
else:
    a = (y[:, 1] - y[:, 0]) / (x[:, 1] - x[:, 0])
    b = y[:, 0] - a * x[:, 0]
a_bar, b_bar = a.mean(), b.mean()
# E[x^2] taken as 1/2 (that is E[sin^2(pi x)]): the line's bias and variance both come out wrong
return float(a_bar**2 / 2 + b_bar**2 - 2 * a_bar / np.pi + 0.5), float(np.mean((a - a_bar) ** 2 / 2 + (b - b_bar) ** 2))
"""}, 1),
    # -- the generator: a seed, a Generator (drawn from as it is) and None, never NumPy's global generator ----
    ("biasvar", "replaces_the_given_generator", {"biasvar-solution": _BIASVAR.format(rng="""
rng = np.random.default_rng(rng if isinstance(rng, int) else None)   # rng taken for a seed: a Generator is dropped
x = rng.uniform(-1.0, 1.0, size=(n_datasets, 2))""")}, 2),
    ("biasvar", "draws_from_a_copy_of_the_generator", {"biasvar-solution": _BIASVAR.format(rng="""
import copy
rng = copy.deepcopy(np.random.default_rng(rng))    # "leaves the caller's generator unchanged": it never moves on
x = rng.uniform(-1.0, 1.0, size=(n_datasets, 2))""")}, 2),
    ("biasvar", "pins_none_to_a_seed", {"biasvar-solution": _BIASVAR.format(rng="""
rng = np.random.default_rng(2026 if rng is None else rng)    # reproducible by default: rng=None always the same
x = rng.uniform(-1.0, 1.0, size=(n_datasets, 2))""")}, 2),
    ("biasvar", "seeds_the_global_generator", {"biasvar-solution": _BIASVAR.format(rng="""
rng = np.random.default_rng(rng)
np.random.seed(int(rng.integers(2**32)))            # one seed from rng, then NumPy's global generator
x = np.random.uniform(-1.0, 1.0, size=(n_datasets, 2))""")}, 2),
    # -- weighted_pocket: 2 points for the weighted pocket, 1 for ties and the arguments ---------------------
    ("weighted", "arrays_only", {"weighted-solution": """
def cost(v):
    return float(np.sum(weights * (np.where(X @ v > 0, 1.0, -1.0) != y)))

v = np.zeros(X.shape[1])                       # X, y, weights and cycle used as they came: lists have no shape
best, best_cost, position = v.copy(), cost(v), 0
for _ in range(max_updates):
    wrong = np.where(X @ v > 0, 1.0, -1.0) != y
    if not wrong.any():
        break
    p = next((position + s) % len(cycle) for s in range(len(cycle)) if wrong[cycle[(position + s) % len(cycle)]])
    v = v + y[cycle[p]] * X[cycle[p]]
    position = (p + 1) % len(cycle)
    if cost(v) < best_cost:
        best, best_cost = v.copy(), cost(v)
return best
"""}, 2),
    ("weighted", "unweighted_pocket", {"weighted-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
cycle = np.asarray(cycle, dtype=int)

def mistakes(v):
    return int(np.sum(np.where(X @ v > 0, 1.0, -1.0) != y))   # every mistake counts 1: the weights are ignored

v = np.zeros(X.shape[1])
best, best_mistakes, position = v.copy(), mistakes(v), 0
for _ in range(max_updates):
    wrong = np.where(X @ v > 0, 1.0, -1.0) != y
    if not wrong.any():
        break
    p = next((position + s) % len(cycle) for s in range(len(cycle)) if wrong[cycle[(position + s) % len(cycle)]])
    v = v + y[cycle[p]] * X[cycle[p]]
    position = (p + 1) % len(cycle)
    if mistakes(v) < best_mistakes:
        best, best_mistakes = v.copy(), mistakes(v)
return best
"""}, 0),
    ("weighted", "later_weights_win_ties", {"weighted-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
weights = np.asarray(weights, dtype=float)
cycle = np.asarray(cycle, dtype=int)

def cost(v):
    return float(np.sum(weights * (np.where(X @ v > 0, 1.0, -1.0) != y)))

v = np.zeros(X.shape[1])
best, best_cost, position = v.copy(), cost(v), 0
for _ in range(max_updates):
    wrong = np.where(X @ v > 0, 1.0, -1.0) != y
    if not wrong.any():
        break
    p = next((position + s) % len(cycle) for s in range(len(cycle)) if wrong[cycle[(position + s) % len(cycle)]])
    v = v + y[cycle[p]] * X[cycle[p]]
    position = (p + 1) % len(cycle)
    if cost(v) <= best_cost:                   # <= : a tie replaces the pocket's weights
        best, best_cost = v.copy(), cost(v)
return best
"""}, 2),
    ("weighted", "returns_the_last_weights", {"weighted-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
cycle = np.asarray(cycle, dtype=int)
v = np.zeros(X.shape[1])
position = 0
for _ in range(max_updates):
    wrong = np.where(X @ v > 0, 1.0, -1.0) != y
    if not wrong.any():
        break
    p = next((position + s) % len(cycle) for s in range(len(cycle)) if wrong[cycle[(position + s) % len(cycle)]])
    v = v + y[cycle[p]] * X[cycle[p]]
    position = (p + 1) % len(cycle)
return v                                       # PLA's last weights: nothing kept in the pocket
"""}, 0),
    ("weighted", "ignores_the_cycle", {"weighted-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
weights = np.asarray(weights, dtype=float)

def cost(v):
    return float(np.sum(weights * (np.where(X @ v > 0, 1.0, -1.0) != y)))

v = np.zeros(X.shape[1])
best, best_cost, position = v.copy(), cost(v), 0
for _ in range(max_updates):
    wrong = np.flatnonzero(np.where(X @ v > 0, 1.0, -1.0) != y)
    if wrong.size == 0:
        break
    after = wrong[wrong >= position]           # the naive cycle 0, 1, ..., N-1: the given cycle is not used
    n = int(after[0]) if after.size else int(wrong[0])
    v = v + y[n] * X[n]
    position = (n + 1) % len(y)
    if cost(v) < best_cost:
        best, best_cost = v.copy(), cost(v)
return best
"""}, 0),
    ("weighted", "scan_restarts_at_the_start", {"weighted-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
weights = np.asarray(weights, dtype=float)
cycle = np.asarray(cycle, dtype=int)

def cost(v):
    return float(np.sum(weights * (np.where(X @ v > 0, 1.0, -1.0) != y)))

v = np.zeros(X.shape[1])
best, best_cost = v.copy(), cost(v)
for _ in range(max_updates):
    wrong = np.where(X @ v > 0, 1.0, -1.0) != y
    if not wrong.any():
        break
    n = next(i for i in cycle if wrong[i])     # always from position 0 of the cycle
    v = v + y[n] * X[n]
    if cost(v) < best_cost:
        best, best_cost = v.copy(), cost(v)
return best
"""}, 0),
]

RIGHT = [
    ("written_differently", {"growth-solution": """
import math
formulas = {
    "positive_ray": lambda n: math.comb(n, 0) + math.comb(n, 1),
    "positive_interval": lambda n: math.comb(n, 0) + math.comb(n, 1) + math.comb(n, 2),
    "convex_set": lambda n: 1 << n,
    "perceptron_2d": lambda n: 2 * (1 + (n - 1) + math.comb(n - 1, 2)),    # Cover's count with d = 2
}
return formulas[model](N)
""", "dichotomies-solution": """
import itertools
from scipy.optimize import linprog
points = np.array(X, dtype=float)
n, d = points.shape
realised = 0
for labels in itertools.product((1.0, -1.0), repeat=n):
    y = np.array(labels)
    # maximise the margin t (at most 1) with -1 <= w_i <= 1: a labeling is realised exactly when t > 0
    A = np.hstack([-(y[:, None] * np.hstack([np.ones((n, 1)), points])), np.ones((n, 1))])
    c = np.zeros(d + 2)
    c[-1] = -1.0
    res = linprog(c, A_ub=A, b_ub=np.zeros(n), bounds=[(-1, 1)] * (d + 1) + [(None, 1)], method="highs")
    if res.status == 0 and -res.fun > 1e-9:
        realised += 1
return realised
""", "bounding-solution": """
import math
return sum(math.comb(N, i) for i in range(k))   # the closed form the recursion leads to
""", "samplesize-solution": """
import math
n = 1000.0
for _ in range(500):                            # the book's iteration, run until it settles
    n = 8 / epsilon**2 * (math.log(4) + d_vc * math.log(2 * n) - math.log(delta))
N = math.ceil(n)
while N - 1 >= 1 and N - 1 >= 8 / epsilon**2 * (math.log(4) + d_vc * math.log(2 * (N - 1)) - math.log(delta)):
    N -= 1
return N
""", "biasvar-solution": """
generator = np.random.default_rng(rng)
x = generator.uniform(-1.0, 1.0, size=(n_datasets, 2))
y = np.sin(np.pi * x)
design = np.stack([x, np.ones_like(x)], axis=2) if model == "line" else np.ones((n_datasets, 2, 1))
coef = np.linalg.solve(np.swapaxes(design, 1, 2) @ design, np.einsum("nik,ni->nk", design, y)[..., None])[..., 0]
a = coef[:, 0] if model == "line" else np.zeros(n_datasets)
b = coef[:, 1] if model == "line" else coef[:, 0]
grid = np.linspace(-1, 1, 2001)                 # x-averages on a grid, with the trapezoidal rule
g_bar = a.mean() * grid + b.mean()
bias = np.trapezoid((g_bar - np.sin(np.pi * grid)) ** 2, grid) / 2
spread = np.var(a) * grid**2 + 2 * np.mean((a - a.mean()) * (b - b.mean())) * grid + np.var(b)
variance = np.trapezoid(spread, grid) / 2
return bias, variance
""", "weighted-solution": """
X = np.array(X, dtype=float)
y = np.array(y, dtype=float)
weights = np.array(weights, dtype=float)
order = [int(i) for i in cycle]
N = len(y)

def weighted_ein(v):
    return sum(weights[n] for n in range(N) if (1.0 if X[n] @ v > 0 else -1.0) != y[n]) / N

v = np.zeros(X.shape[1])
pocket_w, pocket_e = v, weighted_ein(v)
at = 0
for _ in range(max_updates):
    if weighted_ein(v) == 0:
        break
    while (1.0 if X[order[at]] @ v > 0 else -1.0) == y[order[at]]:
        at = (at + 1) % len(order)
    n = order[at]
    v = v + y[n] * X[n]
    at = (at + 1) % len(order)
    if weighted_ein(v) < pocket_e:
        pocket_w, pocket_e = v, weighted_ein(v)
return pocket_w
"""}),
]

CHOICES = {"supermarket-answer": (1, 2, 4)}
