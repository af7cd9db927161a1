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

Requests:

* ``{"op": "exec", "source": ...}`` — run a cell's code in the submission's namespace;
  reply with what it printed and the error, if any;
* ``{"op": "describe", "names": [...]}`` — for each name: ``callable``, ``value`` (with the
  value as plain data), ``missing`` or ``other``;
* ``{"op": "call", "name": ..., "args": [...], "kwargs": {...}}`` — call a function of the
  submission with plain-data arguments; reply with its result as plain data and, under
  ``changed``, the arguments (arrays, lists, dicts) the call modified in place, so that the
  grader can make the caller's objects what they would be in Jupyter.

Whatever the student's code returns is turned into plain data here; the grader never sees an
object of the student's. The student's code can write to the reply pipe itself; the grader
treats every reply as hostile (:mod:`grading.channel`).
"""
import io
import os
import shutil
import sys
import traceback

from grading import wire

SUBMISSION = os.environ.get("GRADING_SUBMISSION", "/submission")


class _Capped(io.TextIOBase):
    """A text stream that keeps the first ``wire.MAX_TEXT`` characters and counts the rest."""

    def __init__(self):
        self.parts, self.size, self.dropped = [], 0, 0

    def writable(self):
        return True

    def write(self, s):
        s = str(s)
        room = wire.MAX_TEXT - self.size
        if room > 0:
            self.parts.append(s[:room])
            self.size += min(len(s), room)
        self.dropped += max(0, len(s) - max(room, 0))
        return len(s)

    def text(self):
        out = "".join(self.parts)
        if self.dropped:
            out += f"\n... ({self.dropped} more characters of output not shown)\n"
        return out


def _error(exc, skip=0):
    try:
        tb = traceback.extract_tb(exc.__traceback__)[skip:]
        frames = [f for f in tb if str(f.filename).startswith("<cell")][-20:]
        lines = traceback.format_list(frames) if frames else []
        lines += traceback.format_exception_only(type(exc), exc)
        text = "".join(lines)
        evalue = str(exc)
    except BaseException:  # noqa: BLE001 - a student's exception may fail to print itself
        text, evalue = f"{type(exc).__name__}: (its message could not be shown)", ""
    return {"ename": type(exc).__name__[:200], "evalue": evalue[:2000], "traceback": text[-6000:]}


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
    return isinstance(value, (list, dict, np.ndarray))


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


def main():
    rpc = os.fdopen(os.dup(1), "wb", buffering=0)
    requests = os.fdopen(os.dup(0), "rb")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sys.stdin = open(os.devnull)

    def reply(message):
        try:
            data = wire.dumps(message)
        except (TypeError, ValueError) as exc:
            data = wire.dumps({"id": message.get("id"), "stdout": "",
                               "error": {"ename": "TypeError", "evalue": str(exc)[:300], "traceback": ""}})
        rpc.write(data)

    try:
        _copy_submission()
    except OSError as exc:
        reply({"ready": False, "error": f"the submission's files could not be copied: {exc}"})
        return
    sys.path.insert(0, os.getcwd())
    if os.environ.get("GRADING_FIRST_ON_PATH"):   # no sandbox: a withheld course_lib comes first
        sys.path.insert(0, os.environ["GRADING_FIRST_ON_PATH"])
    shell = _Shell()
    namespace = {"__name__": "__main__", "__builtins__": __builtins__,
                 "get_ipython": lambda: shell, "display": lambda *a, **k: None}
    counter = 0
    reply({"ready": True})
    for line in requests:
        try:
            req = wire.loads(line)
        except wire.WireError:
            continue
        out = _Capped()
        sys.stdout = sys.stderr = out
        op = req.get("op")
        answer = {"id": req.get("id")}
        try:
            if op == "exec":
                counter += 1
                name = f"<cell {req.get('cell', counter)}>"
                try:
                    code = compile(_transform(req["source"]), name, "exec")
                    exec(code, namespace)
                    answer["error"] = None
                except BaseException as exc:  # noqa: BLE001 - the student's code may raise anything
                    if isinstance(exc, SystemExit):
                        answer["error"] = {"ename": "SystemExit", "evalue": str(exc.code)[:200],
                                           "traceback": "SystemExit: the cell called sys.exit()"}
                    else:
                        answer["error"] = _error(exc)
            elif op == "describe":
                kinds, values = {}, {}
                for name in req["names"]:
                    if name not in namespace:
                        kinds[name] = "missing"
                        continue
                    obj = namespace[name]
                    try:
                        if callable(obj):
                            kinds[name] = "callable"
                            continue
                        values[name] = wire.encode(obj, lenient=True)
                        kinds[name] = "value"
                    except BaseException as exc:  # noqa: BLE001
                        kinds[name] = "other"
                        values[name] = str(exc)[:300] if isinstance(exc, Exception) else "not plain data"
                answer.update(kinds=kinds, values=values)
            elif op == "call":
                func = namespace.get(req["name"])
                if func is None or not callable(func):
                    answer["error"] = {"ename": "NameError", "evalue": f"name {req['name']!r} is not defined",
                                       "traceback": ""}
                else:
                    args, kwargs = wire.decode(req["args"]), wire.decode(req["kwargs"])
                    before = _snapshot(args, kwargs)
                    try:
                        result = func(*args, **kwargs)
                    except BaseException as exc:  # noqa: BLE001
                        answer["error"] = _error(exc, skip=1)
                    else:
                        try:
                            answer["result"] = wire.encode(result, lenient=True)
                            answer["error"] = None
                        except BaseException as exc:  # noqa: BLE001
                            answer["error"] = {"ename": "TypeError",
                                               "evalue": f"{req['name']} returned {str(exc)[:300]}",
                                               "traceback": ""}
                    # what the function did to its arguments, as Jupyter's caller would see it
                    try:
                        answer["changed"] = _changed(before, args, kwargs)
                    except BaseException as exc:  # noqa: BLE001
                        answer["error"] = {"ename": "TypeError",
                                           "evalue": f"{req['name']} left an argument holding {str(exc)[:300]}",
                                           "traceback": ""}
            elif op == "ping":
                answer["error"] = None
            else:
                answer["error"] = {"ename": "ProtocolError", "evalue": f"unknown op {op!r}", "traceback": ""}
        except BaseException as exc:  # noqa: BLE001 - never leave a request unanswered
            answer["error"] = _error(exc)
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        answer["stdout"] = out.text()
        reply(answer)


if __name__ == "__main__":
    main()
