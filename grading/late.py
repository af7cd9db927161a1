"""The course's late-submission policy and per-student extensions.

nbgrader measures how late a submission is from the assignment's due date (set in the
Formgrader's *Manage Assignments* page, or ``nbgrader db assignment add <assignment>
--duedate=...``) and the submission's ``timestamp.txt`` (written by ``nbgrader collect`` or
``make collect-lms``). ``nbgrader_config.py`` selects :class:`LatePenalty` for nbgrader's
``AssignLatePenalties``; its options are documented there.

A student may be given a later due date for one assignment (an *extension*): one line of
``extensions.csv`` in the course folder (``assignment,student_id,due,reason``), written by
``make extension ASSIGNMENT=... STUDENT=... DUE="2026-11-24 23:59 UTC" REASON="..."``
(:func:`give_extension`). The extension is put into the gradebook (nbgrader's own
``extension`` of the submission, so the Formgrader and nbgrader's feedback measure lateness
from it too), and the penalty is computed again from the submission's current score
whenever a part changes — a manual grade, an extension, a regrade — by every export
(:func:`grading.gradebook.refresh_late`), so the exported grade never depends on the
order in which these happened.
"""
import csv
import datetime as dt
import math
from dataclasses import dataclass
from pathlib import Path

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Float

from .course import CourseError
from .csvfiles import plain, write_rows

__all__ = ["DAY", "EXTENSIONS_FILE", "Extension", "LatePenalty", "Policy", "give_extension", "penalty_for",
           "read_extensions"]

DAY = 86400.0
EXTENSIONS_FILE = "extensions.csv"
EXTENSION_COLUMNS = ["assignment", "student_id", "due", "reason"]


def penalty_for(score, seconds_late, *, percent_per_day, grace_seconds=0.0):
    """Points taken off ``score`` for a submission ``seconds_late`` seconds after the due date.

    Every started day (24 h) after ``grace_seconds`` costs ``percent_per_day`` percent of the
    score earned, never more than the score itself.

    Examples
    --------
    >>> penalty_for(17, 122460, percent_per_day=10)   # 1.4 days late: two started days
    3.4
    >>> penalty_for(17, 0, percent_per_day=10)
    0.0
    >>> penalty_for(17, 30 * 86400, percent_per_day=10)
    17.0
    """
    if score is None or seconds_late is None or seconds_late <= grace_seconds:
        return 0.0
    days = math.ceil((seconds_late - grace_seconds) / DAY)
    return round(min(float(score), float(score) * percent_per_day * days / 100.0), 6)


@dataclass(frozen=True)
class Policy:
    """The course's late policy, as configured for :class:`LatePenalty` in ``nbgrader_config.py``.

    Examples
    --------
    >>> p = Policy(percent_per_day=10.0)
    >>> p.penalty(17, 122460), p.days(122460)
    (3.4, 2)
    >>> p.explain(17, 122460)
    '34.0 h late: 2 started days at 10 % of the earned score each, 3.4 of 17 points'
    """

    percent_per_day: float = 10.0
    grace_minutes: float = 0.0

    @classmethod
    def from_config(cls, config):
        """The policy of an nbgrader configuration (its ``LatePenalty`` section, else the defaults)."""
        section = config.get("LatePenalty", {}) if config is not None else {}
        return cls(percent_per_day=float(section.get("percent_per_day", cls.percent_per_day)),
                   grace_minutes=float(section.get("grace_minutes", cls.grace_minutes)))

    @property
    def grace_seconds(self):
        return 60.0 * self.grace_minutes

    def penalty(self, score, seconds_late):
        """Points taken off ``score`` (see :func:`penalty_for`)."""
        return penalty_for(score, seconds_late, percent_per_day=self.percent_per_day,
                           grace_seconds=self.grace_seconds)

    def days(self, seconds_late):
        """Started days that count, after the grace period."""
        if not seconds_late or seconds_late <= self.grace_seconds:
            return 0
        return math.ceil((seconds_late - self.grace_seconds) / DAY)

    def explain(self, score, seconds_late):
        """One sentence: how late, and what that costs under this policy."""
        days = self.days(seconds_late)
        if days == 0:
            return "on time" if not seconds_late else f"{seconds_late / 3600:.1f} h late, within the grace period"
        return (f"{seconds_late / 3600:.1f} h late: {days} started day{'s' if days > 1 else ''} at "
                f"{self.percent_per_day:g} % of the earned score each, {self.penalty(score, seconds_late):g} of "
                f"{float(score or 0):g} points")


class LatePenalty(LateSubmissionPlugin):
    """A percentage of the notebook's score per started day late (see :func:`penalty_for`)."""

    percent_per_day = Float(10.0, min=0.0, max=100.0,
                            help="percent of the earned score taken off per started day late").tag(config=True)
    grace_minutes = Float(0.0, min=0.0, help="minutes after the due date that cost nothing").tag(config=True)

    def late_submission_penalty(self, student_id, score, total_seconds_late):
        penalty = penalty_for(score, total_seconds_late, percent_per_day=self.percent_per_day,
                              grace_seconds=60.0 * self.grace_minutes)
        self.log.info("%s: %.0f s late, penalty %g of %g", student_id, total_seconds_late, penalty, score or 0)
        return penalty


# -- extensions -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Extension:
    """A later due date for one student and assignment (a naive UTC time, as nbgrader keeps them)."""

    assignment: str
    student: str
    due: dt.datetime
    reason: str = ""


def _parse_due(text, *, where):
    from nbgrader.utils import parse_utc

    try:
        due = parse_utc(str(text).strip())
    except (ValueError, OverflowError, TypeError) as exc:
        raise CourseError(f"{where}: due {text!r} is not a date and time (expected e.g. "
                         f"'2026-11-24 23:59 UTC'): {exc}") from None
    if due is None:
        raise CourseError(f"{where}: due is empty (expected e.g. '2026-11-24 23:59 UTC')")
    return due


def read_extensions(root):
    """``{(assignment, student): Extension}`` from ``extensions.csv`` in the course folder ``root``.

    A missing file means no extensions. A line that cannot be read raises ``CourseError``
    naming the file, the line and what was expected.
    """
    path = Path(root) / EXTENSIONS_FILE
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    reader = csv.DictReader(text.splitlines())
    missing = [c for c in EXTENSION_COLUMNS[:3] if c not in (reader.fieldnames or [])]
    if missing:
        raise CourseError(f"{path}: expected the columns {', '.join(EXTENSION_COLUMNS)}; "
                         f"missing {', '.join(missing)}")
    out = {}
    for n, row in enumerate(reader, start=2):
        a, s = plain(row.get("assignment") or "").strip(), plain(row.get("student_id") or "").strip()
        if not a and not s:
            continue
        if not a or not s:
            raise CourseError(f"{path}, line {n}: both assignment and student_id are needed")
        out[(a, s)] = Extension(a, s, _parse_due(row.get("due"), where=f"{path}, line {n}"),
                                plain(row.get("reason") or "").strip())
    return out


def give_extension(root, assignment, student, due, reason=""):
    """Record a later due date for ``student`` on ``assignment`` in ``extensions.csv`` (replacing theirs).

    ``due`` is a date and time (``"2026-11-24 23:59 UTC"``; without a zone it is UTC).
    ``due`` of ``None`` or ``""`` removes the student's extension. Returns the
    :class:`Extension` now in force (or None).
    """
    path = Path(root) / EXTENSIONS_FILE
    current = read_extensions(root)
    key = (assignment, student)
    if due in (None, ""):
        current.pop(key, None)
        new = None
    else:
        new = Extension(assignment, student, _parse_due(due, where="DUE"), str(reason or "").strip())
        current[key] = new
    write_rows(path, EXTENSION_COLUMNS, [[a, s, ext.due.strftime("%Y-%m-%d %H:%M:%S UTC"), ext.reason]
                                          for (a, s), ext in sorted(current.items())])
    return new
