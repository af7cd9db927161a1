"""Wrong answers to ps7_validation of the kinds a class hands in.

``WRONG``: (exercise, name, {solution cell: what replaces its stub}, points the exercise keeps).
Each one breaks one exercise; grading must take points there and nowhere else.
``RIGHT``: right answers written differently from the reference; they keep every point.

The hidden tests build each deciding case into every student's data: inputs at both ends of [-1, 1] and
degrees of at least 4 (the Legendre recurrence), targets whose mean is far from 0 (a penalised w_0), an
example of high leverage (the 1 - H_nn correction), sizes that leave a remainder of 2 or more (the folds),
features on different scales far from 0 (standardising), and exact ties (choose_lambda).
"""
ASSIGNMENT = "ps7_validation"

# the cross-validation loop of the reference, with the standardising step left to a placeholder
_CV = """
Z = np.asarray(Z, dtype=float)
y = np.asarray(y, dtype=float)
lambdas = np.asarray(lambdas, dtype=float)
D = np.eye(Z.shape[1])
D[0, 0] = {d00}
squared = np.zeros((len(lambdas), len(y)))
{before}
for fold in folds:
    fold = np.asarray(fold, dtype=int)
    train = np.ones(len(y), dtype=bool)
    train[fold] = False
    Z_train, Z_fold = Z[train].copy(), Z[fold].copy()
{standardise}
    for k, lam in enumerate(lambdas):
        w = np.linalg.solve(Z_train.T @ Z_train + lam * D, Z_train.T @ y[train])
        squared[k, fold] = (Z_fold @ w - y[fold]) ** 2
return squared.mean(axis=1)
"""
_RIGHT_STANDARDISE = """    mean, std = Z_train[:, 1:].mean(axis=0), Z_train[:, 1:].std(axis=0)
    Z_train[:, 1:] = (Z_train[:, 1:] - mean) / std
    Z_fold[:, 1:] = (Z_fold[:, 1:] - mean) / std"""

WRONG = [
    # -- legendre_features: 2 points for the values, 1 for degrees 0 and 1 ---------------------------
    ("legendre", "not_normalised", {"legendre-solution": """
x = np.asarray(x, dtype=float)
P = np.ones((len(x), degree + 1))
if degree >= 1:
    P[:, 1] = x
for q in range(1, degree):
    P[:, q + 1] = ((2 * q + 1) * x * P[:, q] - q * P[:, q - 1]) / (q + 1)
return P                                              # the usual P_q, without sqrt(2q + 1)
"""}, 0),
    ("legendre", "one_column_short", {"legendre-solution": """
x = np.asarray(x, dtype=float)
P = np.ones((len(x), max(degree, 1)))
if degree >= 2:
    P[:, 1] = x
for q in range(1, degree - 1):
    P[:, q + 1] = ((2 * q + 1) * x * P[:, q] - q * P[:, q - 1]) / (q + 1)
return P[:, :degree] * np.sqrt(2.0 * np.arange(degree) + 1.0)   # L_0 ... L_{Q-1}: Q columns, not Q + 1
"""}, 0),
    ("legendre", "recurrence_without_the_division", {"legendre-solution": """
x = np.asarray(x, dtype=float)
P = np.ones((len(x), degree + 1))
if degree >= 1:
    P[:, 1] = x
for q in range(1, degree):
    P[:, q + 1] = (2 * q + 1) * x * P[:, q] - q * P[:, q - 1]      # forgets the division by q + 1
return P * np.sqrt(2.0 * np.arange(degree + 1) + 1.0)
"""}, 1),
    ("legendre", "scaled_monomials", {"legendre-solution": """
x = np.asarray(x, dtype=float)
return x[:, None] ** np.arange(degree + 1) * np.sqrt(2.0 * np.arange(degree + 1) + 1.0)   # x^q, not P_q
"""}, 1),
    ("legendre", "calls_course_lib", {"legendre-solution": "return cl.legendre_features(x, degree)\n"}, 0),
    # -- weight_decay: 2 points for the free constant, 1 for the limits --------------------------------
    ("decay", "penalises_the_constant", {"decay-solution": """
Z = np.asarray(Z, dtype=float)
return np.linalg.solve(Z.T @ Z + lam * np.eye(Z.shape[1]), Z.T @ np.asarray(y, dtype=float))   # w_0 penalised too
"""}, 0),
    ("decay", "lambda_times_n", {"decay-solution": """
Z = np.asarray(Z, dtype=float)
D = np.eye(Z.shape[1])
D[0, 0] = 0.0
return np.linalg.solve(Z.T @ Z + lam * len(Z) * D, Z.T @ np.asarray(y, dtype=float))   # N lambda
"""}, 1),
    ("decay", "ignores_lambda", {"decay-solution": """
return np.linalg.lstsq(np.asarray(Z, dtype=float), np.asarray(y, dtype=float), rcond=None)[0]
"""}, 0),
    ("decay", "subtracts_lambda", {"decay-solution": """
Z = np.asarray(Z, dtype=float)
D = np.eye(Z.shape[1])
D[0, 0] = 0.0
return np.linalg.solve(Z.T @ Z - lam * D, Z.T @ np.asarray(y, dtype=float))   # the sign of the penalty
"""}, 1),
    ("decay", "arrays_only", {"decay-solution": """
D = np.eye(Z.shape[1])                                # Z and y used as they came: a list has no shape
D[0, 0] = 0.0
return np.linalg.solve(Z.T @ Z + lam * D, Z.T @ y)
"""}, 2),
    ("decay", "calls_course_lib", {"decay-solution": "return cl.linear_regression(Z, y, weight_decay=lam)\n"}, 0),
    # -- loo_error: 2 points with weight decay, 2 for least squares --------------------------------------
    ("loo", "without_the_leverage_correction", {"loo-solution": """
Z = np.asarray(Z, dtype=float)
y = np.asarray(y, dtype=float)
D = np.eye(Z.shape[1])
D[0, 0] = 0.0
H = Z @ np.linalg.solve(Z.T @ Z + lam * D, Z.T)
return float(np.mean((H @ y - y) ** 2))              # E_in: no division by 1 - H_nn
"""}, 0),
    ("loo", "correction_not_squared", {"loo-solution": """
Z = np.asarray(Z, dtype=float)
y = np.asarray(y, dtype=float)
D = np.eye(Z.shape[1])
D[0, 0] = 0.0
H = Z @ np.linalg.solve(Z.T @ Z + lam * D, Z.T)
return float(np.mean((H @ y - y) ** 2 / (1.0 - np.diag(H))))     # (1 - H_nn), not (1 - H_nn)^2
"""}, 0),
    ("loo", "penalises_the_constant", {"loo-solution": """
Z = np.asarray(Z, dtype=float)
y = np.asarray(y, dtype=float)
H = Z @ np.linalg.solve(Z.T @ Z + lam * np.eye(Z.shape[1]), Z.T)   # D = I: w_0 penalised
return float(np.mean(((H @ y - y) / (1.0 - np.diag(H))) ** 2))
"""}, 2),
    ("loo", "generalised_cross_validation", {"loo-solution": """
Z = np.asarray(Z, dtype=float)
y = np.asarray(y, dtype=float)
D = np.eye(Z.shape[1])
D[0, 0] = 0.0
H = Z @ np.linalg.solve(Z.T @ Z + lam * D, Z.T)
return float(np.mean((H @ y - y) ** 2) / (1.0 - np.trace(H) / len(y)) ** 2)   # the average leverage for every example
"""}, 0),
    ("loo", "arrays_only", {"loo-solution": """
D = np.eye(Z.shape[1])                                # Z and y used as they came: a list has no shape
D[0, 0] = 0.0
H = Z @ np.linalg.solve(Z.T @ Z + lam * D, Z.T)
return float(np.mean(((H @ y - y) / (1.0 - np.diag(H))) ** 2))
"""}, 2),
    ("loo", "calls_course_lib", {"loo-solution": "return cl.leave_one_out_error(Z, y, weight_decay=lam)\n"}, 0),
    # -- make_folds: 2 points for the partition, 1 for the generator ---------------------------------------
    ("folds", "overlapping_folds", {"folds-solution": """
rng = np.random.default_rng(rng)
return [rng.choice(n, size=n // n_folds, replace=False) for _ in range(n_folds)]   # drawn fold by fold
"""}, 1),
    ("folds", "remainder_in_the_last_fold", {"folds-solution": """
rng = np.random.default_rng(rng)
order = rng.permutation(n)
m = n // n_folds
return [order[v * m:(v + 1) * m] for v in range(n_folds - 1)] + [order[(n_folds - 1) * m:]]
"""}, 1),
    ("folds", "drops_the_remainder", {"folds-solution": """
rng = np.random.default_rng(rng)
order = rng.permutation(n)
m = n // n_folds
return [order[v * m:(v + 1) * m] for v in range(n_folds)]       # the last n % n_folds examples are lost
"""}, 1),
    ("folds", "global_generator", {"folds-solution": """
order = np.random.permutation(n)                      # NumPy's global generator, not rng
return [order[v::n_folds] for v in range(n_folds)]
"""}, 2),
    ("folds", "not_shuffled", {"folds-solution": """
return np.array_split(np.arange(n), n_folds)          # consecutive blocks: rng is never used
"""}, 2),
    ("folds", "replaces_the_given_generator", {"folds-solution": """
rng = np.random.default_rng(rng if isinstance(rng, int) else None)   # rng taken for a seed: a Generator is dropped
order = rng.permutation(n)
return [order[v::n_folds] for v in range(n_folds)]
"""}, 2),
    ("folds", "draws_from_a_copy_of_the_generator", {"folds-solution": """
import copy
rng = copy.deepcopy(np.random.default_rng(rng))      # "leaves the caller's generator unchanged": it never moves on
order = rng.permutation(n)
return [order[v::n_folds] for v in range(n_folds)]
"""}, 2),
    ("folds", "pins_none_to_a_seed", {"folds-solution": """
rng = np.random.default_rng(0 if rng is None else rng)   # reproducible by default: rng=None always the same folds
order = rng.permutation(n)
return [order[v::n_folds] for v in range(n_folds)]
"""}, 2),
    ("folds", "seeds_the_global_generator", {"folds-solution": """
rng = np.random.default_rng(rng)
np.random.seed(int(rng.integers(2**32)))              # one seed from rng, then NumPy's global generator
order = np.random.permutation(n)
return [order[v::n_folds] for v in range(n_folds)]
"""}, 2),
    ("folds", "calls_course_lib", {"folds-solution": "return cl.fold_indices(n, n_folds, rng=rng)\n"}, 0),
    # -- cv_errors (2 + 1) and choose_lambda (1) ----------------------------------------------------------
    ("cv", "standardises_the_fold_with_its_own_statistics", {"cv-errors-solution": _CV.format(
        d00="0.0", before="", standardise="""    mean, std = Z_train[:, 1:].mean(axis=0), Z_train[:, 1:].std(axis=0)
    Z_train[:, 1:] = (Z_train[:, 1:] - mean) / std
    Z_fold[:, 1:] = (Z_fold[:, 1:] - Z_fold[:, 1:].mean(axis=0)) / Z_fold[:, 1:].std(axis=0)   # test statistics""")},
     2),
    ("cv", "standardises_everything_before_the_folds", {"cv-errors-solution": _CV.format(
        d00="0.0", before="Z = Z.copy()\nZ[:, 1:] = (Z[:, 1:] - Z[:, 1:].mean(axis=0)) / Z[:, 1:].std(axis=0)   # all N examples",
        standardise="    pass")}, 2),
    ("cv", "does_not_standardise", {"cv-errors-solution": _CV.format(d00="0.0", before="", standardise="    pass")}, 2),
    ("cv", "penalises_the_constant", {"cv-errors-solution": _CV.format(d00="1.0", before="",
                                                                      standardise=_RIGHT_STANDARDISE)}, 2),
    ("cv", "standardises_the_callers_z", {"cv-errors-solution": """
Z = np.asarray(Z, dtype=float)                        # no copy: the caller's array
y = np.asarray(y, dtype=float)
D = np.eye(Z.shape[1])
D[0, 0] = 0.0
squared = np.zeros((len(lambdas), len(y)))
for fold in folds:
    fold = np.asarray(fold, dtype=int)
    train = np.ones(len(y), dtype=bool)
    train[fold] = False
    mean, std = Z[train, 1:].mean(axis=0), Z[train, 1:].std(axis=0)
    Z[:, 1:] = (Z[:, 1:] - mean) / std                 # overwrites the caller's features
    for k, lam in enumerate(lambdas):
        w = np.linalg.solve(Z[train].T @ Z[train] + lam * D, Z[train].T @ y[train])
        squared[k, fold] = (Z[fold] @ w - y[fold]) ** 2
return squared.mean(axis=1)
"""}, 3),
    ("cv", "arrays_only", {"cv-errors-solution": """
D = np.eye(Z.shape[1])                                # the arguments used as they came: lists cannot be indexed so
D[0, 0] = 0.0
squared = np.zeros((len(lambdas), len(y)))
for fold in folds:
    train = np.ones(len(y), dtype=bool)
    train[fold] = False
    mean, std = Z[train, 1:].mean(axis=0), Z[train, 1:].std(axis=0)
    Z_train = np.column_stack([np.ones(int(train.sum())), (Z[train, 1:] - mean) / std])
    Z_fold = np.column_stack([np.ones(len(fold)), (Z[fold, 1:] - mean) / std])
    for k, lam in enumerate(lambdas):
        w = np.linalg.solve(Z_train.T @ Z_train + lam * D, Z_train.T @ y[train])
        squared[k, fold] = (Z_fold @ w - y[fold]) ** 2
return squared.mean(axis=1)
"""}, 3),
    ("cv", "calls_course_lib", {"cv-errors-solution": """
def fit(Z_train, y_train):
    scaler = cl.fit_standardizer(Z_train[:, 1:])
    w = cl.linear_regression(np.column_stack([np.ones(len(Z_train)), scaler.transform(Z_train[:, 1:])]), y_train)
    return lambda Z_val: np.column_stack([np.ones(len(Z_val)), scaler.transform(Z_val[:, 1:])]) @ w
return np.array([cl.cross_validation_error(fit, Z, y, folds=len(folds)) for _ in lambdas])
"""}, 1),
    ("cv", "first_of_the_ties", {"cv-choose-solution": """
return float(np.asarray(lambdas, dtype=float)[int(np.argmin(errors))])   # the first smallest, not the largest lambda
"""}, 3),
    ("cv", "smallest_lambda_of_the_ties", {"cv-choose-solution": """
lambdas = np.asarray(lambdas, dtype=float)
errors = np.asarray(errors, dtype=float)
return float(np.min(lambdas[errors == errors.min()]))
"""}, 3),
    ("cv", "largest_error", {"cv-choose-solution": """
return float(np.asarray(lambdas, dtype=float)[int(np.argmax(errors))])
"""}, 3),
    ("cv", "returns_the_position", {"cv-choose-solution": """
errors = np.asarray(errors, dtype=float)
return float(np.flatnonzero(errors == errors.min())[-1])          # where it is, not which lambda
"""}, 3),
]

RIGHT = [
    ("numpy_and_centring", {"legendre-solution": """
from numpy.polynomial import legendre
return legendre.legvander(np.asarray(x, dtype=float), degree) * np.sqrt(2 * np.arange(degree + 1) + 1)
""", "decay-solution": """
Z = np.asarray(Z, dtype=float)
y = np.asarray(y, dtype=float)
F = Z[:, 1:]
Fc, yc = F - F.mean(axis=0), y - y.mean()              # with w_0 free, centring removes it
slopes = np.linalg.solve(Fc.T @ Fc + lam * np.eye(F.shape[1]), Fc.T @ yc)
return np.concatenate([[y.mean() - F.mean(axis=0) @ slopes], slopes])
""", "loo-solution": """
Z = np.asarray(Z, dtype=float)
y = np.asarray(y, dtype=float)
penalty = lam * np.eye(Z.shape[1])
penalty[0, 0] = 0.0
A_inv_Zt = np.linalg.solve(Z.T @ Z + penalty, Z.T)
leverage = np.einsum("nd,dn->n", Z, A_inv_Zt)
residual = Z @ (A_inv_Zt @ y) - y
return float(np.sum((residual / (1 - leverage)) ** 2) / len(y))
""", "folds-solution": """
gen = np.random.default_rng(rng)
return np.array_split(gen.permutation(n), n_folds)
""", "cv-errors-solution": """
Z = np.asarray(Z, dtype=float)
y = np.asarray(y, dtype=float)
out = []
for lam in lambdas:
    total = 0.0
    for fold in folds:
        fold = np.asarray(fold)
        train = np.setdiff1d(np.arange(len(y)), fold)
        mu, sd = Z[train, 1:].mean(axis=0), Z[train, 1:].std(axis=0)
        A = np.hstack([np.ones((len(train), 1)), (Z[train, 1:] - mu) / sd])
        B = np.hstack([np.ones((len(fold), 1)), (Z[fold, 1:] - mu) / sd])
        A_aug = np.vstack([A, np.sqrt(lam) * np.eye(A.shape[1])[1:]])   # the penalty as extra rows, w_0 free
        w = np.linalg.lstsq(A_aug, np.concatenate([y[train], np.zeros(A.shape[1] - 1)]), rcond=None)[0]
        total += np.sum((B @ w - y[fold]) ** 2)
    out.append(total / len(y))
return np.array(out)
""", "cv-choose-solution": """
best = None
for lam, err in sorted(zip(lambdas, errors), key=lambda pair: (pair[1], -pair[0])):
    best = lam
    break
return float(best)
"""}),
]
