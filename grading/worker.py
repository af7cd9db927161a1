"""The student side of grading: a Python process that runs a submission's code and answers calls.

This module runs *inside the sandbox* (:mod:`grading.sandbox`), started by
:class:`grading.channel.Worker` as ``python -I -m grading.worker``. It imports nothing from
the course but :mod:`grading.wire` (and what the student's own cells import). First it copies
the submission's files (read-only at ``GRADING_SUBMISSION``, default ``/submission``) into
its working directory and puts that directory first on ``sys.path``, as Jupyter does, so
``from helper import f`` finds the student's ``helper.py``. Then it reads one
:mod:`grading.wire` request per line on standard input and writes one reply per line on a
private copy of standard output; the student's prints go to a per-request buffer (file
descriptors 1 and 2 go to ``/dev/null``), so nothing the student prints is taken for a reply.
Nothing here enforces a limit: the student's code can change anything in this process, so
every bound (time, size of messages, files in the scratch space) is kept by the grader.

Requests (one handler each, in :data:`OPS`):

* ``{"op": "exec", "source": ..., "cell": n, "statements": k}`` — run a cell's code in the
  submission's namespace, one top-level statement after another, the first ``k`` only when
  ``statements`` is given (how the grader replays a stopped cell: what ran before it stopped,
  nothing after). IPython syntax (``%magic``, ``!cmd``) is turned into Python here, in the
  sandbox, under the cell's limits. Before each statement the worker writes a progress line
  ``{"id": ..., "progress": i}``: when the grader stops the cell, the last one names the
  statement that was running. Reply: what it printed and the error, if any;
* ``{"op": "describe", "names": [...]}`` — for each name: ``callable``, ``value`` (with the
  value as plain data), ``missing`` or ``other``;
* ``{"op": "call", "name": ..., "args": [...], "kwargs": {...}}`` — call a function of the
  submission with plain-data arguments; reply with its result as plain data and, under
  ``changed``, the arguments (arrays, lists, dicts, random generators) the call modified in
  place, so that the grader can make the caller's objects what they would be in Jupyter (a
  generator the function drew from has moved on). With ``"global_rng": true`` the call runs
  inside a :class:`GlobalRngCheck` and the reply says, under ``global_rng``, whether it
  ``"unchanged"`` or ``"changed"`` NumPy's global generator (``np.random.seed``, a draw from
  ``np.random.rand`` ...);
* ``{"op": "ping"}`` — answer at once (the grader checks that the process is in step).

Whatever the student's code returns is turned into plain data here; the grader never sees an
object of the student's. The student's code can write to the reply pipe itself; the grader
treats every reply (and every progress line) as hostile (:mod:`grading.channel`).
"""
import __future__

import ast
import os
import shutil
import sys
import traceback

from grading import wire

SUBMISSION = os.environ.get("GRADING_SUBMISSION", "/submission")
_FUTURE_FLAGS = sum(getattr(__future__, name).compiler_flag for name in __future__.all_feature_names)
ENAME_CHARS, EVALUE_CHARS, TRACEBACK_CHARS, FRAMES = 200, 2_000, 6_000, 20
"""How much of a student's exception the worker sends (the grader caps again)."""


def _error(exc, skip=0):
    try:
        tb = traceback.extract_tb(exc.__traceback__)[skip:]
        frames = [f for f in tb if str(f.filename).startswith("<cell")][-FRAMES:]
        lines = traceback.format_list(frames) if frames else []
        lines += traceback.format_exception_only(type(exc), exc)
        text = "".join(lines)
        evalue = str(exc)
    except BaseException:  # a student's exception may fail to print itself
        text, evalue = f"{type(exc).__name__}: (its message could not be shown)", ""
    return {"ename": type(exc).__name__[:ENAME_CHARS], "evalue": evalue[:EVALUE_CHARS],
            "traceback": text[-TRACEBACK_CHARS:]}


def _failure(ename, evalue, traceback_text=""):
    return {"ename": ename, "evalue": evalue, "traceback": traceback_text}


class _Shell:
    """Stands in for IPython's ``get_ipython()``: magics and shell escapes do nothing when graded."""

    def run_line_magic(self, *args, **kwargs):
        return None

    def run_cell_magic(self, *args, **kwargs):
        return None

    def system(self, *args, **kwargs):
        return None

    def getoutput(self, *args, **kwargs):
        return ""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _transform(source):
    """IPython syntax (``%magic``, ``!cmd``) to plain Python (code without it is left as it is)."""
    import re
    if not re.search(r"^\s*[%!]|^[^#\n]*=\s*[%!]|\?\s*$", source, re.M):
        return source
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:
        return source
    try:
        return TransformerManager().transform_cell(source)
    except Exception:
        return source


def _copy_submission():
    """The submission's files into the working directory (never following a link)."""
    here = os.getcwd()
    if not os.path.isdir(SUBMISSION) or os.path.realpath(SUBMISSION) == os.path.realpath(here):
        return
    for folder, _dirs, files in os.walk(SUBMISSION):
        rel = os.path.relpath(folder, SUBMISSION)
        target = os.path.normpath(os.path.join(here, rel))
        os.makedirs(target, exist_ok=True)
        for name in files:
            src = os.path.join(folder, name)
            if not os.path.islink(src):
                shutil.copyfile(src, os.path.join(target, name), follow_symlinks=False)


def _mutable(value):
    import numpy as np
    return isinstance(value, (list, dict, np.ndarray, np.random.Generator))


def _state_picture(value):
    """A comparable picture of a random state (dicts, tuples, arrays and numbers), exact."""
    import numpy as np
    if isinstance(value, dict):
        return tuple(sorted((str(k), _state_picture(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_state_picture(v) for v in value)
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    return repr(value)


class GlobalRngCheck:
    """Whether the code run after it was made changes NumPy's global (legacy) generator.

    The global generator is first given a fresh state (``np.random.seed()``), whatever earlier
    code did to it, so that a function that seeds it with a fixed seed changes it too, on every
    call; :meth:`changed` compares its state with that fresh one, and when nothing changed puts
    back the state it had before, so that a function that never touches it leaves it exactly as
    it was. One helper for the student's process (the worker's ``call``) and for tests run in
    the same process as the function (a source notebook in Jupyter,
    :class:`grading.checks.global_rng_unchanged`).

    Examples
    --------
    >>> import numpy as np
    >>> check = GlobalRngCheck()
    >>> _ = np.random.default_rng(0).random()
    >>> check.changed()
    False
    >>> check = GlobalRngCheck()
    >>> np.random.seed(0)
    >>> check.changed()
    True
    """

    def __init__(self):
        import numpy as np

        self._legacy = np.random.mtrand._rand
        self._saved = self._legacy.get_state()
        self._legacy.seed()
        self._fresh = _state_picture(self._legacy.get_state(legacy=False))

    def changed(self):
        """True when the global generator is not in the fresh state the check gave it."""
        if _state_picture(self._legacy.get_state(legacy=False)) != self._fresh:
            return True
        self._legacy.set_state(self._saved)
        return False


def _key(value):
    """A comparable picture of an argument (exact, NaN included): an array's bytes, other plain data as JSON."""
    import json

    import numpy as np
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    return json.dumps(wire.encode(value), sort_keys=True, allow_nan=True)


def _snapshot(args, kwargs):
    """``{position or "kw:name": picture}`` of the arguments a function could change in place."""
    out = {}
    for key, value in [(str(i), v) for i, v in enumerate(args)] + [(f"kw:{k}", v) for k, v in kwargs.items()]:
        if _mutable(value):
            try:
                out[key] = _key(value)
            except (TypeError, ValueError, RecursionError):
                pass
    return out


def _changed(before, args, kwargs):
    """The arguments whose picture differs after the call, as plain data (the grader writes them back)."""
    out = {}
    for key, picture in before.items():
        value = kwargs[key[3:]] if key.startswith("kw:") else args[int(key)]
        try:
            same = _key(value) == picture
        except (TypeError, ValueError, RecursionError):
            same = False
        if not same:
            out[key] = wire.encode(value)
    return out


class _State:
    """The submission's namespace and the worker's private end of the reply pipe."""

    def __init__(self, rpc):
        self.rpc = rpc
        shell = _Shell()
        self.namespace = {"__name__": "__main__", "__builtins__": __builtins__,
                          "get_ipython": lambda: shell, "display": lambda *a, **k: None}
        self.cells = 0
        self.future = 0          # __future__ flags set by the cells so far, as in IPython

    def reply(self, message):
        try:
            data = wire.dumps(message)
        except (TypeError, ValueError) as exc:
            data = wire.dumps({"id": message.get("id"), "stdout": "",
                               "error": _failure("TypeError", str(exc)[:300])})
        self.rpc.write(data)


def _exec(state, req, answer):
    """Run a cell's code (its first ``statements`` top-level statements when given), one statement at a time."""
    state.cells += 1
    name = f"<cell {req.get('cell', state.cells)}>"
    upto = req.get("statements")
    try:
        tree = ast.parse(_transform(req["source"]), name, "exec")
        body = tree.body if upto is None else tree.body[:max(0, int(upto))]
        for i, node in enumerate(body):
            state.reply({"id": req.get("id"), "progress": i})
            module = ast.Module(body=[node], type_ignores=[])
            code = compile(module, name, "exec", flags=state.future, dont_inherit=True)
            state.future |= code.co_flags & _FUTURE_FLAGS
            exec(code, state.namespace)
        answer["error"] = None
    except SystemExit as exc:
        answer["error"] = _failure("SystemExit", str(exc.code)[:200], "SystemExit: the cell called sys.exit()")
    except BaseException as exc:  # the student's code may raise anything
        answer["error"] = _error(exc)


def _describe(state, req, answer):
    kinds, values = {}, {}
    for name in req["names"]:
        if name not in state.namespace:
            kinds[name] = "missing"
            continue
        obj = state.namespace[name]
        try:
            if callable(obj):
                kinds[name] = "callable"
                continue
            values[name] = wire.encode(obj, lenient=True)
            kinds[name] = "value"
        except BaseException as exc:
            kinds[name] = "other"
            values[name] = str(exc)[:300] if isinstance(exc, Exception) else "not plain data"
    answer.update(kinds=kinds, values=values)


def _call(state, req, answer):
    func = state.namespace.get(req["name"])
    if func is None or not callable(func):
        answer["error"] = _failure("NameError", f"name {req['name']!r} is not defined")
        return
    args, kwargs = wire.decode(req["args"]), wire.decode(req["kwargs"])
    before = _snapshot(args, kwargs)
    check = _start_global_rng_check(answer) if req.get("global_rng") else None
    try:
        result = func(*args, **kwargs)
    except BaseException as exc:
        answer["error"] = _error(exc, skip=1)
    else:
        try:
            answer["result"] = wire.encode(result, lenient=True)
            answer["error"] = None
        except BaseException as exc:
            answer["error"] = _failure("TypeError", f"{req['name']} returned {str(exc)[:300]}")
    if check is not None:
        answer["global_rng"] = _global_rng_verdict(check)
    # what the function did to its arguments, as Jupyter's caller would see it
    try:
        answer["changed"] = _changed(before, args, kwargs)
    except BaseException as exc:
        answer["error"] = _failure("TypeError", f"{req['name']} left an argument holding {str(exc)[:300]}")


def _not_checked(exc):
    return f"could not be checked ({type(exc).__name__}: {str(exc)[:200]})"


def _start_global_rng_check(answer):
    """A :class:`GlobalRngCheck` before the call; None, and the reason under ``global_rng``, when it cannot start."""
    try:
        return GlobalRngCheck()
    except BaseException as exc:      # the student's code may have broken NumPy's global generator
        answer["global_rng"] = _not_checked(exc)
        return None


def _global_rng_verdict(check):
    """``"changed"``, ``"unchanged"`` or why the global generator could not be checked after the call."""
    try:
        return "changed" if check.changed() else "unchanged"
    except BaseException as exc:
        return _not_checked(exc)


def _ping(state, req, answer):
    answer["error"] = None


OPS = {"exec": _exec, "describe": _describe, "call": _call, "ping": _ping}
"""The requests the worker answers, by ``op``: a handler ``(state, request, answer)`` fills in the answer.

Adding a request is one handler and its entry here (and the grader's call in :mod:`grading.session`).
"""


def main():
    rpc = os.fdopen(os.dup(1), "wb", buffering=0)
    requests = os.fdopen(os.dup(0), "rb")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sys.stdin = open(os.devnull)
    state = _State(rpc)
    try:
        _copy_submission()
    except OSError as exc:
        state.reply({"ready": False, "error": f"the submission's files could not be copied: {exc}"})
        return
    sys.path.insert(0, os.getcwd())
    if os.environ.get("GRADING_FIRST_ON_PATH"):   # no sandbox: a withheld course_lib comes first
        sys.path.insert(0, os.environ["GRADING_FIRST_ON_PATH"])
    state.reply({"ready": True})
    for line in requests:
        try:
            req = wire.loads(line)
        except wire.WireError:
            continue
        state.reply(_answer(state, req))


def _answer(state, req):
    """The reply to one request: what its handler in :data:`OPS` answered, and what the student's code printed."""
    out = wire.CappedText()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = out
    answer = {"id": req.get("id")}
    try:
        handler = OPS.get(req.get("op"))
        if handler is None:
            answer["error"] = _failure("ProtocolError", f"unknown op {req.get('op')!r}")
        else:
            handler(state, req, answer)
    except BaseException as exc:  # never leave a request unanswered
        answer["error"] = _error(exc)
    finally:
        sys.stdout, sys.stderr = saved
    answer["stdout"] = out.text()
    return answer

if __name__ == "__main__":
    main()
