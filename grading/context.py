"""Which test cell of whose submission is being graded: the identity behind the tests' random data.

The hidden tests draw their data from a generator seeded by (assignment, student, test cell),
so classmates get different data while a regrade of the same submission sees exactly the
same data and gets exactly the same score. The grader runs every test cell inside
:func:`test_cell`; the test cells ask :func:`grading.checks.test_rng` for their generator.
Outside the grader (the students' self-check, ``nbgrader validate``, running a source
notebook) there is no student: the tests then use the fixed :data:`SELF_CHECK` identity.

Examples
--------
>>> with test_cell(assignment="ps1_perceptron", student="ada", cell="pla-halts") as who:
...     current() == who
True
>>> current() is None
True
>>> seed_for("ps1_perceptron", "ada", "pla-halts") == seed_for("ps1_perceptron", "ada", "pla-halts")
True
>>> seed_for("ps1_perceptron", "ada", "pla-halts") != seed_for("ps1_perceptron", "bob", "pla-halts")
True
"""
import contextlib
import contextvars
import hashlib
from dataclasses import dataclass

__all__ = ["TestCell", "SELF_CHECK", "test_cell", "current", "seed_for", "replay_note"]


@dataclass(frozen=True)
class TestCell:
    """One test cell being graded for one student."""

    __test__ = False   # not a pytest test class

    assignment: str
    student: str
    cell: str

    @property
    def seed(self):
        """The seed of this cell's random data (see :func:`seed_for`)."""
        return seed_for(self.assignment, self.student, self.cell)


#: The identity of a test run outside the grader (self-check, Validate, a source notebook).
SELF_CHECK = TestCell(assignment="self-check", student="self-check", cell="self-check")

_CURRENT = contextvars.ContextVar("grading_test_cell", default=None)


def seed_for(assignment, student, cell):
    """A stable 64-bit seed for (assignment, student, cell): the same on every machine and run.

    SHA-256 of the three names (each UTF-8, separated by a NUL byte), first 8 bytes, big-endian.
    Python's ``hash`` is not used: it changes from one process to the next.
    """
    for name, value in (("assignment", assignment), ("student", student), ("cell", cell)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"{name} must be a non-empty string, got {value!r}")
    digest = hashlib.sha256("\0".join((assignment, student, cell)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


@contextlib.contextmanager
def test_cell(*, assignment, student, cell):
    """Run the code inside as the test cell ``cell`` of ``student``'s ``assignment``.

    Yields the :class:`TestCell`. Nested uses restore the outer identity on exit.
    """
    who = TestCell(assignment=str(assignment), student=str(student), cell=str(cell))
    seed_for(who.assignment, who.student, who.cell)          # refuse empty names here, not in a test
    token = _CURRENT.set(who)
    try:
        yield who
    finally:
        _CURRENT.reset(token)


test_cell.__test__ = False   # not a pytest test, whatever module imports it


def replay_note(who):
    """The line a failing test's message ends with: its seed, and how to replay it."""
    return (f"(this test's random data: seed {who.seed}; an instructor replays it with "
            f"make regrade-check ASSIGNMENT={who.assignment} STUDENT={who.student} CELL={who.cell})")


def current():
    """The :class:`TestCell` being graded, or None outside the grader."""
    return _CURRENT.get()
