"""The tampering audit: each kind of suspicious code is found, with its cell and line; honest code is not."""
import subprocess
import sys

import nbformat
import pytest
from grading_helpers import ASSIGNMENT, fill, make_course, reference_bodies, submit

from grading.audit import audit, audit_source
from grading.autograde import release


@pytest.mark.parametrize("code, expected", [
    ("open('/etc/passwd').read()", "file access outside the notebook's folder"),
    ("from pathlib import Path\nPath('../../source/x.ipynb').read_text()", "file access outside"),
    ("import course_lib as cl\ndef pla(X, y):\n    return cl.pla(X, y)", "uses course_lib's own pla"),
    ("from course_lib import pla", "imports course_lib's own pla"),
    ("import numpy.testing as npt\nnpt.assert_allclose = print", "changes a module: numpy.testing.assert_allclose"),
    ("import numpy as np\nsetattr(np, 'allclose', print)", "changes a module: setattr(numpy"),
    ("import builtins\nbuiltins.abs = print", "changes a module: builtins.abs"),
    ("exec('1 + 1')", "dynamic code: exec"),
    ("eval('1')", "dynamic code: eval"),
    ("import os\nos._exit(0)", "ends the process: os._exit"),
    ("import subprocess\nsubprocess.run(['ls'])", "subprocesses"),
    ("import os\nos.system('ls')", "subprocesses: os.system"),
    ("import os\nos.fork()", "subprocesses: os.fork"),
    ("import socket\nsocket.create_connection(('example.org', 80))", "network: imports socket"),
    ("import urllib.request", "network: imports urllib.request"),
    ("class Always(int):\n    def __eq__(self, other):\n        return True", "class Always redefines __eq__"),
    ("import sqlite3\nsqlite3.connect('gradebook.db')", "names the course's files"),
])
def test_each_kind_of_tampering_is_found(code, expected):
    findings = audit_source(code, exercises={"pla"})
    assert any(expected in what for _, what in findings), findings


@pytest.mark.parametrize("body", list(reference_bodies().values()))
def test_the_reference_solution_has_no_findings(body):
    assert audit_source(body, exercises={"pla", "pocket", "predict", "radius", "margin", "novikoff_bound"}) == []


def test_findings_give_the_line():
    findings = audit_source("x = 1\ny = 2\nimport os\nos._exit(1)")
    assert (4, "ends the process: os._exit") in findings


@pytest.mark.slow  # releases with nbgrader, runs the grading CLI
def test_audit_lists_each_submission_and_changes_nothing(tmp_path):
    course = make_course(tmp_path)
    release(course, ASSIGNMENT)
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    ref = reference_bodies()
    submit(course, "honest", fill(released, ref))
    sneaky = dict(ref, **{"pla-solution": "result = cl.pla(X, y, max_updates=max_updates)\n"
                                          "return result.w, result.n_updates"})
    submit(course, "sneaky", fill(released, sneaky))
    before = sorted(p.name for p in course.iterdir())
    lines = []
    report = audit(course, ASSIGNMENT, echo=lines.append)
    assert report["honest"] == []
    assert [(f["grade_id"], f["what"]) for f in report["sneaky"]] == [("pla-solution", "uses course_lib's own pla")]
    text = "\n".join(lines)
    assert "sneaky: 1 finding(s)" in text and "honest" not in text.split("\n\n")[1]
    assert (course / "autograded" / f"audit-{ASSIGNMENT}.txt").is_file()
    assert not (course / "gradebook.db").exists()
    assert sorted(p.name for p in course.iterdir()) == sorted(before + ["autograded"])
    cli = subprocess.run([sys.executable, "-m", "grading", "--course", str(course), "audit", ASSIGNMENT],
                         capture_output=True, text=True)
    assert cli.returncode == 0 and "sneaky: 1 finding(s)" in cli.stdout


def test_every_file_and_every_cell_is_read_and_nothing_stops_the_audit(tmp_path):
    course = make_course(tmp_path)
    release(course, ASSIGNMENT)
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    ref = reference_bodies()
    # a helper file that calls course_lib's pla, and a cell dressed up as a test cell
    submit(course, "helper", fill(released, ref))
    (course / "submitted" / "helper" / ASSIGNMENT / "helper.py").write_text(
        "import course_lib\ndef pla(X, y):\n    return course_lib.pla(X, y)\n")
    fake = fill(released, ref)
    fake.cells.append(nbformat.v4.new_code_cell("import os\nos._exit(0)", metadata={"nbgrader": {
        "grade": True, "solution": False, "locked": True, "points": 5, "grade_id": "extra"}}))
    submit(course, "fake_test", fake)
    # code nested 200,000 deep, a file that is not a notebook, a link
    submit(course, "deep", fill(released, dict(ref, **{"radius-solution": "return X" + ".T" * 200_000})))
    submit(course, "broken", raw="{ not json")
    submit(course, "linked", fill(released, ref))
    (course / "submitted" / "linked" / ASSIGNMENT / "data.csv").symlink_to(course / "source")
    stale = course / "autograded" / f"audit-{ASSIGNMENT}.txt"
    stale.parent.mkdir()
    stale.write_text("an earlier run's report\n")
    report = audit(course, ASSIGNMENT, echo=lambda *a: None)
    what = {s: " | ".join(f["what"] for f in found) for s, found in report.items()}
    assert "uses course_lib's own pla" in what["helper"]
    assert "ends the process: os._exit" in what["fake_test"]
    assert "could not be analysed" in what["deep"]
    assert "could not be read" in what["broken"]
    assert "symbolic link" in what["linked"]
    text = stale.read_text()
    assert "earlier run" not in text and "5 of 5 submission(s) with findings" in text
