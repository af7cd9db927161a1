"""Input checks shared by the course_lib modules.

Every public function validates its arguments where they enter and raises
``ValueError`` (or ``TypeError`` for a wrong kind of object) naming the argument and
saying what was expected.
"""
import numbers

import numpy as np


def check_matrix(X, name="X", *, min_rows=1, min_cols=1):
    """Return ``X`` as a finite 2-D float array, or raise a ValueError naming it."""
    try:
        arr = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 2-D array of numbers; got {type(X).__name__}: {exc}") from None
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (n_samples, n_features); got shape {arr.shape}")
    if arr.shape[0] < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} row(s); got shape {arr.shape}")
    if arr.shape[1] < min_cols:
        raise ValueError(f"{name} must have at least {min_cols} column(s); got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity")
    return arr


def check_vector(v, name, *, length=None):
    """Return ``v`` as a finite 1-D float array (of a given length), or raise."""
    try:
        arr = np.asarray(v, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 1-D array of numbers; got {type(v).__name__}: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array; got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} must have length {length}; got length {arr.shape[0]}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity")
    return arr


def check_labels(y, name="y", *, n_samples=None):
    """Return ``y`` as a 1-D float array of +1/-1 labels, or raise."""
    arr = check_vector(y, name, length=n_samples)
    bad = ~np.isin(arr, (-1.0, 1.0))
    if bad.any():
        first = np.flatnonzero(bad)[0]
        raise ValueError(
            f"{name} must contain only the labels +1 and -1; "
            f"{name}[{first}] is {float(arr[first])!r} ({int(bad.sum())} bad label(s) in all)"
        )
    return arr


def check_Xy(X, y):
    """Check a data set: X of shape (N, d+1) and y of N labels in {+1, -1}."""
    X = check_matrix(X, "X")
    y = check_labels(y, "y")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X and y must have the same number of examples; X has {X.shape[0]} rows, y has {y.shape[0]} labels")
    return X, y


def check_weights(w, n_features, name="w"):
    """Check a weight vector against the width of X."""
    w = check_vector(w, name)
    if w.shape[0] != n_features:
        raise ValueError(
            f"{name} has {w.shape[0]} entries but X has {n_features} columns; "
            "they must agree (did you forget add_bias, or add it twice?)"
        )
    return w


def check_int(value, name, *, minimum=None, allow_none=False):
    """Check an integer option."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer; got {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum}; got {value}")
    return value


def check_real(value, name, *, low=None, high=None, low_open=False, high_open=False):
    """Check a real option, with optional (open or closed) bounds."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number; got {value!r}")
    value = float(value)
    if low is not None and (value < low or (low_open and value == low)):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low}; got {value}")
    if high is not None and (value > high or (high_open and value == high)):
        raise ValueError(f"{name} must be {'<' if high_open else '<='} {high}; got {value}")
    return value


def check_choice(value, name, choices):
    """Check a string option against its allowed values."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value
