"""The judge: a test cell runs in the grader, the submission's names stand for calls to its process.

nbgrader grades a test cell by running it in the same Python process as the student's
code, so a submission can change what the test sees: replace ``numpy.testing``'s assert
functions, return an object whose ``==`` is always true, read the hidden tests. Here a test
cell's code, taken from the gradebook (never from the submission), runs in the grader's
process in a namespace of its own where every name the student defines is a :class:`Proxy`:
calling it sends plain-data arguments to the student's process (:mod:`grading.channel`)
and gets back plain data (:mod:`grading.wire`). No object of the student's ever reaches
the judge, so nothing the student's code does to its own process can change a verdict.

:func:`run_test_cell` runs one test cell against the student's process, anything that offers
the small :class:`StudentProcess` protocol (:class:`grading.session.Session` does). What a
call does to its arguments is written back into the test's objects (a random generator the
function drew from moves on), and inside :func:`global_rng_calls` (what
:class:`grading.checks.global_rng_unchanged` uses) every call also reports whether it changed
NumPy's global generator in the student's process.
"""
import ast
import builtins
import contextlib
import contextvars
from typing import Protocol

from . import wire
from .results import EVALUE_CHARS, CellError

__all__ = ["Proxy", "Opaque", "StudentError", "CellStopped", "StudentProcess", "student_names", "run_test_cell",
           "global_rng_calls"]


class StudentProcess(Protocol):
    """What a test cell needs of the student's process (see :class:`grading.session.Session`)."""

    def begin_cell(self, timeout):
        """Start the limits of a test cell that may use ``timeout`` seconds of the student's CPU time."""

    def bind(self, names):
        """``{name: Proxy, plain value or Opaque}`` for those of ``names`` the submission defines."""

    def call(self, name, args, kwargs, *, global_rng=None):
        """The plain-data result of the submission's function ``name``; raises :class:`StudentError` or
        :class:`CellStopped`. Writes back into ``args`` and ``kwargs`` what the function changed in them
        (arrays, lists, dicts, random generators). With a list as ``global_rng``, appends to it
        ``(name, verdict)``: ``"unchanged"`` when the call left NumPy's global generator as it found it."""

    def end_cell(self):
        """The :class:`grading.results.CellError` that stopped the process during the cell, or None."""


class StudentError(Exception):
    """Student code raised an exception (its type and message are in ``args[0]``)."""


class Proxy:
    """Stands for a function of the submission inside a test: calling it calls the worker.

    Only plain data crosses: arguments are sent as numbers and arrays, and the result comes
    back as numbers, lists and NumPy arrays built by the judge.
    """

    def __init__(self, name, session):
        self.__name__ = name
        self._session = session

    def __call__(self, *args, **kwargs):
        watch = _GLOBAL_RNG.get()
        if watch is None:
            return self._session.call(self.__name__, args, kwargs)
        return self._session.call(self.__name__, args, kwargs, global_rng=watch)

    def __repr__(self):
        return f"<the submission's function {self.__name__}>"


class Opaque:
    """A name of the submission that is neither a function nor plain data: any use fails clearly."""

    def __init__(self, name, what):
        object.__setattr__(self, "_text", f"{name} is {what}; the tests need a function or a plain value")

    def _fail(self, *args, **kwargs):
        raise AssertionError(object.__getattribute__(self, "_text"))

    __call__ = __float__ = __int__ = __index__ = __iter__ = __len__ = __bool__ = __array__ = _fail
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __add__ = __sub__ = __mul__ = __truediv__ = _fail

    def __getattr__(self, name):
        self._fail()

    __hash__ = object.__hash__


# -- which names a test takes from the submission ---------------------------------------
def _bound_names(tree):
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound


def student_names(source, known=()):
    """Names a test cell reads but neither defines itself nor finds in ``known`` or builtins.

    Examples
    --------
    >>> sorted(student_names("import numpy as np\\nx = np.ones(3)\\nassert predict(x) == answer_1"))
    ['answer_1', 'predict']
    """
    tree = ast.parse(source)
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return loaded - _bound_names(tree) - set(known) - set(dir(builtins))


# -- NumPy's global generator, watched in the student's process ---------------------------
_JUDGING = contextvars.ContextVar("grading_judging", default=False)
_GLOBAL_RNG = contextvars.ContextVar("grading_global_rng_calls", default=None)


@contextlib.contextmanager
def global_rng_calls():
    """Inside a test cell the judge runs: the calls of the submission's functions report on NumPy's global generator.

    Yields a list that receives ``(function, verdict)`` for every call made in the block, the
    verdict ``"unchanged"`` when the call (in the student's process) left NumPy's global
    generator as it found it. Yields None outside the judge, where a test calls the functions
    in its own process and checks for itself (:class:`grading.checks.global_rng_unchanged`).
    """
    if not _JUDGING.get():
        yield None
        return
    calls = []
    token = _GLOBAL_RNG.set(calls)
    try:
        yield calls
    finally:
        _GLOBAL_RNG.reset(token)


class CellStopped(BaseException):
    """The student's process was stopped during a test (time, death, a broken channel): the cell fails.

    A BaseException, so that a test's own ``except Exception`` cannot swallow it. ``error`` is
    the :class:`grading.results.CellError` saying why.
    """

    def __init__(self, error):
        super().__init__(error.evalue)
        self.error = error


def run_test_cell(process, source, *, setup_namespace, timeout):
    """Run one test cell's code in the judge against the student's ``process`` (a :class:`StudentProcess`).

    Returns ``(printed text, CellError or None)``; the printed text (the test's own prints)
    is capped at :data:`grading.wire.MAX_TEXT` characters. Whatever stopped the student's
    process during the test fails the cell, even when the test's code catches the error.
    """
    process.begin_cell(timeout)
    namespace = dict(setup_namespace)
    namespace["__name__"] = "__grading_test__"
    printed = wire.CappedText()
    error = None
    judging = _JUDGING.set(True)
    try:
        names = student_names(source, known=namespace)
        namespace.update(process.bind(names))
        code = compile(source, "<test>", "exec")
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            exec(code, namespace)
    except CellStopped as exc:
        error = exc.error
    except StudentError as exc:
        error = CellError("StudentCodeError", str(exc))
    except Exception as exc:  # a failed test is any exception
        error = CellError(type(exc).__name__, str(exc))
    finally:
        _JUDGING.reset(judging)
    stopped = process.end_cell()
    if stopped is not None and (error is None or not error.outcome.stopped):   # even when the test caught it
        error = stopped
    if error is not None:
        error = CellError(error.ename, error.evalue.strip(), outcome=error.outcome).capped(EVALUE_CHARS)
    return printed.text(), error
