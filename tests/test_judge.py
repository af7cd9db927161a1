"""The judge and its channel: only plain data cross from the student's process, no student code runs here,
and nothing the student's process sends can block, crash or bloat the grader."""
import base64
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from grading.judge import Opaque, run_test_cell, student_names
from grading.limits import GradingLimits
from grading.sandbox import Sandbox
from grading.session import Session
from grading.wire import WireError, decode, encode

# -- plain data --------------------------------------------------------------------------

arrays = hnp.arrays(dtype=st.sampled_from([np.float64, np.int64, np.bool_]),
                    shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=5))
plain = st.recursive(st.none() | st.booleans() | st.integers(-2**60, 2**60) | st.floats(allow_nan=False)
                     | st.text(max_size=10) | arrays,
                     lambda inner: st.lists(inner, max_size=4), max_leaves=10)


def _same(a, b):
    if isinstance(a, np.ndarray):
        return (isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype
                and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if isinstance(a, (list, tuple)):
        return isinstance(b, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b and type(a) is type(b)


@settings(max_examples=60, deadline=None)
@given(plain)
def test_what_the_worker_sends_is_rebuilt_exactly(value):
    # the worker's encoder, through JSON, into the judge's decoder
    wire = json.loads(json.dumps(encode(value, lenient=True)))
    assert _same(value, decode(wire))


@settings(max_examples=60, deadline=None)
@given(plain)
def test_what_the_judge_sends_is_rebuilt_exactly(value):
    wire = json.loads(json.dumps(encode(value)))
    assert _same(value, decode(wire))


def test_tuples_reach_the_student_as_tuples():
    assert decode(encode((1, [2.0]))) == (1, [2.0])


@pytest.mark.parametrize("bad", [
    {"__ndarray__": base64.b64encode(b"\x00" * 8).decode(), "dtype": "|O", "shape": [1]},
    {"__ndarray__": base64.b64encode(b"\x00" * 8).decode(), "dtype": "<f8", "shape": [3]},
    {"__ndarray__": "not base64!", "dtype": "<f8", "shape": [1]},
    {"__ndarray__": "", "dtype": "<f8", "shape": "x"},
])
def test_malformed_arrays_are_refused(bad):
    with pytest.raises(WireError):
        decode(bad)


def test_rigged_objects_become_plain_numbers():
    class Always(int):
        def __eq__(self, other):
            return True

    class Rigged(np.ndarray):
        def __eq__(self, other):
            return True

    got = decode(json.loads(json.dumps(encode([Always(3), np.zeros(2).view(Rigged)], lenient=True))))
    assert type(got[0]) is int and got[0] == 3 and not (got[0] == 4)
    assert type(got[1]) is np.ndarray and not np.array_equal(got[1], [1.0, 1.0])


def test_objects_that_are_not_data_are_refused_by_the_worker():
    with pytest.raises(TypeError, match="generator"):
        encode((x for x in range(3)), lenient=True)


# -- which names a test takes from the submission -----------------------------------------

def test_student_names_are_the_free_names_of_a_test():
    source = ("import numpy as np\nX = np.ones((2, 3))\nfor i in range(2):\n    assert predict(w, X)[i] == i\n"
              "assert all(v for v in [answer_1])\ntry:\n    pla\nexcept NameError as e:\n    print(e)")
    assert student_names(source, known={"w"}) == {"predict", "answer_1", "pla"}


# -- a real worker in the sandbox -----------------------------------------------------------

@pytest.fixture
def session(tmp_path):
    box = Sandbox()
    box.check()
    s = Session(tmp_path, sandbox=box, limits=GradingLimits(replay_timeout=30))
    s.start()
    yield s
    s.close()


def _test(session, source, timeout=5):
    return run_test_cell(session, source, setup_namespace={"__builtins__": __builtins__}, timeout=timeout)


def test_a_test_sees_only_plain_data_whatever_the_student_patches(session):
    session.exec_cell(0, "import numpy as np\nimport numpy.testing as npt\nimport builtins\n"
                         "npt.assert_allclose = lambda *a, **k: None\nbuiltins.abs = lambda x: 0\n"
                         "class Always(float):\n    def __eq__(self, o): return True\n"
                         "def radius(X):\n    return Always(0.0)\nanswer = Always(2.0)", 5)
    _, err = _test(session, "import numpy.testing as npt\nnpt.assert_allclose(radius([[3.0, 4.0]]), 5.0)")
    assert err and err.ename == "AssertionError"
    _, err = _test(session, "assert abs(radius([[3.0, 4.0]]) - 5.0) < 1e-9")
    assert err and err.ename == "AssertionError"
    _, err = _test(session, "assert answer == 2.0 and not (answer == 3.0) and type(answer) is float")
    assert err is None


def test_student_errors_are_reported_with_their_message(session):
    session.exec_cell(0, "def f(x):\n    raise ValueError('x must be positive')", 5)
    _, err = _test(session, "f(1)")
    assert err.ename == "StudentCodeError" and "ValueError: x must be positive" in err.evalue


def test_a_missing_name_is_a_name_error_in_the_test(session):
    _, err = _test(session, "pla([[1.0]], [1.0])")
    assert err.ename == "NameError"


def test_an_endless_call_is_stopped_and_the_definitions_are_restored(session):
    session.exec_cell(0, "def ok():\n    return 41 + 1", 5)
    session.exec_cell(1, "def stuck():\n    while True:\n        try:\n            pass\n"
                         "        except KeyboardInterrupt:\n            pass", 5)
    _, err = _test(session, "stuck()", timeout=2)
    assert err.ename == "CellTimeoutError"
    _, err = _test(session, "assert ok() == 42")
    assert err is None


def test_a_dying_process_fails_the_cell_and_the_rest_is_graded(session):
    session.exec_cell(0, "import os\ndef die():\n    os._exit(3)\ndef ok():\n    return 42", 5)
    _, err = _test(session, "die()")
    assert err.ename == "ProcessDied"
    _, err = _test(session, "try:\n    die()\nexcept Exception:\n    pass")   # a test cannot swallow it
    assert err.ename == "ProcessDied"
    _, err = _test(session, "assert ok() == 42")
    assert err is None


def test_opaque_values_fail_clearly():
    thing = Opaque("model", "an object of type Model")
    with pytest.raises(AssertionError, match="model is an object of type Model"):
        float(thing)


# -- NumPy's global generator, watched in the student's process ------------------------------

_RANDOM_FUNCTIONS = (
    "import numpy as np\n"
    "def clean(n, rng=None):\n    rng = np.random.default_rng(rng)\n    return rng.random(n)\n"
    "def seeds(n, rng=None):\n    rng = np.random.default_rng(rng)\n    np.random.seed(int(rng.integers(2**32)))\n"
    "    return np.random.random(n)\n"
    "def pins(n, rng=None):\n    np.random.seed(0)\n    return np.random.default_rng(rng).random(n)\n"
    "def draws(n, rng=None):\n    return np.random.default_rng(rng).random(n) + 0 * np.random.rand()\n"
    "def hides(n, rng=None):\n    state = np.random.get_state()\n    np.random.seed(1)\n    np.random.rand()\n"
    "    np.random.set_state(state)\n    return np.random.default_rng(rng).random(n)\n"
    "def state():\n    return np.random.get_state()[1][:4].astype(float)\n")


def test_a_test_sees_whether_a_students_function_touches_numpy_s_global_generator(session):
    """global_rng_unchanged in the grader: every call in the block is checked in the student's process, on every
    call (a function that seeds with a fixed seed is seen again and again), and a clean function leaves the global
    generator of the student's process exactly as it was."""
    session.exec_cell(0, _RANDOM_FUNCTIONS, 5)
    check = ("from grading.checks import global_rng_unchanged\n"
             "with global_rng_unchanged({f!r}):\n"
             "    for seed in range(3):\n"
             "        {f}(3, rng=seed)\n")
    for name in ("clean", "hides"):           # putting its state back is leaving it alone
        _, err = _test(session, check.format(f=name))
        assert err is None, (name, err)
    for name in ("seeds", "pins", "draws"):
        for _ in range(2):                    # the second time, the global state already holds the pinned seed
            _, err = _test(session, check.format(f=name))
            assert err is not None and err.ename == "AssertionError", (name, err)
            assert f"{name} changed NumPy's global generator" in err.evalue
    # the global generator of the student's process after a clean call is the one it had before
    _, err = _test(session, "before = state()\n" + check.format(f="clean") + "assert state().tolist() == before.tolist()")
    assert err is None, err
    # outside the block nothing is watched, and a call that changes it fails nothing
    _, err = _test(session, "seeds(3, rng=1)\npins(3)")
    assert err is None, err


def test_a_missing_report_on_the_global_generator_counts_as_changed(session, monkeypatch):
    """Anything but the worker's own "unchanged" counts as changed: a verdict that was never sent fails the check."""
    from grading.judge import global_rng_calls

    session.exec_cell(0, "def f():\n    return 1\n", 5)
    session.begin_cell(5)
    calls = []
    assert session.call("f", (), {}, global_rng=calls) == 1 and calls == [("f", "unchanged")]
    request = session._request
    monkeypatch.setattr(session, "_request", lambda message: {k: v for k, v in request(message).items()
                                                              if k != "global_rng"})
    calls = []
    session.call("f", (), {}, global_rng=calls)
    assert calls == [("f", "was not reported")]
    session.end_cell()
    _, err = _test(session, "from grading.checks import global_rng_unchanged\nwith global_rng_unchanged('f'):\n    f()")
    assert err.ename == "AssertionError" and "whether it left NumPy's global generator alone was not reported" in err.evalue
    with global_rng_calls() as outside:
        assert outside is None            # not judging: a test checks in its own process
