"""scripts/lecture_copies.py: lectures are run from untracked copies, so git stays clean.

A fresh git repository holding the course's .gitignore and a lecture stands in for a
student's clone; `make lab`'s first step copies the lecture into my-lectures/, a real
kernel runs the copy and it is saved the way Jupyter saves (nbformat), and `git status`
must be clean; saved over the tracked lecture instead, git does show it.
"""
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
LECTURE = ROOT / "notebooks" / "02-1-perceptron-hypothesis-set.ipynb"
SCRIPT = ROOT / "scripts" / "lecture_copies.py"

spec = importlib.util.spec_from_file_location("lecture_copies", SCRIPT)
lecture_copies = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lecture_copies)


def git(repo, *args):
    env = {**os.environ, "GIT_AUTHOR_NAME": "s", "GIT_AUTHOR_EMAIL": "s@example.org",
           "GIT_COMMITTER_NAME": "s", "GIT_COMMITTER_EMAIL": "s@example.org", "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def clone(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "course"
    (repo / "notebooks").mkdir(parents=True)
    shutil.copy(ROOT / ".gitignore", repo)
    shutil.copy(LECTURE, repo / "notebooks")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "course")
    return repo


def make_lab_first_step(repo):
    return subprocess.run([sys.executable, str(SCRIPT), str(repo)], check=True, capture_output=True, text=True).stdout


@pytest.mark.slow
def test_running_a_lecture_and_saving_it_leaves_git_status_clean(clone):
    from nbclient import NotebookClient

    out = make_lab_first_step(clone)
    assert "1 lecture(s) copied to my-lectures/" in out
    copy = clone / "my-lectures" / LECTURE.name
    nb = nbformat.read(copy, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(copy.parent)}}).execute()
    nbformat.write(nb, copy)                                   # what Jupyter's "save" writes
    assert any(c.get("outputs") for c in nbformat.read(copy, as_version=4).cells)
    assert git(clone, "status", "--porcelain") == ""
    assert "my-lectures/" in git(clone, "status", "--porcelain", "--ignored")
    # the same save over the tracked lecture is what made git dirty
    nbformat.write(nb, clone / "notebooks" / LECTURE.name)
    assert git(clone, "status", "--porcelain").strip() == f"M notebooks/{LECTURE.name}"


def test_a_changed_lecture_replaces_an_unsaved_copy_and_never_a_saved_one(clone):
    make_lab_first_step(clone)
    assert make_lab_first_step(clone) == ""                    # nothing new: nothing said, nothing copied
    tracked = clone / "notebooks" / LECTURE.name
    copy = clone / "my-lectures" / LECTURE.name
    tracked.write_text(tracked.read_text().replace("Perceptron", "Perceptrons", 1))   # a `git pull` brought this
    assert "copied" in make_lab_first_step(clone)
    assert copy.read_bytes() == tracked.read_bytes()           # the unsaved copy took the new version
    copy.write_text(copy.read_text() + " ")                    # the student saves their copy
    tracked.write_text(tracked.read_text().replace("Perceptrons", "The perceptron", 1))
    out = make_lab_first_step(clone)
    assert "has changed" in out and "is kept" in out and out.count("\n") == 1
    assert copy.read_text().endswith(" ")                      # their work is not lost
    (clone / "notebooks" / "09-new.ipynb").write_bytes(tracked.read_bytes())
    assert "1 lecture(s) copied" in make_lab_first_step(clone)
    assert (clone / "my-lectures" / "09-new.ipynb").is_file()


ASSIGNMENT = "ps1_perceptron"


@pytest.fixture
def upstream_and_student(tmp_path):
    """The instructor's repository (upstream) holding a lecture and a released assignment, and a student's clone."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    upstream = tmp_path / "upstream"
    (upstream / "notebooks").mkdir(parents=True)
    shutil.copy(ROOT / ".gitignore", upstream)
    shutil.copy(LECTURE, upstream / "notebooks")
    shutil.copytree(ROOT / "release" / ASSIGNMENT, upstream / "release" / ASSIGNMENT)
    git(upstream, "init", "-q", "-b", "main")
    git(upstream, "add", "-A")
    git(upstream, "commit", "-q", "-m", "course")
    student = tmp_path / "student"
    git(tmp_path, "clone", "-q", str(upstream), str(student))
    return upstream, student


def save(path, marker):
    """What a student's save does to a notebook: outputs and answers written into the file."""
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell(marker))
    nbformat.write(nb, path)


def test_a_students_saved_work_never_blocks_git_pull_and_survives_it(upstream_and_student):
    upstream, student = upstream_and_student
    out = make_lab_first_step(student)
    assert "1 lecture(s) copied to my-lectures/" in out
    assert "copied to my-assignments/" in out and "make check NB=my-assignments/" in out
    lecture_copy = student / "my-lectures" / LECTURE.name
    assignment_copy = student / "my-assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert (student / "my-assignments" / ASSIGNMENT / "course_lib_withheld.txt").is_file()   # Validate needs it
    save(lecture_copy, "my notes on the lecture")
    save(assignment_copy, "my answer to exercise 1")
    assert git(student, "status", "--porcelain") == ""
    # the instructor fixes a typo in the lecture and a test in the assignment, and pushes
    for path in (upstream / "notebooks" / LECTURE.name, upstream / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"):
        nb = nbformat.read(path, as_version=4)
        nb.cells[0].source += "\n\n(corrected)"
        nbformat.write(nb, path)
    git(upstream, "commit", "-q", "-am", "fix a lecture and an assignment")
    git(student, "pull", "-q")                                     # succeeds: nothing of the student's is tracked
    assert "(corrected)" in (student / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text()
    assert "my notes on the lecture" in lecture_copy.read_text()
    assert "my answer to exercise 1" in assignment_copy.read_text()
    out = make_lab_first_step(student)                             # the next make lab keeps the saved work
    assert out.count("is kept") == 2, out
    assert "my answer to exercise 1" in assignment_copy.read_text()
    assert "(corrected)" not in assignment_copy.read_text()


def test_work_saved_in_the_tracked_release_folder_is_what_made_git_pull_fail(upstream_and_student):
    upstream, student = upstream_and_student
    save(student / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", "my answer, saved in release/")
    path = upstream / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells[0].source += "\n\n(corrected)"
    nbformat.write(nb, path)
    git(upstream, "commit", "-q", "-am", "fix the assignment")
    with pytest.raises(subprocess.CalledProcessError) as err:
        git(student, "pull", "-q")
    assert "would be overwritten" in err.value.stderr


def test_an_unsaved_assignment_copy_takes_the_instructors_fix(upstream_and_student):
    upstream, student = upstream_and_student
    make_lab_first_step(student)
    path = upstream / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells[0].source += "\n\n(corrected)"
    nbformat.write(nb, path)
    git(upstream, "commit", "-q", "-am", "fix the assignment")
    git(student, "pull", "-q")
    assert "1 assignment file(s) copied" in make_lab_first_step(student)
    assert "(corrected)" in (student / "my-assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text()
