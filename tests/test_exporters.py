"""Grade exports: one truth in every file, penalties from the parts, LMS files the importers take, formula-safe.

A throwaway course gets a real nbgrader gradebook (SQLite) from ``source/``; grades are
entered through nbgrader's API as autograde and the Formgrader would, late penalties are
assigned by nbgrader's own ``AssignLatePenalties`` with the course's configuration (the value
nbgrader stores once, at autograde time), the course's grading records are written as every
autograde path writes them, and ``nbgrader export`` runs as the instructor would run it. The
LMS files are read back by independent checks of Canvas's and Moodle's importer rules
(tests/lms_importers.py).
"""
import csv
import datetime as dt
import math
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import nbformat
import pytest
from grading_helpers import ASSIGNMENT, make_course
from lms_importers import ImportRefused, canvas_import, moodle_import

from grading.course import Course, CourseError
from grading.csvfiles import TRIGGERS
from grading.exporters import (
    CANVAS_COLUMNS,
    MOODLE_COLUMNS,
    NOT_AUTOGRADED,
    NOT_SUBMITTED,
    UNGRADED,
    _without_total,
    class_rows,
)
from grading.late import give_extension, penalty_for
from grading.report import grades
from grading.status import StatusBook, StudentStatus

DUE = dt.datetime(2026, 11, 20, 23, 59, 0)
LATE_SECONDS = 122460          # 1 day 10 h 1 min: two started days late
WRITTEN = "explain-cosine-bound-on-updates"
FORMULAS = ["=1+2", "@SUM(1+1)", "-2+3", "+cmd"]     # student folder names an LMS download could carry


def _gb(course):
    from nbgrader.api import Gradebook
    c = Course(course)
    return Gradebook(c.db_url, c.course_id)


def _assign_penalties(c, students, notebooks):
    """nbgrader's own AssignLatePenalties, as autograde runs it: the penalty of the score at that moment."""
    from nbgrader.preprocessors import AssignLatePenalties
    for sid in students:
        for nb_name in notebooks:
            AssignLatePenalties(config=c.nbgrader_config()).preprocess(
                nbformat.v4.new_notebook(), {"nbgrader": {"db_url": c.db_url, "assignment": ASSIGNMENT,
                                                          "notebook": nb_name, "student": sid}})


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A course whose gradebook holds ps1 submissions of several kinds, and a student who submitted nothing."""
    from grading.autograde import sync_gradebook

    root = make_course(tmp_path_factory.mktemp("exports"))
    c = Course(root)
    sync_gradebook(c, ASSIGNMENT)
    plan = {
        "ada": (None, set(), True),                                          # on time, everything right
        "bob": (LATE_SECONDS, {"radius-longest-example-with-x0"}, True),     # late, one test failed
        "fay": (None, set(), True),                                          # right, but not in the roster
        **{f: (None, set(), True) for f in FORMULAS},                        # right, named like a formula
    }
    with warnings.catch_warnings(), _gb(root) as gb:
        warnings.simplefilter("ignore")
        gb.update_or_create_assignment(ASSIGNMENT, duedate=DUE)
        a = gb.find_assignment(ASSIGNMENT)
        cells = [(nb.name, g.name, float(g.max_score)) for nb in a.notebooks for g in nb.grade_cells]
        plan["cyd"] = (None, {g for _, g, _ in cells if g.startswith("pla-")}, False)   # written answer waits
        for sid, (late, failed, written) in plan.items():
            gb.update_or_create_student(sid, first_name=sid.title(), last_name="Lovelace", email=f"{sid}@example.org")
            gb.update_or_create_submission(ASSIGNMENT, sid, timestamp=DUE + dt.timedelta(seconds=late or -3600))
            for nb_name, gid, pts in cells:
                g = gb.find_grade(gid, nb_name, ASSIGNMENT, sid)
                g.auto_score = 0.0 if gid in failed else (pts if gid != WRITTEN else None)
                g.needs_manual_grade = gid == WRITTEN and not written
                if gid == WRITTEN and written:
                    g.auto_score = 0.0                                       # left as released: 0 at once
        gb.update_or_create_student("dan")                                   # submitted a broken file: no grades
        gb.update_or_create_student("eve")                                   # submitted nothing
        gb.db.commit()
        notebooks = sorted({nb for nb, _, _ in cells})
    _assign_penalties(c, plan, notebooks)
    book = StatusBook(c, ASSIGNMENT)
    for sid in plan:
        book.write(StudentStatus(sid, status="graded"))
        folder = root / "autograded" / sid / ASSIGNMENT
        folder.mkdir(parents=True)
        for nb_name in notebooks:
            (folder / f"{nb_name}.ipynb").write_text("{}")
    book.write(StudentStatus("dan", status="ungraded", reason="the notebook file is not valid JSON"))
    for sid in list(plan) + ["dan"]:
        (root / "submitted" / sid / ASSIGNMENT).mkdir(parents=True)
    roster = [["student_id", "lms_id", "login", "sis_id", "email", "first_name", "last_name", "section"]]
    for n, sid in enumerate(["ada", "bob", "cyd", "dan", *FORMULAS], start=101):
        roster.append([sid, str(n), f"{sid}.login", f"S{n}", f"{sid}@example.org", sid.title(), "Lovelace", "A"])
    with (root / "roster.csv").open("w", newline="") as f:
        csv.writer(f).writerows(roster)
    max_score = sum(pts for _, _, pts in cells)
    return {"root": root, "cells": cells, "max": max_score, "notebooks": notebooks, "plan": plan}


def _rows(path, skip=0):
    with Path(path).open(newline="") as f:
        lines = list(csv.reader(f))
    header, body = lines[0], lines[1 + skip:]
    return header, {r[header.index("student_id")]: dict(zip(header, r, strict=True)) for r in body}


def _quiet(root, **kw):
    return grades(root, ASSIGNMENT, echo=lambda *a: None, **kw)


def test_penalty_policy_closed_form():
    # percent per started day, never more than the score
    for score in (0, 1.5, 17):
        for seconds in (1, 86399, 86400, 86401, 5 * 86400 + 7, 40 * 86400):
            days = -(-seconds // 86400)
            assert math.isclose(penalty_for(score, seconds, percent_per_day=10), min(score, score * 0.1 * days))
    assert penalty_for(17, 3600, percent_per_day=10, grace_seconds=7200) == 0.0
    assert penalty_for(17, 0, percent_per_day=10) == 0.0


_GRADED = StudentStatus("ada", status="graded")


@pytest.mark.parametrize(("record", "in_gradebook", "submitted", "status", "reason"), [
    (None, False, False, NOT_SUBMITTED, ""),
    (None, False, True, NOT_AUTOGRADED, "not autograded yet"),
    (StudentStatus("ada"), True, True, NOT_AUTOGRADED, "interrupted"),                 # first grading unfinished
    (_GRADED.replace(interrupted=True), True, True, NOT_AUTOGRADED, "interrupted"),  # a regrade unfinished
    (StudentStatus("ada", status="ungraded", reason="not valid JSON"), True, True, UNGRADED, "not valid JSON"),
    (_GRADED, False, True, UNGRADED, "no grades in the gradebook"),                  # the gradebook lost it
    (_GRADED, True, True, None, None),                                                # a total is read
    (None, True, True, None, None),                                                   # graded before records
])
def test_a_row_without_a_total_says_why_from_the_record_and_the_gradebook(record, in_gradebook, submitted,
                                                                           status, reason):
    verdict = _without_total(record, in_gradebook, submitted)
    if status is None:
        assert verdict is None
    else:
        assert verdict[0] == status and reason in verdict[1]


def test_assignment_csv_has_a_status_late_columns_and_the_score_after_penalty(course):
    root, total = course["root"], course["max"]
    lines = []
    out = grades(root, ASSIGNMENT, echo=lines.append)
    assert out == root / f"grades-{ASSIGNMENT}.csv"
    header, rows = _rows(out)
    for col in ("status", "late_seconds", "raw_score", "penalty", "score", "max_score", "extension"):
        assert col in header
    bob_raw = total - 2 - 1                               # the written answer (2) left as released, radius (1) failed
    assert rows["bob"]["status"] == "final" and rows["bob"]["late_seconds"] == str(LATE_SECONDS)
    assert float(rows["bob"]["raw_score"]) == bob_raw
    assert math.isclose(float(rows["bob"]["penalty"]), bob_raw * 0.2)   # two started days at 10 %
    assert math.isclose(float(rows["bob"]["score"]), bob_raw * 0.8)
    assert rows["ada"]["late_seconds"] == "0" and rows["ada"]["penalty"] == "0"
    assert float(rows["ada"]["score"]) == total - 2
    # waiting for a grader: provisional, its total shown as such, and the reason names the cell
    assert rows["cyd"]["status"] == "provisional" and WRITTEN in rows["cyd"]["reason"]
    # ungraded: empty scores and the reason, never 0
    assert rows["dan"]["status"] == "ungraded" and rows["dan"]["score"] == "" and rows["dan"]["raw_score"] == ""
    assert "not valid JSON" in rows["dan"]["reason"]
    assert "eve" not in rows                                    # no submission of this assignment
    summary = "\n".join(lines)
    assert (root / f"grades-{ASSIGNMENT}-summary.txt").read_text().strip() == summary.split("\nwrote ")[0].strip()
    assert "bob: 34.0 h late" in summary
    assert "dan: ungraded: the notebook file is not valid JSON" in summary
    assert "Provisional totals (1;" in summary and f"  cyd: awaiting manual grading: {WRITTEN}" in summary


def test_summary_statistics_pass_rates_failures_and_pictures(course):
    root = course["root"]
    lines = []
    grades(root, ASSIGNMENT, echo=lines.append)
    text = "\n".join(lines)
    scored = len(course["plan"])                                # every planned submission has a total
    pla_tests = [g for _, g, _ in course["cells"] if g.startswith("pla-")]
    for gid in pla_tests:                                       # cyd fails every pla test
        line = next(line for line in text.splitlines() if line.startswith(gid + " "))
        assert pytest.approx(100 * (scored - 1) / scored, abs=0.05) == float(line.split()[2].rstrip("%"))
    radius = next(line for line in text.splitlines() if line.startswith("radius-longest-example-with-x0 "))
    assert f"{100 * (scored - 1) / scored:.1f}%" in radius
    pla_points = sum(p for _, g, p in course["cells"] if g.startswith("pla-"))
    pla_line = next(line for line in text.splitlines() if line.startswith("pla "))
    assert f"0x1 {pla_points:g}x{scored - 1}" in pla_line
    written = next(line for line in text.splitlines() if line.startswith(WRITTEN + " "))
    assert "(graded by hand)" in written
    import matplotlib.image as mpimg
    png = root / f"grades-{ASSIGNMENT}-histogram.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and mpimg.imread(png).shape[:2] == (350, 600)
    questions = mpimg.imread(root / f"grades-{ASSIGNMENT}-questions.png")
    assert questions.shape[0] > 300 and questions.shape[1] > 600


def test_course_wide_csv_has_a_score_and_a_status_per_assignment(course):
    root, total = course["root"], course["max"]
    _quiet(root)
    header, rows = _rows(root / "grades.csv")
    assert header == ["student_id", f"{ASSIGNMENT} (/{total:g})", f"{ASSIGNMENT} status"]
    score, status = header[1], header[2]
    assert rows["ada"][status] == "final" and float(rows["ada"][score]) == total - 2
    assert rows["cyd"][status] == "provisional" and rows["cyd"][score] != ""
    assert rows["dan"][status] == "ungraded" and rows["dan"][score] == ""
    assert rows["eve"][status] == "not submitted" and rows["eve"][score] == ""
    assert math.isclose(float(rows["bob"][score]), (total - 3) * 0.8)


CANVAS_USERS = [{"id": n, "sis_user_id": f"S{n}", "login_id": f"{sid}.login", "name": f"{sid.title()} Lovelace",
                 "sortable_name": f"Lovelace, {sid.title()}"}
                for n, sid in enumerate(["ada", "bob", "cyd", "dan", *FORMULAS], start=101)]
MOODLE_USERS = [{"id": n, "username": f"{sid}.login", "email": f"{sid}@example.org", "idnumber": f"S{n}"}
                for n, sid in enumerate(["ada", "bob", "cyd", "dan", *FORMULAS], start=101)]


def test_canvas_file_imports_final_totals_only_identified_by_the_roster(course):
    root, total = course["root"], course["max"]
    lines = []
    grades(root, ASSIGNMENT, form="canvas", echo=lines.append)
    with (root / "grades-canvas.csv").open(newline="", encoding="utf-8") as f:
        table = list(csv.reader(f))
    assert table[0] == CANVAS_COLUMNS + [ASSIGNMENT]
    assert table[1][0] == "Points Possible" and float(table[1][5]) == total
    assert all(row[5] != "" for row in table[2:]), "a blank cell clears the grade Canvas has"
    current = {(101, ASSIGNMENT): "12", (103, ASSIGNMENT): "9", (104, ASSIGNMENT): "7"}   # typed in Canvas before
    posted, missing, cleared = canvas_import(root / "grades-canvas.csv", CANVAS_USERS, current)
    assert missing == [] and cleared == []
    assert float(posted[(101, ASSIGNMENT)]) == total - 2                  # ada, by her Canvas ID
    assert math.isclose(float(posted[(102, ASSIGNMENT)]), (total - 3) * 0.8)
    assert (103, ASSIGNMENT) not in posted                              # cyd: provisional, left alone
    assert (104, ASSIGNMENT) not in posted                              # dan: ungraded, left alone
    assert {u for u, _ in posted} == {101, 102, *range(105, 105 + len(FORMULAS))}   # by ID: quoting harms nothing
    text = "\n".join(lines)
    assert "left out, provisional (1): cyd" in text and "left out, no total (1): dan (ungraded)" in text
    assert "NOT IN THE ROSTER (1): fay" in text


def test_provisional_totals_go_to_their_own_file_only_when_asked(course):
    root = course["root"]
    _quiet(root, form="canvas", provisional=True)
    provisional = root / "grades-canvas-provisional.csv"
    with provisional.open(newline="") as f:
        table = list(csv.reader(f))
    assert table[0][-1] == f"{ASSIGNMENT} (provisional)"
    assert [row[3] for row in table[2:]] == ["cyd.login"]
    posted, missing, _ = canvas_import(provisional, CANVAS_USERS)
    assert set(posted) == {(103, f"{ASSIGNMENT} (provisional)")} and not missing
    _quiet(root, form="canvas")                                         # not asked: no such file is left behind
    assert not provisional.exists()


def test_moodle_file_respects_the_empty_cell_rule_and_knows_every_user(course):
    root, total = course["root"], course["max"]
    lines = []
    grades(root, ASSIGNMENT, form="moodle", echo=lines.append)
    assert any(line.startswith(f"  left out, LMS IDENTITY NOT WRITABLE ({len(FORMULAS)}): ") for line in lines), lines
    with (root / "grades-moodle.csv").open(newline="", encoding="utf-8") as f:
        header = next(csv.reader(f))
    assert header == MOODLE_COLUMNS + [ASSIGNMENT]
    for map_from, map_to in (("Username", "username"), ("Email address", "email"), ("ID number", "idnumber")):
        got, cleared = moodle_import(root / "grades-moodle.csv", MOODLE_USERS, map_from=map_from, map_to=map_to)
        assert cleared == [], "an empty cell would clear a grade typed in Moodle"
        assert float(got[("ada.login", ASSIGNMENT)]) == total - 2
        assert ("cyd.login", ASSIGNMENT) not in got and ("dan.login", ASSIGNMENT) not in got
        assert not any(u.startswith(tuple("=@-+")) for u, _ in got)      # quoted logins: left out, said
    # the control: fay, not in Moodle, would have stopped the whole import
    rows = list(csv.reader((root / "grades-moodle.csv").open()))
    with_fay = root / "moodle-with-fay.csv"
    with with_fay.open("w", newline="") as f:
        csv.writer(f).writerows(rows + [["Fay", "Lovelace", "", "fay.login", "fay@example.org", "17"]])
    with pytest.raises(ImportRefused, match="no user with username 'fay.login'"):
        moodle_import(with_fay, MOODLE_USERS, map_from="Username", map_to="username")


def test_stale_lms_files_are_removed_by_a_run_that_does_not_write_them(course):
    root = course["root"]
    _quiet(root, form="moodle")
    assert (root / "grades-moodle.csv").exists()
    lines = []
    grades(root, ASSIGNMENT, echo=lines.append)
    assert not (root / "grades-moodle.csv").exists() and not (root / "grades-canvas.csv").exists()
    assert any("removed grades-moodle.csv of an earlier run" in line for line in lines), lines


def test_lms_file_without_a_roster_is_refused_in_one_line(course, tmp_path):
    with pytest.raises(CourseError, match=r"no roster at .*nope.csv: expected a CSV file with a student_id column"):
        _quiet(course["root"], form="canvas", roster=tmp_path / "nope.csv")


def test_unknown_format_is_refused(course):
    with pytest.raises(CourseError, match=r"unknown grades format 'xls': expected one of csv, canvas, moodle"):
        _quiet(course["root"], form="xls")


def _cells(path):
    with Path(path).open(newline="", encoding="utf-8") as f:
        return [cell for row in csv.reader(f) for cell in row]


def test_every_csv_is_formula_safe_with_formula_student_ids(course):
    """A student folder named like a formula is text in every file: grades-*.csv, grades.csv, LMS files, export."""
    root = course["root"]
    give_extension(root, ASSIGNMENT, FORMULAS[0], "2026-11-22 23:59 UTC", "=HYPERLINK(1)")
    try:
        def check(*paths):
            for path in paths:
                bad = [c for c in _cells(path) if c.startswith(TRIGGERS) and not _number(c)]
                assert not bad, f"{path.name}: cells a spreadsheet would run: {bad}"

        for form in ("canvas", "moodle"):
            _quiet(root, form=form, provisional=True)
            check(root / f"grades-{form}.csv", root / f"grades-{form}-provisional.csv")
            if form == "canvas":            # the LMS identities are there, quoted, and Canvas finds them by ID
                login = _cells(root / "grades-canvas.csv")
                assert all(f"'{f}.login" in login for f in FORMULAS), login
        run = subprocess.run([str(Path(sys.executable).with_name("nbgrader")), "export", "--to", "export.csv"],
                             cwd=root, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr[-2000:]
        check(root / f"grades-{ASSIGNMENT}.csv", root / "grades.csv", root / "extensions.csv", root / "export.csv")
        # and the ids are there, quoted, not lost
        for path in (root / f"grades-{ASSIGNMENT}.csv", root / "grades.csv", root / "export.csv"):
            cells = _cells(path)
            assert all("'" + f in cells for f in FORMULAS), (path.name, FORMULAS)
        # what the course reads back (extensions.csv) is the id, not the quoted text
        from grading.late import read_extensions
        assert read_extensions(root)[(ASSIGNMENT, FORMULAS[0])].reason == "=HYPERLINK(1)"
    finally:
        give_extension(root, ASSIGNMENT, FORMULAS[0], "")


def _number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def test_nbgrader_export_uses_the_course_exporter(course):
    root, total = course["root"], course["max"]
    nbgrader = Path(sys.executable).with_name("nbgrader")
    run = subprocess.run([str(nbgrader), "export", "--to", "export.csv"], cwd=root, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    header, rows = _rows(root / "export.csv")
    assert {"status", "late_seconds", "penalty", "score", "reason"} <= set(header)
    assert rows["dan"]["status"] == "ungraded" and rows["dan"]["score"] == ""
    assert rows["eve"]["status"] == "not submitted" and rows["eve"]["score"] == ""
    assert rows["cyd"]["status"] == "provisional"
    assert float(rows["ada"]["score"]) == total - 2
    assert math.isclose(float(rows["bob"]["score"]), (total - 3) * 0.8)
    # the same rows, cell for cell, as grades-<assignment>.csv
    _quiet(root)
    h2, rows2 = _rows(root / f"grades-{ASSIGNMENT}.csv")
    for sid, row in rows.items():
        if row["status"] != "not submitted":
            assert {k: row[k] for k in header} == {k: rows2[sid][k] for k in header}, sid


def test_the_penalty_follows_a_manual_grade_and_an_extension_at_once(tmp_path, course):
    """nbgrader stores a penalty when it autogrades; a grade given later, or an extension, must move it."""
    root = tmp_path / "course"
    shutil.copytree(course["root"], root)
    total = course["max"]
    c = Course(root)
    raw = total - 3
    # the TA gives bob the 2 points of his written answer in the Formgrader (which clears the flag)
    with warnings.catch_warnings(), _gb(root) as gb:
        warnings.simplefilter("ignore")
        g = gb.find_grade(WRITTEN, ASSIGNMENT, ASSIGNMENT, "bob")
        g.manual_score, g.needs_manual_grade = 2.0, False
        gb.db.commit()
        stale = gb.find_submission(ASSIGNMENT, "bob").notebooks[0].late_submission_penalty
    assert math.isclose(stale, raw * 0.2)                   # what nbgrader stored, of the score before
    row = {r.student: r for r in class_rows(c, ASSIGNMENT)}["bob"]
    assert math.isclose(row.raw_score, raw + 2) and math.isclose(row.penalty, (raw + 2) * 0.2)
    assert math.isclose(row.score, (raw + 2) * 0.8) and row.status == "final"
    with warnings.catch_warnings(), _gb(root) as gb:        # the gradebook follows (the Formgrader, nbgrader's feedback)
        warnings.simplefilter("ignore")
        assert math.isclose(gb.find_submission(ASSIGNMENT, "bob").notebooks[0].late_submission_penalty,
                            (raw + 2) * 0.2)
    # an extension of a day: one started day late now
    give_extension(root, ASSIGNMENT, "bob", (DUE + dt.timedelta(days=1)).strftime("%Y-%m-%d %H:%M UTC"), "ill")
    row = {r.student: r for r in class_rows(c, ASSIGNMENT)}["bob"]
    assert row.late_seconds == LATE_SECONDS - 86400 and math.isclose(row.penalty, (raw + 2) * 0.1)
    assert row.extension == "due 2026-11-21 23:59:00: ill"
    with warnings.catch_warnings(), _gb(root) as gb:
        warnings.simplefilter("ignore")
        sub = gb.find_submission(ASSIGNMENT, "bob")
        assert sub.total_seconds_late == LATE_SECONDS - 86400 and sub.extension == dt.timedelta(days=1)
    # and removed again: two days
    give_extension(root, ASSIGNMENT, "bob", "")
    row = {r.student: r for r in class_rows(c, ASSIGNMENT)}["bob"]
    assert row.late_seconds == LATE_SECONDS and math.isclose(row.penalty, (raw + 2) * 0.2)


def test_bad_extension_input_is_named(course, tmp_path):
    with pytest.raises(CourseError, match=r"DUE: due 'next week' is not a date and time"):
        give_extension(course["root"], ASSIGNMENT, "bob", "next week")
    bad = tmp_path / "c"
    bad.mkdir()
    (bad / "extensions.csv").write_text("assignment,student\nps1,bob\n")
    from grading.late import read_extensions
    with pytest.raises(CourseError, match=r"expected the columns assignment, student_id, due, reason; missing "
                                          r"student_id, due"):
        read_extensions(bad)
