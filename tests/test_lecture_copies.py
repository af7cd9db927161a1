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
