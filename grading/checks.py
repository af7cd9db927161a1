"""Helpers that the hidden tests of the course's assignments call.

* :func:`test_rng` — the random generator of the test cell being graded;
* :func:`numbers` and :func:`assert_close` — the comparison of test cells, refusing NaN,
  infinities, text, booleans and wrong shapes by name;
* :func:`arguments_unchanged` — the check that a function leaves its arguments as it found
  them (the grader writes back what the student's function changed, as in Jupyter);
* :func:`global_rng_unchanged` — the check that a function leaves NumPy's global generator
  alone (no ``np.random.seed``, no draw from ``np.random.rand`` and the like), made in the
  student's process;

An answer cannot delegate to ``course_lib``'s own implementation of an exercise: while an
assignment is graded, the student's process gets a ``course_lib`` without those functions
(:mod:`grading.withhold`), so such an answer fails the tests by itself, with a message
naming the function; no test has to look for it.

:func:`python_source` turns a cell's IPython syntax into Python (for the audit).
"""
import ast
import re

__all__ = ["test_rng", "numbers", "assert_close", "arguments_unchanged", "global_rng_unchanged", "python_source"]


_IPYTHON = re.compile(r"^\s*[%!]|^[^#\n]*=\s*[%!]|\?\s*$", re.M)


def python_source(source):
    """A cell's code as plain Python: IPython syntax (``%magic``, ``!cmd``) turned into calls.

    Code without IPython syntax is returned as it is, at once (IPython's transformer takes
    time quadratic in the length of a long line).
    """
    if not _IPYTHON.search(source):
        return source
    try:
        from IPython.core.inputtransformer2 import TransformerManager
        return TransformerManager().transform_cell(source)
    except Exception:  # fall back to the raw text
        return source


def _dotted(node):
    """``a.b.c`` for an Attribute/Name chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


class arguments_unchanged:  # lower case: used as a statement, like contextlib's
    """Check that the code in the ``with`` block leaves the given arrays, lists and dicts as they were.

    Parameters
    ----------
    function : str
        The function called in the block, for the message.
    **arguments
        The caller's objects passed to it, by the names of its parameters.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.zeros(2)
    >>> with arguments_unchanged("f", w=w):
    ...     _ = w + 1
    >>> with arguments_unchanged("f", w=w):  # doctest: +ELLIPSIS
    ...     w += 1
    Traceback (most recent call last):
    ...
    AssertionError: f changed its argument w (the caller's [0.0, 0.0] became [1.0, 1.0]). The arguments are ...
    """

    def __init__(self, function, **arguments):
        import copy

        self.function = function
        self.arguments = arguments
        self.before = {name: copy.deepcopy(value) for name, value in arguments.items()}

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is not None:
            return False
        for name, value in self.arguments.items():
            old = self.before[name]
            if not _same(old, value):
                raise AssertionError(
                    f"{self.function} changed its argument {name} (the caller's {_shown(old)} became {_shown(value)}). "
                    f"The arguments are left unchanged: work on a copy, e.g. {name} = np.array({name}, dtype=float)")
        return False


class global_rng_unchanged:  # lower case: used as a statement, like arguments_unchanged
    """Check that the calls of ``function`` in the ``with`` block leave NumPy's global generator alone.

    Randomness comes from the ``rng`` argument only (``rng = np.random.default_rng(rng)``): a
    function that calls ``np.random.seed``, or draws from ``np.random.rand``,
    ``np.random.permutation`` and the like, changes the state every other piece of code shares.
    When the grader runs the test, each call of the student's functions in the block is watched
    in the student's process (:class:`grading.worker.GlobalRngCheck`, through
    :func:`grading.judge.global_rng_calls`); when the functions run in the test's own process (a
    source notebook in Jupyter) the block is watched here. Either way the global generator gets a
    fresh state first, so that seeding it with a fixed seed is seen on every call, and a block that
    leaves it alone leaves it exactly as it was.

    Parameters
    ----------
    function : str
        The function called in the block, for the message.

    Examples
    --------
    >>> import numpy as np
    >>> with global_rng_unchanged("f"):
    ...     _ = np.random.default_rng(3).random()
    >>> with global_rng_unchanged("f"):  # doctest: +ELLIPSIS
    ...     np.random.seed(3)
    Traceback (most recent call last):
    ...
    AssertionError: f changed NumPy's global generator ...
    """

    def __init__(self, function):
        self.function = function

    def __enter__(self):
        from .judge import global_rng_calls

        self._watch = global_rng_calls()
        self._calls = self._watch.__enter__()
        self._local = None
        if self._calls is None:
            from .worker import GlobalRngCheck
            self._local = GlobalRngCheck()
        return self

    def __exit__(self, kind, exc, tb):
        self._watch.__exit__(None, None, None)
        if self._calls is None:
            changed = self._local.changed()
            verdicts = [] if not changed else [(self.function, "changed")]
        else:
            verdicts = [(name, verdict) for name, verdict in self._calls if verdict != "unchanged"]
        if kind is not None or not verdicts:
            return False
        name, verdict = verdicts[0]
        what = "changed NumPy's global generator" if verdict == "changed" else \
            f"was called, and whether it left NumPy's global generator alone {verdict}"
        raise AssertionError(
            f"{name} {what} (did it call np.random.seed, or draw from np.random.rand, np.random.permutation or the "
            "like?). Randomness comes from the rng argument only: start with rng = np.random.default_rng(rng) and "
            "draw from that generator")


def _same(a, b):
    import numpy as np

    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and (a == b or (a != a and b != b))


def _shown(value):
    import numpy as np

    try:
        arr = np.asarray(value) if isinstance(value, (np.ndarray, list)) else None
    except (ValueError, TypeError):      # a ragged list
        arr = None
    if arr is not None and arr.dtype.kind in "biuf" and arr.size > 8:
        return f"array of shape {arr.shape}"
    if arr is not None and arr.dtype.kind in "biuf":
        return str(np.round(arr.astype(float), 6).tolist())
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def test_rng():
    """The random generator of the test cell being graded, seeded by (assignment, student, cell).

    Hidden tests draw all their random data from it, so a regrade of the same submission sees
    the same data (and gives the same score) while classmates get different data. Outside the
    grader (self-check, ``nbgrader validate``, a source notebook) the seed is the fixed one of
    :data:`grading.context.SELF_CHECK`.

    Examples
    --------
    >>> from grading.context import test_cell
    >>> with test_cell(assignment="ps1_perceptron", student="ada", cell="pla-halts"):
    ...     a = test_rng().random(3)
    >>> with test_cell(assignment="ps1_perceptron", student="ada", cell="pla-halts"):
    ...     b = test_rng().random(3)
    >>> bool((a == b).all())
    True
    """
    import numpy as np

    from .context import SELF_CHECK, current

    return np.random.default_rng((current() or SELF_CHECK).seed)


test_rng.__test__ = False   # not a pytest test, whatever module imports it


def numbers(value, name, *, shape=None):
    """``value`` as a float array, or an AssertionError saying why it is not a valid answer.

    The one gate every test's comparison goes through: a comparison such as
    ``abs(got - want) > tol`` is False for NaN, so an answer of NaN would pass it. Here
    NaN, infinities, text, booleans and a wrong shape are refused explicitly, with a message
    naming ``name``.

    Parameters
    ----------
    value : object
        What the student's function returned (or a part of it).
    name : str
        How the message calls it, e.g. ``"intensity(images)"``.
    shape : tuple of int, optional
        The shape it must have (``()`` for one number).

    Returns
    -------
    numpy.ndarray of float

    Examples
    --------
    >>> numbers([1, 2.5], "w", shape=(2,))
    array([1. , 2.5])
    >>> numbers([1.0, float("nan")], "w")
    Traceback (most recent call last):
    ...
    AssertionError: w holds nan at index 1: every value should be a finite number
    >>> numbers([1.0, 2.0], "w", shape=(3,))
    Traceback (most recent call last):
    ...
    AssertionError: w should have shape (3,); it has shape (2,)
    """
    import numpy as np

    if isinstance(value, (str, bytes)):
        raise AssertionError(f"{name} should be numbers; it is the text {value!r:.60}")
    try:
        arr = np.asarray(value)
    except Exception:  # ragged lists and the like
        raise AssertionError(f"{name} should be numbers; it is {type(value).__name__}") from None
    if arr.dtype.kind not in "iuf":
        what = "True/False values" if arr.dtype.kind == "b" else f"of type {arr.dtype}"
        raise AssertionError(f"{name} should be numbers; it holds {what}")
    arr = arr.astype(float)
    if shape is not None and arr.shape != tuple(shape):
        raise AssertionError(f"{name} should have shape {tuple(shape)}; it has shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0]) if arr.ndim else ()
        text = f" at index {where[0] if len(where) == 1 else where}" if where else ""
        raise AssertionError(f"{name} holds {arr[where]}{text}: every value should be a finite number")
    return arr


def assert_close(got, want, name, *, atol=0.0, rtol=0.0, context=""):
    """Fail unless ``got`` has ``want``'s shape, is finite, and ``|got - want| <= atol + rtol |want|``.

    Returns ``got`` as a float array. The message names ``name``, the first wrong entry and
    ``context`` (the input that was tried).

    Examples
    --------
    >>> assert_close([1.0, 2.0 + 1e-12], [1.0, 2.0], "w", atol=1e-9)
    array([1., 2.])
    >>> assert_close([1.0, 2.5], [1.0, 2.0], "w", atol=1e-9, context="on the example")
    Traceback (most recent call last):
    ...
    AssertionError: on the example, w should be [1.0, 2.0]; it is [1.0, 2.5] (entry 1 is off by 0.5)
    """
    import numpy as np

    want = np.asarray(want, dtype=float)
    got = numbers(got, name, shape=want.shape)
    off = np.abs(got - want)
    wrong = ~(off <= atol + rtol * np.abs(want))
    if np.any(wrong):
        where = tuple(int(i) for i in np.argwhere(wrong)[0]) if wrong.ndim else ()
        entry = f" (entry {where[0] if len(where) == 1 else where} is off by {off[where]:.3g})" if where else ""
        shown = lambda a: np.round(a, 6).tolist() if a.size <= 12 else f"an array of shape {a.shape}"  # noqa: E731
        prefix = f"{context}, " if context else ""
        raise AssertionError(f"{prefix}{name} should be {shown(want)}; it is {shown(got)}{entry}")
    return got
