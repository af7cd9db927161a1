"""The student side of grading: a Python process that runs a submission's code and answers calls.

This file runs *inside the sandbox* (:mod:`grading.sandbox`), started by
:class:`grading.judge.Worker` as ``python -I -c <this source>``. It imports nothing from
the course except what the student's own cells import. It reads one JSON request per line
on standard input and writes one JSON reply per line on a private copy of standard output;
the student's own prints go to a per-request buffer (and file descriptors 1 and 2 go to
``/dev/null``), so nothing the student writes can be mistaken for a reply.

Requests:

* ``{"op": "exec", "source": ...}`` — run a cell's code in the submission's namespace;
  reply with what it printed and the error, if any;
* ``{"op": "describe", "names": [...]}`` — for each name: ``callable``, ``value`` (with the
  value as plain data), ``missing`` or ``other``;
* ``{"op": "call", "name": ..., "args": [...], "kwargs": {...}}`` — call a function of the
  submission with plain-data arguments; reply with its result as plain data.

Plain data: None, bool, int, float, str, lists, dicts with string keys, and numeric
NumPy arrays (``{"__ndarray__": base64, "dtype": ..., "shape": [...]}``). Whatever the
student's code returns is turned into plain data here; the grader never sees an object
of the student's.
"""
import base64
import io
import json
import os
import sys
import traceback

MAX_OUTPUT = 20_000  # characters of printed output kept per request


class _Capped(io.TextIOBase):
    """A text stream that keeps the first MAX_OUTPUT characters and counts the rest."""

    def __init__(self):
        self.parts, self.size, self.dropped = [], 0, 0

    def writable(self):
        return True

    def write(self, s):
        s = str(s)
        room = MAX_OUTPUT - self.size
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


def _encode(obj, depth=0):
    """``obj`` as plain data, or raise TypeError naming what could not be converted."""
    import numpy as np

    if depth > 20:
        raise TypeError("the value is nested too deeply")
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj)
    if isinstance(obj, np.ndarray):
        arr = np.asarray(obj)
        if arr.dtype.kind not in "biuf":
            if arr.dtype.kind == "O":
                try:
                    arr = arr.astype(float)
                except (TypeError, ValueError):
                    raise TypeError(f"an array of dtype {obj.dtype} that does not hold numbers") from None
            else:
                raise TypeError(f"an array of dtype {obj.dtype}, not of numbers")
        arr = np.array(arr, order="C")  # (ascontiguousarray would turn a 0-d array into 1-d)
        if arr.dtype.kind == "b":
            arr = arr.astype(np.bool_)
        elif arr.dtype.kind in "iu":
            arr = arr.astype(np.int64)
        else:
            arr = arr.astype(np.float64)
        return {"__ndarray__": base64.b64encode(arr.tobytes()).decode("ascii"),
                "dtype": arr.dtype.str, "shape": list(arr.shape)}
    if isinstance(obj, (list, tuple)):
        return [_encode(v, depth + 1) for v in obj]
    if isinstance(obj, dict):
        return {str(k): _encode(v, depth + 1) for k, v in obj.items()}
    if hasattr(obj, "__array__") or hasattr(obj, "__float__"):
        arr = np.asarray(obj)
        if arr.dtype.kind in "biuf":
            return _encode(arr if arr.ndim else arr.item(), depth + 1)
    raise TypeError(f"an object of type {type(obj).__name__}, not a number, array, list or tuple")


def _decode(obj):
    import numpy as np

    if isinstance(obj, list):
        return [_decode(v) for v in obj]
    if isinstance(obj, dict):
        if "__ndarray__" in obj:
            raw = base64.b64decode(obj["__ndarray__"])
            return np.frombuffer(raw, dtype=np.dtype(obj["dtype"])).reshape(obj["shape"]).copy()
        if "__tuple__" in obj:
            return tuple(_decode(v) for v in obj["__tuple__"])
        return {k: _decode(v) for k, v in obj.items()}
    return obj


def _error(exc, skip=0):
    tb = traceback.extract_tb(exc.__traceback__)[skip:]
    frames = [f for f in tb if f.filename.startswith("<cell")]
    lines = traceback.format_list(frames) if frames else []
    lines += traceback.format_exception_only(type(exc), exc)
    return {"ename": type(exc).__name__, "evalue": str(exc)[:2000], "traceback": "".join(lines)[-6000:]}


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
    """IPython syntax (``%magic``, ``!cmd``) to plain Python."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:
        return source
    try:
        return TransformerManager().transform_cell(source)
    except Exception:
        return source


def main():
    rpc = os.fdopen(os.dup(1), "w", buffering=1)
    requests = os.fdopen(os.dup(0), "r")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sys.stdin = open(os.devnull)
    shell = _Shell()
    namespace = {"__name__": "__main__", "__builtins__": __builtins__,
                 "get_ipython": lambda: shell, "display": lambda *a, **k: None}
    cell_counter = [0]

    def reply(message):
        rpc.write(json.dumps(message, allow_nan=True) + "\n")
        rpc.flush()

    reply({"ready": True})
    for line in requests:
        try:
            req = json.loads(line)
        except ValueError:
            continue
        out = _Capped()
        sys.stdout = sys.stderr = out
        op = req.get("op")
        answer = {"id": req.get("id")}
        try:
            if op == "exec":
                cell_counter[0] += 1
                name = f"<cell {req.get('cell', cell_counter[0])}>"
                try:
                    code = compile(_transform(req["source"]), name, "exec")
                    exec(code, namespace)
                    answer["error"] = None
                except BaseException as exc:  # noqa: BLE001 - the student's code may raise anything
                    if isinstance(exc, SystemExit):
                        answer["error"] = {"ename": "SystemExit", "evalue": str(exc.code),
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
                    if callable(obj):
                        kinds[name] = "callable"
                        continue
                    try:
                        values[name] = _encode(obj)
                        kinds[name] = "value"
                    except Exception as exc:  # noqa: BLE001
                        kinds[name] = "other"
                        values[name] = str(exc)[:300]
                answer.update(kinds=kinds, values=values)
            elif op == "call":
                func = namespace.get(req["name"])
                if func is None or not callable(func):
                    answer["error"] = {"ename": "NameError", "evalue": f"name {req['name']!r} is not defined",
                                       "traceback": ""}
                else:
                    try:
                        result = func(*_decode(req["args"]), **_decode(req["kwargs"]))
                    except BaseException as exc:  # noqa: BLE001
                        answer["error"] = _error(exc, skip=1)
                    else:
                        try:
                            answer["result"] = _encode(result)
                            answer["error"] = None
                        except Exception as exc:  # noqa: BLE001
                            answer["error"] = {"ename": "TypeError", "evalue": f"{req['name']} returned {exc}",
                                               "traceback": ""}
            else:
                answer["error"] = {"ename": "ProtocolError", "evalue": f"unknown op {op!r}", "traceback": ""}
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        answer["stdout"] = out.text()
        try:
            reply(answer)
        except (TypeError, ValueError) as exc:
            reply({"id": req.get("id"), "stdout": "", "error": {"ename": "TypeError", "evalue": str(exc), "traceback": ""}})


if __name__ == "__main__":
    main()
