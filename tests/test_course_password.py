"""The course's password rule (deploy/course_password.py); the hub's use of it is in tests/test_deploy.py."""
import random
import string
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "deploy"))
course_password = pytest.importorskip("course_password")
problems = course_password.problems


@pytest.mark.parametrize("password, reason", [
    ("abcdefg1", "8 characters; the course asks for at least 12"),         # what the machine's passwd accepts
    ("aaaaaaaaaaaaaaaa", "1 different characters"),
    ("abababababababab", "2 different characters"),
    ("my-name-is-ADA-LOVELACE", "your user name"),                            # whatever its case
    ("a long phrase\nwith a break", "control character"),
])
def test_a_password_that_breaks_the_rule_is_refused_with_its_reason(password, reason):
    found = problems(password, username="ada-lovelace", min_length=12)
    assert any(reason in f for f in found), found


@pytest.mark.parametrize("password", ["correct horse battery", "Tr0ub4dor&3-x", "twelve chars"])
def test_a_password_that_keeps_the_rule_passes(password):
    assert problems(password, username="ada", min_length=12) == []
    assert len(password) >= 12


def test_the_length_is_the_given_minimum_and_counted_in_characters():
    assert problems("ααααβγδεζηθι", username="ada", min_length=12) == []          # 12 characters, 24 bytes
    assert problems("ααααβγδεζηθ", username="ada", min_length=12)
    assert problems("x" * 15 + "abcd", username="ada", min_length=20)


def test_a_short_user_name_is_not_searched_for():
    # a two-letter name would refuse a fifth of all good passwords, and says nothing about them
    assert problems("alpha bravo charlie", username="al", min_length=12) == []


@pytest.mark.parametrize("seed", range(3))
def test_first_passwords_keep_the_rule_for_any_name(seed):
    rng = random.Random(seed)
    for _ in range(200):
        name = "".join(rng.choice(string.ascii_lowercase + "-_") for _ in range(rng.randint(3, 6)))
        minimum = rng.randint(8, 64)
        password = course_password.first_password(name, minimum)
        assert problems(password, username=name, min_length=minimum) == [], (name, minimum, password)
        assert len(password) == max(16, minimum)
