"""The identity of a graded test cell, and the seeds of the hidden tests' random data."""
import hashlib
import hmac
import os
import subprocess
import sys

import numpy as np
import pytest

from grading.checks import test_rng
from grading.context import SELF_CHECK, TestCell, course_secret, current, replay_note, seed_for, test_cell

KEY = b"the course's secret"


def test_seed_is_an_hmac_of_the_four_names_keyed_by_the_course_s_secret():
    # an independent computation of the documented rule
    mac = hmac.new(KEY, b"ps2_hoeffding\x00ada\x00coins-nu-min-law\x00d1", hashlib.sha256).digest()
    assert seed_for("ps2_hoeffding", "ada", "coins-nu-min-law", submission="d1", secret=KEY) == \
        int.from_bytes(mac[:8], "big")
    # the public rule of old (a hash of the names alone) is not it: a clone of the course cannot compute it
    public = hashlib.sha256(b"ps2_hoeffding\x00ada\x00coins-nu-min-law").digest()
    assert seed_for("ps2_hoeffding", "ada", "coins-nu-min-law", submission="d1", secret=KEY) != \
        int.from_bytes(public[:8], "big")


def test_seed_is_the_same_in_another_process():
    # Python's own hash() differs between processes; the seed must not
    code = ("from grading.context import seed_for; "
            "print(seed_for('ps1_perceptron', 'bob', 'pla-halts', submission='d', secret=b'k'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "random", "PATH": ""})
    assert int(out.stdout) == seed_for("ps1_perceptron", "bob", "pla-halts", submission="d", secret=b"k")


@pytest.mark.parametrize("changed", ["assignment", "student", "cell", "submission", "secret"])
def test_each_name_the_submission_and_the_secret_change_the_data(changed):
    names = {"assignment": "ps1_perceptron", "student": "ada", "cell": "pla-halts", "submission": "d1",
             "secret": KEY}
    with test_cell(**names):
        a = test_rng().random(8)
    other = names[changed] + (b"x" if changed == "secret" else "x")
    with test_cell(**dict(names, **{changed: other})):
        b = test_rng().random(8)
    assert not np.array_equal(a, b)


def test_the_course_s_secret_is_made_once_owner_only_and_never_replaced(tmp_path):
    path = tmp_path / "grading-secret.key"
    with pytest.raises(FileNotFoundError, match="restore it from the backup of the gradebook"):
        course_secret(path)
    key = course_secret(path, create=True)
    assert len(key) == 64 and os.stat(path).st_mode & 0o777 == 0o600
    assert course_secret(path, create=True) == key == course_secret(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grading-secret.key"]
    other = tmp_path / "other.key"
    assert course_secret(other, create=True) != key
    shared = tmp_path / "shared"            # the graders' folder of the deployment: set-group-ID
    shared.mkdir()
    os.chmod(shared, 0o2770)
    course_secret(shared / "grading-secret.key", create=True)
    assert os.stat(shared / "grading-secret.key").st_mode & 0o777 == 0o640


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
        seed_for("ps1_perceptron", bad, "cell", submission="d", secret=KEY)
    with pytest.raises(ValueError, match="secret must be non-empty bytes"):
        seed_for("ps1_perceptron", "ada", "cell", submission="d", secret=bad or b"")


def test_replay_note_names_seed_and_command():
    who = TestCell(assignment="ps3_digits", student="ada", cell="pocket-keeps-the-best-weights")
    note = replay_note(who)
    assert str(who.seed) in note
    assert "make regrade-check ASSIGNMENT=ps3_digits STUDENT=ada CELL=pocket-keeps-the-best-weights" in note
