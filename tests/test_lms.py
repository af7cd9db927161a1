"""LMS downloads in: a made-up Canvas ``submissions.zip`` and a Moodle folder-per-student download, with a roster.

The downloads are built here as Canvas and Moodle name them (Canvas: ``lib/content_zipper.rb``,
``<sortable name>[_LATE]_<user id>_<attachment id>_<file name>``, resubmitted files renamed
``-1``; Moodle: folders ``<Full Name>_<participant>_assignsubmission_file_`` and the grading
worksheet), then imported with ``make collect-lms``; nothing is graded here (the round trip
through autograde and back to the LMS files is in tests/test_classrun.py).
"""
import csv
import datetime as dt
import io
import json
import subprocess
import zipfile

import pytest
from grading_helpers import ASSIGNMENT, ROOT, make_course

from grading.course import Course, CourseError
from grading.lms import collect_lms, import_record, read_roster, read_times, valid_student_id

NB = f"{ASSIGNMENT}.ipynb"


def _roster(course, rows):
    with (course / "roster.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student_id", "lms_id", "login", "email", "first_name", "last_name"])
        w.writerows(rows)


def _zip(path, entries):
    with zipfile.ZipFile(path, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return path


@pytest.fixture
def course(tmp_path):
    course = make_course(tmp_path)
    _roster(course, [["b07902001", "4101", "ada", "ada@example.org", "Ada", "Lovelace"],
                     ["b07902002", "4102", "bob", "bob@example.org", "Bob", "Babbage"],
                     ["b07902003", "4103", "cyd", "cyd@example.org", "Cyd", "Charisse"]])
    return course


def _inner_zip(files):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


def test_canvas_submissions_zip(course, tmp_path):
    download = _zip(tmp_path / "submissions.zip", {
        f"lovelaceada_4101_9001_{NB}": b'{"ada": 1}',
        "lovelaceada_4101_9002_helper-1.py": b"X = 1\n",            # a helper, renamed by Canvas
        "lovelaceada_4101_9003_data.csv": b"1,2\n",
        f"babbagebob_LATE_4102_9004_{ASSIGNMENT}-1.ipynb": b'{"bob": 2}',   # late, resubmitted
        "charissecyd_4103_9005_work.zip": _inner_zip({f"ps1/{NB}": b'{"cyd": 3}', "ps1/util.py": b"",
                                                       "../../evil.py": b"x"}),
        f"strangerzed_4999_9006_{NB}": b"{}",                      # not in the roster
        "lovelaceada_4101_9007_..": b"",                            # a name that would leave the folder
    })
    lines = []
    result = collect_lms(course, ASSIGNMENT, download, echo=lines.append)
    sub = course / "submitted"
    assert sorted(p.name for p in sub.iterdir() if not p.name.startswith(".")) == ["b07902001", "b07902002",
                                                                                    "b07902003"]
    ada = sub / "b07902001" / ASSIGNMENT
    assert sorted(p.name for p in ada.iterdir()) == sorted([NB, "data.csv", "helper.py"])
    assert (ada / NB).read_bytes() == b'{"ada": 1}' and (ada / "helper.py").read_text() == "X = 1\n"
    bob = sub / "b07902002" / ASSIGNMENT
    assert sorted(p.name for p in bob.iterdir()) == [NB] and (bob / NB).read_bytes() == b'{"bob": 2}'
    cyd = sub / "b07902003" / ASSIGNMENT
    assert sorted(p.name for p in cyd.iterdir()) == sorted([NB, "util.py"])
    assert not any(p.name == "evil.py" for p in course.rglob("evil.py"))
    assert result["late_unknown"] == ["b07902002"] and result["unknown"] == ["strangerzed (canvas user 4999)"]
    text = "\n".join(lines)
    assert "LATE WITHOUT A TIME (1)" in text and "NOT IN THE ROSTER (1)" in text and "4999" in text
    assert "leaves the submission's folder" in text
    assert not (bob / "timestamp.txt").exists()                    # no time was given: none is made up
    record = import_record(Course(course), ASSIGNMENT)
    assert record["b07902002"]["late"] is True and record["b07902002"]["submitted_at"] is None

    # Canvas's submissions API gives the times: the late one gets its timestamp, nbgrader reads it
    times = tmp_path / "submissions.json"
    times.write_text(json.dumps([{"user_id": 4101, "submitted_at": "2026-11-20T12:00:00Z", "late": False},
                                 {"user_id": 4102, "submitted_at": "2026-11-22T10:00:00+08:00", "late": True}]))
    result = collect_lms(course, ASSIGNMENT, download, times=times, echo=lambda *a: None)
    assert (bob / "timestamp.txt").read_text().strip() == "2026-11-22 02:00:00 UTC"
    assert result["late"] == ["b07902002"] and result["late_unknown"] == []
    from nbgrader.utils import parse_utc
    assert str(parse_utc((bob / "timestamp.txt").read_text().strip())) == "2026-11-22 02:00:00"
    # the same download again: nothing changes
    again = collect_lms(course, ASSIGNMENT, download, times=times, echo=lambda *a: None)
    assert again["imported"] == [] and sorted(again["unchanged"]) == ["b07902001", "b07902002", "b07902003"]


def test_moodle_folder_download_with_the_grading_worksheet(course, tmp_path):
    folder = tmp_path / "moodle"
    for who, files in {"Ada Lovelace_551_assignsubmission_file_": {NB: b'{"ada": 1}', "helper.py": b"Y = 2\n"},
                       "Bob Babbage_552_assignsubmission_file_": {f"{ASSIGNMENT}-2.ipynb": b'{"bob": 2}'},
                       "Cyd Charisse_553_assignsubmission_file_": {"notes.txt": b"no notebook"}}.items():
        (folder / who).mkdir(parents=True)
        for name, data in files.items():
            (folder / who / name).write_bytes(data)
    worksheet = tmp_path / "worksheet.csv"
    with worksheet.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
                    "Grade can be changed", "Last modified (submission)", "Last modified (grade)", "Feedback comments"])
        w.writerow(["Participant 551", "Ada Lovelace", "ada@example.org", "Submitted for grading", "", "19", "Yes",
                    "Friday, 20 November 2026, 11:00 PM", "-", ""])
        w.writerow(["Participant 552", "Bob Babbage", "BOB@example.org", "Submitted for grading - 1 day late", "", "19",
                    "Yes", "Sunday, 22 November 2026, 1:30 AM", "-", ""])
    result = collect_lms(course, ASSIGNMENT, folder, times=worksheet, echo=lambda *a: None)
    sub = course / "submitted"
    assert (sub / "b07902001" / ASSIGNMENT / "helper.py").read_text() == "Y = 2\n"
    assert (sub / "b07902002" / ASSIGNMENT / NB).read_bytes() == b'{"bob": 2}'
    assert (sub / "b07902001" / ASSIGNMENT / "timestamp.txt").read_text().strip() == "2026-11-20 23:00:00 UTC"
    assert (sub / "b07902002" / ASSIGNMENT / "timestamp.txt").read_text().strip() == "2026-11-22 01:30:00 UTC"
    # cyd is matched by name (no worksheet line) and imported, with the missing notebook said
    assert (sub / "b07902003" / ASSIGNMENT / "notes.txt").exists()
    assert any("b07902003: no ps1_perceptron.ipynb" in p for p in result["problems"]), result["problems"]


def test_a_roster_that_cannot_work_is_refused_in_one_line(course, tmp_path):
    _roster(course, [["b1", "1", "a", "a@x", "A", "A"], ["b1", "2", "b", "b@x", "B", "B"]])
    with pytest.raises(CourseError, match=r"line 3: student_id 'b1' is also on line 2"):
        read_roster(course / "roster.csv")
    _roster(course, [["r*", "1", "a", "a@x", "A", "A"]])
    with pytest.raises(CourseError, match=r"student_id 'r\*' cannot be a student id: it holds '\*'"):
        read_roster(course / "roster.csv")
    (course / "roster.csv").write_text("name,email\nA,a@x\n")
    with pytest.raises(CourseError, match="has no student_id column"):
        read_roster(course / "roster.csv")
    with pytest.raises(CourseError, match="is not a zip file"):
        (tmp_path / "x.zip").write_text("no")
        _roster(course, [["b1", "1", "a", "a@x", "A", "A"]])
        collect_lms(course, ASSIGNMENT, tmp_path / "x.zip", echo=lambda *a: None)


def test_canvas_gradebook_export_reads_as_a_roster(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text('Student,ID,SIS User ID,SIS Login ID,Section,ps1_perceptron (123)\n'
                    '    Points Possible,,,,,19\n"Lovelace, Ada",4101,S1,b07902001,A,\n')
    roster = read_roster(path)
    e = roster.find("b07902001")
    assert (e.lms_id, e.sis_id, e.login, e.section, e.sortable_name) == ("4101", "S1", "b07902001", "A",
                                                                         "Lovelace, Ada")


def test_a_csv_of_times_names_each_student_by_any_roster_column_first_match_wins(tmp_path):
    """student_id, then the LMS id, login, email: the first column whose value the roster knows decides."""
    roster_file = tmp_path / "roster.csv"
    _roster(tmp_path, [["b07902001", "4101", "ada", "ada@example.org", "Ada", "Lovelace"],
                       ["b07902002", "4102", "bob", "bob@example.org", "Bob", "Babbage"]])
    times = tmp_path / "times.csv"
    times.write_text("student_id,login,email,submitted_at\n"
                     "b07902001,bob,,2026-11-20 12:00\n"                 # student_id first: ada, not bob
                     "nobody,bob,,2026-11-21 12:00\n"                    # an unknown id: the login finds bob
                     ",,zed@example.org,2026-11-22 12:00\n")             # no column finds zed
    found, participants, problems = read_times(times, read_roster(roster_file), timezone="Asia/Taipei")
    assert found == {"b07902001": dt.datetime(2026, 11, 20, 4, 0), "b07902002": dt.datetime(2026, 11, 21, 4, 0)}
    assert participants == {} and len(problems) == 1 and "line 4" in problems[0] and "zed@example.org" in problems[0]


def test_valid_student_ids():
    assert valid_student_id("=1+2") is None                       # a formula is a valid folder name (quoted in CSV)
    assert valid_student_id(".hidden") == "it starts with '.'"
    assert valid_student_id("a\tb") == "it holds a control character"


def test_make_collect_lms_names_what_it_needs(course):
    out = subprocess.run(["make", "-s", "-C", str(ROOT), "collect-lms", "VENV=" + str(ROOT / ".venv")],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "usage: make collect-lms FROM=" in out.stderr, out.stderr
