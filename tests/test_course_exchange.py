"""The deployment's exchange against a hostile student's entries (deploy/course_exchange.py).

Collect runs here in-process on a real nbgrader course folder and gradebook (SQLite), with
the entries owned by the user running the test, who is the student they name. The same
attacks run on the hub, across real Linux users, in tests/test_deploy.py.
"""
import datetime
import getpass
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "deploy"))
course_exchange = pytest.importorskip("course_exchange")

ME = getpass.getuser()
STAMP = "2026-01-01 00:00:00.000000 UTC"


class Course:
    """An exchange, a course folder and a gradebook; entries are made by ``submit``."""

    def __init__(self, tmp_path, **limits):
        self.exchange = tmp_path / "exchange"
        self.inbound = self.exchange / "course" / "inbound"
        self.inbound.mkdir(parents=True)
        self.root = tmp_path / "course"
        self.root.mkdir()
        self.records = course_exchange.Journal(str(tmp_path / "records.jsonl"))
        self.limits = limits
        self.n = 0

    def entry(self, files, *, record=True, stamp=STAMP):
        """An entry of ``files`` (name -> text, or a callable making the file at a path); recorded as at submit."""
        self.n += 1
        name = f"{ME}+ps1+{stamp}+r{self.n}"
        path = self.inbound / name
        path.mkdir()
        for rel, what in {"timestamp.txt": stamp, "submission_secret.txt": "s" * 32, **files}.items():
            target = path / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            what(target) if callable(what) else target.write_text(what)
        if record:
            fd = os.open(self.inbound, os.O_RDONLY | os.O_DIRECTORY)
            try:
                got = course_exchange.read_entry(fd, name, uid=os.getuid(), max_file_bytes=10**8,
                                                 max_total_bytes=10**8, max_files=1000)
            finally:
                os.close(fd)
            self.records.append(name, ME, datetime.datetime(2026, 1, 1, 0, 0, self.n), got.hexdigest())
        return path

    def collect(self, **options):
        from nbgrader.coursedir import CourseDirectory
        coursedir = CourseDirectory(root=str(self.root), course_id="course", assignment_id="ps1",
                                    db_url=f"sqlite:///{self.root / 'gradebook.db'}", **self.limits)
        collector = course_exchange.OwnerCheckedCollect(coursedir=coursedir, authenticator=None,
                                                        root=str(self.exchange), records_path=self.records.path,
                                                        update=True, **options)
        collector.start()
        return collector

    def collected(self, rel="ps1.ipynb"):
        path = self.root / "submitted" / ME / "ps1" / rel
        return path.read_text() if path.is_file() else None


@pytest.fixture(autouse=True)
def _tools_on_path(monkeypatch):   # nbgrader runs alembic to make a new gradebook
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")


@pytest.fixture
def course(tmp_path):
    return Course(tmp_path)


def _solution(tmp_path):
    secret = tmp_path / "instructor" / "source.ipynb"
    secret.parent.mkdir(exist_ok=True)
    secret.write_text("the reference solution")
    return secret


def test_links_are_left_out_never_followed(course, tmp_path):
    secret = _solution(tmp_path)
    course.entry({"ps1.ipynb": lambda p: p.symlink_to(secret), "data/notes.txt": "mine",
                  "folder": lambda p: p.symlink_to(secret.parent)})
    c = course.collect()
    dest = course.root / "submitted" / ME / "ps1"
    assert (dest / "data" / "notes.txt").read_text() == "mine"
    assert not (dest / "ps1.ipynb").exists() and not (dest / "folder").exists()
    assert all("reference solution" not in p.read_text() for p in dest.rglob("*") if p.is_file())
    assert any("ps1.ipynb left out: a symbolic link" in t for s, t in c.problems if s == ME), c.problems


def test_an_entry_that_is_a_link_is_refused(course, tmp_path):
    secret_entry = tmp_path / "elsewhere"
    secret_entry.mkdir()
    (secret_entry / "ps1.ipynb").write_text("someone else's")
    (course.inbound / f"{ME}+ps1+{STAMP}+link").symlink_to(secret_entry)
    c = course.collect()
    assert course.collected() is None
    assert any("refused" in t for s, t in c.problems), c.problems


def test_a_fifo_neither_blocks_nor_stops_the_collection(course):
    course.entry({"ps1.ipynb": "mine", "pipe": lambda p: os.mkfifo(p)})
    c = course.collect()    # would block for ever if the FIFO were opened for reading
    assert course.collected() == "mine"
    assert any("pipe left out: a FIFO" in t for s, t in c.problems), c.problems


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device file needs root")
def test_a_device_file_is_never_opened(course):
    course.entry({"ps1.ipynb": "mine", "tty": lambda p: os.mknod(p, 0o600 | 0o020000, os.makedev(5, 0))})
    c = course.collect()
    assert course.collected() == "mine"
    assert not (course.root / "submitted" / ME / "ps1" / "tty").exists()
    assert any("tty left out: a device file" in t for s, t in c.problems), c.problems


def test_oversized_files_and_too_many_files_are_left_out_with_a_message(tmp_path):
    course = Course(tmp_path, max_file_size=1, max_dir_size=3)    # kB: 1000 bytes a file, 3000 in all
    course.entry({"ps1.ipynb": "mine", "big.csv": "x" * 1500, **{f"d/{i}.txt": "y" * 900 for i in range(5)}})
    c = course.collect(max_files=4)
    dest = course.root / "submitted" / ME / "ps1"
    assert course.collected() == "mine" and not (dest / "big.csv").exists()
    kept = sorted(p.name for p in (dest / "d").iterdir())
    assert len(kept) <= 2, kept      # 3000 bytes in all: the small files fill what is left
    texts = [t for _, t in c.problems]
    assert any("big.csv left out: 1500 bytes, over the limit of 1000" in t for t in texts), texts
    assert any("in all" in t or "files" in t for t in texts if "d/" in t), texts


def test_a_refused_entry_keeps_the_previous_copy(course):
    course.entry({"ps1.ipynb": "first"})
    course.collect()
    assert course.collected() == "first"
    bad = course.entry({"ps1.ipynb": "second", "pipe": lambda p: os.mkfifo(p)})
    (bad / "submission_secret.txt").unlink()            # not made by nbgrader submit: refused whole
    c = course.collect()
    assert course.collected() == "first", c.problems
    assert any("refused" in t for _, t in c.problems), c.problems


def test_submission_time_is_the_record_not_the_files_times(course):
    path = course.entry({"ps1.ipynb": "on time"}, stamp="2025-01-01 00:00:00.000000 UTC")
    subprocess.run(["chmod", "-R", "g+r", str(path)], check=True)   # an administrator's no-op
    restored = course.inbound.parent / "restored"
    subprocess.run(["cp", "-a", str(course.inbound), str(restored)], check=True)
    shutil.rmtree(course.inbound)
    os.rename(restored, course.inbound)                             # a restore from a copy
    course.collect()
    stamp = (course.root / "submitted" / ME / "ps1" / "timestamp.txt").read_text()
    assert stamp == "2026-01-01 00:00:01.000000 UTC"               # the record's, not the copy's times


def test_contents_changed_after_submit_are_dated_by_the_collection(course):
    path = course.entry({"ps1.ipynb": "submitted"})
    (path / "ps1.ipynb").write_text("changed after the deadline")
    before = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    c = course.collect()
    stamp = (course.root / "submitted" / ME / "ps1" / "timestamp.txt").read_text()
    assert datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S.%f UTC") >= before - datetime.timedelta(seconds=1)
    assert any("matches no record" in t for _, t in c.problems), c.problems


def test_a_quarantined_entry_is_skipped(course):
    course.entry({"ps1.ipynb": "kept"})
    bad = course.entry({"ps1.ipynb": "quarantined"})
    (course.root / course_exchange.QUARANTINE_FILE).write_text(bad.name + "\n")
    c = course.collect()
    assert course.collected() == "kept"
    assert any("quarantined" in t for _, t in c.problems)


@pytest.mark.slow
def test_the_flipping_race_never_collects_the_link_target(course, tmp_path):
    """A process swaps her notebook between her own file and a link to the solution as fast as it can."""
    secret = _solution(tmp_path)
    entry = course.entry({"ps1.ipynb": "her own work"})
    mine = entry / "own.tmp"
    mine.write_text("her own work")
    stop = tmp_path / "stop"
    script = ("import os, sys\n"
              "d, secret, stop = sys.argv[1:4]\n"
              "nb, own, link = d + '/ps1.ipynb', d + '/own.tmp', d + '/link.tmp'\n"
              "flips = 0\n"
              "while not os.path.exists(stop):\n"
              "    os.symlink(secret, link); os.rename(link, nb)\n"
              "    os.link(own, link); os.rename(link, nb)\n"
              "    flips += 2\n"
              "print(flips)\n")
    collections, got = 0, {}
    attacker = subprocess.Popen([sys.executable, "-c", script, str(entry), str(secret), str(stop)],
                                stdout=subprocess.PIPE, text=True)
    try:
        while collections < 150:
            course.collect()
            collections += 1
            text = course.collected()
            got[text] = got.get(text, 0) + 1
    finally:
        stop.touch()
        flips = int(attacker.communicate(timeout=60)[0] or 0)
    print(f"{flips} flips, {collections} collections: {json.dumps(got)}")
    assert flips > 1000 and collections >= 20, (flips, collections)
    assert "the reference solution" not in got, got
    assert got.get("her own work"), got
