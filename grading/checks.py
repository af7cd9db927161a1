"""Helpers that the hidden tests of the course's assignments call.

The one rule they enforce: an exercise that asks for an algorithm earns nothing when
the answer delegates to ``course_lib``'s own implementation of that algorithm.
"""
import ast
import dis
import inspect
import sys
import types

__all__ = ["reference_calls", "reference_calls_in_source", "refuse_reference", "test_rng", "numbers", "assert_close"]

_LIBRARY = "course_lib"
# how a function's code refers to names: looked up in its globals or closure, or as attributes
_LOOKUPS = {"LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CLASSDEREF"}
_ATTRIBUTES = {"LOAD_ATTR", "LOAD_METHOD", "IMPORT_FROM"}


def _is_library_module(obj):
    return isinstance(obj, types.ModuleType) and (obj.__name__ == _LIBRARY or obj.__name__.startswith(_LIBRARY + "."))


def _is_library_function(obj, forbidden):
    module = getattr(obj, "__module__", None) or ""
    name = getattr(obj, "__name__", None)
    return (module == _LIBRARY or module.startswith(_LIBRARY + ".")) and name in forbidden


def _library_has(name):
    """Whether ``course_lib`` or one of its (imported) modules has an attribute ``name``."""
    return any(_is_library_module(m) and hasattr(m, name) for m in list(sys.modules.values()))


def _code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def reference_calls(func, forbidden):
    """Names of ``course_lib`` functions in ``forbidden`` that ``func`` may call.

    Follows the names the function's code (and its nested functions) looks up: a
    ``course_lib`` function imported under any name, ``course_lib`` or one of its
    modules followed by a forbidden attribute (``cl.pla``, ``cl.perceptron.pla``,
    ``cl.hoeffding.sample_nu``), ``import course_lib`` inside the function, and the
    student's own helper functions and closures, recursively. A helper of the
    student's own that happens to share a forbidden name is followed, not refused.

    Parameters
    ----------
    func : callable
        The student's answer.
    forbidden : iterable of str
        Names of the ``course_lib`` functions the exercise asks the student to write.

    Returns
    -------
    list of str
        The forbidden names found, sorted (empty when there is none).

    Examples
    --------
    >>> import course_lib as cl
    >>> def lazy(X, y):
    ...     return cl.pla(X, y).w
    >>> reference_calls(lazy, ["pla"])
    ['pla']
    >>> reference_calls(lambda X: X, ["pla"])
    []
    """
    forbidden = set(forbidden)
    found, seen = set(), set()

    def visit(f):
        f = inspect.unwrap(f) if callable(f) else f
        if isinstance(f, (types.MethodType, staticmethod, classmethod)):
            f = f.__func__
        if not isinstance(f, types.FunctionType) or id(f) in seen:
            return
        seen.add(id(f))
        looked_up, attributes, imported = set(), set(), set()
        for code in _code_objects(f.__code__):
            for ins in dis.get_instructions(code):
                if ins.opname in _LOOKUPS:
                    looked_up.add(ins.argval)
                elif ins.opname in _ATTRIBUTES:
                    attributes.add(ins.argval)
                elif ins.opname == "IMPORT_NAME":
                    imported.add(ins.argval)
        scope = dict(f.__globals__)
        if f.__closure__:
            for var, cell in zip(f.__code__.co_freevars, f.__closure__):
                try:
                    scope[var] = cell.cell_contents
                except ValueError:
                    pass
        extra = list(f.__defaults__ or ()) + list((f.__kwdefaults__ or {}).values())
        library_attributes = {n for n in attributes & forbidden if _library_has(n)}
        if any(m == _LIBRARY or m.startswith(_LIBRARY + ".") for m in imported):
            found.update(library_attributes)      # import course_lib (or from course_lib import ...) inside
        for name in looked_up:
            obj = scope.get(name)
            if obj is None:
                continue
            if _is_library_module(obj):           # cl.pla, cl.hoeffding.sample_nu, hoeffding.sample_nu
                found.update(library_attributes)
            elif _is_library_function(obj, forbidden):
                found.add(obj.__name__)
            elif isinstance(obj, types.FunctionType):
                visit(obj)
        for obj in extra:
            if _is_library_function(obj, forbidden):
                found.add(obj.__name__)
            elif isinstance(obj, types.FunctionType):
                visit(obj)

    visit(func)
    return sorted(found)


def python_source(source):
    """A cell's code as plain Python: IPython syntax (``%magic``, ``!cmd``) turned into calls."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
        return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - fall back to the raw text
        return source


def _parse(source):
    try:
        return ast.parse(python_source(source))
    except SyntaxError:
        return None


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


def reference_calls_in_source(sources, func_name, forbidden):
    """Names of ``course_lib`` functions in ``forbidden`` that the function ``func_name`` may use.

    The static counterpart of :func:`reference_calls`, for a grader that never holds the
    student's function object: it reads the code of the submission's cells. It follows
    ``import course_lib`` under any name (also of a submodule), ``from course_lib... import
    name``, module-level aliases (``f = cl.pla``), ``getattr(cl, "pla")``, and the
    submission's own helper functions called from ``func_name``, recursively.

    Examples
    --------
    >>> code = ["import course_lib as cl", "def pla(X, y):\\n    return helper(X, y)",
    ...         "def helper(X, y):\\n    return cl.pla(X, y).w"]
    >>> reference_calls_in_source(code, "pla", ["pla"])
    ['pla']
    >>> reference_calls_in_source(["def pla(X, y):\\n    return X"], "pla", ["pla"])
    []
    """
    forbidden = set(forbidden)
    modules, tainted, defs = set(), {}, {}
    for source in sources:
        tree = _parse(source)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == _LIBRARY or alias.name.startswith(_LIBRARY + "."):
                        modules.add(alias.asname or alias.name.split(".")[0])
                        if alias.asname:
                            modules.add(alias.asname)
            elif isinstance(node, ast.ImportFrom) and node.module and (
                    node.module == _LIBRARY or node.module.startswith(_LIBRARY + ".")):
                for alias in node.names:
                    if alias.name in forbidden:
                        tainted[alias.asname or alias.name] = {alias.name}
                    else:
                        modules.add(alias.asname or alias.name)   # a submodule, or a harmless name
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        defs.setdefault(target.id, []).append(node.value)

    def uses(node):
        found, called = set(), set()
        for sub in ast.walk(node):
            dotted = _dotted(sub) if isinstance(sub, ast.Attribute) else None
            if dotted:
                parts = dotted.split(".")
                if parts[0] in modules or dotted.split(".")[0] == _LIBRARY:
                    found.update(p for p in parts[1:] if p in forbidden)
            if isinstance(sub, ast.Name):
                if sub.id in tainted:
                    found.update(tainted[sub.id])
                called.add(sub.id)
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in ("getattr", "__import__"):
                for arg in sub.args[1:] + sub.args[:1]:
                    if isinstance(arg, ast.Constant) and arg.value in forbidden:
                        found.add(arg.value)
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub.value == _LIBRARY:
                found.update(n for n in forbidden if any(
                    isinstance(c, ast.Constant) and c.value == n for c in ast.walk(node)))
        return found, called

    found, seen, todo = set(), set(), [func_name]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for node in defs.get(name, []):
            f, called = uses(node)
            found |= f
            todo.extend(c for c in called if c in defs and c not in seen)
    return sorted(found)


def refuse_reference(func, exercise, forbidden):
    """Fail (AssertionError) when ``func`` calls ``course_lib``'s version of the exercise.

    Parameters
    ----------
    func : callable
        The student's answer.
    exercise : str
        The name of the function the exercise asks for (used in the message).
    forbidden : iterable of str
        ``course_lib`` functions that solve the exercise.

    Raises
    ------
    AssertionError
        With a message naming what was called, so the feedback says why the
        exercise earned no points.

    Examples
    --------
    >>> refuse_reference(lambda X: X, "radius", ["radius"])
    """
    if hasattr(func, "student_sources"):           # the grader's stand-in for a submission's function
        calls = reference_calls_in_source(func.student_sources(), func.__name__, forbidden)
    else:
        calls = reference_calls(func, forbidden)
    if calls:
        listed = ", ".join(f"course_lib.{name}" for name in calls)
        raise AssertionError(
            f"{exercise} calls {listed}, the course's own implementation of what this exercise asks "
            f"you to write, so it earns no points: write {exercise} yourself with NumPy")


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
    except Exception:  # noqa: BLE001 - ragged lists and the like
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
