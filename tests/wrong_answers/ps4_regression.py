"""Wrong answers to ps4_regression of the kinds a class hands in.

``WRONG``: (exercise, name, {solution cell: what replaces its stub}, points the exercise keeps).
``RIGHT``: right answers written differently from the reference; they keep every point.
"""
ASSIGNMENT = "ps4_regression"

WRONG = [
    # -- linear_regression: 1 point for a line, 2 for the normal equations -----------------
    ("linear", "drops_x0", {"linear-solution": """
X = np.asarray(X, dtype=float)[:, 1:]                 # drops the x0 column: a fit through the origin
y = np.asarray(y, dtype=float)
return np.concatenate([[0.0], np.linalg.pinv(X) @ y])
"""}, 0),
    ("linear", "without_inverse", {"linear-solution": """
X = np.asarray(X, dtype=float)
return X.T @ np.asarray(y, dtype=float)               # X^T y, without (X^T X)^{-1}
"""}, 0),
    ("linear", "divides_by_n", {"linear-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
return np.linalg.solve(X.T @ X, X.T @ y) / len(y)     # the 1/N of E_in carried into w
"""}, 0),
    ("linear", "arrays_only", {"linear-solution": """
return np.linalg.solve(X.T @ X, X.T @ y)                # X.T: fails for X given as a list (array-like)
"""}, 1),
    ("linear", "calls_course_lib", {"linear-solution": "return cl.linear_regression(X, y)\n"}, 0),
    # -- hat_matrix: 1 point for H y, 2 for the projection ---------------------------------
    ("hat", "inverse_only", {"hat-solution": """
X = np.asarray(X, dtype=float)
return np.linalg.inv(X.T @ X)                         # (X^T X)^{-1} alone
"""}, 0),
    ("hat", "x_xt", {"hat-solution": """
X = np.asarray(X, dtype=float)
return X @ X.T                                        # forgets (X^T X)^{-1} in the middle
"""}, 0),
    ("hat", "identity", {"hat-solution": """
return np.eye(len(X))                                 # H y = y: the fitted values are the targets
"""}, 0),
    ("hat", "calls_course_lib", {"hat-solution": "return cl.hat_matrix(X)\n"}, 0),
    # -- cross-entropy: 1 point for the values, 2 for the derivative, 1 for large signals -------
    # the grader writes an argument a function changed back into the test's own array (as Jupyter's caller
    # sees it): zeroing y makes the error ln 2 and every gradient 0, for the student's code and for a
    # reference computed from that y afterwards; the tests copy what they pass, so it earns nothing
    ("crossentropy", "zeroes_y_in_place", {"crossentropy-error-solution": """
y = np.asarray(y)
y *= 0                                                 # the caller's labels, zeroed
return float(np.log(2.0))
""", "crossentropy-gradient-solution": """
return np.zeros(np.asarray(w).shape)
"""}, 0),
    ("crossentropy", "gradient_wrong_sign", {"crossentropy-gradient-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
s = y * (X @ np.asarray(w, dtype=float))
return (X.T @ (y / (1.0 + np.exp(s)))) / len(y)      # + instead of -
"""}, 0),
    ("crossentropy", "gradient_without_mean", {"crossentropy-gradient-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
s = y * (X @ np.asarray(w, dtype=float))
return -(X.T @ (y / (1.0 + np.exp(s))))               # the sum, not the mean
"""}, 0),
    ("crossentropy", "error_wrong_sign_in_exponent", {"crossentropy-error-solution": """
s = np.asarray(y, dtype=float) * (np.asarray(X, dtype=float) @ np.asarray(w, dtype=float))
return float(np.mean(np.log(1.0 + np.exp(s))))        # e^{+y w^T x}
"""}, 0),
    ("crossentropy", "overflows_for_large_signals", {"crossentropy-error-solution": """
s = np.asarray(y, dtype=float) * (np.asarray(X, dtype=float) @ np.asarray(w, dtype=float))
return float(np.mean(np.log(1.0 + np.exp(-s))))       # right formula, inf for s = -800
""", "crossentropy-gradient-solution": """
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
s = y * (X @ np.asarray(w, dtype=float))
theta = np.exp(-s) / (1.0 + np.exp(-s))               # inf / inf = nan for s = -800
return -(X.T @ (theta * y)) / len(y)
"""}, 3),
    ("crossentropy", "error_calls_course_lib",
     {"crossentropy-error-solution": "return cl.cross_entropy_error(w, X, y)\n"}, 0),
    # -- sgd_epoch: 2 points for the order, 1 for one step ---------------------------------
    ("sgd", "ignores_order", {"sgd-solution": """
w = np.array(w, dtype=float)
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
for n in range(len(y)):                               # always 0, 1, ..., N-1
    w = w + eta * y[n] * X[n] / (1.0 + np.exp(y[n] * (X[n] @ w)))
return w
"""}, 0),
    ("sgd", "sorts_the_order", {"sgd-solution": """
w = np.array(w, dtype=float)
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
for n in sorted(order):                               # the right steps, in the wrong order
    w = w + eta * y[n] * X[n] / (1.0 + np.exp(y[n] * (X[n] @ w)))
return w
"""}, 1),
    ("sgd", "full_batch", {"sgd-solution": """
w = np.array(w, dtype=float)
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
for n in order:                                       # one step per index, but on all examples
    s = y * (X @ w)
    w = w + eta * (X.T @ (y / (1.0 + np.exp(s)))) / len(y)
return w
"""}, 0),
    ("sgd", "updates_w_in_place", {"sgd-solution": """
w = np.asarray(w, dtype=float)                        # no copy: the caller's array itself
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
for n in order:
    w += eta * y[n] * X[n] / (1.0 + np.exp(y[n] * (X[n] @ w)))   # the right steps, on the caller's w
return w
"""}, 1),
    ("sgd", "descends_the_wrong_way", {"sgd-solution": """
w = np.array(w, dtype=float)
X = np.asarray(X, dtype=float)
y = np.asarray(y, dtype=float)
for n in order:
    w = w - eta * y[n] * X[n] / (1.0 + np.exp(y[n] * (X[n] @ w)))   # - : up the error, not down
return w
"""}, 0),
    ("sgd", "calls_course_lib", {"sgd-solution": "return cl.logistic_sgd_epoch(w, X, y, eta=eta, order=order)\n"}, 0),
]

RIGHT = [
    ("inverse_and_loops", {"linear-solution": """
X = np.asarray(X, dtype=float)
return np.linalg.inv(X.T @ X) @ X.T @ np.asarray(y, dtype=float)
""", "hat-solution": """
X = np.asarray(X, dtype=float)
return X @ np.linalg.pinv(X)
""", "sgd-solution": """
w = np.asarray(w, dtype=float).copy()
for n in order:
    signal = y[n] * np.dot(w, X[n])
    theta = 0.5 * (1.0 - np.tanh(signal / 2.0))     # theta(-s), written with tanh
    w += eta * theta * y[n] * np.asarray(X[n], dtype=float)
return w
"""}),
]
