"""Grade exports: late penalties, ungraded never 0, per-assignment and course files, Canvas and Moodle.

A throwaway course gets a real nbgrader gradebook (SQLite) from ``source/``; grades are
entered through nbgrader's API as autograde and the Formgrader would, late penalties are
assigned by nbgrader's own ``AssignLatePenalties`` with the course's configuration, and
``nbgrader export`` runs as the instructor would run it.
"""
import csv
import datetime as dt
import math
import subprocess
import sys
import warnings
from pathlib import Path

import nbformat
import pytest
from grading_helpers import ASSIGNMENT, make_course

from grading.course import Course
from grading.exporters import CANVAS_COLUMNS, MOODLE_COLUMNS
from grading.late import penalty_for
from grading.report import grades

DUE = dt.datetime(2026, 11, 20, 23, 59, 0)
# student: (seconds late or None for on time, {test cell: earned fraction} -> others full, status file entry)
LATE_SECONDS = 122460          # 1 day 10 h 1 min: two started days late


def _gb(course):
    from nbgrader.api import Gradebook
    c = Course(course)
    return Gradebook(c.db_url, c.course_id)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A course whose gradebook holds four submissions of ps1 and a student who submitted nothing."""
    from nbgrader.preprocessors import AssignLatePenalties

    from grading.autograde import sync_gradebook

    root = make_course(tmp_path_factory.mktemp("exports"))
    c = Course(root)
    sync_gradebook(c, ASSIGNMENT)
    with warnings.catch_warnings(), _gb(root) as gb:
        warnings.simplefilter("ignore")
        gb.update_or_create_assignment(ASSIGNMENT, duedate=DUE)
        a = gb.find_assignment(ASSIGNMENT)
        cells = [(nb.name, g.name, float(g.max_score)) for nb in a.notebooks for g in nb.grade_cells]
        plan = {
            "ada": (None, set()),                                  # on time, everything right
            "bob": (LATE_SECONDS, {"radius-longest-example-with-x0"}),   # late, one test failed
            "cyd": (None, {g for _, g, _ in cells if g.startswith("pla-")}),   # every pla test failed
        }
        for sid, (late, failed) in plan.items():
            gb.update_or_create_student(sid, first_name=sid.title(), last_name="Lovelace", email=f"{sid}@example.org")
            stamp = DUE + dt.timedelta(seconds=late or -3600)
            gb.update_or_create_submission(ASSIGNMENT, sid, timestamp=stamp)
            for nb_name, gid, pts in cells:
                g = gb.find_grade(gid, nb_name, ASSIGNMENT, sid)
                g.auto_score = 0.0 if gid in failed else pts
                g.needs_manual_grade = False
        gb.update_or_create_student("dan")                        # submitted a broken file: no grades
        gb.update_or_create_student("eve")                        # submitted nothing
        gb.db.commit()
        notebooks = sorted({nb for nb, _, _ in cells})
    for sid in plan:
        for nb_name in notebooks:
            pre = AssignLatePenalties(config=c.nbgrader_config())
            pre.preprocess(nbformat.v4.new_notebook(), {"nbgrader": {"db_url": c.db_url, "assignment": ASSIGNMENT,
                                                                     "notebook": nb_name, "student": sid}})
    c.write_status(ASSIGNMENT, {"ada": {"status": "graded", "reason": ""}, "bob": {"status": "graded", "reason": ""},
                                "cyd": {"status": "graded", "reason": ""},
                                "dan": {"status": "ungraded", "reason": "the notebook file is not valid JSON"}})
    for sid in ("ada", "bob", "cyd", "dan"):
        (root / "submitted" / sid / ASSIGNMENT).mkdir(parents=True)
    max_score = sum(pts for _, _, pts in cells)
    return {"root": root, "cells": cells, "max": max_score}


def _rows(path, skip=0):
    with Path(path).open(newline="") as f:
        lines = list(csv.reader(f))
    header, body = lines[0], lines[1 + skip:]
    return header, {r[header.index("student_id")] if "student_id" in header else r[3]: dict(zip(header, r, strict=True))
                    for r in body}


def test_penalty_policy_closed_form():
    # percent per started day, never more than the score
    for score in (0, 1.5, 17):
        for seconds in (1, 86399, 86400, 86401, 5 * 86400 + 7, 40 * 86400):
            days = -(-seconds // 86400)
            assert math.isclose(penalty_for(score, seconds, percent_per_day=10), min(score, score * 0.1 * days))
    assert penalty_for(17, 3600, percent_per_day=10, grace_seconds=7200) == 0.0
    assert penalty_for(17, 0, percent_per_day=10) == 0.0


def test_assignment_csv_has_late_columns_and_the_score_after_penalty(course):
    root, total = course["root"], course["max"]
    lines = []
    out = grades(root, ASSIGNMENT, echo=lines.append)
    assert out == root / f"grades-{ASSIGNMENT}.csv"
    header, rows = _rows(out)
    for col in ("status", "late_seconds", "raw_score", "penalty", "score", "max_score"):
        assert col in header
    bob_raw = total - 1                                         # radius test is worth 1 point
    assert rows["bob"]["late_seconds"] == str(LATE_SECONDS)
    assert float(rows["bob"]["raw_score"]) == bob_raw
    assert math.isclose(float(rows["bob"]["penalty"]), bob_raw * 0.2)   # two started days at 10 %
    assert math.isclose(float(rows["bob"]["score"]), bob_raw * 0.8)
    assert rows["ada"]["late_seconds"] == "0" and rows["ada"]["penalty"] == "0"
    assert float(rows["ada"]["score"]) == total
    # ungraded: empty scores and the reason, never 0
    assert rows["dan"]["status"] == "ungraded" and rows["dan"]["score"] == "" and rows["dan"]["raw_score"] == ""
    assert "not valid JSON" in rows["dan"]["reason"]
    assert "eve" not in rows                                    # no submission of this assignment
    summary = "\n".join(lines)
    assert (root / f"grades-{ASSIGNMENT}-summary.txt").read_text().strip() == summary.split("\nwrote ")[0].strip()
    assert "bob: 34.0 h late" in summary
    assert "dan: the notebook file is not valid JSON" in summary


def test_summary_statistics_pass_rates_and_histogram(course):
    root = course["root"]
    lines = []
    grades(root, ASSIGNMENT, echo=lines.append)
    text = "\n".join(lines)
    pla_tests = [g for _, g, _ in course["cells"] if g.startswith("pla-")]
    # 3 scored submissions; cyd fails every pla test, bob the radius one
    for gid in pla_tests:
        assert pytest.approx(200 / 3, abs=0.05) == float(
            next(line for line in text.splitlines() if line.startswith(gid + " ")).split()[2].rstrip("%"))
    radius = next(line for line in text.splitlines() if line.startswith("radius-longest-example-with-x0 "))
    assert "66.7%" in radius
    pla_points = sum(p for _, g, p in course["cells"] if g.startswith("pla-"))
    pla_line = next(line for line in text.splitlines() if line.startswith("pla "))
    assert f"0x1 {pla_points:g}x2" in pla_line
    png = root / f"grades-{ASSIGNMENT}-histogram.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image as mpimg
    assert mpimg.imread(png).shape[:2] == (350, 600)


def test_course_wide_csv_one_row_per_student_one_column_per_assignment(course):
    root, total = course["root"], course["max"]
    grades(root, ASSIGNMENT, echo=lambda *a: None)
    header, rows = _rows(root / "grades.csv")
    assert header == ["student_id", f"{ASSIGNMENT} (/{total:g})"]
    assert sorted(rows) == ["ada", "bob", "cyd", "dan", "eve"]
    col = header[1]
    assert float(rows["ada"][col]) == total and rows["dan"][col] == "" and rows["eve"][col] == ""
    assert math.isclose(float(rows["bob"][col]), (total - 1) * 0.8)


def test_canvas_import_file(course):
    """Canvas's gradebook CSV: Student, ID, SIS User ID, SIS Login ID, Section, assignments; a Points Possible row."""
    root, total = course["root"], course["max"]
    grades(root, ASSIGNMENT, form="canvas", echo=lambda *a: None)
    with (root / "grades-canvas.csv").open(newline="", encoding="utf-8") as f:
        lines = list(csv.reader(f))
    assert lines[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", ASSIGNMENT]
    assert lines[0][:5] == CANVAS_COLUMNS
    assert lines[1][0] == "Points Possible" and float(lines[1][5]) == total
    body = {r[3]: r for r in lines[2:]}
    assert body["ada"][0] == "Lovelace, Ada" and float(body["ada"][5]) == total
    assert body["dan"][5] == "" and body["eve"][5] == ""       # empty: Canvas leaves the grade alone


def test_moodle_import_file(course):
    root, total = course["root"], course["max"]
    grades(root, ASSIGNMENT, form="moodle", echo=lambda *a: None)
    with (root / "grades-moodle.csv").open(newline="", encoding="utf-8") as f:
        lines = list(csv.reader(f))
    assert lines[0] == MOODLE_COLUMNS + [ASSIGNMENT]
    body = {r[2]: r for r in lines[1:]}
    assert body["ada"][3] == "ada@example.org" and float(body["ada"][4]) == total
    assert body["dan"][4] == ""          # Moodle skips an empty grade (no "0" is imported)


def test_unknown_format_is_refused(course):
    from grading.course import CourseError
    with pytest.raises(CourseError, match=r"unknown grades format 'xls': expected one of csv, canvas, moodle"):
        grades(course["root"], ASSIGNMENT, form="xls", echo=lambda *a: None)


def test_nbgrader_export_uses_the_course_exporter(course):
    root, total = course["root"], course["max"]
    nbgrader = Path(sys.executable).with_name("nbgrader")
    run = subprocess.run([str(nbgrader), "export", "--to", "export.csv"], cwd=root, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    header, rows = _rows(root / "export.csv")
    assert {"status", "late_seconds", "penalty", "score", "reason"} <= set(header)
    assert rows["dan"]["status"] == "ungraded" and rows["dan"]["score"] == ""
    assert rows["eve"]["status"] == "not submitted" and rows["eve"]["score"] == ""
    assert float(rows["ada"]["score"]) == total
    assert math.isclose(float(rows["bob"]["score"]), (total - 1) * 0.8)
    assert all(r["score"] != "0" for r in rows.values() if r["status"] != "graded")
