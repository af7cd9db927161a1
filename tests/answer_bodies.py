"""Student answers that more than one test hands in: the one home of each body.

A body is what replaces the stub of a solution cell (see :func:`grading_helpers.fill`),
written as a student of Lecture 2 writes it. The corpora of wrong answers
(``tests/wrong_answers/``), the end-to-end grading tests and the benchmark of a class
take them from here, so a fix to one of them reaches every test that grades it.
"""

# -- ps1_perceptron ------------------------------------------------------------------------

# predict: the labels of the visible example, whatever the input (hidden tests use other data)
PREDICT_HARD_CODED = """
return np.array([1.0, -1.0, 1.0]) if np.any(np.asarray(w) != 0) else -np.ones(len(X))
"""

# radius: the length of the longest example without its x0 = 1
RADIUS_WITHOUT_X0 = """
X = np.asarray(X, dtype=float)[:, 1:]
return float(np.sqrt(np.max(np.sum(X * X, axis=1))))
"""

# pocket: PLA with the naive cycle that returns the last weights it reached, not the best
POCKET_RETURNS_LAST = """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
w, i = np.zeros(X.shape[1]), 0
for _ in range(max_updates):
    wrong = np.flatnonzero(np.where(X @ w > 0, 1.0, -1.0) != y)
    if wrong.size == 0:
        break
    after = wrong[wrong >= i]
    j = int(after[0]) if after.size else int(wrong[0])
    w = w + y[j] * X[j]
    i = (j + 1) % len(y)
return w                                          # the last weights, not the best
"""

# pocket with the naive cycle, keeping weights only when they make strictly fewer mistakes:
# ps1's pocket, and a wrong answer to ps3's, which asks for a random cycle drawn from rng
POCKET_NAIVE_CYCLE = """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)

def mistakes(w):
    return int(np.sum(np.where(X @ w > 0, 1.0, -1.0) != y))

w = np.zeros(X.shape[1])
best, best_mistakes, i = w.copy(), mistakes(w), 0
for _ in range(max_updates):
    if best_mistakes == 0:
        break
    wrong = np.flatnonzero(np.where(X @ w > 0, 1.0, -1.0) != y)
    after = wrong[wrong >= i]
    j = int(after[0]) if after.size else int(wrong[0])
    w = w + y[j] * X[j]
    i = (j + 1) % len(y)
    if mistakes(w) < best_mistakes:
        best, best_mistakes = w.copy(), mistakes(w)
return best
"""

# the same, but a tie replaces the pocket weights (<= where the rule is <)
POCKET_SWAPS_IN_TIES = POCKET_NAIVE_CYCLE.replace(
    "    if mistakes(w) < best_mistakes:\n",
    "    if mistakes(w) <= best_mistakes:              # <= : a tie replaces the earlier weights\n")
assert POCKET_SWAPS_IN_TIES != POCKET_NAIVE_CYCLE

# ps3's pocket: the random cycle drawn once from rng, the pocket swapped only for strictly fewer mistakes
POCKET_RANDOM_CYCLE = """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
rng = np.random.default_rng(rng)
order = rng.permutation(len(y))

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
    m = mistakes(w)
    if m < best_mistakes:
        best, best_mistakes = w.copy(), m
return best
"""
for _rule in ("if m < best_mistakes:", "rng = np.random.default_rng(rng)"):
    assert POCKET_RANDOM_CYCLE.count(_rule) == 1

# any solution cell: a loop that never ends (the cell timeout must stop it)
ENDLESS = """
while True:
    pass
"""
