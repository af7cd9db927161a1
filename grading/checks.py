"""Helpers that the hidden tests of the course's assignments call.

The one rule they enforce: an exercise that asks for an algorithm earns nothing when
the answer delegates to ``course_lib``'s own implementation of that algorithm.
"""
import dis
import inspect
import sys
import types

__all__ = ["reference_calls", "refuse_reference"]

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
    calls = reference_calls(func, forbidden)
    if calls:
        listed = ", ".join(f"course_lib.{name}" for name in calls)
        raise AssertionError(
            f"{exercise} calls {listed}, the course's own implementation of what this exercise asks "
            f"you to write, so it earns no points: write {exercise} yourself with NumPy")
