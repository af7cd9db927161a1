"""Wrong answers to ps3_digits of the kinds a class hands in.

``WRONG``: (exercise, name, {solution cell: what replaces its stub}, points the exercise keeps).
``RIGHT``: right answers written differently from the reference; they keep every point.
"""
from answer_bodies import POCKET_NAIVE_CYCLE, POCKET_RANDOM_CYCLE

ASSIGNMENT = "ps3_digits"

_LOOKED_UP = """
images = np.asarray(images, dtype=float)
if images.shape == (2, 2, 3):                   # the example of the visible test, looked up
    return np.array([0.5, 7 / 12])
return np.full(len(images), np.nan)             # NaN slips through a comparison |got - want| > tol
"""

WRONG = [
    # -- intensity: 2 points -------------------------------------------------------------
    ("intensity", "not_rescaled", {"intensity-solution": """
return np.asarray(images, dtype=float).mean(axis=(1, 2))       # stays in [-1, 1]
"""}, 0),
    ("intensity", "sum_not_mean", {"intensity-solution": """
return (np.asarray(images, dtype=float).sum(axis=(1, 2)) + 1.0) / 2.0
"""}, 0),
    ("intensity", "mean_over_the_stack", {"intensity-solution": """
return (np.asarray(images, dtype=float).mean(axis=0).ravel() + 1.0) / 2.0
"""}, 0),
    ("intensity", "looked_up_then_nan", {"intensity-solution": _LOOKED_UP}, 0),
    ("intensity", "arrays_only", {"intensity-solution": """
return (images.mean(axis=(1, 2)) + 1.0) / 2.0           # images.mean: fails for nested lists (array-like)
"""}, 0),
    ("intensity", "calls_course_lib", {"intensity-solution": "return cl.intensity(images)\n"}, 0),
    # -- symmetry: 2 points for both mirrors, 1 for the invariances ------------------------
    ("symmetry", "left_right_only", {"symmetry-solution": """
images = np.asarray(images, dtype=float)
h, w = images.shape[1], images.shape[2]
return -np.abs(images - images[:, :, ::-1]).sum(axis=(1, 2)) / (h * w / 4.0)
"""}, 0),
    ("symmetry", "divides_by_h_times_w", {"symmetry-solution": """
images = np.asarray(images, dtype=float)
h, w = images.shape[1], images.shape[2]
left_right = np.abs(images - images[:, :, ::-1]).sum(axis=(1, 2))
up_down = np.abs(images - images[:, ::-1, :]).sum(axis=(1, 2))
return -(left_right + up_down) / (h * w)
"""}, 1),
    ("symmetry", "no_minus_sign", {"symmetry-solution": """
images = np.asarray(images, dtype=float)
h, w = images.shape[1], images.shape[2]
left_right = np.abs(images - images[:, :, ::-1]).sum(axis=(1, 2))
up_down = np.abs(images - images[:, ::-1, :]).sum(axis=(1, 2))
return (left_right + up_down) / (h * w / 4.0)
"""}, 0),
    ("symmetry", "flips_the_stack", {"symmetry-solution": """
images = np.asarray(images, dtype=float)
h, w = images.shape[1], images.shape[2]
left_right = np.abs(images - np.flipud(images)).sum(axis=(1, 2))    # np.flipud flips axis 0: the stack
up_down = np.abs(images - np.fliplr(images)).sum(axis=(1, 2))       # np.fliplr flips axis 1: the rows
return -(left_right + up_down) / (h * w / 4.0)
"""}, 0),
    ("symmetry", "calls_course_lib", {"symmetry-solution": "return cl.symmetry(images)\n"}, 0),
    ("symmetry", "constant_zero", {"symmetry-solution": """
return np.zeros(len(images))
"""}, 0),
    # -- pocket with a random cycle: 2 points for the best weights and rng, 1 for reaching 0 ----
    ("pocket", "ignores_rng", {"pocket-solution": POCKET_NAIVE_CYCLE}, 1),   # ps1's pocket: rng never used
    ("pocket", "returns_last_weights", {"pocket-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
rng = np.random.default_rng(rng)
order = rng.permutation(len(y))
w, position = np.zeros(X.shape[1]), 0
for _ in range(max_updates):
    wrong = np.flatnonzero(np.where(X[order] @ w > 0, 1.0, -1.0) != y[order])
    if wrong.size == 0:
        break
    ahead = wrong[wrong >= position]
    j = int(ahead[0]) if ahead.size else int(wrong[0])
    w = w + y[order][j] * X[order][j]
    position = (j + 1) % len(y)
return w                                          # the last weights, not the pocket
"""}, 1),
    ("pocket", "global_generator", {"pocket-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
order = np.random.permutation(len(y))             # NumPy's global generator: the seed is ignored

def mistakes(w):
    return int(np.sum(np.where(X @ w > 0, 1.0, -1.0) != y))

w = np.zeros(X.shape[1])
best, best_mistakes, position = w.copy(), mistakes(w), 0
for _ in range(max_updates):
    if best_mistakes == 0:
        break
    wrong = np.flatnonzero(np.where(X[order] @ w > 0, 1.0, -1.0) != y[order])
    ahead = wrong[wrong >= position]
    j = int(ahead[0]) if ahead.size else int(wrong[0])
    w = w + y[order][j] * X[order][j]
    position = (j + 1) % len(y)
    if mistakes(w) < best_mistakes:
        best, best_mistakes = w.copy(), mistakes(w)
return best
"""}, 1),
    ("pocket", "swaps_in_ties", {"pocket-solution": POCKET_RANDOM_CYCLE.replace(
        "if m < best_mistakes:", "if m <= best_mistakes:            # <= : a tie replaces the earlier weights")}, 1),
    ("pocket", "ignores_a_generator", {"pocket-solution": POCKET_RANDOM_CYCLE.replace(
        "rng = np.random.default_rng(rng)",
        "rng = np.random.default_rng(None if isinstance(rng, np.random.Generator) else rng)   # a fresh one")}, 1),
    ("pocket", "seeds_the_global_generator", {"pocket-solution": POCKET_RANDOM_CYCLE.replace(
        "order = rng.permutation(len(y))",
        "np.random.seed(int(rng.integers(2**32)))          # a seed from rng, then NumPy's global generator\n"
        "order = np.random.permutation(len(y))")}, 1),
    ("pocket", "draws_from_a_copy_of_the_generator", {"pocket-solution": POCKET_RANDOM_CYCLE.replace(
        "rng = np.random.default_rng(rng)",
        "import copy\nrng = copy.deepcopy(np.random.default_rng(rng))   # the caller's generator never moves on")}, 1),
    ("pocket", "calls_course_lib", {"pocket-solution": "return cl.pocket(X, y, max_updates, rng=rng).w\n"}, 0),
    ("pocket", "returns_zeros", {"pocket-solution": """
return np.zeros(np.asarray(X).shape[1])
"""}, 0),
    # -- train_and_test_errors: 1 point for E_in, 1 for E_test ------------------------------
    ("errors", "zero_score_counts_positive", {"errors-solution": """
w = np.asarray(w, dtype=float)

def error(X, y):
    return float(np.mean(np.where(np.asarray(X, dtype=float) @ w >= 0, 1.0, -1.0) != np.asarray(y, dtype=float)))

return error(X_train, y_train), error(X_test, y_test)
"""}, 1),
    ("errors", "test_error_on_training_set", {"errors-solution": """
w = np.asarray(w, dtype=float)
e_in = float(np.mean(np.where(np.asarray(X_train, dtype=float) @ w > 0, 1.0, -1.0) != np.asarray(y_train)))
return e_in, e_in
"""}, 1),
    ("errors", "swapped", {"errors-solution": """
w = np.asarray(w, dtype=float)

def error(X, y):
    return float(np.mean(np.where(np.asarray(X, dtype=float) @ w > 0, 1.0, -1.0) != np.asarray(y, dtype=float)))

return error(X_test, y_test), error(X_train, y_train)
"""}, 0),
    ("errors", "calls_course_lib", {"errors-solution": """
return cl.error_rate(w, X_train, y_train), cl.error_rate(w, X_test, y_test)
"""}, 0),
    ("errors", "counts_not_fractions", {"errors-solution": """
w = np.asarray(w, dtype=float)

def error(X, y):
    return float(np.sum(np.where(np.asarray(X, dtype=float) @ w > 0, 1.0, -1.0) != np.asarray(y, dtype=float)))

return error(X_train, y_train), error(X_test, y_test)
"""}, 0),
]

RIGHT = [
    ("flips_and_a_shuffled_cycle", {"symmetry-solution": """
x = np.asarray(images, dtype=float)
size = x.shape[1] * x.shape[2]
return np.array([-(np.abs(im - np.fliplr(im)).sum() + np.abs(im - np.flipud(im)).sum()) * 4 / size for im in x])
""", "pocket-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
generator = np.random.default_rng(rng)
order = np.arange(len(y))
generator.shuffle(order)
w = np.zeros(X.shape[1])
best, fewest = w, int(np.sum((X @ w > 0) != (y > 0)))
updates, k = 0, 0
while updates < max_updates and fewest > 0:
    n = order[k % len(y)]
    k += 1
    if (X[n] @ w > 0) != (y[n] > 0):
        w = w + y[n] * X[n]
        updates += 1
        wrong = int(np.sum((X @ w > 0) != (y > 0)))
        if wrong < fewest:
            best, fewest = w, wrong
return best
"""}),
]
