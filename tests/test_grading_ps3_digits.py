"""End-to-end grading of the handwritten-digits assignment (ps3_digits), in a throwaway copy of the course.

One autograde run grades the reference solution, the untouched release, known-wrong answers
(each a mistake students make, confined to one exercise) and answers that call course_lib's
own implementation, with real nbgrader and real kernels; every exercise's score of every
submission is checked. The hidden tests use random images of random (also non-square) sizes
and the scikit-learn digits, drawn afresh on every run.
"""
from grading_helpers import class_grading_tests, reference_bodies, scores_with, with_answers

ASSIGNMENT = "ps3_digits"
POINTS = {"intensity": 2, "symmetry": 3, "pocket": 3, "errors": 2}
TOTAL = sum(POINTS.values())
TIMEOUT = 10  # seconds per cell, as in the course configuration

REF = reference_bodies(ASSIGNMENT)

INTENSITY_NOT_RESCALED = """
return np.asarray(images, dtype=float).mean(axis=(1, 2))       # the mean grey value, still in [-1, 1]
"""

SYMMETRY_LEFT_RIGHT_ONLY = """
images = np.asarray(images, dtype=float)
h, w = images.shape[1], images.shape[2]
return -np.abs(images - images[:, :, ::-1]).sum(axis=(1, 2)) / (h * w / 4.0)   # no up-down mirror
"""

SYMMETRY_DIVIDED_BY_64 = """
images = np.asarray(images, dtype=float)
left_right = np.abs(images - images[:, :, ::-1]).sum(axis=(1, 2))
up_down = np.abs(images - images[:, ::-1, :]).sum(axis=(1, 2))
return -(left_right + up_down) / 64.0                          # right for 16 x 16 images only
"""

POCKET_RETURNS_LAST = """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
rng = np.random.default_rng(rng)
order = rng.permutation(len(y))
X_cycle, y_cycle = X[order], y[order]
w, position = np.zeros(X.shape[1]), 0
for _ in range(max_updates):
    wrong = np.flatnonzero(np.where(X_cycle @ w > 0, 1.0, -1.0) != y_cycle)
    if wrong.size == 0:
        break
    ahead = wrong[wrong >= position]
    j = int(ahead[0]) if ahead.size else int(wrong[0])
    w = w + y_cycle[j] * X_cycle[j]
    position = (j + 1) % len(y)
return w                                                       # PLA's last weights, not the pocket's
"""

POCKET_NEVER_UPDATES = """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
rng = np.random.default_rng(rng)
order = rng.permutation(len(y))
w = np.zeros(X.shape[1])
best = w.copy()
for _ in range(max_updates):
    wrong = np.flatnonzero(np.where(X[order] @ w > 0, 1.0, -1.0) != y[order])
    if wrong.size == 0:
        break
    w + y[order][wrong[0]] * X[order][wrong[0]]                # the correction is computed, never kept
return best
"""

ERRORS_TEST_ON_TRAINING_SET = """
w = np.asarray(w, dtype=float)
e_in = float(np.mean(np.where(np.asarray(X_train) @ w > 0, 1.0, -1.0) != np.asarray(y_train)))
return e_in, e_in                                              # E_out "estimated" on the training set
"""

ERRORS_COUNTS = """
w = np.asarray(w, dtype=float)
return (int(np.sum(np.where(np.asarray(X_train) @ w > 0, 1.0, -1.0) != np.asarray(y_train))),
        int(np.sum(np.where(np.asarray(X_test) @ w > 0, 1.0, -1.0) != np.asarray(y_test))))
"""

INTENSITY_CALLS_COURSE_LIB = """
return cl.digits.features(images)[:, 0]
"""

SYMMETRY_CALLS_COURSE_LIB = """
return cl.symmetry(images)
"""

POCKET_CALLS_COURSE_LIB = """
return cl.pocket(X, y, max_updates=max_updates, rng=rng).w
"""

ERRORS_CALLS_COURSE_LIB = """
return cl.error_rate(w, X_train, y_train), cl.error_rate(w, X_test, y_test)
"""


def answers(**changes):
    return with_answers(REF, **changes)


def scores(**lost):
    return scores_with(POINTS, **lost)


# student -> (answers, expected score of every exercise)
CASES = {
    "reference": (answers(), scores()),
    "partial": (answers(pocket_solution=None, errors_solution=None), scores(pocket=3, errors=2)),
    "intensity_not_rescaled": (answers(intensity_solution=INTENSITY_NOT_RESCALED), scores(intensity=2)),
    "symmetry_left_right_only": (answers(symmetry_solution=SYMMETRY_LEFT_RIGHT_ONLY), scores(symmetry=3)),
    "symmetry_divided_by_64": (answers(symmetry_solution=SYMMETRY_DIVIDED_BY_64), scores(symmetry=3)),
    "pocket_returns_last": (answers(pocket_solution=POCKET_RETURNS_LAST), scores(pocket=2)),
    "pocket_never_updates": (answers(pocket_solution=POCKET_NEVER_UPDATES), scores(pocket=3)),
    "errors_test_on_training_set": (answers(errors_solution=ERRORS_TEST_ON_TRAINING_SET), scores(errors=1)),
    "errors_counts": (answers(errors_solution=ERRORS_COUNTS), scores(errors=2)),
    "features_call_course_lib": (answers(intensity_solution=INTENSITY_CALLS_COURSE_LIB,
                                         symmetry_solution=SYMMETRY_CALLS_COURSE_LIB), scores(intensity=2, symmetry=3)),
    "learning_calls_course_lib": (answers(pocket_solution=POCKET_CALLS_COURSE_LIB,
                                          errors_solution=ERRORS_CALLS_COURSE_LIB), scores(pocket=3, errors=2)),
}


globals().update(class_grading_tests(ASSIGNMENT, POINTS, CASES, timeout=TIMEOUT))
