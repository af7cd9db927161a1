"""The student side of grading, in this process: the worker's table of requests, without a sandbox.

Each request of the wire format goes through :func:`grading.worker._answer`, the step the
worker's loop takes for every line it reads; what the student's code prints is kept apart from
the reply, and no request, however broken, is left unanswered.
"""
import io

import numpy as np

from grading import wire
from grading.worker import OPS, _answer, _State


def _state():
    return _State(io.BytesIO())


def _progress(state):
    lines = [wire.loads(line) for line in state.rpc.getvalue().splitlines()]
    return [m["progress"] for m in lines if "progress" in m]


def test_the_table_names_the_requests_of_the_wire_format():
    assert set(OPS) == {"exec", "describe", "call", "ping"}
    assert _answer(_state(), {"id": 1, "op": "ping"}) == {"id": 1, "error": None, "stdout": ""}


def test_an_unknown_or_broken_request_is_answered_with_an_error():
    state = _state()
    unknown = _answer(state, {"id": 2, "op": "format_disk"})
    assert unknown["id"] == 2 and unknown["error"]["ename"] == "ProtocolError" and "format_disk" in unknown["error"]["evalue"]
    broken = _answer(state, {"id": 3, "op": "describe"})              # no "names"
    assert broken["id"] == 3 and broken["error"]["ename"] == "KeyError"


def test_a_cell_runs_statement_by_statement_and_its_prints_are_not_the_reply():
    state = _state()
    source = "x = 2\nprint('hello', x)\ny = x + 1\ndef f():\n    return y"
    reply = _answer(state, {"id": 4, "op": "exec", "source": source, "cell": 0})
    assert reply["error"] is None and reply["stdout"] == "hello 2\n"
    assert _progress(state) == [0, 1, 2, 3]
    described = _answer(state, {"id": 5, "op": "describe", "names": ["x", "y", "f", "nothing"]})
    assert described["kinds"] == {"x": "value", "y": "value", "f": "callable", "nothing": "missing"}
    assert wire.decode(described["values"]["y"]) == 3


def test_a_replayed_cell_runs_only_the_statements_that_ran_before_it_stopped():
    state = _state()
    source = "a = 1\nwhile True: pass\ndef f():\n    return 3"
    reply = _answer(state, {"id": 6, "op": "exec", "source": source, "cell": 0, "statements": 1})
    assert reply["error"] is None
    assert "a" in state.namespace and "f" not in state.namespace


def test_a_call_answers_its_result_the_arguments_it_changed_and_the_global_generator():
    state = _state()
    _answer(state, {"id": 7, "op": "exec", "cell": 0, "source": (
        "import numpy as np\n"
        "def scale(v, k):\n    v *= k\n    return float(v.sum())\n"
        "def seeded():\n    np.random.seed(0)\n    return 1")})
    v = np.array([1.0, 2.0])
    reply = _answer(state, {"id": 8, "op": "call", "name": "scale", "args": wire.encode([v, 3]),
                            "kwargs": wire.encode({}), "global_rng": True})
    assert reply["error"] is None and wire.decode(reply["result"]) == 9.0
    assert np.array_equal(wire.decode(reply["changed"]["0"]), [3.0, 6.0]) and "1" not in reply["changed"]
    assert reply["global_rng"] == "unchanged"
    seeded = _answer(state, {"id": 9, "op": "call", "name": "seeded", "args": wire.encode([]),
                             "kwargs": wire.encode({}), "global_rng": True})
    assert seeded["global_rng"] == "changed"
    missing = _answer(state, {"id": 10, "op": "call", "name": "nothing", "args": wire.encode([]),
                              "kwargs": wire.encode({})})
    assert missing["error"]["ename"] == "NameError"
