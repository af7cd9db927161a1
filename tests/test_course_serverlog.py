"""The keeper of each user's server's log (deploy/course_serverlog.py); the hub's use of it is in tests/test_deploy.py.

The keeper reads what a server and its kernels print from a pipe and keeps the latest part of it in
NAME.log and NAME.log.1, within a bound: it never makes a writer wait for more than a write, never
fails a write, and ends when the writers are gone.
"""
import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
KEEPER = ROOT / "deploy" / "course_serverlog.py"
sys.path.insert(0, str(ROOT / "deploy"))
course_serverlog = pytest.importorskip("course_serverlog")
BoundedLog, NOTE_MAX = course_serverlog.BoundedLog, course_serverlog.NOTE_MAX
NOTE = re.compile(rb"\[[^\[\]\n]* log keeper: [^\[\]\n]*\]\n")   # a line of the keeper's own


def _files(path):
    return [Path(str(path) + ".1").read_bytes() if Path(str(path) + ".1").exists() else b"",
            path.read_bytes() if path.exists() else b""]


def _keeper(path, max_bytes):
    """The keeper as the hub starts it: the interpreter with no site packages, reading its standard input."""
    return subprocess.Popen([sys.executable, "-I", "-S", str(KEEPER), str(path), str(max_bytes)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _lines(n, tag):
    return b"".join(b"%s %07d %s\n" % (tag, i, b"." * 40) for i in range(n))


def test_a_flood_of_three_times_the_bound_leaves_the_latest_output_within_it(tmp_path):
    log, bound = tmp_path / "eve.log", 1 << 20
    flood = _lines(3 * bound // 56 + 1, b"flood")          # 56 bytes a line: just over 3 MiB
    keeper = _keeper(log, bound)
    keeper.stdin.write(flood + b"the last line\n")         # blocks only while the keeper reads
    keeper.stdin.close()
    assert keeper.wait(timeout=120) == 0, keeper.stderr.read()
    older, current = _files(log)
    assert len(older) <= bound // 2 and len(current) <= bound // 2
    assert current.endswith(b"the last line\n")
    assert current.startswith(b"[") and b"log keeper: earlier output in eve.log.1" in current.split(b"\n")[0]
    kept = NOTE.sub(b"", older + current)
    assert (flood + b"the last line\n").endswith(kept)      # the latest output, in order, nothing else
    assert len(kept) >= bound // 2 - 2 * NOTE_MAX
    assert log.stat().st_mode & 0o777 == 0o600


def test_logs_over_the_bound_when_the_keeper_starts_are_cut_to_their_last_lines(tmp_path):
    log, bound = tmp_path / "ada.log", 1 << 20
    log.write_bytes(_lines(40000, b"old"))                  # an earlier deployment's 2.2 MB log
    Path(str(log) + ".1").write_bytes(_lines(30000, b"older"))
    keeper = _keeper(log, bound)
    keeper.stdin.write(b"a new session\n")
    keeper.stdin.close()
    assert keeper.wait(timeout=60) == 0
    older, current = _files(log)
    assert len(older) + len(current) <= bound
    for text in (older, current):                           # whole lines only, after the keeper's own
        assert re.fullmatch(rb"(\[[^\n]* log keeper: [^\n]*\]\n)*((old|older) \d{7} \.{40}\n)*(a new session\n)?",
                            text), text[:300]
    kept = NOTE.sub(b"", older + current)
    assert kept.endswith(b"a new session\n") and b"earlier bytes cut" in older + current
    numbers = [int(n) for n in re.findall(rb"^old (\d{7})", kept, re.MULTILINE)]
    assert numbers == list(range(40000 - len(numbers), 40000)) and len(numbers) > 5000   # its last lines, in order


def test_a_write_the_disk_refuses_is_dropped_then_counted_in_the_log(tmp_path):
    folder = tmp_path / "users"
    folder.mkdir()
    log = BoundedLog(str(folder / "eve.log"), 1 << 20)
    log.write(b"before\n")
    log.close()
    for p in folder.iterdir():
        p.unlink()
    folder.rmdir()                                          # the folder gone: nothing can be written
    log.write(b"x" * 1000)                                  # never raises
    log.write(b"y" * 234)
    folder.mkdir()
    log.write(b"after\n")
    log.close()
    text = (folder / "eve.log").read_bytes()
    assert re.fullmatch(rb"\[[^\n]* log keeper: 1234 bytes dropped \(No such file or directory\)\]\nafter\n", text), text


def test_one_write_larger_than_half_the_bound_keeps_its_end(tmp_path):
    log = BoundedLog(str(tmp_path / "eve.log"), 1 << 20)
    log.write(b"a" * 100 + b"z" * (1 << 20))
    log.close()
    older, current = _files(tmp_path / "eve.log")
    assert len(older) + len(current) <= 1 << 20 and b"a" not in NOTE.sub(b"", older + current)
    assert re.search(rb"log keeper: \d+ bytes dropped \(one write larger than half the bound\)", current)
    assert current.endswith(b"z" * 1000)


def test_the_keeper_outlives_the_signals_of_a_restart_and_ends_with_its_writers(tmp_path):
    log = tmp_path / "ada.log"
    keeper = _keeper(log, 1 << 20)
    # four times a pipe's buffer: the write returns only once the keeper has read from it, so it is in
    # its reading loop and its signals are set (no waiting on the clock)
    ready = _lines(4 * 65536 // 56 + 1, b"ready")
    keeper.stdin.write(ready)
    keeper.stdin.flush()
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        os.kill(keeper.pid, sig)
    keeper.stdin.write(b"still kept\n")                     # (a keeper the signals stopped: a broken pipe)
    keeper.stdin.close()                                    # the server and its kernels are gone
    assert keeper.wait(timeout=60) == 0                     # it ended of itself, not by a signal
    assert b"".join(_files(log)).endswith(ready + b"still kept\n")


def test_a_bound_too_small_for_the_keepers_own_lines_is_refused(tmp_path):
    with pytest.raises(ValueError, match="max_bytes: expected at least"):
        BoundedLog(str(tmp_path / "x.log"), 1000)
    p = subprocess.run([sys.executable, str(KEEPER), str(tmp_path / "x.log"), "20MiB"], capture_output=True, text=True)
    assert p.returncode == 2 and "usage: course_serverlog.py PATH MAX_BYTES" in p.stderr


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(1, 40000), min_size=1, max_size=40), bound=st.sampled_from([4096, 10000, 65536]))
def test_any_writes_keep_the_bound_and_the_latest_output_in_order(tmp_path_factory, sizes, bound):
    folder = tmp_path_factory.mktemp("logs")
    log = BoundedLog(str(folder / "s.log"), bound)
    rng, stream = random.Random(len(sizes)), bytearray()
    for size in sizes:                                      # random lines (no brackets): order is checkable
        data = bytes(rng.choices(b"abcdefghijklmnopqrstuvwxyz0123456789 \n", k=size))
        log.write(data)
        stream += data
        older, current = _files(folder / "s.log")
        assert len(older) <= bound // 2 and len(current) <= bound // 2
    log.close()
    kept = NOTE.sub(b"", older + current)
    latest = min(len(stream), bound // 2 - 3 * NOTE_MAX)
    assert kept.endswith(bytes(stream[len(stream) - latest:]))
