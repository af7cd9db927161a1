"""The course's record of each submission's autograding, kept beside nbgrader's gradebook.

nbgrader's gradebook cannot say that a submission could not be graded (it would hold zeros
or nothing), nor that its grading was interrupted, nor which hand-graded answers changed in a
resubmission. The course keeps that here, one small JSON file per student and assignment in
``autograded/grading-status/<assignment>/``, written the same way by every path that
autogrades (``make autograde``, ``python -m grading autograde``, ``nbgrader autograde``, the
Formgrader's button, Dask; see :mod:`grading.classrun`) and read by every export.

A record (:class:`StudentStatus`) says:

* ``status`` — ``graded`` or ``ungraded`` (with the ``reason``), or None while the first
  grading of the submission has not finished;
* ``interrupted`` — a grading began and did not finish (the next run grades it again);
* ``digest``, ``source`` — what was graded: the submission's content and the instructor's
  version with the grading settings (:func:`grading.plan.submission_digest`,
  :func:`grading.plan.source_digest`), so unchanged submissions are not graded again;
* ``cells`` — a digest of each graded cell's source, to notice what a resubmission changed;
* ``review`` — cells a grader had scored or commented whose answer changed since, with what
  the grader had left then (``review_basis``): kept until a grader looks at them again.
"""
import json
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from urllib.parse import quote, unquote

from .gradebook import ManualMark

__all__ = ["GRADED", "UNGRADED", "StatusBook", "StudentStatus"]

GRADED, UNGRADED = "graded", "ungraded"
FOLDER = "grading-status"
OLD_FILE = "grading-status.json"       # the single file of earlier versions, still read


@dataclass(frozen=True)
class StudentStatus:
    """One student's autograding record for one assignment.

    Examples
    --------
    >>> r = StudentStatus("ada", status="graded")
    >>> r.final, r.replace(interrupted=True).final, StudentStatus("bob", status="ungraded", reason="x").final
    (True, False, False)
    >>> StudentStatus.from_dict("ada", r.to_dict()) == r
    True
    """

    student: str
    status: str = None
    reason: str = ""
    interrupted: bool = False
    digest: str = None
    source: str = None
    cells: dict = field(default_factory=dict)
    review: tuple = ()
    review_basis: dict = field(default_factory=dict)
    before: dict = None          # {grade_id: ManualMark} while a grading is under way
    missing: tuple = ()          # notebooks of the assignment the submission lacks

    @property
    def final(self):
        """The autograding finished and graded the submission (its grades in the gradebook are whole)."""
        return self.status == GRADED and not self.interrupted

    @property
    def ungraded(self):
        return self.status == UNGRADED

    def replace(self, **changes):
        return replace(self, **changes)

    def open_review(self, marks):
        """The ``review`` cells a grader has not looked at since they were flagged.

        A cell counts as looked at when what the grader left on it changed (score, extra
        credit, comment), or when its grade no longer needs a manual grade (nbgrader clears
        that flag when a grader saves a score in the Formgrader).
        """
        out = []
        for gid in self.review:
            basis = ManualMark.from_list(self.review_basis.get(gid))
            now = marks.get(gid, ManualMark())
            if now.work != basis.work:
                continue
            if now.needs_manual_grade is False:
                continue
            out.append(gid)
        return out

    def to_dict(self):
        data = asdict(self)
        data.pop("student")
        data["review"] = list(self.review)
        data["missing"] = list(self.missing)
        if self.before is not None:
            data["before"] = {k: v.to_list() for k, v in self.before.items()}
        return data

    @classmethod
    def from_dict(cls, student, data):
        data = dict(data or {})
        known = {f for f in cls.__dataclass_fields__} - {"student"}
        data = {k: v for k, v in data.items() if k in known}
        if isinstance(data.get("before"), dict):
            data["before"] = {k: ManualMark.from_list(v) for k, v in data["before"].items()}
        data["review"] = tuple(data.get("review") or ())
        data["missing"] = tuple(data.get("missing") or ())
        data["cells"] = dict(data.get("cells") or {})
        data["review_basis"] = dict(data.get("review_basis") or {})
        data["interrupted"] = bool(data.get("interrupted"))
        return cls(student, **data)


def _filename(student):
    name = quote(student, safe="")
    return ("%2E" + name[1:] if name.startswith(".") else name) + ".json"


class StatusBook:
    """The records of one assignment: read and written one student at a time.

    Parameters
    ----------
    course : grading.course.Course
    assignment : str
    """

    def __init__(self, course, assignment):
        self.course, self.assignment = course, assignment
        self.folder = Path(course.autograded_dir) / FOLDER / assignment

    def _old(self):
        try:
            data = json.loads((Path(self.course.autograded_dir) / OLD_FILE).read_text())
        except (OSError, ValueError):
            return {}
        section = data.get(self.assignment) if isinstance(data, dict) else None
        return section if isinstance(section, dict) else {}

    def read(self, student):
        """The record of ``student`` (None when there is none)."""
        try:
            data = json.loads((self.folder / _filename(student)).read_text())
        except FileNotFoundError:
            old = self._old().get(student)
            return StudentStatus.from_dict(student, old) if isinstance(old, dict) else None
        except (OSError, ValueError):
            return None
        return StudentStatus.from_dict(student, data)

    def all(self):
        """``{student: StudentStatus}`` of every student with a record."""
        out = {s: StudentStatus.from_dict(s, v) for s, v in self._old().items() if isinstance(v, dict)}
        if self.folder.is_dir():
            for path in self.folder.glob("*.json"):
                if path.name.startswith("."):
                    continue
                try:
                    data = json.loads(path.read_text())
                except (OSError, ValueError):
                    continue
                student = unquote(path.name[: -len(".json")])
                out[student] = StudentStatus.from_dict(student, data)
        return dict(sorted(out.items()))

    def write(self, record):
        """Replace ``record.student``'s record (atomically: a reader sees the old one or the new one)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / _filename(record.student)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(record.to_dict(), indent=1, sort_keys=True))
        os.replace(tmp, path)
        return record

    def remove(self, student):
        """Forget ``student``'s record (their submission was withdrawn)."""
        try:
            (self.folder / _filename(student)).unlink()
        except FileNotFoundError:
            pass
        old_path = Path(self.course.autograded_dir) / OLD_FILE
        old = self._old()
        if student in old:
            data = json.loads(old_path.read_text())
            data[self.assignment].pop(student, None)
            tmp = old_path.with_name(f".{old_path.name}.tmp")
            tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
            os.replace(tmp, old_path)

    # -- about the assignment as a whole --------------------------------------------------------
    def _meta_path(self):
        return self.folder / ".assignment.json"

    def meta(self):
        try:
            data = json.loads(self._meta_path().read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def set_meta(self, **values):
        data = dict(self.meta(), **values)
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".assignment.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
        os.replace(tmp, self._meta_path())
