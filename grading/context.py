"""Which test cell of whose submission is being graded: the identity behind the tests' random data.

The hidden tests draw their data from a generator whose seed (:func:`seed_for`) is an HMAC,
keyed by the course's secret (:func:`course_secret`), of the assignment, the student, the
test cell and the **submission's digest** (its files' content,
:func:`grading.plan.submission_digest`). So

* classmates get different data, and a regrade of the same submission (``FORCE=1``,
  ``make regrade-check``) sees exactly the same data and gets exactly the same score;
* a resubmission, whose content differs, gets fresh data: inputs recorded by one
  submission (printed, say) are of no use to the next one;
* nobody without the secret can compute a student's data, even with the hidden tests'
  code and a clone of the course.

The grader runs every test cell inside :func:`test_cell`; the test cells ask
:func:`grading.checks.test_rng` for their generator. Outside the grader (the students'
self-check, ``nbgrader validate``, running a source notebook) there is no student: the tests
then use the fixed :data:`SELF_CHECK` identity.

Examples
--------
>>> key = b"a course's secret"
>>> with test_cell(assignment="ps1_perceptron", student="ada", cell="pla-halts", submission="d1", secret=key) as who:
...     current() == who
True
>>> current() is None
True
>>> seed_for("ps1_perceptron", "ada", "pla-halts", submission="d1", secret=key) == who.seed
True
>>> seed_for("ps1_perceptron", "ada", "pla-halts", submission="d2", secret=key) != who.seed
True
"""
import contextlib
import contextvars
import hashlib
import hmac
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["TestCell", "SELF_CHECK", "SECRET_FILE", "test_cell", "current", "seed_for", "replay_note",
           "course_secret"]

SECRET_FILE = "grading-secret.key"
"""The course's secret, in the course directory (beside ``gradebook.db``): never committed, backed up with it."""

_SECRET_BYTES = 32


def seed_for(assignment, student, cell, *, submission, secret):
    """The 64-bit seed of one hidden test cell of one submission, as the grader derives it.

    HMAC-SHA256 keyed by ``secret`` of the four names (each UTF-8, separated by a NUL byte:
    assignment, student, cell, submission), first 8 bytes, big-endian. Python's ``hash`` is
    not used: it changes from one process to the next.

    Parameters
    ----------
    assignment, student, cell : str
        The assignment, the student id (the submission's folder name) and the test cell's grade_id.
    submission : str
        The submission's digest: :func:`grading.plan.submission_digest` of
        ``submitted/<student>/<assignment>/`` (what ``make autograde`` records), any non-empty
        string for data made outside a course.
    secret : bytes
        The course's secret (:func:`course_secret`); any bytes for data made outside a course.

    Examples
    --------
    A test that draws hidden data as the grader does, for many students (or seeds)::

        from grading.checks import test_rng
        from grading.context import test_cell
        for i in range(30):
            with test_cell(assignment="ps1_perceptron", student=f"student{i}", cell="pocket-keeps-best-weights-seen",
                           submission=f"digest{i}", secret=b"a test key"):
                rng = test_rng()          # the generator the hidden test cell gets

    >>> seed_for("ps1_perceptron", "ada", "pla-halts", submission="d", secret=b"k") < 2**64
    True
    """
    for name, value in (("assignment", assignment), ("student", student), ("cell", cell),
                        ("submission", submission)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"{name} must be a non-empty string, got {value!r}")
    if not isinstance(secret, (bytes, bytearray)) or not secret:
        raise ValueError(f"secret must be non-empty bytes (the course's secret), got {type(secret).__name__}")
    message = "\0".join((assignment, student, cell, submission)).encode("utf-8", "surrogatepass")
    return int.from_bytes(hmac.new(bytes(secret), message, hashlib.sha256).digest()[:8], "big")


@dataclass(frozen=True)
class TestCell:
    """One test cell being graded for one submission."""

    __test__ = False   # not a pytest test class

    assignment: str
    student: str
    cell: str
    submission: str = "self-check"
    secret: bytes = field(default=b"self-check", repr=False)

    @property
    def seed(self):
        """The seed of this cell's random data (see :func:`seed_for`)."""
        return seed_for(self.assignment, self.student, self.cell, submission=self.submission, secret=self.secret)


#: The identity of a test run outside the grader (self-check, Validate, a source notebook).
SELF_CHECK = TestCell(assignment="self-check", student="self-check", cell="self-check")

_CURRENT = contextvars.ContextVar("grading_test_cell", default=None)


@contextlib.contextmanager
def test_cell(*, assignment, student, cell, submission="self-check", secret=b"self-check"):
    """Run the code inside as the test cell ``cell`` of ``student``'s submission of ``assignment``.

    Yields the :class:`TestCell`. Nested uses restore the outer identity on exit. The grader
    always passes the submission's digest and the course's secret; their defaults serve
    tests and tools outside a course.
    """
    who = TestCell(assignment=str(assignment), student=str(student), cell=str(cell), submission=str(submission),
                   secret=bytes(secret))
    # refuse bad names here, not in a test
    seed_for(who.assignment, who.student, who.cell, submission=who.submission, secret=who.secret)
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


def course_secret(path, *, create=False):
    """The course's secret: the bytes of the key file at ``path``.

    ``create``: make it when there is none (32 random bytes from :mod:`secrets`, readable by
    its owner only — and by the group of a set-group-ID course folder shared by several
    graders —, created atomically, so two graders starting at once agree). Whoever has it
    can compute every student's hidden data: it stays out of git (``.gitignore``) and the
    students' reach, and is backed up with the gradebook — a course that loses it grades
    resubmissions on fresh data (honest answers keep their grades) but can no longer replay
    a past grade exactly.

    Raises
    ------
    FileNotFoundError
        When there is no key and ``create`` is false (the message says what to do).
    ValueError
        When the file is not a key this function made (empty, or a link).
    """
    path = Path(path)
    if create and not os.path.lexists(path):
        # a course folder shared by its graders (set-group-ID, as the deployment makes it): readable by the group too
        mode = 0o640 if path.parent.stat().st_mode & stat.S_ISGID else 0o600
        draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(secrets.token_hex(_SECRET_BYTES).encode() + b"\n")
            with contextlib.suppress(FileExistsError):
                os.link(draft, path)          # published whole, or not at all when another grader was first
        finally:
            os.unlink(draft)
    if path.is_symlink():
        raise ValueError(f"the course's secret {path} is a symbolic link; it must be a file of its own")
    try:
        text = path.read_bytes().strip()
    except FileNotFoundError:
        raise FileNotFoundError(f"the course's secret {path} is missing: restore it from the backup of the gradebook "
                                "(without it, past grades cannot be replayed exactly)") from None
    if not text:
        raise ValueError(f"the course's secret {path} is empty; restore it from the backup of the gradebook")
    return text
