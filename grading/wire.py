"""The one wire format between the grader and the student's process: plain data, bounded.

Both sides import this module: the grader (:mod:`grading.channel`) and the worker
(:mod:`grading.worker`, which finds it on the sandbox's read-only view of the ``grading``
package). One message is one line of JSON, at most :data:`MAX_MESSAGE` bytes. Plain data
are None, bool, int, float, str, lists, dicts with string keys, tuples
(``{"__tuple__": [...]}``), numeric NumPy arrays
(``{"__ndarray__": base64, "dtype": ..., "shape": [...]}``) and NumPy random generators
built on PCG64 as ``np.random.default_rng`` makes them (``{"__generator__": "PCG64", "state":
..., "inc": ..., ...}``: the other side gets a generator in the same state, so a test can pass
one to a function whose ``rng`` argument takes a ``numpy.random.Generator``), nested at most
:data:`MAX_DEPTH` deep.

Everything that comes from the student's side is treated as hostile: :func:`loads` refuses a
message of more than :data:`MAX_VALUES` values before parsing it, :func:`decode`
refuses what is not plain data (object arrays, shapes that do not match their bytes,
nesting too deep, arrays too large) with :class:`WireError`, and never builds an object
of the student's. Every string that crosses is valid UTF-8: a lone surrogate (which JSON can
carry, and Python's ``print('\\udcff')`` writes) becomes U+FFFD, so that no text of the
student's can make a notebook impossible to save.

Examples
--------
>>> import numpy as np
>>> decode(loads(dumps(encode({"w": np.arange(3.0), "n": (1, 2)}))))["n"]
(1, 2)
"""
import base64
import io
import json
import re

__all__ = ["WireError", "MAX_MESSAGE", "MAX_DEPTH", "MAX_TEXT", "MAX_VALUES", "encode", "decode", "dumps", "loads", "cap",
           "valid_text", "CappedText"]

MAX_MESSAGE = 32 * 1024**2
"""Bytes of one message (one JSON line); a longer one is refused."""

MAX_DEPTH = 20
"""Nesting of lists, tuples and dicts in one message."""

MAX_VALUES = 1_000_000
"""Values (numbers, strings, lists, dicts) in one message, counted before it is parsed. 32 MiB of ``[0],`` would
make 8 million lists: 1.7 GB and 10 s of the grader's own time to read, outside every limit of the student's
process. Arrays travel as one base64 string each, so honest messages hold a few thousand values."""

MAX_TEXT = 20_000
"""Characters of printed output (and of an error's traceback) kept per cell."""

_KINDS = "biuf"           # bool, signed and unsigned int, float
_BIT_GENERATORS = ("PCG64", "PCG64DXSM")   # their whole state is four integers
_SURROGATE = re.compile("[\ud800-\udfff]")


class WireError(ValueError):
    """A message that is not plain data within the bounds (forged, malformed or too large)."""


def cap(text, limit=MAX_TEXT):
    """``text`` cut to ``limit`` characters, saying how much was left out.

    Examples
    --------
    >>> cap("x" * 30, 10)
    'xxxxxxxxxx\\n... (20 more characters not shown)\\n'
    """
    text = text if isinstance(text, str) else str(text)
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... ({len(text) - limit} more characters not shown)\n"


def valid_text(text):
    """``text`` with every lone surrogate replaced by U+FFFD (so that it encodes as UTF-8).

    Examples
    --------
    >>> valid_text("ok \\udcff").encode("utf-8")
    b'ok \\xef\\xbf\\xbd'
    """
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


class CappedText(io.TextIOBase):
    """A text stream that keeps the first ``limit`` characters and counts the rest (never holds more).

    Examples
    --------
    >>> out = CappedText(5)
    >>> _ = out.write("abcdefgh")
    >>> out.text()
    'abcde\\n... (3 more characters of output not shown)\\n'
    """

    def __init__(self, limit=None):
        self.limit = MAX_TEXT if limit is None else limit
        self.parts, self.size, self.dropped = [], 0, 0

    def writable(self):
        return True

    def write(self, s):
        s = str(s)
        room = self.limit - self.size
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


def encode(obj, *, lenient=False, depth=0):
    """``obj`` as plain data for the wire.

    Parameters
    ----------
    obj : object
        Numbers, strings, lists, tuples, dicts and numeric arrays.
    lenient : bool
        The worker's mode, for whatever the student's code returns: NumPy scalars, array-likes
        and objects convertible to float become numbers and arrays, tuples become lists.
        (The grader sends tuples as tuples, so the student's code sees what a test passed.)

    Raises
    ------
    TypeError
        Naming what could not be sent.
    """
    import numpy as np

    if depth > MAX_DEPTH:
        raise TypeError("the value is nested too deeply")
    if obj is None or type(obj) in (bool, int, float, str):
        return obj
    if isinstance(obj, np.random.Generator):
        return _encode_generator(obj)
    if isinstance(obj, (np.ndarray, np.generic)) or (lenient and not isinstance(obj, (list, tuple, dict, str))
                                       and (hasattr(obj, "__array__") or hasattr(obj, "__float__"))):
        return _encode_array(obj, lenient=lenient)
    if isinstance(obj, bool):
        return bool(obj)
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return float(obj)
    if isinstance(obj, str):
        return str(obj)
    if isinstance(obj, tuple):
        items = [encode(v, lenient=lenient, depth=depth + 1) for v in obj]
        return items if lenient else {"__tuple__": items}
    if isinstance(obj, list):
        return [encode(v, lenient=lenient, depth=depth + 1) for v in obj]
    if isinstance(obj, dict):
        return {str(k): encode(v, lenient=lenient, depth=depth + 1) for k, v in obj.items()}
    raise TypeError(f"an object of type {type(obj).__name__}, not a number, array, list or tuple")


def _encode_array(obj, *, lenient):
    """A NumPy array or scalar (or, ``lenient``, what converts to one) for the wire: a number or an array."""
    import numpy as np

    arr = np.asarray(obj)
    if arr.dtype.kind == "O" and lenient:
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError):
            raise TypeError(f"an array of dtype {arr.dtype} that does not hold numbers") from None
    if arr.dtype.kind not in _KINDS:
        raise TypeError(f"an array of dtype {arr.dtype}, not of numbers")
    if arr.ndim == 0 and not isinstance(obj, np.ndarray):  # a scalar
        return arr.item()
    arr = np.array(arr, order="C")  # (ascontiguousarray would turn a 0-d array into 1-d)
    if lenient:                     # one canonical dtype per kind
        arr = arr.astype({"b": np.bool_, "i": np.int64, "u": np.int64, "f": np.float64}[arr.dtype.kind])
    return {"__ndarray__": base64.b64encode(arr.tobytes()).decode("ascii"), "dtype": arr.dtype.str,
            "shape": list(arr.shape)}


def _encode_generator(generator):
    state = generator.bit_generator.state
    name = state.get("bit_generator")
    if name not in _BIT_GENERATORS:
        raise TypeError(f"a random generator built on {name}; only {' and '.join(_BIT_GENERATORS)} "
                        "(np.random.default_rng) can be sent")
    return {"__generator__": name, "state": int(state["state"]["state"]), "inc": int(state["state"]["inc"]),
            "has_uint32": int(state["has_uint32"]), "uinteger": int(state["uinteger"])}


def _decode_generator(obj):
    import numpy as np

    name = obj.get("__generator__")
    numbers = [obj.get(key) for key in ("state", "inc", "has_uint32", "uinteger")]
    if name not in _BIT_GENERATORS or not all(type(n) is int for n in numbers) \
            or not (0 <= numbers[0] < 2**128 and 0 <= numbers[1] < 2**128 and numbers[2] in (0, 1)
                    and 0 <= numbers[3] < 2**32):
        raise WireError("the message holds a malformed random generator")
    bits = getattr(np.random, name)()
    bits.state = {"bit_generator": name, "state": {"state": numbers[0], "inc": numbers[1]},
                  "has_uint32": numbers[2], "uinteger": numbers[3]}
    return np.random.Generator(bits)


def _decode_array(obj):
    """The array an ``{"__ndarray__": ...}`` of the wire holds; anything malformed raises :class:`WireError`."""
    import numpy as np

    data, dtype, shape = obj.get("__ndarray__"), obj.get("dtype"), obj.get("shape")
    if not isinstance(dtype, str) or not isinstance(data, str) or len(dtype) > 8:
        raise WireError("the message holds a malformed array")
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise WireError(f"the message holds an array of dtype {dtype!r}") from None
    if dt.kind not in _KINDS or dt.itemsize > 16:
        raise WireError(f"the message holds an array of dtype {dtype!r}")
    if not isinstance(shape, list) or len(shape) > 32 or not all(type(n) is int and n >= 0 for n in shape):
        raise WireError("the message holds an array with a malformed shape")
    try:
        raw = base64.b64decode(data, validate=True)
    except ValueError:
        raise WireError("the message holds an array whose data are not base64") from None
    size = 1
    for n in shape:
        size *= n
    if size * dt.itemsize != len(raw):
        raise WireError("the message holds an array whose data do not match its shape")
    return np.frombuffer(raw, dtype=dt).reshape(shape).copy()


def decode(obj, *, depth=0):
    """Plain data from the wire, numeric arrays rebuilt; anything else raises :class:`WireError`."""
    if depth > MAX_DEPTH + 1:
        raise WireError("the message is nested too deeply")
    if obj is None or type(obj) in (bool, int, float, str):
        return obj
    if type(obj) is list:
        return [decode(v, depth=depth + 1) for v in obj]
    if type(obj) is not dict:
        raise WireError(f"the message holds {type(obj).__name__}")
    if "__ndarray__" in obj:
        return _decode_array(obj)
    if "__generator__" in obj:
        return _decode_generator(obj)
    if "__tuple__" in obj:
        items = obj["__tuple__"]
        if type(items) is not list:
            raise WireError("the message holds a malformed tuple")
        return tuple(decode(v, depth=depth + 1) for v in items)
    return {str(k): decode(v, depth=depth + 1) for k, v in obj.items()}


def dumps(message):
    """One message as bytes, newline-terminated; :class:`WireError` when it is too large."""
    data = json.dumps(message, allow_nan=True, separators=(",", ":")).encode("utf-8") + b"\n"
    if len(data) > MAX_MESSAGE:
        raise WireError(f"the message is larger than {MAX_MESSAGE // 1024**2} MiB")
    return data


def loads(line):
    """One message (a dict) from one line; :class:`WireError` when it is not one."""
    if len(line) > MAX_MESSAGE:
        raise WireError(f"the message is larger than {MAX_MESSAGE // 1024**2} MiB")
    if _values(line) > MAX_VALUES:
        raise WireError(f"the message holds more than {MAX_VALUES:,} values (send arrays as NumPy arrays)")
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        raise WireError("the message is not JSON") from None
    if type(message) is not dict:
        raise WireError("the message is not a JSON object")
    # a lone surrogate comes as an escape (\\udcff) or as its raw bytes (ED B3 BF, which json decodes)
    if not isinstance(line, (bytes, bytearray)) or b"\\u" in line or b"\xed" in line:
        message = _valid(message)
    return message


def _values(line):
    """At least the number of JSON values in ``line``: every value but a container's first follows a comma."""
    if isinstance(line, str):
        return line.count(",") + line.count("[") + line.count("{") + 1
    return line.count(b",") + line.count(b"[") + line.count(b"{") + 1


def _valid(obj, depth=0):
    """``obj`` (parsed JSON) with every string made valid UTF-8 (keys too)."""
    if isinstance(obj, str):
        return valid_text(obj)
    if depth > MAX_DEPTH + 2:
        return obj
    if isinstance(obj, list):
        return [_valid(v, depth + 1) for v in obj]
    if isinstance(obj, dict):
        return {valid_text(k): _valid(v, depth + 1) for k, v in obj.items()}
    return obj
