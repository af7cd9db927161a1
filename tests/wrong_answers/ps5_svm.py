"""Wrong answers to ps5_svm of the kinds a class hands in.

``WRONG``: (exercise, name, {solution cell: what replaces its stub}, points the exercise keeps).
``CHOICES``: the wrong choices of every multiple-choice cell.
``RIGHT``: right answers written differently from the reference; they keep every point.

An argument changed in place cannot be seen by a test that runs in the grader (it sends the
function copies), so the versions that modify their arguments here are those whose own result
suffers from it: ``Z = X`` when ``Z`` is omitted makes the two one array.
"""
ASSIGNMENT = "ps5_svm"


def _majority_of(neighbours, comment):
    """A k-NN answer voting over ``neighbours`` (an expression in x), the most voted label met first winning."""
    return f"""
X_train = np.asarray(X_train, dtype=float)
y_train = np.asarray(y_train)
out = []
for x in np.asarray(X, dtype=float):
    votes = list(y_train[{neighbours}])   # {comment}
    top = max(votes.count(v) for v in votes)
    out.append(next(v for v in votes if votes.count(v) == top))
return np.array(out)
"""

WRONG = [
    # -- polynomial_kernel: 1 point for X against Z, 1 for the defaults with Z omitted -------------
    ("poly", "gamma_outside_the_power", {"poly-solution": """
X = np.asarray(X, dtype=float)
Z = X if Z is None else np.asarray(Z, dtype=float)
return gamma * (coef0 + X @ Z.T) ** degree             # gamma multiplies the power, not x^T z
"""}, 0),
    ("poly", "coef0_after_the_power", {"poly-solution": """
X = np.asarray(X, dtype=float)
Z = X if Z is None else np.asarray(Z, dtype=float)
return (gamma * (X @ Z.T)) ** degree + coef0           # the constant added after the power
"""}, 0),
    ("poly", "scales_x_in_place", {"poly-solution": """
X = np.asarray(X, dtype=float)
Z = X if Z is None else np.asarray(Z, dtype=float)
X *= gamma                                             # changes the caller's X; when Z is X, gamma twice
return (coef0 + X @ Z.T) ** degree
"""}, 0),                                                  # the caller's X changes: both tests see it, as in Jupyter
    ("poly", "degree_as_a_factor", {"poly-solution": """
X = np.asarray(X, dtype=float)
Z = X if Z is None else np.asarray(Z, dtype=float)
return degree * (coef0 + gamma * (X @ Z.T))            # times Q instead of to the power Q
"""}, 0),
    ("poly", "calls_course_lib",
     {"poly-solution": "return cl.polynomial_kernel(X, Z, degree=degree, gamma=gamma, coef0=coef0)\n"}, 0),
    # -- rbf_kernel: 1 point for X against Z, 1 for Z omitted -----------------------------------
    ("rbf", "gamma_squared", {"rbf-solution": """
X = np.asarray(X, dtype=float)
Z = X if Z is None else np.asarray(Z, dtype=float)
return np.exp(-gamma**2 * ((X[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2))
"""}, 0),
    ("rbf", "distance_not_squared", {"rbf-solution": """
X = np.asarray(X, dtype=float)
Z = X if Z is None else np.asarray(Z, dtype=float)
return np.exp(-gamma * np.sqrt(((X[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2)))
"""}, 0),
    ("rbf", "scales_x_in_place", {"rbf-solution": """
X = np.asarray(X, dtype=float)
Z = X if Z is None else np.asarray(Z, dtype=float)
X *= np.sqrt(gamma)                                    # changes the caller's X (and Z, when Z is X)
Z = Z * np.sqrt(gamma)
return np.exp(-((X[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2))
"""}, 0),                                                  # the caller's X changes: both tests see it, as in Jupyter
    ("rbf", "plus_sign_in_the_exponent", {"rbf-solution": """
X = np.asarray(X, dtype=float)
Z = X if Z is None else np.asarray(Z, dtype=float)
return np.exp(gamma * ((X[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2))   # grows with distance, overflows
"""}, 0),
    ("rbf", "shifts_z_in_place", {"rbf-solution": """
X = np.asarray(X, dtype=float)
Z = X.copy() if Z is None else np.asarray(Z, dtype=float)   # no copy for an array Z: the caller's
centre = X.mean(axis=0)
Z -= centre                                            # shifting both keeps every distance ...
X = X - centre                                         # ... and the caller's Z is now shifted
return np.exp(-gamma * ((X[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2))
"""}, 1),
    ("rbf", "calls_course_lib", {"rbf-solution": "return cl.rbf_kernel(X, Z, gamma=gamma)\n"}, 0),
    # -- dual_qp: 2 points for the hard margin, 1 for the soft margin's box ------------------------
    ("dual", "q_without_the_labels", {"dual-solution": """
K = np.asarray(K, dtype=float)
y = np.asarray(y, dtype=float)
N = len(y)
A = np.vstack([y, -y, np.eye(N)] + ([-np.eye(N)] if C is not None else []))
c = np.concatenate([np.zeros(N + 2)] + ([np.full(N, -float(C))] if C is not None else []))
return K, -np.ones(N), A, c                            # Q = K: y_n y_m forgotten
"""}, 0),
    ("dual", "q_by_matrix_product", {"dual-solution": """
K = np.asarray(K, dtype=float)
y = np.asarray(y, dtype=float)
N = len(y)
A = np.vstack([y, -y, np.eye(N)] + ([-np.eye(N)] if C is not None else []))
c = np.concatenate([np.zeros(N + 2)] + ([np.full(N, -float(C))] if C is not None else []))
return np.outer(y, y) @ K, -np.ones(N), A, c           # a matrix product instead of element by element
"""}, 0),
    ("dual", "p_plus_one", {"dual-solution": """
K = np.asarray(K, dtype=float)
y = np.asarray(y, dtype=float)
N = len(y)
A = np.vstack([y, -y, np.eye(N)] + ([-np.eye(N)] if C is not None else []))
c = np.concatenate([np.zeros(N + 2)] + ([np.full(N, -float(C))] if C is not None else []))
return np.outer(y, y) * K, np.ones(N), A, c            # maximises sum alpha_n instead
"""}, 0),
    ("dual", "box_the_wrong_way", {"dual-solution": """
K = np.asarray(K, dtype=float)
y = np.asarray(y, dtype=float)
N = len(y)
A = np.vstack([y, -y, np.eye(N)] + ([np.eye(N)] if C is not None else []))               # alpha_n >= C
c = np.concatenate([np.zeros(N + 2)] + ([np.full(N, float(C))] if C is not None else []))
return np.outer(y, y) * K, -np.ones(N), A, c
"""}, 2),
    ("dual", "equality_as_one_row", {"dual-solution": """
K = np.asarray(K, dtype=float)
y = np.asarray(y, dtype=float)
N = len(y)
A = np.vstack([y, np.eye(N)] + ([-np.eye(N)] if C is not None else []))   # y^T alpha >= 0 only
c = np.concatenate([np.zeros(N + 1)] + ([np.full(N, -float(C))] if C is not None else []))
return np.outer(y, y) * K, -np.ones(N), A, c
"""}, 0),
    # -- svm_bias: 1 point for the hard margin, 1 for the free support vectors of the soft margin ----
    ("bias", "wrong_sign", {"bias-solution": """
K = np.asarray(K, dtype=float)
y = np.asarray(y, dtype=float)
alpha = np.asarray(alpha, dtype=float)
free = alpha > 0 if C is None else (alpha > 0) & (alpha < C)
signal = (alpha * y) @ K
return float(np.mean(signal[free] - y[free]))          # w^T x_s - y_s
"""}, 0),
    ("bias", "every_support_vector", {"bias-solution": """
K = np.asarray(K, dtype=float)
y = np.asarray(y, dtype=float)
alpha = np.asarray(alpha, dtype=float)
support = alpha > 0                                    # the bounded ones too, which may lie inside the margin
signal = (alpha * y) @ K
return float(np.mean(y[support] - signal[support]))
"""}, 1),
    ("bias", "first_free_support_vector_only", {"bias-solution": """
K = np.asarray(K, dtype=float)
y = np.asarray(y, dtype=float)
alpha = np.asarray(alpha, dtype=float)
free = alpha > 0 if C is None else (alpha > 0) & (alpha < C)
s = int(np.flatnonzero(free)[0])                       # one free support vector, not the average
return float(y[s] - (alpha * y) @ K[:, s])
"""}, 1),
    ("bias", "labels_left_out_of_the_sum", {"bias-solution": """
K = np.asarray(K, dtype=float)
y = np.asarray(y, dtype=float)
alpha = np.asarray(alpha, dtype=float)
free = alpha > 0 if C is None else (alpha > 0) & (alpha < C)
signal = alpha @ K                                     # sum alpha_m K[m, s], without y_m
return float(np.mean(y[free] - signal[free]))
"""}, 0),
    ("bias", "hard_margin_compares_with_none", {"bias-solution": """
K = np.asarray(K, dtype=float)
y = np.asarray(y, dtype=float)
alpha = np.asarray(alpha, dtype=float)
free = (alpha > 0) & (alpha < C)                       # TypeError for C = None
signal = (alpha * y) @ K
return float(np.mean(y[free] - signal[free]))
"""}, 1),
    # -- svm_predict: 2 points for the labels, 1 for sign(0) = -1 -------------------------------
    ("predict", "np_sign", {"predict-solution": """
signal = (np.asarray(alpha, dtype=float) * np.asarray(y, dtype=float)) @ np.asarray(K, dtype=float) + b
return np.sign(signal)                                 # 0 where the signal is 0
"""}, 2),
    ("predict", "zero_is_plus_one", {"predict-solution": """
signal = (np.asarray(alpha, dtype=float) * np.asarray(y, dtype=float)) @ np.asarray(K, dtype=float) + b
return np.where(signal >= 0, 1.0, -1.0)               # sign(0) = +1
"""}, 2),
    ("predict", "labels_left_out", {"predict-solution": """
signal = np.asarray(alpha, dtype=float) @ np.asarray(K, dtype=float) + b      # sum alpha_n K[n, j], without y_n
return np.where(signal > 0, 1.0, -1.0)
"""}, 0),
    ("predict", "subtracts_b", {"predict-solution": """
signal = (np.asarray(alpha, dtype=float) * np.asarray(y, dtype=float)) @ np.asarray(K, dtype=float) - b
return np.where(signal > 0, 1.0, -1.0)
"""}, 0),
    ("predict", "returns_the_signal", {"predict-solution": """
return (np.asarray(alpha, dtype=float) * np.asarray(y, dtype=float)) @ np.asarray(K, dtype=float) + b
"""}, 0),
    # -- knn_predict: 2 points for the vote, 1 for the tie rules -------------------------------
    ("knn", "ties_to_the_smallest_label", {"knn-solution": """
X_train = np.asarray(X_train, dtype=float)
y_train = np.asarray(y_train)
out = []
for x in np.asarray(X, dtype=float):
    nearest = np.argsort(((X_train - x) ** 2).sum(axis=1), kind="stable")[:k]
    values, counts = np.unique(y_train[nearest], return_counts=True)
    out.append(values[np.argmax(counts)])              # a tie goes to the smallest label
return np.array(out)
"""}, 2),
    ("knn", "ties_to_the_nearest_neighbour_of_all", {"knn-solution": """
X_train = np.asarray(X_train, dtype=float)
y_train = np.asarray(y_train)
out = []
for x in np.asarray(X, dtype=float):
    nearest = np.argsort(((X_train - x) ** 2).sum(axis=1), kind="stable")[:k]
    values, counts = np.unique(y_train[nearest], return_counts=True)
    tied = values[counts == counts.max()]
    out.append(tied[0] if len(tied) == 1 else y_train[nearest[0]])   # the 1-NN label, tied or not
return np.array(out)
"""}, 2),
    ("knn", "distance_ties_to_the_smaller_label", {"knn-solution": """
X_train = np.asarray(X_train, dtype=float)
y_train = np.asarray(y_train)
out = []
for x in np.asarray(X, dtype=float):
    distances = np.sqrt(((X_train - x) ** 2).sum(axis=1))
    nearest = sorted(range(len(y_train)), key=lambda n: (distances[n], y_train[n]))[:k]   # equal distances: smaller label
    votes = list(y_train[nearest])
    top = max(votes.count(v) for v in votes)
    out.append(next(v for v in votes if votes.count(v) == top))
return np.array(out)
"""}, 2),
    ("knn", "k_plus_one_neighbours", {"knn-solution": _majority_of(
        'np.argsort(((X_train - x) ** 2).sum(axis=1), kind="stable")[:k + 1]', "one too many")}, 0),
    ("knn", "skips_the_nearest", {"knn-solution": _majority_of(
        'np.argsort(((X_train - x) ** 2).sum(axis=1), kind="stable")[1:k + 1]', "leaves out the first")}, 0),
    ("knn", "farthest_neighbours", {"knn-solution": _majority_of(
        'np.argsort(-((X_train - x) ** 2).sum(axis=1), kind="stable")[:k]', "sorted the wrong way")}, 0),
    ("knn", "calls_course_lib", {"knn-solution": "return cl.knn_predict(X_train, y_train, X, k=k)\n"}, 0),
    # -- standardize: 1 point for the training statistics, 1 for the training set and constant features --
    ("standardize", "fits_on_the_points_it_transforms", {"standardize-solution": """
X = np.asarray(X, dtype=float)
scale = X.std(axis=0)                                  # the statistics of X, not of X_train
return (X - X.mean(axis=0)) / np.where(scale > 0, scale, 1.0)
"""}, 0),
    ("standardize", "sample_standard_deviation", {"standardize-solution": """
X_train = np.asarray(X_train, dtype=float)
scale = X_train.std(axis=0, ddof=1)                    # divides by N - 1
return (np.asarray(X, dtype=float) - X_train.mean(axis=0)) / np.where(scale > 0, scale, 1.0)
"""}, 0),
    ("standardize", "divides_by_zero_for_a_constant_feature", {"standardize-solution": """
X_train = np.asarray(X_train, dtype=float)
return (np.asarray(X, dtype=float) - X_train.mean(axis=0)) / X_train.std(axis=0)    # NaN and inf there
"""}, 1),
    ("standardize", "centres_x_train_in_place", {"standardize-solution": """
X_train = np.asarray(X_train, dtype=float)
X_train -= X_train.mean(axis=0)                        # changes the caller's X_train ...
scale = X_train.std(axis=0)
scale[scale == 0] = 1.0
return (np.asarray(X, dtype=float) - X_train.mean(axis=0)) / scale   # ... whose mean is now 0
"""}, 0),
    ("standardize", "min_max_scaling", {"standardize-solution": """
X_train = np.asarray(X_train, dtype=float)
low, high = X_train.min(axis=0), X_train.max(axis=0)
return (np.asarray(X, dtype=float) - low) / np.where(high > low, high - low, 1.0)   # to [0, 1], not mean 0, sd 1
"""}, 0),
    ("standardize", "arrays_only", {"standardize-solution": """
scale = X_train.std(axis=0)                            # X_train.std: fails for a list (array-like)
return (np.asarray(X, dtype=float) - X_train.mean(axis=0)) / np.where(scale > 0, scale, 1.0)
"""}, 1),
    ("standardize", "calls_course_lib", {"standardize-solution": "return cl.fit_standardizer(X_train).transform(X)\n"}, 0),
]

CHOICES = {"balance-answer": [1, 2, 4]}

RIGHT = [
    ("loops_scipy_and_counter", {"poly-solution": """
Z = X if Z is None else Z
return np.array([[(coef0 + gamma * float(np.dot(x, z))) ** degree for z in Z] for x in X])
""", "rbf-solution": """
from scipy.spatial.distance import cdist

X = np.asarray(X, dtype=float)
Z = X if Z is None else np.asarray(Z, dtype=float)
return np.exp(-gamma * cdist(X, Z, "sqeuclidean"))
""", "dual-solution": """
y = np.asarray(y, dtype=float)
N = y.size
Q = np.asarray(K, dtype=float) * y[:, None] * y[None, :]
A = np.concatenate([[y], [-y], np.identity(N)])
c = np.zeros(N + 2)
if C is not None:
    A = np.concatenate([A, -np.identity(N)])
    c = np.concatenate([c, -C * np.ones(N)])
return Q, np.full(N, -1.0), A, c
""", "bias-solution": """
values = []
for s in range(len(y)):
    if alpha[s] > 0 and (C is None or alpha[s] < C):
        values.append(y[s] - sum(alpha[m] * y[m] * K[m][s] for m in range(len(y))))
return sum(values) / len(values)
""", "predict-solution": """
K = np.asarray(K, dtype=float)
signal = K.T @ (np.asarray(alpha, dtype=float) * np.asarray(y, dtype=float)) + b
return np.where(signal > 0, 1, -1)                     # integers are labels too
""", "knn-solution": """
from collections import Counter

X_train = np.asarray(X_train, dtype=float)
labels = []
for x in np.asarray(X, dtype=float):
    order = sorted(range(len(X_train)), key=lambda n: np.linalg.norm(X_train[n] - x))   # sorted() is stable
    votes = Counter(int(y_train[n]) for n in order[:k])    # counts in the order met: ties go to the nearest
    labels.append(votes.most_common(1)[0][0])
return np.array(labels)
""", "standardize-solution": """
X_train = np.array(X_train, dtype=float)
centred = X_train - X_train.mean(axis=0)
sigma = np.sqrt((centred ** 2).mean(axis=0))
sigma[sigma == 0] = 1.0
return (np.array(X, dtype=float) - X_train.mean(axis=0)) / sigma
"""}),
    ("expansion_and_vectorised_vote", {"rbf-solution": """
X = np.asarray(X, dtype=float)
Z = X if Z is None else np.asarray(Z, dtype=float)
squared = (X**2).sum(axis=1)[:, None] + (Z**2).sum(axis=1)[None, :] - 2 * X @ Z.T
return np.exp(-gamma * np.maximum(squared, 0.0))
""", "knn-solution": """
X_train = np.asarray(X_train, dtype=float)
y_train = np.asarray(y_train)
X = np.asarray(X, dtype=float)
D = ((X[:, None, :] - X_train[None, :, :]) ** 2).sum(axis=2)
nearest = np.argsort(D, axis=1, kind="stable")[:, :k]
votes = y_train[nearest]                                        # (M, k), nearest first
counts = (votes[:, :, None] == votes[:, None, :]).sum(axis=2)   # votes of each neighbour's label
first = np.argmax(counts == counts.max(axis=1, keepdims=True), axis=1)
return votes[np.arange(len(X)), first]
"""}),
]
