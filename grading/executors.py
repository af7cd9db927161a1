"""Where submissions are graded: an executor in the ``concurrent.futures`` style, and the run's progress.

Each submission's student code runs through :func:`grading.jobs.execute_job` — plain data in,
plain data out — on an executor: one process per core by default (``JOBS=<n>``), the grader
itself for ``JOBS=1``, or a Dask cluster (``DASK_SCHEDULER=tcp://host:port``,
:func:`make_executor`). Each run is its own sandboxed process on whichever machine.
:func:`run_jobs` keeps enough jobs in flight to keep every worker busy and few enough that an
interruption loses little, and hands each result back, in the caller's process, as it
arrives: there nbgrader's bookkeeping runs for one submission at a time.
"""
import concurrent.futures as cf
import contextlib
import multiprocessing
import os
import sys
import threading
import time
from concurrent.futures.process import BrokenProcessPool

__all__ = ["InlineExecutor", "JobFailed", "ProgressLog", "default_jobs", "make_executor", "progress_reporter",
           "run_jobs", "timed"]


class JobFailed(RuntimeError):
    """A grading job did not come back (its process was killed, its Dask worker lost, ...).

    Not the submission's fault: the submission is retried by the next run.
    """


def default_jobs():
    """Processes for a local run: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover
        return max(1, os.cpu_count() or 1)


class InlineExecutor(cf.Executor):
    """Runs each job at once in the calling process (``JOBS=1``), behind the same interface."""

    def submit(self, fn, /, *args, **kwargs):
        future = cf.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            future.set_exception(exc)
        return future


def make_executor(*, jobs=None, scheduler=None):
    """An executor for the grading jobs (:func:`grading.jobs.execute_job`) and a function that closes it.

    Parameters
    ----------
    jobs : int, optional
        Local processes (default: one per core). ``1`` runs every job in this process.
    scheduler : str, optional
        Address of a Dask distributed scheduler (``tcp://host:port``): the jobs run on its
        workers, which need this course's environment (same lock) and bubblewrap.

    Returns
    -------
    executor : concurrent.futures.Executor
    close : callable
    width : int
        How many jobs keep it busy (local processes, or the Dask cluster's threads).
    """
    if scheduler:
        try:
            from distributed import Client
        except ImportError:
            raise RuntimeError("DASK_SCHEDULER is set but Dask is not installed here: `make grading-worker` (on a "
                               "grading machine) or `sh scripts/ensure-venv.sh test` installs it (the dask extra)") from None
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError) as exc:
            raise RuntimeError(f"cannot reach the Dask scheduler at {scheduler!r} (DASK_SCHEDULER): {exc}") from None
        width = max(1, sum(client.nthreads().values()))
        return client.get_executor(pure=False), client.close, width
    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1):
        raise ValueError(f"jobs must be a positive whole number of processes, got {jobs!r}")
    jobs = jobs or default_jobs()
    if jobs == 1:
        return InlineExecutor(), lambda: None, 1
    pool = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"))

    def close():
        # the jobs still running are given up (the next run grades them): stop their processes
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in processes:
            with contextlib.suppress(Exception):
                proc.terminate()
        for proc in processes:
            with contextlib.suppress(Exception):
                proc.join(timeout=30)

    return pool, close, jobs


def run_jobs(items, prepare, finish, *, executor, width, work, progress=None, reopen=None):
    """Grade ``items`` on ``executor``, finishing each in this process as its result arrives.

    Parameters
    ----------
    items : list
        What to grade (student ids).
    prepare : callable
        ``prepare(item) -> job`` in this process (reads the submission); an exception here
        is handed to ``finish`` without running anything.
    finish : callable
        ``finish(item, result, error)`` in this process, one at a time, as results arrive
        (``error`` is the exception of a job that failed, else None).
    executor : concurrent.futures.Executor
    width : int
        Jobs kept in flight: enough to keep every worker busy, few enough that an
        interruption loses little.
    work : callable
        The picklable job function.
    progress : tqdm.tqdm, optional
        Updated once per finished item.
    reopen : callable, optional
        ``reopen() -> executor`` after a local worker process was killed: the jobs in flight
        are run once more on a fresh pool; a job that breaks it twice fails.
    """
    items = list(items)
    queue = list(reversed(items))
    inflight = {}
    broke = {}

    def feed():
        while queue and len(inflight) < 2 * width:
            item = queue.pop()
            try:
                job = prepare(item)
            except Exception as exc:  # the submission's own problem, reported by finish
                finish(item, None, exc)
                _tick(progress)
                continue
            inflight[executor.submit(work, job)] = (item, job)

    feed()
    while inflight:
        done, _ = cf.wait(list(inflight), return_when=cf.FIRST_COMPLETED)
        pool_broken = False
        for future in done:
            item, job = inflight.pop(future)
            try:
                result, error = future.result(), None
            except BrokenProcessPool as exc:
                pool_broken = True
                broke[item] = broke.get(item, 0) + 1
                if broke[item] < 2 and reopen is not None:
                    queue.append(item)
                    continue
                result, error = None, JobFailed(f"the grading process was killed ({exc})")
            except Exception as exc:  # e.g. a Dask worker lost twice (KilledWorker)
                result, error = None, JobFailed(f"{type(exc).__name__}: {exc}")
            finish(item, result, error)
            _tick(progress)
        if pool_broken and reopen is not None:
            for future, (item, _) in list(inflight.items()):
                inflight.pop(future)
                queue.append(item)
            executor = reopen()
        feed()


def _tick(progress):
    if progress is not None:
        progress.update(1)


class _Bar:
    """A tqdm progress bar on a terminal (counts, rate and ETA)."""

    def __init__(self, total, desc, stream):
        from tqdm import tqdm
        # every count is drawn (miniters=1, mininterval=0): a submission takes seconds, and a count the bar
        # skipped would leave the instructor reading a number the run has passed
        self.bar = tqdm(total=total, desc=desc, unit="submission", file=stream, dynamic_ncols=True,
                        miniters=1, mininterval=0,
                        bar_format="{desc}: {n_fmt}/{total_fmt} |{bar}| {elapsed}<{remaining}, {rate_fmt}{postfix}")

    def update(self, n=1):
        self.bar.update(n)

    def note(self, text):
        self.bar.set_postfix_str(text, refresh=False)

    def close(self):
        self.bar.close()


class ProgressLog:
    """Progress for a log file: a line every ``every`` submissions or ``seconds`` seconds, whichever comes first.

    Each line says how many submissions are done out of how many, what the run has noted
    (``3 graded, 1 not graded``), the time spent and an estimate of the time left, e.g.
    ``ps1_perceptron: 20/74 submissions (19 graded, 1 not graded), 54 s, about 2 min left``.
    A line also comes when ``seconds`` pass without one (a slow submission), and at the end.
    """

    def __init__(self, total, desc, stream, *, every=10, seconds=30.0, clock=time.monotonic):
        self.total, self.desc, self.stream, self.every, self.seconds, self.clock = total, desc, stream, every, seconds, clock
        self.done, self.text, self.start = 0, "", clock()
        self.last_done, self.last_time = 0, self.start
        self.lock, self.stopped = threading.Lock(), threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _line(self):
        elapsed = self.clock() - self.start
        line = f"{self.desc}: {self.done}/{self.total} submissions" + (f" ({self.text})" if self.text else "")
        line += f", {_duration(elapsed)}"
        if 0 < self.done < self.total:
            line += f", about {_duration(elapsed / self.done * (self.total - self.done))} left"
        print(line, file=self.stream, flush=True)
        self.last_done, self.last_time = self.done, self.clock()

    def _watch(self):
        while not self.stopped.wait(min(self.seconds, 5.0)):
            self.poll()

    def poll(self):
        """Say where the run is if ``seconds`` passed since the last line (the watcher calls it every few seconds)."""
        with self.lock:
            if self.clock() - self.last_time >= self.seconds:
                self._line()

    def update(self, n=1):
        with self.lock:
            self.done += n
            if self.done - self.last_done >= self.every or self.done >= self.total \
                    or self.clock() - self.last_time >= self.seconds:
                self._line()

    def note(self, text):
        with self.lock:
            self.text = text

    def close(self):
        self.stopped.set()
        self.thread.join(timeout=10)
        with self.lock:
            if self.done != self.last_done:
                self._line()


def _duration(seconds):
    """``54 s``, ``3 min``, ``2.5 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@contextlib.contextmanager
def progress_reporter(total, *, desc, bar=None, stream=None, every=10, seconds=30.0):
    """Progress of a run on ``stream`` (stderr): a bar on a terminal, lines for a log.

    ``bar``: True for the bar, False for lines (every ``every`` submissions or ``seconds``
    seconds), None to choose by whether ``stream`` is a terminal. Yields an object with
    ``update(n)`` and ``note(text)`` (None when there is nothing to grade).
    """
    stream = stream if stream is not None else sys.stderr
    if total == 0:
        yield None
        return
    if bar is None:
        bar = hasattr(stream, "isatty") and stream.isatty()
    reporter = _Bar(total, desc, stream) if bar else ProgressLog(total, desc, stream, every=every, seconds=seconds)
    try:
        yield reporter
    finally:
        reporter.close()


def timed():
    """``(wall seconds, CPU seconds of this process and its finished children)`` now."""
    t = os.times()
    return time.monotonic(), t.user + t.system + t.children_user + t.children_system
