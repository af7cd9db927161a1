"""Grading a class: what to grade, where it runs, and one writer of the gradebook.

``make autograde`` (:func:`grading.autograde.autograde`) grades through this module:

* **What.** A submission is graded again only when its content changed since it was last
  graded — a SHA-256 over its files' names and bytes (:func:`submission_digest`; timestamps,
  which a student controls, play no part) — or when the assignment's instructor version or
  the time limits changed (:func:`source_digest`). ``STUDENT=<id>`` grades one student,
  ``FORCE=1`` everyone. nbgrader keeps manual scores, extra credit and comments when it
  regrades; a cell with such manual work whose exercise changed in a resubmission is
  listed for review (:func:`cells_to_review`).
* **Where.** Each submission's student code runs through :func:`execute_job` — plain data
  in (the sanitized notebook, the submission's files as bytes, the trusted test cells),
  plain data out (the executed notebook and a report) — on an executor in the
  ``concurrent.futures`` style: one process per core by default (``JOBS=<n>``), the grader
  itself for ``JOBS=1``, or a Dask cluster (``DASK_SCHEDULER=tcp://host:port``,
  :func:`make_executor`). Each run is its own sandboxed process on whichever machine.
* **One writer.** Results come back to the instructor's process, which alone runs nbgrader's
  bookkeeping (scores into the gradebook, late penalties, ``autograded/``) for one
  submission at a time, as results arrive, and records it as done. Interrupting the run
  (Ctrl-C, a killed worker, the database going away) loses only the submissions in
  flight; the next run grades what is left.
"""
import concurrent.futures as cf
import contextlib
import hashlib
import json
import multiprocessing
import os
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from . import gradebook as _gbk

__all__ = [
    "GradebookGone",
    "JobFailed",
    "InlineExecutor",
    "cell_digests",
    "cells_to_review",
    "default_jobs",
    "execute_job",
    "make_executor",
    "no_job",
    "plan",
    "run_jobs",
    "source_digest",
    "submission_digest",
]


class GradebookGone(RuntimeError):
    """The gradebook database stopped answering during a run."""


class JobFailed(RuntimeError):
    """A grading job did not come back (its process was killed, its Dask worker lost, ...).

    Not the submission's fault: the submission is retried by the next run.
    """


# -- what to grade -----------------------------------------------------------------------
def submission_digest(folder):
    """SHA-256 of a submission folder's content: every file's relative path and bytes.

    Links are recorded by their target, never followed; modification times play no part, nor
    does nbgrader's ``timestamp.txt`` at the top (which the student's code never sees either,
    :data:`grading.engine.NBGRADER_FILES`). Every path and content is hashed with its length
    first, so that two different sets of files never give the same digest: without the
    lengths, the bytes ``a`` = ``X\\0F\\0b\\0Y`` would hash like the two files ``a`` = ``X``
    and ``b`` = ``Y``, and a resubmission could draw the hidden tests' data of an earlier one
    while its code, seeing other files, behaves differently.

    Examples
    --------
    >>> import tempfile, os, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.ipynb").write_text("{}")
    >>> first = submission_digest(d)
    >>> os.utime(d / "a.ipynb", (0, 0))                 # touching the file changes nothing
    >>> submission_digest(d) == first
    True
    >>> _ = (d / "a.ipynb").write_text("{ }")
    >>> submission_digest(d) == first
    False
    >>> _ = (d / "a.ipynb").write_bytes(b"{}\\0F\\0b\\0{}")  # one file holding what two would hash as
    >>> one = submission_digest(d)
    >>> _ = (d / "a.ipynb").write_bytes(b"{}"); _ = (d / "b").write_bytes(b"{}")
    >>> submission_digest(d) == one
    False
    """
    from .engine import NBGRADER_FILES

    folder = Path(folder)
    h = hashlib.sha256(b"submission digest 2\0")

    def field(data):
        h.update(len(data).to_bytes(8, "big") + data)

    if folder.is_symlink():
        h.update(b"link")
        field(os.readlink(folder).encode("utf-8", "surrogateescape"))
        return h.hexdigest()
    for here, dirs, files in os.walk(folder, followlinks=False):
        dirs.sort()
        for name in sorted(files + [d for d in dirs if os.path.islink(os.path.join(here, d))]):
            path = os.path.join(here, name)
            rel = os.path.relpath(path, folder).encode("utf-8", "surrogateescape")
            if os.path.islink(path):
                h.update(b"L")
                field(rel)
                field(os.readlink(path).encode("utf-8", "surrogateescape"))
                continue
            if name in NBGRADER_FILES and here == str(folder):
                continue                     # written by nbgrader collect, not the student's work
            h.update(b"F")
            field(rel)
            size, inner = 0, hashlib.sha256()
            try:
                with open(path, "rb") as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        inner.update(block)
                        size += len(block)
                h.update(b"R" + size.to_bytes(8, "big") + inner.digest())
            except OSError as exc:
                h.update(b"U" + int(exc.errno or 0).to_bytes(8, "big"))
    return h.hexdigest()


def source_digest(course, assignment, settings=None):
    """SHA-256 of the instructor's version of ``assignment`` (``source/``) and the grading ``settings``.

    When it changes (a test or a time limit was edited), every submission is graded again.
    """
    h = hashlib.sha256(submission_digest(course.source_dir / assignment).encode())
    h.update(json.dumps(settings or {}, sort_keys=True, default=_setting_text).encode())
    return h.hexdigest()


def _setting_text(value):
    """A setting as text that is the same in every run: a function by its name (its address changes)."""
    if callable(value):
        return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', repr(value))}"
    return str(value)


def cell_digests(folder, notebooks):
    """``{notebook: {grade_id: sha256 of the cell's source}}`` of a submission (unreadable -> ``{}``)."""
    out = {}
    for name in notebooks:
        path = Path(folder) / f"{name}.ipynb"
        cells = {}
        try:
            if path.is_symlink() or path.stat().st_size > 64 * 1024**2:
                raise ValueError
            nb = json.loads(path.read_text())
            for cell in nb.get("cells", []):
                gid = ((cell.get("metadata") or {}).get("nbgrader") or {}).get("grade_id")
                if isinstance(gid, str):
                    src = cell.get("source", "")
                    src = "".join(src) if isinstance(src, list) else str(src)
                    cells[gid] = hashlib.sha256(src.encode("utf-8", "surrogateescape")).hexdigest()
        except (OSError, ValueError, AttributeError, TypeError):
            cells = {}
        out[name] = cells
    return out


def plan(students, status, digests, source, *, student=None, force=False):
    """Split ``students`` into those to grade and those left as they are.

    Parameters
    ----------
    students : list of str
        Students with a submission folder.
    status : dict
        The recorded state of the last runs, ``{student: {"digest", "source", ...}}``.
    digests : dict
        ``{student: submission_digest}`` now.
    source : str
        :func:`source_digest` now.
    student : str, optional
        Grade only this student (whatever changed).
    force : bool
        Grade everyone.

    Returns
    -------
    todo, unchanged : list of str

    Examples
    --------
    >>> plan(["a", "b", "c"], {"a": {"digest": "1", "source": "s"}, "b": {"digest": "2", "source": "s"}},
    ...      {"a": "1", "b": "9", "c": "3"}, "s")
    (['b', 'c'], ['a'])
    >>> plan(["a", "b"], {"a": {"digest": "1", "source": "s"}}, {"a": "1", "b": "2"}, "s", student="a")
    (['a'], [])
    """
    if student is not None:
        return [s for s in students if s == student], []
    todo, unchanged = [], []
    for s in students:
        old = status.get(s) or {}
        same = old.get("digest") == digests.get(s) and old.get("source") == source and not old.get("interrupted")
        (unchanged if same and not force else todo).append(s)
    return todo, unchanged


def cells_to_review(manual, old_cells, new_cells):
    """Grade ids with manual work (score, extra credit, comment) whose exercise changed since.

    A cell is flagged when its own source changed, or any cell of the same exercise (same
    ``grade_id`` prefix before the first ``-``) did: a manual score on a test cell is about
    the answer cells it tests.

    Examples
    --------
    >>> cells_to_review({"pla-answer", "radius-x"}, {"nb": {"pla-answer": "1", "pla-t": "2", "radius-x": "3"}},
    ...                 {"nb": {"pla-answer": "9", "pla-t": "2", "radius-x": "3"}})
    ['pla-answer']
    """
    from .classrun import exercise_of

    changed = set()
    for nb in set(old_cells) | set(new_cells):
        a, b = old_cells.get(nb, {}), new_cells.get(nb, {})
        changed |= {exercise_of(g) for g in set(a) | set(b) if a.get(g) != b.get(g)}
    return sorted(g for g in manual if exercise_of(g) in changed)


# -- where it runs ---------------------------------------------------------------------------
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
    """An executor for :func:`execute_job` and a function that closes it.

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


def execute_job(job):
    """Run one submission's notebooks through the course's engine: plain data in, plain data out.

    ``job`` is ``{"notebooks": {name: {"notebook": dict, "arguments": dict}}}``: the sanitized
    notebook and the keyword arguments of :func:`grading.engine.execute_submission` (the
    submission's files as bytes, the trusted cells, the time limits; see :func:`prepare_job`).
    Returns ``{name: {"notebook": dict, "report": dict}}``. Runs on any worker: it reads
    and writes no gradebook and no course folder.
    """
    from .engine import execute_submission

    out = {}
    for name, spec in job["notebooks"].items():
        executed, report = execute_submission(spec["notebook"], **spec["arguments"])
        out[name] = {"notebook": json.loads(json.dumps(executed)), "report": report.to_dict()}
    return out


def no_job(job):
    """The job of a run whose execution happens while nbgrader's pipeline runs (no engine to hand out)."""
    return


def run_jobs(items, prepare, finish, *, executor, width, work=execute_job, progress=None, reopen=None):
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
            except Exception as exc:  # noqa: BLE001 - the submission's own problem, reported by finish
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
            except Exception as exc:  # noqa: BLE001 - e.g. a Dask worker lost twice (KilledWorker)
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
        self.bar = tqdm(total=total, desc=desc, unit="submission", file=stream, dynamic_ncols=True,
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
        import threading

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


# -- the class run: nbgrader's bookkeeping in this process, execution anywhere ---------------
_RESULTS = {}        # (student, notebook) -> {"notebook", "report"} or an exception, for PrecomputedExecute
_PREPARED = {}       # (student, notebook) -> the sanitized notebook its job carried, for PreparedSanitize


ENGINE_STEPS = ("grading.preprocessors.CourseExecute",)


def _step_name(p):
    return p if isinstance(p, str) else f"{p.__module__}.{p.__qualname__}"


def engine_step(cfg):
    """The name of the autograde step of ``cfg`` that executes with the course's engine (None when none does)."""
    names = [_step_name(p) for p in cfg.get("Autograde", {}).get("autograde_preprocessors", [])]
    return next((n for n in names if n in ENGINE_STEPS), None)


def engine_in(cfg):
    """Whether the autograde pipeline of ``cfg`` executes with the course's engine (so jobs can run elsewhere)."""
    return engine_step(cfg) is not None


def _resolve(p):
    from traitlets.utils.importstring import import_item
    return import_item(p) if isinstance(p, str) else p


def _precomputed_execute(step):
    """nbgrader preprocessor that takes the executed notebook from a job run elsewhere.

    It stands where the course's engine step stands in the autograde pipeline, and does
    what it does with the result (an ungraded report stops the notebook); a notebook
    without a result is executed here by the engine itself.
    """
    base = _resolve(step)

    class PrecomputedExecute(base):
        def preprocess(self, nb, resources):
            from .engine import KernelDied

            info = resources.get("nbgrader", {})
            key = (info.get("student"), info.get("notebook"))
            if key not in _RESULTS:
                return super().preprocess(nb, resources)
            result = _RESULTS[key]
            if isinstance(result, BaseException):
                raise KernelDied(
                    f"the grading job did not come back ({result}); it is graded again by the next run"[:300])
            report = result["report"]
            for note in report.get("notes", []):
                self.log.warning("%s: %s", key[0], note)
            if report["status"] != "graded":
                raise KernelDied(report["reason"])
            from nbformat import from_dict
            nb.cells = from_dict(result["notebook"]).cells
            resources.setdefault("grading", {})[key[1]] = report
            return nb, resources

    PrecomputedExecute.__module__ = __name__
    return PrecomputedExecute


def _sanitize_steps(cfg):
    """nbgrader's sanitize preprocessors under ``cfg`` (nbgrader's own list when it sets none)."""
    steps = cfg.get("Autograde", {}).get("sanitize_preprocessors")
    if steps is None:
        from nbgrader.converters import Autograde
        steps = Autograde.class_traits()["sanitize_preprocessors"].default()
    return list(steps)


def _prepared_sanitize(steps):
    """nbgrader preprocessor that stands for the sanitize ``steps``, whose output the job already holds.

    :func:`prepare_job` ran them to make the job; the notebook it sent is taken as it was
    (the executed cells replace its cells later), so the bookkeeping does not read and
    sanitize the submission a second time. A notebook without a job is sanitized here.
    """
    from nbgrader.preprocessors import NbGraderPreprocessor

    class PreparedSanitize(NbGraderPreprocessor):
        def preprocess(self, nb, resources):
            from nbformat import from_dict

            info = resources.get("nbgrader", {})
            prepared = _PREPARED.get((info.get("student"), info.get("notebook")))
            if prepared is not None:
                return from_dict(json.loads(json.dumps(prepared))), resources
            for p in steps:
                nb, resources = _resolve(p)(config=self.config).preprocess(nb, resources)
            return nb, resources

    PreparedSanitize.__module__ = __name__
    return PreparedSanitize


def prepare_job(cfg, course, assignment, student, notebooks):
    """The plain-data job of one submission: sanitized as nbgrader's autograde sanitizes it.

    Runs in the instructor's process (it reads the gradebook): nbgrader's sanitize steps and
    the autograde steps before the engine's, then the engine step's own arguments
    (:meth:`grading.preprocessors.CourseExecute.arguments`: trusted cells, withheld
    functions, time limits) with the submission's files read as bytes (links never followed).
    """
    import nbformat

    from .engine import read_files
    from .preprocessors import check_no_links, submission_folder

    step = engine_step(cfg)
    folder = submission_folder(cfg, assignment, student)
    check_no_links(folder)
    files, _ = read_files(folder)
    section = cfg.get("Autograde", {})
    steps = _sanitize_steps(cfg)
    for p in section.get("autograde_preprocessors", []):
        if _step_name(p) == step:
            break
        steps.append(p)
    execute = _resolve(step)(config=cfg)
    job = {"notebooks": {}}
    for name in notebooks:
        path = folder / f"{name}.ipynb"
        check_no_links(folder, path)
        nb = nbformat.read(str(path), as_version=4)
        resources = {"nbgrader": {"db_url": course.db_url, "assignment": assignment, "notebook": name,
                                  "student": student}, "metadata": {"path": str(folder)}}
        for p in steps:
            nb, resources = _resolve(p)(config=cfg).preprocess(nb, resources)
        arguments = dict(execute.arguments(resources), files=files)
        job["notebooks"][name] = {"notebook": json.loads(json.dumps(nb)), "arguments": arguments}
    return job


def with_precomputed(cfg):
    """A copy of ``cfg`` whose autograde pipeline takes executed notebooks from finished jobs."""
    import copy

    out = copy.deepcopy(cfg)            # (Config.merge would share the sections with cfg)
    step = engine_step(cfg)
    steps = [_precomputed_execute(step) if _step_name(p) == step else p for p in cfg.Autograde.autograde_preprocessors]
    out.Autograde.autograde_preprocessors = steps
    out.Autograde.sanitize_preprocessors = [_prepared_sanitize(_sanitize_steps(cfg))]
    return out


# (the gradebook's door is grading.gradebook; these names stay for the callers that used them here)
gradebook_place = _gbk.place
gradebook_problem = _gbk.problem
database_error_line = _gbk.database_error_line
is_database_error = _gbk.is_database_error
gradebook_alive = _gbk.alive


def manual_work(db_url, course_id, assignment, student):
    """Grade ids of ``student``'s cells with a manual score, extra credit or a grader's comment."""
    from nbgrader.api import Gradebook

    with _gbk.quiet(), Gradebook(db_url, course_id) as gb:
        return {g for g, m in _gbk.manual_marks(gb, assignment, student).items() if m.work is not None}
