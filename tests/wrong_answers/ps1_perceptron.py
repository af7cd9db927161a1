"""Wrong answers to ps1_perceptron of the kinds a class hands in.

``WRONG``: (exercise, name, {solution cell: what replaces its stub}, points the exercise keeps).
Each one breaks one exercise; grading must take points there and nowhere else.
``RIGHT``: right answers written differently from the reference; they keep every point.
``CHOICES``: the wrong choices of every multiple-choice cell.
"""
from answer_bodies import POCKET_RETURNS_LAST, POCKET_SWAPS_IN_TIES, PREDICT_HARD_CODED, RADIUS_WITHOUT_X0

ASSIGNMENT = "ps1_perceptron"

WRONG = [
    # -- predict: 2 points for the sign of the score, 1 for the tie rule ------------------
    ("predict", "zero_score_counts_positive", {"predict-solution": """
scores = np.asarray(X, dtype=float) @ np.asarray(w, dtype=float)
return np.where(scores >= 0, 1.0, -1.0)          # sign(0) taken as +1
"""}, 2),
    ("predict", "numpy_sign_gives_zero", {"predict-solution": """
return np.sign(np.asarray(X, dtype=float) @ np.asarray(w, dtype=float))   # 0 where the score is 0
"""}, 2),
    ("predict", "forgets_x0", {"predict-solution": """
X = np.asarray(X, dtype=float)
w = np.asarray(w, dtype=float)
return np.where(X[:, 1:] @ w[1:] > 0, 1.0, -1.0)   # the threshold w0 is dropped
"""}, 1),
    ("predict", "labels_one_and_zero", {"predict-solution": """
return (np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) > 0).astype(float)   # 1 / 0, not +1 / -1
"""}, 0),
    ("predict", "hard_coded_example", {"predict-solution": PREDICT_HARD_CODED}, 0),
    ("predict", "returns_nan", {"predict-solution": """
return np.full(len(X), np.nan)
"""}, 0),
    # -- pla: 3 points for halting with the naive cycle, 1 for max_updates ---------------
    ("pla", "restarts_scan_at_0", {"pla-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
w = np.zeros(X.shape[1])
n_updates = 0
while n_updates < max_updates:
    for i in range(len(y)):                      # after every correction the scan starts again at 0
        if (1.0 if X[i] @ w > 0 else -1.0) != y[i]:
            w = w + y[i] * X[i]
            n_updates += 1
            break
    else:
        break
return w, n_updates
"""}, 1),
    ("pla", "corrects_last_mistake", {"pla-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
w = np.zeros(X.shape[1])
n_updates = 0
while n_updates < max_updates:
    wrong = np.flatnonzero(np.where(X @ w > 0, 1.0, -1.0) != y)
    if wrong.size == 0:
        break
    i = wrong[-1]                                # always the last mistake, not the next one in the cycle
    w = w + y[i] * X[i]
    n_updates += 1
return w, n_updates
"""}, 1),
    ("pla", "forgets_x0", {"pla-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
n = len(y)
w = np.zeros(X.shape[1])
n_updates, i, clean = 0, 0, 0
while clean < n and n_updates < max_updates:
    if (1.0 if X[i, 1:] @ w[1:] > 0 else -1.0) != y[i]:
        w[1:] = w[1:] + y[i] * X[i, 1:]          # w0 never moves
        n_updates += 1
        clean = 0
    else:
        clean += 1
    i = (i + 1) % n
return w, n_updates
"""}, 0),
    ("pla", "one_update_too_many", {"pla-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
n = len(y)
w = np.zeros(X.shape[1])
n_updates, i, clean = 0, 0, 0
while clean < n and n_updates <= max_updates:     # <= : one correction past max_updates
    if (1.0 if X[i] @ w > 0 else -1.0) != y[i]:
        w = w + y[i] * X[i]
        n_updates += 1
        clean = 0
    else:
        clean += 1
    i = (i + 1) % n
return w, n_updates
"""}, 3),
    ("pla", "reflects_X_in_place", {"pla-solution": """
X = np.asarray(X, dtype=float)                        # no copy: the caller's X
y = np.asarray(y, dtype=float)
X *= y[:, None]                                       # z_n = y_n x_n, so that y_n w.x_n is z_n.w
w = np.zeros(X.shape[1])
n_updates, i, clean = 0, 0, 0
while clean < len(y) and n_updates < max_updates:
    s = X[i] @ w
    if s < 0 or (s == 0 and y[i] > 0):                # the same mistakes as sign(w.x_n) != y_n
        w = w + X[i]
        n_updates += 1
        clean = 0
    else:
        clean += 1
    i = (i + 1) % len(y)
return w, n_updates                                   # right weights; the caller's X is now reflected
"""}, 3),   # the weights are right: it loses the point of the test that checks the arguments are left unchanged
    ("pla", "calls_course_lib", {"pla-solution": """
result = cl.pla(X, y, max_updates=max_updates)
return result.w, result.n_updates
"""}, 0),
    # -- radius, margin, novikoff_bound: 1 point each -----------------------------------
    ("radius", "forgets_x0", {"radius-solution": RADIUS_WITHOUT_X0}, 0),
    ("radius", "returns_r_squared", {"radius-solution": """
X = np.asarray(X, dtype=float)
return float(np.max(np.sum(X * X, axis=1)))
"""}, 0),
    ("radius", "mean_length", {"radius-solution": """
X = np.asarray(X, dtype=float)
return float(np.mean(np.linalg.norm(X, axis=1)))
"""}, 0),
    ("margin", "not_normalised", {"margin-solution": """
scores = np.asarray(y, dtype=float) * (np.asarray(X, dtype=float) @ np.asarray(w_f, dtype=float))
return float(np.min(scores))
"""}, 0),
    ("margin", "ignores_labels", {"margin-solution": """
w_f = np.asarray(w_f, dtype=float)
return float(np.min(np.abs(np.asarray(X, dtype=float) @ w_f)) / np.linalg.norm(w_f))
"""}, 0),
    ("margin", "largest_instead_of_smallest", {"margin-solution": """
w_f = np.asarray(w_f, dtype=float)
scores = np.asarray(y, dtype=float) * (np.asarray(X, dtype=float) @ w_f)
return float(np.max(scores) / np.linalg.norm(w_f))
"""}, 0),
    ("bound", "not_squared", {"bound-solution": """
return float(R) / float(rho)
"""}, 0),
    ("bound", "upside_down", {"bound-solution": """
return float(rho) ** 2 / float(R) ** 2
"""}, 0),
    ("bound", "rho_not_squared", {"bound-solution": """
return float(R) ** 2 / float(rho)
"""}, 0),
    # -- pocket: 3 points -------------------------------------------------------------------
    ("pocket", "returns_last_weights", {"pocket-solution": POCKET_RETURNS_LAST}, 0),
    ("pocket", "swaps_in_ties", {"pocket-solution": POCKET_SWAPS_IN_TIES}, 0),
    ("pocket", "restarts_scan_at_0", {"pocket-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)

def mistakes(w):
    return int(np.sum(np.where(X @ w > 0, 1.0, -1.0) != y))

w = np.zeros(X.shape[1])
best, best_mistakes = w.copy(), mistakes(w)
for _ in range(max_updates):
    if best_mistakes == 0:
        break
    j = int(np.flatnonzero(np.where(X @ w > 0, 1.0, -1.0) != y)[0])   # always the first mistake
    w = w + y[j] * X[j]
    if mistakes(w) < best_mistakes:
        best, best_mistakes = w.copy(), mistakes(w)
return best
"""}, 0),
]

RIGHT = [
    ("predict_with_a_loop", {"predict-solution": """
labels = []
for x in np.asarray(X, dtype=float):
    labels.append(1 if float(np.dot(w, x)) > 0 else -1)
return np.array(labels)
"""}),
    ("pla_with_passes_and_bound_squared_ratio", {"pla-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
w = np.zeros(X.shape[1])
T = 0
while T < max_updates:
    changed = False
    for n in range(len(y)):
        if T < max_updates and (1 if w @ X[n] > 0 else -1) != y[n]:
            w += y[n] * X[n]
            T += 1
            changed = True
    if not changed:
        break
return w, T
""", "bound-solution": """
return (R / rho) ** 2
"""}),
]

CHOICES = {"funtime1-answer": (1, 2, 4), "funtime2-answer": (1, 2, 3), "funtime3-answer": (1, 2, 4),
           "funtime4-answer": (2, 3, 4)}
