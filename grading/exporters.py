"""Grades out of nbgrader's gradebook: one reading, every export route.

:func:`assignment_rows` reads the gradebook once per assignment into plain rows; every
export writes from those rows, so ``make grades``, ``nbgrader export`` (through
:class:`CourseExport`, registered in ``nbgrader_config.py``) and the LMS files agree:

* a submission that could not be graded (or was never autograded, or not submitted) has
  an **empty** score and says so in ``status`` — never 0;
* ``late_seconds`` and ``penalty`` come from nbgrader (its due date, the submission's
  timestamp and the course's policy in :mod:`grading.late`); ``score`` is after the penalty,
  ``raw_score`` before it.

Status values: ``graded``; ``needs manual grading`` (a manually graded cell has no score
yet: the score shown is what has been given so far); ``ungraded`` (autograde could not
grade it; the reason says why); ``not autograded`` (submitted, not graded yet);
``not submitted``.
"""
import contextlib
import csv
import warnings
from pathlib import Path

from nbgrader.plugins import ExportPlugin

__all__ = [
    "CANVAS_COLUMNS",
    "FORMATS",
    "MOODLE_COLUMNS",
    "CourseExport",
    "assignment_rows",
    "course_table",
    "exercise_of",
    "write_assignment_csv",
    "write_canvas_csv",
    "write_course_csv",
    "write_moodle_csv",
]

GRADED, MANUAL, UNGRADED, NOT_AUTOGRADED, NOT_SUBMITTED = (
    "graded", "needs manual grading", "ungraded", "not autograded", "not submitted")
SCORED = (GRADED, MANUAL)

ASSIGNMENT_COLUMNS = ["student_id", "last_name", "first_name", "email", "assignment", "status", "timestamp",
                      "duedate", "late_seconds", "raw_score", "penalty", "score", "max_score"]
# Canvas: Grades > Import takes the layout of its own export — the identity columns
# below, one column per assignment, and a "Points Possible" row under the header.
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
# Moodle: Grades > Import > CSV file maps one column to a user field (here "Username"
# or "Email address") and each other column to a grade item; an empty grade is skipped.
MOODLE_COLUMNS = ["First name", "Last name", "Username", "Email address"]
FORMATS = ("csv", "canvas", "moodle")


def exercise_of(grade_id):
    """The exercise a grade cell belongs to: the part of its ``grade_id`` before the first ``-``.

    Examples
    --------
    >>> exercise_of("pla-stops-after-max-updates")
    'pla'
    """
    return grade_id.split("-", 1)[0]


def fmt(x):
    """A number as the CSV shows it (no trailing zeros); None as an empty cell.

    Examples
    --------
    >>> fmt(17.0), fmt(3.4), fmt(None)
    ('17', '3.4', '')
    """
    return "" if x is None else f"{x:g}"


@contextlib.contextmanager
def _quiet():
    """Silence SQLAlchemy's chatter from nbgrader's gradebook code while reading it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _cell_layout(a):
    """``(exercises {name: points}, test_cells {grade_id: points}, manual {grade_id})`` in notebook order."""
    exercises, tests, manual = {}, {}, set()
    for nb in a.notebooks:
        order = {s.name: i for i, s in enumerate(nb.source_cells)}
        solutions = {s.name for s in nb.solution_cells}
        for cell in sorted(nb.grade_cells, key=lambda c: order.get(c.name, 0)):
            ex = exercise_of(cell.name)
            exercises[ex] = exercises.get(ex, 0.0) + float(cell.max_score)
            if cell.name in solutions or cell.cell_type == "markdown":
                manual.add(cell.name)          # graded by hand in the Formgrader
            else:
                tests[cell.name] = float(cell.max_score)
        for task in getattr(nb, "task_cells", []):
            ex = exercise_of(task.name)
            exercises[ex] = exercises.get(ex, 0.0) + float(task.max_score)
            manual.add(task.name)
    return exercises, tests, manual


def assignment_rows(gb, assignment, *, status=None, submitted=()):
    """Every student's result on ``assignment``, read from an open nbgrader ``Gradebook``.

    Parameters
    ----------
    gb : nbgrader.api.Gradebook
    assignment : str
    status : dict, optional
        ``{student: {"status", "reason"}}`` recorded by the course's autograde (a submission it
        could not grade has no grades in the gradebook, only this).
    submitted : iterable of str
        Students with a folder in ``submitted/`` (a submission not yet autograded).

    Returns
    -------
    exercises : dict
        ``{exercise: max points}`` in notebook order.
    tests : dict
        ``{grade_id: max points}`` of the autograded test cells.
    rows : list of dict
        One per student, sorted by id: ``student``, ``first_name``, ``last_name``, ``email``,
        ``status``, ``reason``, ``timestamp``, ``duedate``, ``late_seconds``, ``raw_score``,
        ``penalty``, ``score`` (after penalty; None unless scored), ``max_score``, ``parts``
        (``{exercise: points}``), ``cells`` (``{grade_id: points}``), ``manual`` (grade_ids
        with a manual score, extra credit or comment), ``review`` (grade_ids with manual work
        whose exercise changed in a later resubmission).
    """
    from nbgrader.api import MissingEntry

    status = dict(status or {})
    with _quiet():
        a = gb.find_assignment(assignment)
        exercises, tests, manual_cells = _cell_layout(a)
        total = sum(exercises.values())
        students = {s.id: s for s in gb.students}
        ids = sorted(set(students) | set(status) | set(submitted))
        rows = []
        for sid in ids:
            st = students.get(sid)
            row = {"student": sid, "first_name": getattr(st, "first_name", None) or "",
                   "last_name": getattr(st, "last_name", None) or "", "email": getattr(st, "email", None) or "",
                   "assignment": assignment, "status": NOT_SUBMITTED, "reason": "", "timestamp": None,
                   "duedate": a.duedate, "late_seconds": None, "raw_score": None, "penalty": None, "score": None,
                   "max_score": total, "parts": {}, "cells": {}, "manual": []}
            rows.append(row)
            info = status.get(sid, {})
            row["review"] = list(info.get("review") or [])
            if info.get("status") == UNGRADED:
                row.update(status=UNGRADED, reason=info.get("reason", ""))
                continue
            if info.get("interrupted"):                 # its grades may be half written: none until it is graded
                row.update(status=NOT_AUTOGRADED, reason="its autograding was interrupted (run make autograde again)")
                continue
            try:
                sub = gb.find_submission(assignment, sid) if st is not None else None
            except MissingEntry:
                sub = None
            if sub is None:
                if info.get("status") == GRADED:
                    row.update(status=UNGRADED, reason="no grades in the gradebook (run make autograde again)")
                elif sid in status or sid in submitted:
                    row.update(status=NOT_AUTOGRADED, reason="submitted, not autograded yet")
                continue
            grades = [g for nb in sub.notebooks for g in nb.grades]
            unscored_auto = [g.name for g in grades if g.name not in manual_cells and g.score is None]
            if not grades or unscored_auto:
                row.update(status=UNGRADED, reason=info.get("reason") or
                           "nbgrader recorded no score for " + (", ".join(unscored_auto[:3]) or "any cell"))
                continue
            parts = {ex: 0.0 for ex in exercises}
            cells = {}
            for g in grades:
                cells[g.name] = float(g.score or 0.0)
                parts[exercise_of(g.name)] = parts.get(exercise_of(g.name), 0.0) + float(g.score or 0.0)
            comments = {c.name for nb in sub.notebooks for c in nb.comments if (c.manual_comment or "").strip()}
            row["manual"] = sorted({g.name for g in grades if g.manual_score is not None or g.extra_credit}
                                   | comments)
            raw = sum(parts.values())
            penalty = float(sub.late_submission_penalty or 0.0)
            late = float(sub.total_seconds_late or 0.0)
            # nbgrader reports a score of 0 for an answer nobody has graded yet: ask needs_manual_grade
            pending = [g.name for g in grades
                       if g.name in manual_cells and g.needs_manual_grade and g.manual_score is None]
            row.update(status=MANUAL if pending else GRADED, reason=info.get("reason", ""),
                       timestamp=sub.timestamp, late_seconds=late, raw_score=raw, penalty=penalty,
                       score=max(0.0, raw - penalty), parts=parts, cells=cells)
            if pending:
                row["reason"] = "to grade by hand: " + ", ".join(pending)
    return exercises, tests, rows


def _iso(t):
    return "" if t is None else t.isoformat(sep=" ")


def write_assignment_csv(path, assignment, exercises, rows):
    """``grades-<assignment>.csv``: one row per student, the late columns and one column per exercise."""
    with Path(path).open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(ASSIGNMENT_COLUMNS + [f"{ex} (/{fmt(p)})" for ex, p in exercises.items()] + ["reason"])
        for r in rows:
            scored = r["status"] in SCORED
            w.writerow([r["student"], r["last_name"], r["first_name"], r["email"], assignment, r["status"],
                        _iso(r["timestamp"]), _iso(r["duedate"]),
                        fmt(round(r["late_seconds"])) if scored else "",
                        fmt(r["raw_score"]), fmt(r["penalty"]), fmt(r["score"]), fmt(r["max_score"])]
                       + [fmt(r["parts"].get(ex)) if scored else "" for ex in exercises] + [r["reason"]])
    return Path(path)


def course_table(gb, assignments, *, statuses=None, submitted=None):
    """``(assignments {name: max points}, {student: {name: row}})`` over several assignments."""
    from nbgrader.api import MissingEntry

    maxima, table = {}, {}
    for name in assignments:
        try:
            with _quiet():
                gb.find_assignment(name)
        except MissingEntry:
            continue
        _, _, rows = assignment_rows(gb, name, status=(statuses or {}).get(name),
                                     submitted=(submitted or {}).get(name, ()))
        maxima[name] = rows[0]["max_score"] if rows else None
        if not rows:
            with _quiet():
                maxima[name] = float(gb.find_assignment(name).max_score)
        for r in rows:
            table.setdefault(r["student"], {})[name] = r
    return maxima, table


def _person(rows):
    r = next(iter(rows.values()))
    return r["first_name"], r["last_name"], r["email"]


def write_course_csv(path, maxima, table):
    """``grades.csv``: one row per student, one column per assignment (score after penalty; empty unless scored)."""
    with Path(path).open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student_id"] + [f"{name} (/{fmt(m)})" for name, m in maxima.items()])
        for sid in sorted(table):
            w.writerow([sid] + [fmt(table[sid][n]["score"]) if n in table[sid] and table[sid][n]["status"] in SCORED
                                else "" for n in maxima])
    return Path(path)


def write_canvas_csv(path, maxima, table):
    """Canvas's gradebook import: its identity columns, a "Points Possible" row, one column per assignment.

    The nbgrader student id goes into ``SIS Login ID`` (Canvas matches a row by ``ID``,
    ``SIS User ID`` or ``SIS Login ID``); an empty score leaves Canvas's grade as it is.
    """
    with Path(path).open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(CANVAS_COLUMNS + list(maxima))
        w.writerow(["Points Possible", "", "", "", ""] + [fmt(m) for m in maxima.values()])
        for sid in sorted(table):
            first, last, _ = _person(table[sid])
            name = f"{last}, {first}" if last and first else (last or first or sid)
            w.writerow([name, "", "", sid, ""] + [fmt(table[sid][n]["score"]) if n in table[sid]
                                                  and table[sid][n]["status"] in SCORED else "" for n in maxima])
    return Path(path)


def write_moodle_csv(path, maxima, table):
    """Moodle's grade import (CSV file): user columns and one grade column per assignment."""
    with Path(path).open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(MOODLE_COLUMNS + list(maxima))
        for sid in sorted(table):
            first, last, email = _person(table[sid])
            w.writerow([first, last, sid, email] + [fmt(table[sid][n]["score"]) if n in table[sid]
                                                    and table[sid][n]["status"] in SCORED else "" for n in maxima])
    return Path(path)


class CourseExport(ExportPlugin):
    """``nbgrader export`` for this course: one row per student and assignment, ungraded never 0.

    Columns: those of ``grades-<assignment>.csv`` without the per-exercise ones, plus
    ``reason``. Selected in ``nbgrader_config.py`` (``ExportApp.plugin_class``); ``--to``
    names the file (default ``grades-export.csv``).
    """

    def export(self, gradebook):
        from .course import Course

        dest = self.to or "grades-export.csv"
        coursedir = getattr(self.parent, "coursedir", None)
        course = Course(coursedir.root) if coursedir is not None else None
        wanted_students = {str(s) for s in self.student}
        names = [a.name for a in gradebook.assignments]
        if self.assignment:
            names = [n for n in names if n in {str(a) for a in self.assignment}]
        self.log.info("Exporting grades of %s to %s", ", ".join(names) or "no assignment", dest)
        with open(dest, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(ASSIGNMENT_COLUMNS + ["reason"])
            for name in names:
                status = course.read_status(name) if course else {}
                submitted = course.submissions(name) if course else ()
                _, _, rows = assignment_rows(gradebook, name, status=status, submitted=submitted)
                for r in rows:
                    if wanted_students and r["student"] not in wanted_students:
                        continue
                    scored = r["status"] in SCORED
                    w.writerow([r["student"], r["last_name"], r["first_name"], r["email"], name, r["status"],
                                _iso(r["timestamp"]), _iso(r["duedate"]),
                                fmt(round(r["late_seconds"])) if scored else "", fmt(r["raw_score"]),
                                fmt(r["penalty"]), fmt(r["score"]), fmt(r["max_score"]), r["reason"]])
