"""The class run's one gradebook (grading.gradebook.RunGradebook) keeps its promises, on real SQLite files.

A class run opens nbgrader's Gradebook once and uses it for every submission. Each promise
below is what makes that as safe as nbgrader's opening a gradebook for every step: the steps
of one submission share a session; a use sees what others (the Formgrader, another process)
committed in between; an error leaves nothing half-written and the next use works; no
connection outlives a use, so a replaced file is the one read next; nbconvert's copies of the
resources hand on the same gradebook; and a closed one opens again.
"""
import copy
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grading.gradebook import RunGradebook

COURSE = "ml-foundations"


@pytest.fixture(scope="module")
def empty(tmp_path_factory):
    """An empty gradebook file made by nbgrader once (it runs ``alembic`` from PATH for that); tests copy it."""
    path = tmp_path_factory.mktemp("gradebook") / "empty.db"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
        _gradebook(f"sqlite:///{path}").close()
    return path


def _gradebook(url):
    """nbgrader's own Gradebook at ``url``, as the Formgrader or a command would open it."""
    from nbgrader.api import Gradebook

    return Gradebook(url, COURSE)


def _students(url):
    """``{id: first_name}`` of every student, read through a connection of its own."""
    with _gradebook(url) as gb:
        return {s.id: s.first_name for s in gb.students}


@pytest.fixture
def url(tmp_path, empty):
    shutil.copy(empty, tmp_path / "gradebook.db")
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with _gradebook(url) as gb:
        gb.add_student("s1", first_name="Ada")
    return url


@pytest.fixture
def run(url):
    run = RunGradebook(url, COURSE)
    yield run
    run.close()


def test_nested_uses_share_one_session(run, url):
    with run.use() as outer:
        outer.add_student("s2", first_name="Bo")        # nbgrader's add commits; what follows is only flushed
        outer.find_student("s1").first_name = "Ann"
        outer.db.flush()
        with run.use() as inner:
            assert inner is outer and inner.db() is outer.db()
            assert inner.find_student("s1").first_name == "Ann"     # what the outer use has not committed
        assert outer.find_student("s1").first_name == "Ann"         # the inner use's end closed nothing
    # the outermost use's end drops what nobody committed, as closing nbgrader's gradebook does
    assert _students(url) == {"s1": "Ada", "s2": "Bo"}


def test_the_outermost_use_sees_what_another_connection_committed_meanwhile(run, url):
    with run.use() as gb:
        first = gb
        held = gb.find_student("s1")                                 # (a step may keep what it read)
        assert held.first_name == "Ada"
    with _gradebook(url) as other:                                   # the Formgrader, between two submissions
        other.find_student("s1").first_name = "Ann"
        other.add_student("s2")
        other.db.commit()
    with run.use() as gb:
        assert gb is first                                           # the same gradebook (engine) for the run ...
        assert gb.find_student("s1").first_name == "Ann"             # ... and a new session: no stale copy
        assert {s.id for s in gb.students} == {"s1", "s2"}
    assert held.first_name == "Ada"                                  # (what the first use read stays as read)


def test_the_outermost_use_sees_what_another_process_committed_meanwhile(run, url):
    with run.use() as gb:
        held = gb.find_student("s1")
        assert held.first_name == "Ada"
    script = ("import sys\nfrom nbgrader.api import Gradebook\n"
              "with Gradebook(sys.argv[1], sys.argv[2]) as gb:\n"
              "    gb.find_student('s1').first_name = 'Ann'\n"
              "    gb.add_student('s3', last_name='Lovelace')\n"
              "    gb.db.commit()\n")
    done = subprocess.run([sys.executable, "-c", script, url, COURSE], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    with run.use() as gb:
        assert gb.find_student("s1").first_name == "Ann"
        assert gb.find_student("s3").last_name == "Lovelace"
    assert held.id == "s1"


def test_an_error_leaving_a_use_rolls_back_what_it_had_not_committed(run, url):
    with pytest.raises(RuntimeError, match="the step failed"):
        with run.use() as gb:
            gb.add_student("kept")                                   # committed (nbgrader's add commits)
            gb.find_student("s1").first_name = "lost"
            gb.db.flush()
            raise RuntimeError("the step failed")
    assert _students(url) == {"s1": "Ada", "kept": None}
    with run.use() as gb:                                            # the next use works
        gb.find_student("s1").last_name = "Lovelace"
        gb.db.commit()
    with _gradebook(url) as gb:
        assert gb.find_student("s1").last_name == "Lovelace"


def test_a_database_error_inside_a_nested_use_leaves_the_session_usable(run, url):
    """A failed flush (here a duplicate student) in a step leaves the session needing a rollback; the use does it, so
    the rest of the submission's use (recording the failure) can still read and write."""
    from nbgrader.api import Student
    from sqlalchemy.exc import IntegrityError

    with run.use() as outer:
        with pytest.raises(IntegrityError):
            with run.use() as inner:
                inner.db.add(Student(id="s1"))
                inner.db.flush()
        assert outer.find_student("s1").first_name == "Ada"
        outer.add_student("recorded")
    assert _students(url) == {"s1": "Ada", "recorded": None}


def test_a_sqlite_file_replaced_between_two_uses_is_the_one_the_next_use_reads(run, url, tmp_path, empty):
    with run.use() as gb:
        assert {s.id for s in gb.students} == {"s1"}
    shutil.copy(empty, tmp_path / "restored.db")
    replacement = f"sqlite:///{tmp_path / 'restored.db'}"
    with _gradebook(replacement) as gb:                              # e.g. a backup restored in its place
        gb.add_student("from-the-backup")
    os.replace(tmp_path / "restored.db", tmp_path / "gradebook.db")
    with run.use() as gb:
        assert {s.id for s in gb.students} == {"from-the-backup"}
        gb.add_student("after")
    assert set(_students(url)) == {"from-the-backup", "after"}     # written to the new file, not the old one


def test_no_connection_outlives_a_use(run):
    with run.use() as gb:
        assert gb.find_student("s1")
        assert gb.engine.pool.checkedout() == 1
    assert gb.engine.pool.checkedout() == 0 and gb.engine.pool.checkedin() == 0


def test_a_deep_copy_is_the_same_gradebook(run):
    """nbconvert deep-copies the resources of every notebook: the steps must still share the run's gradebook."""
    assert copy.deepcopy(run) is run
    resources = {"nbgrader": {"student": "s1"}, "grading": {"gradebook": run, "book": None}}
    assert copy.deepcopy(resources)["grading"]["gradebook"] is run
    with run.use() as gb:
        with copy.deepcopy(run).use() as same:
            assert same is gb


def test_close_then_use_opens_it_again(run, url):
    run.close()                                                      # before any use: nothing to close
    with run.use() as gb:
        gb.add_student("s2")
    run.close()
    run.close()                                                      # twice: still nothing wrong
    with run.use() as again:
        assert again is not gb                                       # opened anew
        assert {s.id for s in again.students} == {"s1", "s2"}
        again.add_student("s3")
    assert set(_students(url)) == {"s1", "s2", "s3"}
