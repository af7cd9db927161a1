"""The identity of a graded test cell, and the seeds of the hidden tests' random data."""
import hashlib
import subprocess
import sys

import numpy as np
import pytest

from grading.checks import test_rng
from grading.context import SELF_CHECK, TestCell, current, replay_note, seed_for, test_cell


def test_seed_is_sha256_of_the_three_names():
    # an independent computation of the documented rule
    digest = hashlib.sha256(b"ps2_hoeffding\x00ada\x00coins-nu-min-law").digest()
    assert seed_for("ps2_hoeffding", "ada", "coins-nu-min-law") == int.from_bytes(digest[:8], "big")


def test_seed_is_the_same_in_another_process():
    # Python's own hash() differs between processes; the seed must not
    code = "from grading.context import seed_for; print(seed_for('ps1_perceptron', 'bob', 'pla-halts'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "random", "PATH": ""})
    assert int(out.stdout) == seed_for("ps1_perceptron", "bob", "pla-halts")


@pytest.mark.parametrize("changed", ["assignment", "student", "cell"])
def test_each_name_changes_the_data(changed):
    names = {"assignment": "ps1_perceptron", "student": "ada", "cell": "pla-halts"}
    with test_cell(**names):
        a = test_rng().random(8)
    with test_cell(**dict(names, **{changed: names[changed] + "x"})):
        b = test_rng().random(8)
    assert not np.array_equal(a, b)


def test_same_cell_same_data_and_nesting_restores():
    with test_cell(assignment="a", student="s", cell="c") as outer:
        first = test_rng().random(4)
        with test_cell(assignment="a", student="t", cell="c") as inner:
            assert current() == inner
        assert current() == outer
        again = test_rng().random(4)
    assert current() is None
    np.testing.assert_array_equal(first, again)


def test_without_a_student_the_self_check_identity_is_used():
    assert current() is None
    np.testing.assert_array_equal(test_rng().random(5), np.random.default_rng(SELF_CHECK.seed).random(5))


@pytest.mark.parametrize("bad", ["", None, 3])
def test_names_must_be_non_empty_strings(bad):
    with pytest.raises(ValueError, match="student must be a non-empty string"):
        seed_for("ps1_perceptron", bad, "cell")


def test_replay_note_names_seed_and_command():
    who = TestCell(assignment="ps3_digits", student="ada", cell="pocket-keeps-the-best-weights")
    note = replay_note(who)
    assert str(who.seed) in note
    assert "make regrade-check ASSIGNMENT=ps3_digits STUDENT=ada CELL=pocket-keeps-the-best-weights" in note
