"""Random generators on the grader's wire: a test can pass ``rng=np.random.default_rng(seed)`` to a student."""
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.judge import run_test_cell
from grading.limits import GradingLimits
from grading.sandbox import Sandbox
from grading.session import Session
from grading.wire import WireError, decode, dumps, encode, loads


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**64), draws=st.integers(0, 5), kind=st.sampled_from(["PCG64", "PCG64DXSM"]))
def test_a_generator_arrives_in_the_state_it_left(seed, draws, kind):
    sent = np.random.Generator(getattr(np.random, kind)(seed))
    sent.random(draws)
    sent.integers(2**32) if draws % 2 else None        # leaves half a 64-bit word buffered (has_uint32)
    got = decode(loads(dumps(encode({"rng": sent}))))["rng"]
    assert isinstance(got, np.random.Generator) and got is not sent
    assert got.bit_generator.state == sent.bit_generator.state
    assert got.integers(2**31, size=5).tolist() == sent.integers(2**31, size=5).tolist()


def test_generators_of_other_bit_generators_are_refused_by_name():
    with pytest.raises(TypeError, match="MT19937"):
        encode(np.random.Generator(np.random.MT19937(0)))


@pytest.mark.parametrize("bad", [
    {"__generator__": "MT19937", "state": 1, "inc": 1, "has_uint32": 0, "uinteger": 0},
    {"__generator__": "PCG64", "state": "1", "inc": 1, "has_uint32": 0, "uinteger": 0},
    {"__generator__": "PCG64", "state": 2**128, "inc": 1, "has_uint32": 0, "uinteger": 0},
    {"__generator__": "PCG64", "state": -1, "inc": 1, "has_uint32": 0, "uinteger": 0},
    {"__generator__": "PCG64", "state": 1, "inc": 1, "has_uint32": 2, "uinteger": 0},
    {"__generator__": "PCG64", "state": 1, "inc": 1.5, "has_uint32": 0, "uinteger": 0},
    {"__generator__": ["PCG64"], "state": 1, "inc": 1, "has_uint32": 0, "uinteger": 0},
])
def test_malformed_generators_are_refused(bad):
    with pytest.raises(WireError, match="random generator"):
        decode(json.loads(json.dumps(bad)))


@pytest.fixture
def session(tmp_path):
    box = Sandbox()
    box.check()
    s = Session(tmp_path, sandbox=box, limits=GradingLimits(replay_timeout=30))
    s.start()
    yield s
    s.close()


def test_a_students_function_draws_from_the_generator_a_test_passes(session):
    session.exec_cell(0, "import numpy as np\n"
                         "def draw(n, rng=None):\n"
                         "    rng = np.random.default_rng(rng)\n"
                         "    return rng.random(n), type(rng).__name__\n", 5)
    test = ("import numpy as np\n"
            "values, kind = draw(4, rng=np.random.default_rng(11))\n"
            "assert kind == 'Generator'\n"
            "assert values.tolist() == np.random.default_rng(11).random(4).tolist()\n"
            "again, _ = draw(4, rng=np.random.default_rng(11))\n"
            "other, _ = draw(4, rng=np.random.default_rng(12))\n"
            "assert again.tolist() == values.tolist() and other.tolist() != values.tolist()\n")
    _, error = run_test_cell(session, test, setup_namespace={"__builtins__": __builtins__}, timeout=10)
    assert error is None, error


def test_a_generator_the_students_function_draws_from_moves_on_for_the_test_as_in_jupyter(session):
    """The test's own generator ends where the student's function left it: drawing twice from one generator gives
    two different samples, and the test's next draw is the one Jupyter's caller would get."""
    session.exec_cell(0, "import copy\nimport numpy as np\n"
                         "def draw(n, rng=None):\n    rng = np.random.default_rng(rng)\n    return rng.random(n)\n"
                         "def draw_a_copy(n, rng=None):\n    rng = copy.deepcopy(np.random.default_rng(rng))\n"
                         "    return rng.random(n)\n"
                         "def draw_in_a_list(gens):\n    return gens[0].random(2)\n"
                         "def replace(rng=None):\n    rng.bit_generator.state = np.random.PCG64(5).state\n", 5)
    test = ("import numpy as np\n"
            "g, twin = np.random.default_rng(11), np.random.default_rng(11)\n"
            "first, second = draw(4, rng=g), draw(4, rng=g)\n"
            "assert first.tolist() == twin.random(4).tolist() and second.tolist() == twin.random(4).tolist()\n"
            "assert g.bit_generator.state == twin.bit_generator.state\n"
            "gens = [np.random.default_rng(3)]\n"
            "draw_in_a_list(gens)\n"
            "assert gens[0].random() == (lambda t: (t.random(2), t.random())[1])(np.random.default_rng(3))\n"
            "h = np.random.default_rng(2)\n"
            "replace(rng=h)\n"
            "assert h.bit_generator.state == np.random.default_rng(np.random.PCG64(5)).bit_generator.state\n")
    _, error = run_test_cell(session, test, setup_namespace={"__builtins__": __builtins__}, timeout=10)
    assert error is None, error
    # a function that draws from a copy leaves the caller's generator where it was: two calls, the same sample
    test = ("import numpy as np\ng = np.random.default_rng(11)\n"
            "assert draw_a_copy(4, rng=g).tolist() == draw_a_copy(4, rng=g).tolist()\n"
            "assert g.bit_generator.state == np.random.default_rng(11).bit_generator.state\n")
    _, error = run_test_cell(session, test, setup_namespace={"__builtins__": __builtins__}, timeout=10)
    assert error is None, error


def test_a_forged_generator_state_is_not_written_into_another_kind_of_generator():
    from grading.session import _write_back

    mine = np.random.Generator(np.random.PCG64DXSM(1))
    before = mine.bit_generator.state
    _write_back({"0": encode(np.random.default_rng(9))}, (mine,), {})     # a PCG64 state for a PCG64DXSM
    assert mine.bit_generator.state == before
    _write_back({"0": {"__generator__": "PCG64", "state": -1, "inc": 1, "has_uint32": 0, "uinteger": 0}}, (mine,), {})
    assert mine.bit_generator.state == before
    _write_back({"0": encode(np.random.Generator(np.random.PCG64DXSM(9)))}, (mine,), {})
    assert mine.bit_generator.state == np.random.Generator(np.random.PCG64DXSM(9)).bit_generator.state


def test_a_message_of_too_many_values_is_refused_unparsed_while_large_arrays_pass():
    import numpy as np

    from grading import wire

    many = wire.dumps({"id": 1, "result": [0] * (wire.MAX_VALUES + 1)})
    with pytest.raises(wire.WireError, match="values"):
        wire.loads(many)
    big = wire.dumps({"id": 1, "result": wire.encode(np.arange(3_000_000, dtype=float))})   # one base64 string
    assert wire.decode(wire.loads(big)["result"]).shape == (3_000_000,)
    assert wire.loads(wire.dumps({"id": 1, "result": [[0]] * 100_000}))["result"][-1] == [0]
