"""Helpers for the end-to-end grading tests: a throwaway course and programmatic submissions."""
import json
import re
import shutil
import textwrap
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "ps1_perceptron"
STUB = re.compile(r"^(?P<indent>[ \t]*)# YOUR CODE HERE\n(?P=indent)raise NotImplementedError\(\)[ \t]*$", re.M)
REGION = re.compile(r"^(?P<indent>[ \t]*)### BEGIN SOLUTION\n(?P<body>.*?)^[ \t]*### END SOLUTION[ \t]*$", re.M | re.S)


def make_course(tmp_path):
    """Copy what a fresh clone of the course holds (source/, config) into ``tmp_path/course``."""
    course = tmp_path / "course"
    course.mkdir()
    shutil.copytree(ROOT / "source", course / "source")
    shutil.copy(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    return course


def grade_id(cell):
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def reference_bodies(assignment=ASSIGNMENT):
    """``{grade_id: body}`` of every solution region of the instructor's notebook (dedented)."""
    nb = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    bodies = {}
    for cell in nb.cells:
        m = REGION.search(cell.source) if cell.cell_type == "code" else None
        if m:
            bodies[grade_id(cell)] = textwrap.dedent(m.group("body"))
    return bodies


def fill(released_nb, answers):
    """A copy of the released notebook with the stubs of some solution cells replaced.

    ``answers`` maps a solution cell's grade_id to the code that replaces its stub
    (indented like the stub), or to ``("cell", source)`` to replace the whole cell.
    """
    nb = nbformat.from_dict(json.loads(json.dumps(released_nb)))
    for cell in nb.cells:
        gid = grade_id(cell)
        if gid not in answers:
            continue
        answer = answers[gid]
        if isinstance(answer, tuple):
            cell.source = answer[1]
            continue
        m = STUB.search(cell.source)
        assert m, f"no stub in cell {gid}"
        body = textwrap.dedent(answer).strip("\n")
        if m.group("indent"):
            body = textwrap.indent(body, m.group("indent"))
        cell.source = cell.source[:m.start()] + body + cell.source[m.end():]
    return nb


def written_answer_ids(nb):
    """grade_ids of the answers written in prose and graded by hand (markdown solution cells)."""
    return [grade_id(c) for c in nb.cells
            if c.cell_type == "markdown" and c.get("metadata", {}).get("nbgrader", {}).get("solution")]


def with_written_answers(nb, text="T corrections give w_f^T w_T >= T rho and ||w_T||^2 <= T R^2, so the "
                                   "cosine, at most 1, is at least sqrt(T) rho / R."):
    """A copy of ``nb`` in which every answer graded by hand holds ``text``, as a student who wrote one.

    nbgrader's Validate (and ``make check``) report an answer left as released ("You did not
    provide a response"), so a notebook meant to pass them has to answer these too.
    """
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    ids = set(written_answer_ids(nb))
    for cell in nb.cells:
        if grade_id(cell) in ids:
            cell.source = text
    return nb


def submit(course, student, nb=None, raw=None, *, assignment=ASSIGNMENT):
    """Put a notebook (or raw file content) into ``submitted/<student>/<assignment>/``."""
    folder = course / "submitted" / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{assignment}.ipynb"
    if raw is not None:
        path.write_text(raw)
    else:
        nbformat.write(nb, path)
    return path


def with_answers(reference, **changes):
    """The reference answers with some solution cells changed.

    Keyword names are grade_ids with ``_`` for ``-`` (``pla_solution``); a value of None
    leaves that cell's stub untouched.
    """
    out = dict(reference)
    for gid, code in changes.items():
        gid = gid.replace("_", "-")
        if code is None:
            out.pop(gid)
        else:
            out[gid] = code
    return out


def released_notebook(course, assignment=ASSIGNMENT):
    """Release ``assignment`` in the throwaway ``course`` and return the student version."""
    from grading.autograde import release

    release(course, assignment)
    return nbformat.read(course / "release" / assignment / f"{assignment}.ipynb", as_version=4)


def autograde_class(course, assignment=ASSIGNMENT, *, timeout, echo=None, force=False):
    """Autograde the submissions in ``course`` (every one again with ``force``); return statuses, grades, time."""
    import time

    from traitlets.config import Config

    from grading.autograde import autograde
    from grading.report import collect

    start = time.monotonic()
    status = autograde(course, assignment, overrides=Config({"Execute": {"timeout": timeout}}),
                       echo=echo or (lambda *a: None), force=force)
    elapsed = time.monotonic() - start
    exercises, rows = collect(course, assignment)
    return {"course": course, "status": status, "rows": {r["student"]: r for r in rows},
            "exercises": exercises, "elapsed": elapsed}


def assert_parts(graded, student, parts):
    """``student`` was graded with exactly these points per exercise."""
    row = graded["rows"][student]
    assert row["status"] == "final", f"{student}: {row['reason']}"
    assert row["parts"] == parts, f"{student}: expected {parts}, got {row['parts']}"
    assert row["score"] == sum(parts.values())


def self_check(graded, student, assignment=ASSIGNMENT, *, timeout):
    """Run the students' self-check (``python -m grading check``) on a submitted notebook."""
    import subprocess
    import sys

    nb = graded["course"] / "submitted" / student / assignment / f"{assignment}.ipynb"
    return subprocess.run([sys.executable, "-m", "grading", "check", str(nb), "--timeout", str(timeout)],
                          capture_output=True, text=True, cwd=graded["course"])


def public_lines(nb):
    """Lines of an instructor's notebook outside its solution and hidden-test regions."""
    public = set()
    for c in nb.cells:
        text = re.sub(r"### BEGIN (SOLUTION|HIDDEN TESTS).*?### END (SOLUTION|HIDDEN TESTS)", "", c.source, flags=re.S)
        public |= {line.strip() for line in text.splitlines()}
    return public


def stop_processes(procs, timeout=60):
    """Terminate ``procs`` (the last started first), wait for each, and kill what does not stop."""
    import subprocess

    for p in reversed(procs):
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
