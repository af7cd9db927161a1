"""Where a class's submissions run: inline, in a process pool or on Dask; a killed worker, a job that fails to
prepare, a bad ``--jobs`` and the progress a log shows."""
import os
import signal

import pytest
from grading_helpers import ASSIGNMENT

from grading import executors


def _square(x):
    return x * x


def _die_once(job):
    """Kill this worker process the first time it sees ``job["marker"]`` missing."""
    if job.get("marker") and not os.path.exists(job["marker"]):
        open(job["marker"], "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return job["n"] * 2


def test_run_jobs_inline_and_pool_give_the_same_results():
    for jobs in (1, 2):
        executor, close, width = executors.make_executor(jobs=jobs)
        got = {}
        try:
            executors.run_jobs(range(7), lambda i: i, lambda i, r, e, got=got: got.__setitem__(i, (r, e)),
                               executor=executor, width=width, work=_square)
        finally:
            close()
        assert got == {i: (i * i, None) for i in range(7)}


def test_a_killed_worker_loses_nothing(tmp_path):
    """SIGKILL to a pool process: the jobs in flight run again on a fresh pool; every result arrives once."""
    executor, close, width = executors.make_executor(jobs=2)
    state = {"close": close}

    def reopen():
        state["close"]()
        ex, state["close"], _ = executors.make_executor(jobs=2)
        return ex

    got = {}

    def finish(i, result, error):
        assert i not in got
        got[i] = (result, error)

    jobs = [{"n": i, "marker": str(tmp_path / "killed") if i == 3 else None} for i in range(8)]
    try:
        executors.run_jobs(range(8), lambda i: jobs[i], finish, executor=executor, width=width, work=_die_once,
                           reopen=reopen)
    finally:
        state["close"]()
    assert (tmp_path / "killed").exists()
    assert got == {i: (2 * i, None) for i in range(8)}


def test_progress_in_a_log_is_a_line_every_few_submissions_or_seconds():
    import io

    clock = [0.0]
    out = io.StringIO()
    with executors.progress_reporter(25, desc="ps1", bar=False, stream=out, every=10, seconds=30) as progress:
        progress.clock = lambda: clock[0]                       # (the reporter's own clock, moved by hand)
        progress.start = progress.last_time = 0.0
        for n in range(1, 26):
            clock[0] += 2 if n != 12 else 100                   # the twelfth submission takes 100 s
            progress.note(f"{n} graded, 0 not graded")
            progress.update(1)
            if n == 12:
                clock[0] += 40                                  # and then nothing for 40 s: the watcher speaks
                progress.poll()
    lines = out.getvalue().splitlines()
    assert lines == ["ps1: 10/25 submissions (10 graded, 0 not graded), 20 s, about 30 s left",
                     "ps1: 12/25 submissions (12 graded, 0 not graded), 2 min, about 2 min left",   # 100 s passed
                     "ps1: 12/25 submissions (12 graded, 0 not graded), 3 min, about 3 min left",   # 40 s silent
                     "ps1: 22/25 submissions (22 graded, 0 not graded), 3 min, about 25 s left",
                     "ps1: 25/25 submissions (25 graded, 0 not graded), 3 min"], lines
    class Terminal(io.StringIO):
        def isatty(self):
            return True
    term = Terminal()
    with executors.progress_reporter(3, desc="ps1", stream=term) as progress:
        progress.update(3)
    assert "3/3 |" in term.getvalue()                           # a terminal gets the bar


def test_a_job_that_fails_to_prepare_is_reported_not_run():
    got = {}

    def prepare(i):
        if i == 2:
            raise ValueError("broken file")
        return i

    executors.run_jobs(range(4), prepare, lambda i, r, e: got.__setitem__(i, (r, repr(e) if e else None)),
                       executor=executors.InlineExecutor(), width=1, work=_square)
    assert got == {0: (0, None), 1: (1, None), 2: (None, "ValueError('broken file')"), 3: (9, None)}


def test_bad_jobs_value_is_refused():
    for bad in (0, -2, 1.5, "4", True):
        with pytest.raises(ValueError, match="jobs must be a positive whole number"):
            executors.make_executor(jobs=bad)
    from grading.__main__ import main
    with pytest.raises(SystemExit):
        main(["autograde", ASSIGNMENT, "--jobs", "many"])


@pytest.mark.slow  # Dask's client tries to connect for its whole 20-s timeout before it gives up
def test_unreachable_dask_scheduler_is_named():
    pytest.importorskip("distributed")
    with pytest.raises(RuntimeError, match=r"cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'"):
        executors.make_executor(scheduler="tcp://127.0.0.1:9")
