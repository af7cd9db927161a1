"""Grades out of nbgrader's gradebook: one reading, every export route, one truth.

:func:`class_rows` reads one assignment into typed rows (:class:`GradeRow`) from the
gradebook, the course's grading records (:mod:`grading.status`, written the same way by
every path that autogrades) and the extensions; every export writes from those rows, so
``make grades``, ``nbgrader export`` (through :class:`CourseExport`, registered in
``nbgrader_config.py``) and the LMS files agree, whatever graded the submissions:

* each row has a ``status``: ``final``; ``provisional`` (its total can still change: a
  hand-graded answer has no grade yet, an answer changed since a grader scored it and was
  not looked at again, or the LMS said it was late without saying when); ``ungraded``
  (autograde could not grade it; the reason says why); ``not autograded`` (submitted, not
  graded yet, or its grading was interrupted); ``not submitted``;
* a submission that was not graded has an **empty** score, never 0;
* the total and the late penalty are computed from their parts now: the grades (manual
  ones included), the submission time, the student's due date (with an extension) and the
  course's policy (:mod:`grading.late`) — never taken from a penalty nbgrader stored when
  it autograded, which a later manual grade or extension would leave stale (the gradebook is
  brought in step as the rows are read, so the Formgrader and nbgrader's feedback agree);
* every CSV cell is formula-safe (:mod:`grading.csvfiles`).

The LMS files (Canvas's and Moodle's grade import) carry **final** totals only, never a
blank (both importers clear a grade for a blank cell), identify students through the
roster (:mod:`grading.lms`), and leave out — and report — a student the roster does not
know. Provisional totals go to a separate file, under a column marked "(provisional)",
only when asked for.
"""
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.plugins import ExportPlugin

from . import gradebook as gbk
from .cells import exercise_of
from .csvfiles import write_rows
from .late import Policy, read_extensions
from .status import StatusBook

__all__ = [
    "ASSIGNMENT_COLUMNS",
    "CANVAS_COLUMNS",
    "FINAL",
    "FORMATS",
    "MOODLE_COLUMNS",
    "NOT_AUTOGRADED",
    "NOT_SUBMITTED",
    "PROVISIONAL",
    "UNGRADED",
    "CourseExport",
    "GradeRow",
    "LMSExport",
    "class_rows",
    "exercise_of",
    "fmt",
    "lms_export",
    "write_assignment_csv",
    "write_course_csv",
]

FINAL, PROVISIONAL, UNGRADED, NOT_AUTOGRADED, NOT_SUBMITTED = (
    "final", "provisional", "ungraded", "not autograded", "not submitted")
SCORED = (FINAL, PROVISIONAL)

ASSIGNMENT_COLUMNS = ["student_id", "last_name", "first_name", "email", "assignment", "status", "timestamp",
                      "duedate", "extension", "late_seconds", "raw_score", "penalty", "score", "max_score"]
# Canvas: Grades > Import takes the layout of its own export: the identity columns below
# (a student is matched by ID, then SIS User ID, then SIS Login ID, then name), a "Points
# Possible" row, then one column per assignment, matched by its title.
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
# Moodle: Grades > Import > CSV file maps one column to a user field (Username, Email
# address, ID number) and each other column to a grade item. An empty cell is "no grade"
# (it clears a grade), and one user it does not know stops the whole import.
MOODLE_COLUMNS = ["First name", "Last name", "ID number", "Username", "Email address"]
FORMATS = ("csv", "canvas", "moodle")


def fmt(x):
    """A number as the CSV shows it (no trailing zeros); None as an empty cell.

    Examples
    --------
    >>> fmt(17.0), fmt(3.4), fmt(None), fmt(15.200000000000001)
    ('17', '3.4', '', '15.2')
    """
    return "" if x is None else f"{round(float(x), 6):g}"


def _iso(t):
    return "" if t is None else t.isoformat(sep=" ")


@dataclass
class GradeRow:
    """One student's result on one assignment, as every export shows it."""

    student: str
    assignment: str
    max_score: float
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    status: str = NOT_SUBMITTED
    reason: str = ""
    timestamp: object = None
    duedate: object = None
    extension: str = ""
    late_seconds: float = None
    raw_score: float = None
    penalty: float = None
    score: float = None
    parts: dict = field(default_factory=dict)     # {exercise: points}
    cells: dict = field(default_factory=dict)     # {grade_id: points}
    manual: list = field(default_factory=list)    # grade_ids with a grader's work
    pending: list = field(default_factory=list)   # hand-graded answers without a grade yet
    review: list = field(default_factory=list)    # answers changed since a grader's work, not looked at again

    def __getitem__(self, key):
        """``row["score"]``: the fields read as a mapping too."""
        try:
            return getattr(self, key)
        except AttributeError:
            raise KeyError(key) from None

    def get(self, key, default=None):
        return getattr(self, key, default)

    @property
    def scored(self):
        """Whether the row has a total (final or provisional)."""
        return self.status in SCORED

    @property
    def final(self):
        return self.status == FINAL

    def score_cell(self):
        """The score as a CSV shows it: empty unless scored."""
        return fmt(self.score) if self.scored else ""

    def assignment_cells(self):
        """The cells of ``ASSIGNMENT_COLUMNS``."""
        return [self.student, self.last_name, self.first_name, self.email, self.assignment, self.status,
                _iso(self.timestamp), _iso(self.duedate), self.extension,
                fmt(round(self.late_seconds)) if self.scored and self.late_seconds is not None else "",
                fmt(self.raw_score) if self.scored else "", fmt(self.penalty) if self.scored else "",
                self.score_cell(), fmt(self.max_score)]


def _layout(a):
    """``(exercises {name: points}, test_cells {grade_id: points}, manual {grade_id: points})`` in notebook order."""
    exercises, tests, manual = {}, {}, {}
    for nb in sorted(a.notebooks, key=lambda n: n.name):
        order = {s.name: i for i, s in enumerate(nb.source_cells)}
        solutions = {s.name for s in nb.solution_cells}
        for cell in sorted(nb.grade_cells, key=lambda c: order.get(c.name, 0)):
            ex = exercise_of(cell.name)
            exercises[ex] = exercises.get(ex, 0.0) + float(cell.max_score)
            if cell.name in solutions or cell.cell_type == "markdown":
                manual[cell.name] = float(cell.max_score)          # graded by hand in the Formgrader
            else:
                tests[cell.name] = float(cell.max_score)
        for task in getattr(nb, "task_cells", []):
            ex = exercise_of(task.name)
            exercises[ex] = exercises.get(ex, 0.0) + float(task.max_score)
            manual[task.name] = float(task.max_score)
    return exercises, tests, manual


@dataclass
class AssignmentGrades:
    """Every student's :class:`GradeRow` of one assignment, with its layout."""

    assignment: str
    exercises: dict
    tests: dict          # {grade_id: points} of the autograded test cells
    manual: dict         # {grade_id: points} of the cells graded by hand
    rows: list

    @property
    def max_score(self):
        return sum(self.exercises.values())


def assignment_grades(course, assignment, *, gb=None):
    """The :class:`AssignmentGrades` of ``assignment`` (raises nbgrader's ``MissingEntry`` if the gradebook lacks it)."""
    if gb is None:
        with gbk.open_gradebook(course) as gb:
            return assignment_grades(course, assignment, gb=gb)
    from .lms import import_record

    policy = Policy.from_config(course.config)
    extensions = read_extensions(course.root)
    imported = import_record(course, assignment)
    records = StatusBook(course, assignment).all()
    submitted = set(course.submissions(assignment))
    with gbk.quiet():
        a = gb.find_assignment(assignment)
        exercises, tests, manual_cells = _layout(a)
        total = sum(exercises.values())
        students = {s.id: s for s in gb.students}
        rows = [_row(gb, course, assignment, sid, students.get(sid), records.get(sid), sid in submitted,
                     exercises=exercises, manual_cells=manual_cells, total=total, policy=policy,
                     extension=extensions.get((assignment, sid)), lms=imported.get(sid))
                for sid in sorted(set(students) | set(records) | submitted)]
    return AssignmentGrades(assignment, exercises, tests, manual_cells, rows)


def class_rows(course, assignment, *, gb=None):
    """The :class:`GradeRow` of every student of the course on ``assignment``, sorted by student id."""
    return assignment_grades(course, assignment, gb=gb).rows


def _row(gb, course, assignment, sid, st, record, submitted, *, exercises, manual_cells, total, policy, extension,
         lms=None):
    """One student's :class:`GradeRow`: who, when due; then why it has no total, or its total and whether it is final."""
    row = _identity_row(sid, assignment, total, st, extension, due=gb.find_assignment(assignment).duedate)
    sub = gbk.submission(gb, assignment, sid) if st is not None else None
    verdict = _without_total(record, sub is not None, submitted)
    if verdict is None:
        grades = [g for nb in sub.notebooks for g in nb.grades]
        verdict = _incomplete(course, assignment, sid, record, grades, manual_cells)
    if verdict is not None:
        row.status, row.reason = verdict
        return row
    late = gbk.refresh_late(gb, assignment, sid, policy=policy, extension=extension)
    _add_scores(row, grades, exercises, late)
    marks = gbk.manual_marks(gb, assignment, sid)
    row.manual = sorted(g for g, m in marks.items() if m.work is not None)
    row.pending = _awaiting_a_grader(grades, manual_cells)
    row.review = record.open_review(marks) if record is not None else []
    why = _provisional_reasons(row, lms)
    row.status = PROVISIONAL if why else FINAL
    row.reason = "; ".join(why)
    return row


def _identity_row(sid, assignment, total, st, extension, *, due):
    """A row with the student's names, the extension and the due date that applies (the later one), nothing graded."""
    row = GradeRow(sid, assignment, total, first_name=getattr(st, "first_name", None) or "",
                   last_name=getattr(st, "last_name", None) or "", email=getattr(st, "email", None) or "")
    row.duedate = due
    if extension is not None:
        row.extension = f"due {_iso(extension.due)}" + (f": {extension.reason}" if extension.reason else "")
        if due is not None and extension.due > due:
            row.duedate = extension.due
    return row


def _without_total(record, in_gradebook, submitted):
    """``(status, reason)`` of a row the grading record and the gradebook say has no total; None when it may have one.

    ``record`` is the student's :class:`grading.status.StudentStatus` (None: never autograded),
    ``in_gradebook`` whether nbgrader's gradebook holds the submission, ``submitted`` whether
    ``submitted/`` does.

    Examples
    --------
    >>> from grading.status import StudentStatus
    >>> _without_total(None, False, True)
    ('not autograded', 'submitted, not autograded yet')
    >>> _without_total(StudentStatus("ada", status="graded"), True, True) is None
    True
    """
    if record is not None and record.ungraded:
        return UNGRADED, record.reason
    if record is not None and (record.interrupted or record.status is None):
        return NOT_AUTOGRADED, "its autograding was interrupted (run make autograde again)"
    if in_gradebook:
        return None
    if record is not None and record.final:
        return UNGRADED, "no grades in the gradebook (run make autograde again)"
    if record is not None or submitted:
        return NOT_AUTOGRADED, "submitted, not autograded yet"
    return NOT_SUBMITTED, ""


def _incomplete(course, assignment, sid, record, grades, manual_cells):
    """``(UNGRADED, reason)`` when nbgrader left a submission in the gradebook half graded, else None.

    Half graded: a graded notebook nbgrader did not write (for a submission the course
    graded), no grade at all, or an autograded cell without a score.
    """
    graded_dir = course.autograded_dir / sid / assignment
    if record is not None and not all((graded_dir / f"{n}.ipynb").is_file() for n in course.notebooks(assignment)):
        return UNGRADED, "nbgrader did not write its graded notebook (run make autograde again)"
    unscored_auto = [g.name for g in grades if g.name not in manual_cells and g.score is None]
    if not grades or unscored_auto:
        return UNGRADED, "nbgrader recorded no score for " + (", ".join(unscored_auto[:3]) or "any cell")
    return None


def _add_scores(row, grades, exercises, late):
    """The points of each cell and exercise, the submission time, and the total before and after the late penalty."""
    row.parts = {ex: 0.0 for ex in exercises}
    for g in grades:
        points = float(g.score or 0.0)
        row.cells[g.name] = points
        row.parts[exercise_of(g.name)] = row.parts.get(exercise_of(g.name), 0.0) + points
    row.timestamp, row.duedate, row.late_seconds = late.timestamp, late.duedate, late.seconds_late
    row.raw_score = round(late.raw_score, 6)
    row.penalty = late.penalty
    row.score = round(max(0.0, late.raw_score - late.penalty), 6)


def _awaiting_a_grader(grades, manual_cells):
    """The hand-graded cells nobody has graded yet (nbgrader scores them 0: ask ``needs_manual_grade``)."""
    return sorted(g.name for g in grades
                  if g.name in manual_cells and g.needs_manual_grade and g.manual_score is None)


def _provisional_reasons(row, lms):
    """Why a scored row's total can still change (empty: it is final).

    Examples
    --------
    >>> row = GradeRow("ada", "ps1", 10.0, pending=["explain-bound"])
    >>> _provisional_reasons(row, {"late": True, "submitted_at": None})
    ['awaiting manual grading: explain-bound', 'the LMS marked it late without its submission time (make collect-lms TIMES=...)']
    >>> _provisional_reasons(GradeRow("bob", "ps1", 10.0), None)
    []
    """
    why = []
    if row.pending:
        why.append("awaiting manual grading: " + ", ".join(row.pending))
    if row.review:
        why.append("changed since a grader's work, to review: " + ", ".join(row.review))
    lms = lms or {}
    if lms.get("late") and not lms.get("submitted_at") and row.timestamp is None:
        why.append("the LMS marked it late without its submission time (make collect-lms TIMES=...)")
    return why


# -- the course's own files ------------------------------------------------------------------
def write_assignment_csv(path, grades):
    """``grades-<assignment>.csv``: one row per student, the late columns and one column per exercise."""
    header = ASSIGNMENT_COLUMNS + [f"{ex} (/{fmt(p)})" for ex, p in grades.exercises.items()] + ["reason"]
    rows = [r.assignment_cells() + [fmt(r.parts.get(ex)) if r.scored else "" for ex in grades.exercises]
            + [r.reason] for r in grades.rows if r.status != NOT_SUBMITTED]
    return write_rows(path, header, rows)


def course_table(course, *, gb=None):
    """``{assignment: AssignmentGrades}`` of every assignment of ``source/`` that the gradebook knows."""
    from nbgrader.api import MissingEntry

    if gb is None:
        with gbk.open_gradebook(course) as gb:
            return course_table(course, gb=gb)
    out = {}
    for name in course.assignments():
        try:
            out[name] = assignment_grades(course, name, gb=gb)
        except MissingEntry:
            continue
    return out


def write_course_csv(path, table):
    """``grades.csv``: one row per student; for each assignment its score (empty unless scored) and status."""
    header = ["student_id"]
    for name, grades in table.items():
        header += [f"{name} (/{fmt(grades.max_score)})", f"{name} status"]
    by_student = {}
    for name, grades in table.items():
        for r in grades.rows:
            by_student.setdefault(r.student, {})[name] = r
    rows = []
    for sid in sorted(by_student):
        line = [sid]
        for name in table:
            r = by_student[sid].get(name)
            line += [r.score_cell(), r.status] if r is not None else ["", NOT_SUBMITTED]
        rows.append(line)
    return write_rows(path, header, rows)


# -- the LMS files -----------------------------------------------------------------------------
@dataclass
class LMSExport:
    """What an LMS file holds and what was left out of it, and why."""

    path: Path = None
    exported: list = field(default_factory=list)            # student ids
    provisional: list = field(default_factory=list)         # left out: provisional (student, reason)
    not_final: list = field(default_factory=list)           # left out: ungraded, not autograded (student, status)
    unknown: list = field(default_factory=list)             # left out: not in the roster (student ids)
    unidentifiable: list = field(default_factory=list)      # left out: their LMS identity cannot be written plainly
    provisional_path: Path = None


def lms_title(course, assignment):
    """The assignment's column title in the LMS (``c.CourseLMS.assignment_titles``), else its name."""
    titles = course.config.get("CourseLMS", {}).get("assignment_titles", {}) or {}
    return str(titles.get(assignment, assignment))


def lms_export(course, grades, form, roster, out_dir, *, provisional=False):
    """Write the ``form`` ("canvas" or "moodle") import file of one assignment's grades into ``out_dir``.

    Only final totals of students the ``roster`` (:class:`grading.lms.Roster`) knows are
    written (never a blank cell); with ``provisional``, the provisional totals go to a
    second file under the column ``<title> (provisional)``. Returns an :class:`LMSExport`.
    """
    title = lms_title(course, grades.assignment)
    report = LMSExport(path=Path(out_dir) / f"grades-{form}.csv")
    final, waiting = [], []
    for r in grades.rows:
        if r.status == NOT_SUBMITTED:
            continue
        entry = roster.find(r.student)
        if r.status == FINAL or (provisional and r.status == PROVISIONAL):
            if entry is None:
                report.unknown.append(r.student)
                continue
            if not entry.can_identify(form):
                report.unidentifiable.append(r.student)
                continue
            (final if r.status == FINAL else waiting).append((entry, r))
        elif r.status == PROVISIONAL:
            report.provisional.append((r.student, r.reason))
        else:
            report.not_final.append((r.student, r.status))
    writer = _canvas_rows if form == "canvas" else _moodle_rows
    header, rows = writer(title, grades.max_score, final)
    write_rows(report.path, header, rows)
    report.exported = [r.student for _, r in final]
    if provisional:
        report.provisional_path = Path(out_dir) / f"grades-{form}-provisional.csv"
        header, rows = writer(f"{title} (provisional)", grades.max_score, waiting)
        write_rows(report.provisional_path, header, rows)
        report.provisional = [(r.student, r.reason) for _, r in waiting]
    return report


def _canvas_rows(title, max_score, entries):
    rows = [["Points Possible", "", "", "", "", fmt(max_score)]]
    rows += [[e.sortable_name, e.lms_id, e.sis_id, e.login, e.section, fmt(r.score)] for e, r in entries]
    return CANVAS_COLUMNS + [title], rows


def _moodle_rows(title, max_score, entries):
    rows = [[e.first_name, e.last_name, e.sis_id, e.login, e.email, fmt(r.score)] for e, r in entries]
    return MOODLE_COLUMNS + [title], rows


class CourseExport(ExportPlugin):
    """``nbgrader export`` for this course: one row per student and assignment, with its status.

    Columns: those of ``grades-<assignment>.csv`` without the per-exercise ones, plus
    ``reason``. Selected in ``nbgrader_config.py`` (``ExportApp.plugin_class``); ``--to``
    names the file (default ``grades-export.csv``).
    """

    def export(self, gradebook):
        from .course import Course

        dest = self.to or "grades-export.csv"
        coursedir = getattr(self.parent, "coursedir", None)
        course = Course(coursedir.root if coursedir is not None else ".")
        wanted_students = {str(s) for s in self.student}
        names = sorted(a.name for a in gradebook.assignments)
        if self.assignment:
            names = [n for n in names if n in {str(a) for a in self.assignment}]
        self.log.info("Exporting grades of %s to %s", ", ".join(names) or "no assignment", dest)
        rows = []
        for name in names:
            for r in class_rows(course, name, gb=gradebook):
                if not wanted_students or r.student in wanted_students:
                    rows.append(r.assignment_cells() + [r.reason])
        write_rows(dest, ASSIGNMENT_COLUMNS + ["reason"], rows)
