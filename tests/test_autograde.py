"""``make autograde``: the configuration it refuses, and whole classes graded end to end.

The configuration is checked before anything is graded (no sandbox, no gradebook needed):
nbgrader's own Execute would run student code unsandboxed, and without the course's record a
submission that cannot be graded would be exported as 0.

The end-to-end tests autograde a small class with real nbgrader, the real sandbox and a real
SQLite (or PostgreSQL) gradebook in a throwaway course: what is graded again (by content),
manual work kept, a Dask cluster, Ctrl-C and a gradebook that goes away; grades given by hand
are entered through nbgrader's API as the Formgrader enters them.
"""
import os
import signal
import warnings

import pytest
from answer_bodies import ENDLESS as PLA_ENDLESS
from answer_bodies import RADIUS_WITHOUT_X0
from grading_helpers import (
    ASSIGNMENT,
    ROOT,
    fill,
    make_course,
    reference_bodies,
    released_notebook,
    stop_processes,
    submit,
    with_answers,
)
from traitlets.config import Config

from grading.autograde import _require_course_engine
from grading.classrun import HOOKS, RecordingExporter, before_autograde
from grading.course import Course, CourseError
from grading.preprocessors import CourseExecute

TIMEOUT = 5


def _config(**autograde):
    return Config({"Autograde": autograde})


def test_the_course_s_own_configuration_is_accepted_with_names_or_classes():
    _require_course_engine(Course(ROOT).nbgrader_config())
    _require_course_engine(_config(autograde_preprocessors=[CourseExecute], pre_convert_hook=before_autograde,
                                   exporter_class=RecordingExporter))


@pytest.mark.parametrize(("autograde", "named"), [
    ({"autograde_preprocessors": ["nbgrader.preprocessors.Execute"], **HOOKS}, "grading.preprocessors.CourseExecute"),
    ({"autograde_preprocessors": [], **HOOKS}, "unsandboxed"),
    ({"autograde_preprocessors": [CourseExecute], "exporter_class": HOOKS["exporter_class"]}, "pre_convert_hook"),
    ({"autograde_preprocessors": [CourseExecute], "pre_convert_hook": HOOKS["pre_convert_hook"],
      "exporter_class": "nbconvert.exporters.NotebookExporter"}, "exported as 0"),
])
def test_a_configuration_without_the_engine_or_the_record_is_refused(autograde, named):
    with pytest.raises(CourseError, match=named):
        _require_course_engine(_config(**autograde))


# -- end to end: incremental, one student, force, manual work ---------------------------------

def _give_manual_work(course, student, grade_id, *, score, comment):
    from nbgrader.api import Gradebook

    c = Course(course)
    with warnings.catch_warnings(), Gradebook(c.db_url, c.course_id) as gb:
        warnings.simplefilter("ignore")
        g = gb.find_grade(grade_id, ASSIGNMENT, ASSIGNMENT, student)
        g.manual_score = score
        g.extra_credit = 0.5
        cm = gb.find_comment(comment[0], ASSIGNMENT, ASSIGNMENT, student)
        cm.manual_comment = comment[1]
        gb.db.commit()


def _manual(course, student, grade_id, comment_id):
    from nbgrader.api import Gradebook

    c = Course(course)
    with warnings.catch_warnings(), Gradebook(c.db_url, c.course_id) as gb:
        warnings.simplefilter("ignore")
        g = gb.find_grade(grade_id, ASSIGNMENT, ASSIGNMENT, student)
        cm = gb.find_comment(comment_id, ASSIGNMENT, ASSIGNMENT, student)
        return g.manual_score, g.extra_credit, cm.manual_comment


@pytest.mark.slow
def test_incremental_regrade_keeps_manual_work_and_flags_changed_answers(tmp_path):
    from grading.autograde import autograde
    from grading.report import collect

    course = make_course(tmp_path)
    released = released_notebook(course)
    ref = reference_bodies()
    for s in ("alice", "bob", "carol"):
        submit(course, s, fill(released, ref))
    quiet = dict(overrides=Config({"Execute": {"timeout": TIMEOUT}}), progress=False)
    lines = []
    status = autograde(course, ASSIGNMENT, echo=lines.append, **quiet)
    assert [status[s]["status"] for s in ("alice", "bob", "carol")] == ["graded"] * 3
    exercises, rows, tests = collect(course, ASSIGNMENT, with_tests=True)
    total = sum(tests.values())        # what the tests give: the derivation graded by hand is left as released
    assert [r["score"] for r in rows] == [total] * 3

    # a TA grades by hand in the Formgrader: a manual score with extra credit and a comment
    _give_manual_work(course, "alice", "radius-longest-example-with-x0", score=0.0,
                      comment=("radius-solution", "Why drop x0? See the lecture."))
    _give_manual_work(course, "carol", "pla-stops-after-max-updates", score=1.0,
                      comment=("pla-solution", "Nice loop."))

    # nothing changed: nothing is graded again, manual work untouched
    lines = []
    autograde(course, ASSIGNMENT, echo=lines.append, **quiet)
    assert "graded 0 submission(s)" in lines[0] and "3 unchanged" in lines[0], lines
    assert _manual(course, "alice", "radius-longest-example-with-x0", "radius-solution") == (
        0.0, 0.5, "Why drop x0? See the lecture.")

    # alice resubmits a changed radius answer, carol only touches her file's time
    submit(course, "alice", fill(released, with_answers(ref, radius_solution=RADIUS_WITHOUT_X0)))
    path = course / "submitted" / "carol" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    os.utime(path, (1e9, 1e9))
    lines = []
    status = autograde(course, ASSIGNMENT, echo=lines.append, **quiet)
    text = "\n".join(lines)
    assert "graded 1 submission(s)" in lines[0] and "2 unchanged" in lines[0], text
    assert status["alice"]["review"] == ["radius-longest-example-with-x0", "radius-solution"], status["alice"]
    assert "CHANGED SINCE A MANUAL GRADE OR COMMENT" in text and "alice: radius-" in text
    assert not status["carol"].get("review")
    from grading.report import grades
    summary = []
    grades(course, ASSIGNMENT, echo=summary.append)
    assert "  alice: radius-longest-example-with-x0, radius-solution" in summary, summary
    # kept, not overwritten by the regrade
    assert _manual(course, "alice", "radius-longest-example-with-x0", "radius-solution") == (
        0.0, 0.5, "Why drop x0? See the lecture.")
    # the manual score counts (0 + 0.5 extra credit) in place of the test's automatic 1
    _, rows = collect(course, ASSIGNMENT)
    by = {r["student"]: r for r in rows}
    assert by["alice"]["parts"]["radius"] == 0.5
    assert by["carol"]["parts"]["pla"] == exercises["pla"] + 0.5          # manual 1 of the 1-point test, +0.5 extra

    # one student on demand, then everyone
    lines = []
    autograde(course, ASSIGNMENT, echo=lines.append, student="bob", **quiet)
    assert "graded 1 submission(s)" in lines[0], lines
    lines = []
    autograde(course, ASSIGNMENT, echo=lines.append, force=True, **quiet)
    assert "graded 3 submission(s)" in lines[0], lines
    assert _manual(course, "carol", "pla-stops-after-max-updates", "pla-solution") == (1.0, 0.5, "Nice loop.")

    with pytest.raises(CourseError, match=r"no submission of 'ps1_perceptron' by student 'zed'"):
        autograde(course, ASSIGNMENT, student="zed", **quiet)


# -- the same class on a real Dask cluster -------------------------------------------------------

def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def dask_cluster(tmp_path):
    """A real ``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1."""
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("distributed")
    from distributed import Client

    dask = str(Path(sys.executable).with_name("dask"))
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    logs = open(tmp_path / "dask.log", "w")
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                              stdout=logs, stderr=subprocess.STDOUT, cwd=tmp_path)]
    try:
        for _ in range(2):
            procs.append(subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--no-dashboard",
                                           "--host", "127.0.0.1", "--local-directory", str(tmp_path / "workers")],
                                          stdout=logs, stderr=subprocess.STDOUT, cwd=tmp_path))
        with Client(address, timeout="120s") as client:
            client.wait_for_workers(2, timeout=300)
            pids = client.run(os.getpid)
        assert len(pids) == 2
        yield {"address": address, "worker_pids": set(pids.values())}
    finally:
        stop_processes(procs)
        logs.close()


@pytest.mark.slow
def test_dask_cluster_grades_like_the_local_run(tmp_path, dask_cluster):
    """A class graded through two Dask workers gets exactly the grades of the local process pool."""
    from grading.autograde import autograde
    from grading.report import collect

    ref = reference_bodies()
    results = {}
    for where in ("local", "dask"):
        (tmp_path / where).mkdir()
        course = make_course(tmp_path / where)
        released = released_notebook(course)
        submit(course, "reference", fill(released, ref))
        submit(course, "radius_wrong", fill(released, with_answers(ref, radius_solution=RADIUS_WITHOUT_X0)))
        submit(course, "endless_pla", fill(released, with_answers(ref, pla_solution=PLA_ENDLESS)))
        submit(course, "untouched", released)
        submit(course, "broken", raw="{ not json")
        kwargs = {"jobs": 2} if where == "local" else {"scheduler": dask_cluster["address"]}
        lines = []
        autograde(course, ASSIGNMENT, overrides=Config({"Execute": {"timeout": TIMEOUT}}), echo=lines.append,
                  progress=False, **kwargs)
        if where == "dask":
            assert "on the Dask cluster at " + dask_cluster["address"] in lines[0], lines
        _, rows, tests = collect(course, ASSIGNMENT, with_tests=True)
        results[where] = {r["student"]: (r["status"], r["parts"]) for r in rows}
    assert results["dask"] == results["local"]
    total = sum(tests.values())        # the derivation graded by hand is left as released: 0
    got = results["dask"]
    assert sum(got["reference"][1].values()) == total
    assert got["radius_wrong"][1]["radius"] == 0 and sum(got["radius_wrong"][1].values()) == total - 1
    assert got["endless_pla"][1]["pla"] == 0
    assert sum(got["untouched"][1].values()) == 0
    assert got["broken"][0] == "ungraded"


@pytest.mark.slow
def test_ctrl_c_loses_only_what_was_in_flight_and_a_rerun_continues(tmp_path):
    """SIGINT to a running `python -m grading autograde`: what finished is kept, the rerun grades the rest."""
    import fcntl
    import os
    import pty
    import re
    import struct
    import subprocess
    import sys
    import termios
    import threading

    import nbformat

    course = make_course(tmp_path)
    released = released_notebook(course)
    ref = reference_bodies()
    students = [f"s{i}" for i in range(6)]
    for k, s in enumerate(students):
        nb = fill(released, ref)
        if k >= 2:      # the last four end in an endless loop, stopped at its limit: the interrupt finds them in flight
            nb.cells.append(nbformat.from_dict({"cell_type": "code", "metadata": {}, "execution_count": None,
                                                "outputs": [], "source": "while True:\n    pass"}))
        submit(course, s, nb)
    cmd = [sys.executable, "-m", "grading", "--course", str(course), "autograde", ASSIGNMENT,
           "--timeout", str(TIMEOUT), "--jobs", "2"]
    # stderr on a terminal, as an instructor runs it: the run draws its progress bar there, one count per
    # submission recorded, and the test interrupts it when the bar says two are done
    terminal, stderr = pty.openpty()
    fcntl.ioctl(stderr, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))  # a window the bar fits in
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=stderr, text=True)
    os.close(stderr)
    said, two_done = bytearray(), threading.Event()

    def listen():
        while True:
            try:
                chunk = os.read(terminal, 4096)
            except OSError:                                 # EIO: every writer has closed the terminal
                chunk = b""
            if not chunk:
                break
            said.extend(chunk)
            if re.search(rb": 2/6 \|", said):
                two_done.set()
        two_done.set()                                      # the run ended: the assertions below say so

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()

    def finished():
        return sum(1 for v in _records(course).values() if v.get("status") == "graded" and not v.get("interrupted"))

    assert two_done.wait(600), f"the run never said two submissions were done: {said.decode(errors='replace')}"
    assert re.search(rb": 2/6 \|", said), f"the bar skipped a count: {said.decode(errors='replace')}"
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=300)
    listener.join(timeout=60)
    os.close(terminal)
    err = said.decode(errors="replace")
    assert proc.returncode == 130, (out, err)
    assert "interrupted: the submissions graded so far are saved" in err
    kept = finished()
    assert 2 <= kept < len(students)
    rerun = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert f"graded {len(students) - kept} submission(s)" in rerun.stdout, rerun.stdout
    assert f"graded {len(students)} of {len(students)} submission(s)" in rerun.stdout, rerun.stdout


# -- the gradebook on a real PostgreSQL server going away mid-run -------------------------------

def _postgres_programs():
    """The folder of PostgreSQL's server programs (initdb, pg_ctl, postgres), or None."""
    import glob
    import shutil
    from pathlib import Path

    found = shutil.which("initdb")
    candidates = ([str(Path(found).parent)] if found else []) + sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: [int(x) for x in p.split("/")[-2].split(".")
                                                                if x.isdigit()], reverse=True)
    for folder in candidates:
        if all(os.access(os.path.join(folder, p), os.X_OK) for p in ("initdb", "pg_ctl", "postgres")):
            return folder
    return None


class _Postgres:
    """A throwaway PostgreSQL server (as the deployment runs it: its own user, a password, 127.0.0.1)."""

    def __init__(self, programs, base, port, password):
        self.programs, self.base, self.port, self.password = programs, base, port, password
        self.data = os.path.join(base, "data")
        self.as_owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def run(self, *args):
        import subprocess
        return subprocess.run(self.as_owner + [os.path.join(self.programs, args[0]), *args[1:]],
                              capture_output=True, text=True, timeout=300)

    def start(self):
        out = self.run("pg_ctl", "-D", self.data, "-l", os.path.join(self.base, "server.log"), "-w", "-t", "300",
                       "-o", f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.base}", "start")
        assert out.returncode == 0, out.stdout + out.stderr + open(os.path.join(self.base, "server.log")).read()

    def stop(self, mode="fast"):
        return self.run("pg_ctl", "-D", self.data, "-m", mode, "-w", "-t", "300", "stop")

    def url(self, database="gradebook"):
        from urllib.parse import quote
        return f"postgresql+psycopg://postgres:{quote(self.password, safe='')}@127.0.0.1:{self.port}/{database}"


@pytest.fixture
def postgres():
    """A real PostgreSQL server on a free port of 127.0.0.1 holding an empty ``gradebook`` database."""
    import pwd
    import secrets
    import shutil
    import tempfile

    programs = _postgres_programs()
    if programs is None:
        pytest.skip("PostgreSQL's server programs (initdb, pg_ctl, postgres) are not installed "
                    "(Debian: apt-get install postgresql): the gradebook on PostgreSQL is not tested")
    pytest.importorskip("psycopg", reason="psycopg (the test extra's PostgreSQL driver) is not installed: "
                                          "run `make setup-test`")
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no 'postgres' user to run PostgreSQL's server as")
    base = tempfile.mkdtemp(prefix="course-pg-")        # (not under pytest's folder: the server's user must reach it)
    if os.geteuid() == 0:
        os.chown(base, owner.pw_uid, owner.pw_gid)
    password = secrets.token_urlsafe(12) + "@:/%"       # characters a URL must quote
    pwfile = os.path.join(base, "password")
    with open(pwfile, "w") as f:
        f.write(password + "\n")
    if os.geteuid() == 0:
        os.chown(pwfile, owner.pw_uid, owner.pw_gid)
    server = _Postgres(programs, base, _free_port(), password)
    out = server.run("initdb", "-D", server.data, "-U", "postgres", "--auth=scram-sha-256", f"--pwfile={pwfile}",
                     "--encoding=UTF8", "--no-locale")
    assert out.returncode == 0, out.stdout + out.stderr
    server.start()
    try:
        import psycopg
        with psycopg.connect(host="127.0.0.1", port=server.port, user="postgres", password=password,
                             dbname="postgres", autocommit=True) as conn:
            conn.execute("CREATE DATABASE gradebook")
        yield server
    finally:
        server.stop("immediate")
        shutil.rmtree(base, ignore_errors=True)


class _FolderWatch:
    """Block until a file is written, created or moved into a folder (Linux inotify), not for a fixed time."""

    def __init__(self, folder):
        import ctypes
        import ctypes.util

        self._libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        self.fd = self._libc.inotify_init1(os.O_CLOEXEC | os.O_NONBLOCK)
        in_close_write, in_moved_to, in_create = 0x8, 0x80, 0x100
        if self.fd < 0 or self._libc.inotify_add_watch(self.fd, os.fsencode(folder),
                                                       in_close_write | in_moved_to | in_create) < 0:
            raise OSError(ctypes.get_errno(), f"inotify cannot watch {folder}")

    def wait(self, timeout):
        import select
        if select.select([self.fd], [], [], timeout)[0]:
            while True:
                try:
                    os.read(self.fd, 1 << 16)
                except BlockingIOError:
                    return

    def close(self):
        os.close(self.fd)


def _records(course):
    """``{student: record as a dict}`` of the course's grading records of the assignment (see grading.status)."""
    from grading.status import StatusBook
    return {s: r.to_dict() for s, r in StatusBook(Course(course), ASSIGNMENT).all().items()}


def _test_points(course):
    """``({grade_id: points} of the test cells, points of the whole assignment)`` from the instructor's notebook."""
    import nbformat

    source = nbformat.read(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    graded = [c.metadata.nbgrader for c in source.cells if c.metadata.get("nbgrader", {}).get("grade")]
    tests = {m["grade_id"]: m.get("points", 0) for m in graded if not m.get("solution")}
    return tests, sum(m.get("points", 0) for m in graded)


def _scores(url, students):
    """``{student: total score}`` in the gradebook at ``url`` (None: no submission there)."""
    from nbgrader.api import Gradebook, MissingEntry

    out = {}
    with warnings.catch_warnings(), Gradebook(url, "ml-foundations") as gb:
        warnings.simplefilter("ignore")
        for s in students:
            try:
                out[s] = gb.find_submission(ASSIGNMENT, s).score
            except MissingEntry:
                out[s] = None
    return out


@pytest.mark.slow
def test_a_postgresql_gradebook_that_goes_away_mid_run_loses_nothing_graded(tmp_path, postgres):
    """The PostgreSQL server stops (immediate shutdown) once one student is graded and the next begun.

    The run ends with one readable line; what was graded is in the database when it comes back;
    the rerun grades only the rest.
    """
    import csv
    import subprocess
    import sys
    import time


    course = make_course(tmp_path)
    released = released_notebook(course)
    ref = reference_bodies()
    # the gradebook is configured as the deployment configures it: the grader's own nbgrader_config.py
    config_dir = tmp_path / "jupyter"
    config_dir.mkdir()
    (config_dir / "nbgrader_config.py").write_text(f"c = get_config()\nc.CourseDirectory.db_url = {postgres.url()!r}\n")
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(config_dir))
    students = ["s0_radius_wrong", "s1", "s2", "s3", "s4"]
    submit(course, students[0], fill(released, with_answers(ref, radius_solution=RADIUS_WITHOUT_X0)))
    for s in students[1:]:
        submit(course, s, fill(released, ref))
    # what each should score, from the instructor's notebook: every test's points, less the radius tests' for
    # s0 (the answer graded by hand is left as released: 0)
    points, _ = _test_points(course)
    total = sum(points.values())
    expected = {s: total for s in students}
    expected[students[0]] = total - sum(p for g, p in points.items() if g.startswith("radius-"))
    status_folder = course / "autograded" / "grading-status" / ASSIGNMENT
    cmd = [sys.executable, "-m", "grading", "--course", str(course), "autograde", ASSIGNMENT,
           "--timeout", str(TIMEOUT), "--jobs", "1"]

    def entries():
        return _records(course)

    def graded(state):
        return sorted(s for s, v in state.items() if v.get("status") == "graded" and not v.get("interrupted"))

    status_folder.mkdir(parents=True, exist_ok=True)
    changes = _FolderWatch(status_folder)               # the run replaces a student's record after each step
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 900
        while proc.poll() is None and time.monotonic() < deadline:
            state = entries()
            if graded(state) and any(v.get("interrupted") for v in state.values()):
                break                                           # one graded, the next begun
            changes.wait(timeout=5)                             # until the folder changes (5 s: to see an exit)
        assert proc.poll() is None, "the run ended before the database could be stopped: " + proc.stderr.read()
        stopped = postgres.stop("immediate")
        assert stopped.returncode == 0, stopped.stderr
        out, err = proc.communicate(timeout=600)
    finally:
        changes.close()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    # (the run's progress lines, a log's, come first: the error is one line of its own)
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith(f"{ASSIGNMENT}: ")]
    assert proc.returncode == 2, (out, err)
    assert "Traceback" not in err and len(lines) == 1, err
    place = f"postgresql+psycopg://postgres:***@127.0.0.1:{postgres.port}/gradebook"
    assert lines[0].startswith(f"error: the gradebook ({place}) went away while {ASSIGNMENT} was graded"), err
    assert postgres.password not in err + out
    before = entries()
    kept = graded(before)
    assert kept and len(kept) < len(students), before

    # run again while it is still down: one line, nothing changed
    down = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert down.returncode == 2 and "Traceback" not in down.stderr, down.stderr
    assert down.stderr.strip() == down.stderr.strip().splitlines()[0], down.stderr
    assert f"the gradebook ({place}) does not answer" in down.stderr and "Nothing was graded" in down.stderr
    assert entries() == before

    postgres.start()
    assert _scores(postgres.url(), kept) == {s: expected[s] for s in kept}
    # before the rerun: the one in flight is neither exported nor given feedback, and grading one student works
    begun = sorted(s for s, v in before.items() if v.get("interrupted"))
    assert begun, before
    run = subprocess.run(cmd[:5] + ["grades", ASSIGNMENT], capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    with open(course / f"grades-{ASSIGNMENT}.csv", newline="") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    assert {s: float(rows[s]["score"]) for s in kept} == {s: expected[s] for s in kept}
    assert all(rows[s]["status"] == "not autograded" and rows[s]["score"] == "" for s in set(students) - set(kept))
    run = subprocess.run(cmd[:5] + ["feedback", ASSIGNMENT], capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    assert sorted(p.parent.name for p in (course / "feedback").glob(f"*/{ASSIGNMENT}")) == kept
    run = subprocess.run(cmd + ["--student", kept[0]], capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    assert f"INTERRUPTED EARLIER ({len(begun)})" in run.stdout and begun[0] in run.stdout, run.stdout
    rerun = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert f"this run graded {len(students) - len(kept)} submission(s)" in rerun.stdout, rerun.stdout
    assert f"{len(kept)} unchanged since last graded" in rerun.stdout, rerun.stdout
    assert f"graded {len(students)} of {len(students)} submission(s)" in rerun.stdout, rerun.stdout
    assert _scores(postgres.url(), students) == expected


# -- a TA's round trip: resubmission, one student regraded, their feedback, the export ------------

def _page(path):
    import html
    import re
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", path.read_text())).split())


@pytest.mark.slow
def test_ta_round_trip_regrades_and_makes_feedback_for_one_student_only(tmp_path):
    """make autograde STUDENT= and make feedback STUDENT= touch that student alone; make feedback
    remakes only what was graded since (again, or by hand), FORCE=1 everything; make grades exports it."""
    import csv
    import subprocess

    from labdriver import copy_course

    from grading.autograde import autograde

    course = copy_course(tmp_path / "course")
    released = released_notebook(course)
    ref = reference_bodies()
    submit(course, "alice", fill(released, ref))
    submit(course, "bob", fill(released, with_answers(ref, radius_solution=RADIUS_WITHOUT_X0)))
    submit(course, "carol", fill(released, ref))
    submit(course, "dan", raw="{ not json")
    points, most = _test_points(course)                         # the answers graded by hand are left as released
    total = sum(points.values())
    radius = sum(p for g, p in points.items() if g.startswith("radius-"))
    autograde(course, ASSIGNMENT, overrides=Config({"Execute": {"timeout": TIMEOUT}}), echo=lambda *a: None,
              progress=False)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "MAKE"))}
    env.update(VENV=str(ROOT / ".venv"))

    def make(*args, ok=True):
        run = subprocess.run(["make", "--no-print-directory", *args, f"ASSIGNMENT={ASSIGNMENT}"], cwd=course,
                             env=env, capture_output=True, text=True, timeout=900)
        assert (run.returncode == 0) == ok, run.stdout[-3000:] + run.stderr[-3000:]
        return run.stdout + run.stderr

    pages = {s: course / "feedback" / s / ASSIGNMENT / f"{ASSIGNMENT}.html" for s in ("alice", "bob", "carol")}

    def written():
        return {s: p.stat().st_mtime_ns if p.exists() else None for s, p in pages.items()}

    out = make("feedback")
    assert "feedback made for 3 graded submission(s)" in out and "dan" in out, out
    assert not (course / "feedback" / "dan").exists()
    def headline(score):                                        # the page's first line, nbgrader's template
        return f"{ASSIGNMENT} (Score: {float(score)} / {float(most)})"

    assert headline(total - radius) in _page(pages["bob"])
    first = written()
    out = make("feedback")                                       # nothing graded since: nothing made again
    assert "feedback made for 0 graded submission(s)" in out and "3 unchanged" in out, out
    assert written() == first

    # bob resubmits a corrected radius; the TA regrades bob alone, makes bob's feedback alone, exports
    submit(course, "bob", fill(released, ref))
    out = make("autograde", "STUDENT=bob")
    assert "this run graded 1 submission(s)" in out, out
    out = make("feedback", "STUDENT=bob")
    assert "feedback made for 1 graded submission(s)" in out, out
    now = written()
    assert now["bob"] != first["bob"] and {s: now[s] for s in ("alice", "carol")} == {
        s: first[s] for s in ("alice", "carol")}
    assert headline(total) in _page(pages["bob"])
    make("grades")
    with open(course / f"grades-{ASSIGNMENT}.csv", newline="") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    assert {s: float(rows[s]["score"]) for s in ("alice", "bob", "carol")} == {"alice": total, "bob": total,
                                                                                "carol": total}
    assert rows["dan"]["status"] == "ungraded" and rows["dan"]["score"] == ""

    # a comment given by hand in the Formgrader is graded work too: make feedback remakes carol's page only
    from nbgrader.api import Gradebook

    c = Course(course)
    with warnings.catch_warnings(), Gradebook(c.db_url, c.course_id) as gb:
        warnings.simplefilter("ignore")
        gb.find_comment("radius-solution", ASSIGNMENT, ASSIGNMENT, "carol").manual_comment = "Tidy radius, carol."
        gb.db.commit()
    before = written()
    out = make("feedback")
    assert "feedback made for 1 graded submission(s)" in out and "2 unchanged" in out, out
    after = written()
    assert after["carol"] != before["carol"] and after["alice"] == before["alice"] and after["bob"] == before["bob"]
    assert "Tidy radius, carol." in _page(pages["carol"])

    # a page removed (or changed by hand) is made again; FORCE=1 makes them all
    pages["alice"].unlink()
    out = make("feedback")
    assert "feedback made for 1 graded submission(s)" in out and pages["alice"].is_file(), out
    out = make("feedback", "FORCE=1")
    assert "feedback made for 3 graded submission(s)" in out, out
    assert all(a != b for a, b in zip(written().values(), after.values(), strict=True))

    # bad input: one clear line
    out = make("feedback", "STUDENT=zed", ok=False)
    assert "no graded submission of 'ps1_perceptron' by student 'zed'" in out and "Traceback" not in out, out
    out = make("feedback", "STUDENT=dan", ok=False)
    assert "no feedback for 'dan': the submission of 'ps1_perceptron' is not graded" in out, out
