"""The grading engine: execute one submission, plain data in, plain data out.

:func:`execute_submission` is the one way the course runs a student's notebook, whoever
asks: nbgrader's autograde (through :class:`grading.preprocessors.CourseExecute`, so
``nbgrader autograde``, the Formgrader's button, ``make autograde`` and ``python -m grading
autograde`` alike) and the students' self-check (``make check``, with the notebook's visible
tests as its trusted cells). It takes and returns only picklable data and never touches the
gradebook, so it can run in a process pool or on a Dask worker while only the instructor's
process writes grades.

How a submission runs: the student's cells run in notebook order in a sandboxed worker
process (:mod:`grading.worker`, :mod:`grading.sandbox`); each trusted test cell runs here,
in the grader (:mod:`grading.judge`), calling the student's functions over a bounded channel
(:mod:`grading.channel`, :mod:`grading.wire`). Every failure is a failure of one cell:

* a cell that runs past its timeout, whose process dies (``os._exit``, memory, a crash),
  that breaks the channel (a forged, malformed or oversized message) or that fills the
  scratch space beyond its number of files (counted by the grader) scores 0; the worker
  is started again, the cells above (and the definitions of the stopped cell itself) are
  replayed, and grading goes on with the next cell;
* when the submission's wall-clock budget (``submission_timeout``) is spent, the cells left
  score 0 without running;
* only a submission whose process cannot be started at all is *ungraded*.
"""
import ast
import builtins
import contextlib
import io
import json
import os
import stat
import tempfile
import time
from pathlib import Path

from nbformat import NotebookNode, from_dict

from . import wire
from .cells import describe_cell, grade_id, is_setup_cell, is_test_cell, source_of
from .channel import CallTimeout, ChannelError, ScratchExceeded, Worker, WorkerDied
from .judge import CellStopped, Opaque, Proxy, StudentError, run_test_cell
from .sandbox import Sandbox

__all__ = ["execute_submission", "KernelDied", "SubmissionRefused", "Session", "read_files", "FileLimits"]


class KernelDied(RuntimeError):
    """The submission's process could not be started at all: the submission is not graded."""


class SubmissionRefused(RuntimeError):
    """The submission is not graded, for the reason given (a folder that is a link, too many files...)."""


class FileLimits:
    """Bounds on the files of a submission that the student's process sees."""

    max_files = 2_000
    max_bytes = 64 * 1024**2
    max_depth = 16


# -- the submission's files --------------------------------------------------------------
def read_files(folder, *, limits=FileLimits, skip=(".ipynb",)):
    """The submission's files as ``({relative path: bytes}, [notes])``, never following a link.

    A link (file or folder) is left out with a note; so are notebooks (the engine runs the
    notebook it is given) and whatever goes beyond ``limits``.

    Raises
    ------
    SubmissionRefused
        When ``folder`` itself is a symbolic link or not a folder.
    """
    folder = Path(folder)
    if folder.is_symlink():
        raise SubmissionRefused(f"the folder {folder} is a symbolic link to {os.readlink(folder)!r}; it was not graded")
    if not folder.is_dir():
        raise SubmissionRefused(f"{folder} is not a folder")
    files, notes, total = {}, [], 0
    stack = [(folder, 0)]
    while stack:
        here, depth = stack.pop()
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError as exc:
            notes.append(f"could not read {here}: {exc.strerror}")
            continue
        for entry in entries:
            rel = os.path.relpath(entry.path, folder)
            if entry.is_symlink():
                notes.append(f"left out the link {rel} (links are never followed)")
                continue
            if entry.name in (".ipynb_checkpoints", "__pycache__"):
                continue
            if entry.is_dir(follow_symlinks=False):
                if depth + 1 > limits.max_depth:
                    notes.append(f"left out {rel}: folders nested deeper than {limits.max_depth}")
                else:
                    stack.append((Path(entry.path), depth + 1))
                continue
            if not entry.is_file(follow_symlinks=False) or entry.name.endswith(skip):
                continue
            if len(files) >= limits.max_files:
                notes.append(f"left out {rel} and what follows: more than {limits.max_files} files")
                return files, notes
            try:
                fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
                with os.fdopen(fd, "rb") as fh:
                    if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                        continue
                    data = fh.read(limits.max_bytes - total + 1)
            except OSError as exc:
                notes.append(f"could not read {rel}: {exc.strerror}")
                continue
            if total + len(data) > limits.max_bytes:
                notes.append(f"left out {rel} and what follows: more than {limits.max_bytes // 1024**2} MiB of files")
                return files, notes
            total += len(data)
            files[rel] = data
    return files, notes


def _write_files(files, dest):
    """Write ``{relative path: bytes}`` below ``dest`` (world-readable), refusing paths that leave it."""
    dest = Path(dest)
    dest.mkdir(mode=0o755, parents=True, exist_ok=True)
    os.chmod(dest, 0o755)
    for rel, data in files.items():
        parts = Path(rel).parts
        if not parts or Path(rel).is_absolute() or ".." in parts:
            continue
        target = dest.joinpath(*parts)
        for parent in reversed(target.relative_to(dest).parents):
            d = dest / parent
            if not d.exists():
                d.mkdir(mode=0o755)
        target.write_bytes(bytes(data))
        os.chmod(target, 0o644)


# -- one submission's process ----------------------------------------------------------------
def definitions_only(source):
    """The top-level definitions and imports of a cell's code (what a stopped cell still defines).

    Examples
    --------
    >>> print(definitions_only("import numpy as np\\ndef f(x):\\n    return x\\nwhile True:\\n    pass"))
    import numpy as np
    <BLANKLINE>
    def f(x):
        return x
    """
    from .checks import python_source
    try:
        tree = ast.parse(python_source(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    keep = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    tree.body = [node for node in tree.body if isinstance(node, keep)]
    try:
        return ast.unparse(tree)
    except RecursionError:
        return ""


class Session:
    """One submission being graded: its worker, the cells it has run, the deadline of the current cell.

    Parameters
    ----------
    files : path
        Folder with the submission's files (read-only for the worker).
    sandbox : Sandbox
    budget_deadline : float
        ``time.monotonic()`` after which nothing more is run.
    """

    def __init__(self, files, *, sandbox, startup_timeout=60.0, replay_timeout=60.0, budget_deadline=None, budget=None,
                 log=None):
        self.files = Path(files)
        self.sandbox = sandbox
        self.startup_timeout = startup_timeout
        self.replay_timeout = replay_timeout
        self.budget_deadline = budget_deadline if budget_deadline is not None else float("inf")
        self.log = log
        self.history = []      # (index, source) replayed after a restart
        self.worker = None
        self.deadline = None
        self.timeout = None
        self.stopped = None    # the CellStopped of the current test cell, if any
        self.touched = False   # whether the current test cell has reached the worker
        self.restarts = 0
        self.budget = budget

    def start(self):
        try:
            self.worker = Worker(self.files, sandbox=self.sandbox, startup_timeout=self.startup_timeout).start()
        except (ChannelError, CallTimeout, OSError) as exc:
            raise KernelDied(f"the process that runs the submission could not be started ({exc})") from None

    def close(self):
        if self.worker is not None:
            self.worker.kill()
            self.worker = None

    def restart(self):
        """A fresh worker with the cells run so far replayed (within ``replay_timeout``)."""
        self.close()
        self.restarts += 1
        self.start()
        deadline = min(time.monotonic() + self.replay_timeout, self.budget_deadline)
        for n, (index, source) in enumerate(list(self.history)):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if self.log:
                    self.log.warning("replay after a stopped cell ran out of time: cells from %s on are not restored",
                                     index)
                self.history = self.history[:n]
                return
            try:
                self.worker.request({"op": "exec", "source": source, "cell": index}, remaining)
            except (CallTimeout, ChannelError):
                # it ran before; now it does not: drop it and start once more without it
                self.history = self.history[:n] + self.history[n + 1:]
                return self.restart()

    def budget_text(self):
        """How the messages name the submission's budget."""
        seconds = f"{self.budget:g} s " if self.budget is not None else ""
        return f"the {seconds}budget for grading one submission (CourseExecute.submission_timeout)"

    def remaining(self):
        return max(0.05, min(self.deadline, self.budget_deadline) - time.monotonic())

    def begin_cell(self, timeout):
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self.stopped = None
        self.touched = False

    def exec_cell(self, index, source, timeout):
        """Run a cell of the student's; return ``(stdout, error dict or None)``."""
        self.begin_cell(timeout)
        try:
            reply = self.worker.request({"op": "exec", "source": source, "cell": index}, self.remaining())
        except (CallTimeout, ChannelError) as exc:
            self.history.append((index, definitions_only(source)))
            error = self._stopped_error(exc, "this cell")
            self.restart()
            return "", error
        error = reply.get("error")
        if error is not None and not isinstance(error, dict):
            error = {"ename": "ProtocolError", "evalue": "the cell's process sent a malformed reply"}
        if not self.in_step():
            self.history.append((index, definitions_only(source)))
            error = {"ename": "ProtocolError", "evalue": "the process running the submission answered for this "
                     "cell, then did not answer the grader (its code wrote to the grader's channel); this cell "
                     "earns no points"}
            self.restart()
            return "", error
        self.history.append((index, source))
        stdout = reply.get("stdout", "")
        return (stdout if isinstance(stdout, str) else ""), error

    def in_step(self):
        """Whether the worker answers a ping at once: after a reply, the student's code must have stopped.

        A reply the student's code forged leaves it running (or reading nothing): the next
        request would then meet a deaf or desynchronised process. The ping finds out while
        the cell that did it is still the one to blame.
        """
        try:
            self.worker.request({"op": "ping"}, max(self.remaining(), min(5.0, self.timeout or 5.0)))
        except (CallTimeout, ChannelError):
            return False
        return True

    def end_test_cell(self):
        """After a test cell that reached the worker: fail it (and restart) if the worker is out of step."""
        if self.stopped is not None or not self.touched:
            return None
        if self.in_step():
            return None
        self.stopped = CellStopped("ProtocolError", "the process running the submission did not answer after this "
                                   "test (its code wrote to the grader's channel); this cell earns no points")
        self.restart()
        return self.stopped

    def _stopped_error(self, exc, what):
        if isinstance(exc, CallTimeout):
            if time.monotonic() >= self.budget_deadline:
                return {"ename": "BudgetExceeded", "evalue": f"{self.budget_text()} ran out while {what} was running; "
                        "it was stopped and earns no points"}
            return {"ename": "CellTimeoutError", "evalue": f"{what} did not finish within {self.timeout} s and was "
                    "stopped; it earns no points. Does every loop end?"}
        if isinstance(exc, ScratchExceeded):
            return {"ename": "ScratchSpaceError", "evalue": f"{exc}. The process was stopped while {what} was running "
                    "and a fresh one starts with an empty working folder; this cell earns no points"}
        if isinstance(exc, WorkerDied):
            return {"ename": "ProcessDied", "evalue": f"the process running the submission died while {what} was "
                    f"running ({exc}: os._exit, too much memory, or a crash); it earns no points"}
        return {"ename": "ProtocolError", "evalue": f"{exc}; {what} earns no points"}

    def _stop(self, exc, what):
        err = self._stopped_error(exc, what)
        self.stopped = CellStopped(err["ename"], err["evalue"])
        self.restart()
        raise self.stopped

    def call(self, name, args, kwargs):
        if self.stopped is not None:
            raise self.stopped
        try:
            message = {"op": "call", "name": name, "args": wire.encode(list(args)), "kwargs": wire.encode(dict(kwargs))}
        except TypeError as exc:
            raise TypeError(f"the test passed {name} something that cannot be sent to the submission: {exc}") from None
        self.touched = True
        try:
            reply = self.worker.request(message, self.remaining())
        except (CallTimeout, ChannelError) as exc:
            self._stop(exc, f"{name}(...)")
        _write_back(reply.get("changed"), args, kwargs)
        if reply.get("error"):
            err = reply["error"] if isinstance(reply["error"], dict) else {}
            detail = f"\n{str(err['traceback']).rstrip()}" if err.get("traceback") else ""
            raise StudentError(f"{name}(...) raised {err.get('ename')}: {err.get('evalue')}{detail}")
        try:
            return wire.decode(reply.get("result"))
        except wire.WireError as exc:
            raise StudentError(f"{name}(...) returned something that is not plain data: {exc}") from None

    def bind(self, names):
        """Proxies and plain values for the submission's names (missing names are left out)."""
        if not names:
            return {}
        self.touched = True
        try:
            reply = self.worker.request({"op": "describe", "names": sorted(names)}, self.remaining())
        except (CallTimeout, ChannelError) as exc:
            self._stop(exc, "looking up the submission's names")
        kinds = reply.get("kinds") if isinstance(reply.get("kinds"), dict) else {}
        values = reply.get("values") if isinstance(reply.get("values"), dict) else {}
        bound = {}
        for name, kind in kinds.items():
            if name not in names:
                continue
            if kind == "callable":
                bound[name] = Proxy(name, self)
            elif kind == "value":
                try:
                    bound[name] = wire.decode(values.get(name))
                except wire.WireError:
                    bound[name] = Opaque(name, "not plain data")
            elif kind == "other":
                bound[name] = Opaque(name, wire.cap(str(values.get(name, "not plain data")), 300))
        return bound


def _write_back(changed, args, kwargs):
    """Make the test's arguments what the student's function left them (as a caller in Jupyter sees them).

    ``changed`` is the worker's ``{position or "kw:name": plain data}``; it is hostile like any
    reply: what is not plain data, names no mutable argument or does not fit it is ignored.
    """
    if not isinstance(changed, dict):
        return
    for key, data in list(changed.items())[:len(args) + len(kwargs)]:
        try:
            target = kwargs[key[3:]] if key.startswith("kw:") else args[int(key)]
            _assign(target, wire.decode(data))
        except (KeyError, IndexError, ValueError, TypeError, AttributeError, RecursionError, wire.WireError):
            continue


def _assign(target, value, depth=0):
    """Write ``value`` into ``target`` in place (arrays with ``np.copyto``, lists and dicts item by item)."""
    import numpy as np

    if depth > wire.MAX_DEPTH:
        return False
    if isinstance(target, np.ndarray):
        value = np.asarray(value)
        if value.shape != target.shape or value.dtype.kind not in "biuf" or not target.flags.writeable:
            return False
        np.copyto(target, value, casting="unsafe")
        return True
    if isinstance(target, list) and isinstance(value, list):
        for i, item in enumerate(value[:len(target)]):
            if not _assign(target[i], item, depth + 1):
                target[i] = item
        del target[len(value):]
        target.extend(value[len(target):])
        return True
    if isinstance(target, dict) and isinstance(value, dict):
        for k in [k for k in target if k not in value]:
            del target[k]
        for k, item in value.items():
            if k not in target or not _assign(target[k], item, depth + 1):
                target[k] = item
        return True
    return False


# -- outputs -----------------------------------------------------------------------------
def _stream(text):
    return NotebookNode(output_type="stream", name="stdout", text=wire.cap(text))


def _error_output(error):
    ename = wire.cap(str(error.get("ename", "Error")), 200)
    evalue = wire.cap(str(error.get("evalue", "")), 4000)
    tb = wire.cap(str(error.get("traceback") or f"{ename}: {evalue}"), wire.MAX_TEXT)
    return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=tb.rstrip("\n").split("\n"))


def _imports_only(source):
    """The import statements of a piece of code (top level), as code."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return ""
    tree.body = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    return ast.unparse(tree)


# -- the core ----------------------------------------------------------------------------
def execute_submission(notebook, *, files=None, tests, setups=None, assignment=None, student=None,
                       withheld=(), timeout=10, setup_timeout=120, replay_timeout=60, submission_timeout=600,
                       startup_timeout=60, sandbox=None, log=None):
    """Execute one submission for grading and return the executed notebook and a report.

    Plain data in, plain data out: every argument and the result can be pickled, and nothing
    here reads or writes a gradebook, so a process pool or a Dask worker can run it.

    Parameters
    ----------
    notebook : dict or nbformat.NotebookNode
        The submitted notebook (nbformat 4 JSON as a dict), sanitized as nbgrader does for
        autograding (test cells restored); it is not changed.
    files : dict of {str: bytes}, str or Path, optional
        The other files of the submission: ``{relative path: content}``, or the submission's
        folder, read with :func:`read_files` (links never followed, bounded). They are the
        working directory of the student's code, which can import its ``.py`` files.
    tests : dict of {str: str}
        Trusted test cells, ``{grade_id: source}`` (from the gradebook for autograde, the
        released notebook's visible tests for the self-check). A test cell of the notebook
        whose grade_id is here runs this source in the grader; any other cell (whatever its
        metadata says) runs as the student's code in the sandbox.
    setups : dict of {str: str}, optional
        Trusted read-only cells of the instructor's, ``{grade_id: source}``: their imports are
        also run in the grader (for the tests), and they may take ``setup_timeout`` seconds.
    assignment, student : str, optional
        Who is graded: each test cell runs inside ``grading.context.test_cell(assignment=...,
        student=..., cell=grade_id)`` (seeds the hidden tests' random data). When either is
        None the tests run with the self-check identity.
    withheld : sequence of str, optional
        ``course_lib`` functions the assignment asks students to write: the student's process
        sees a ``course_lib`` without them (:mod:`grading.withhold`); the tests keep them.
    timeout : float
        Seconds per cell (a test cell's calls together).
    setup_timeout, replay_timeout, startup_timeout : float
        Seconds for an instructor's setup cell, for replaying the cells above a stopped cell,
        for the student's process to start.
    submission_timeout : float
        Wall-clock budget of the whole submission (restarts and replays included); when it
        is spent, the cells left score 0 without running.
    sandbox : grading.sandbox.Sandbox, optional
        Default: ``Sandbox()``, checked once per process.
    log : logging.Logger, optional

    Returns
    -------
    notebook : nbformat.NotebookNode
        A copy of ``notebook`` with outputs, as a kernel would have recorded them (output
        kept per cell is capped); nbgrader scores its test cells from them.
    report : dict
        ``status`` (``"graded"``, or ``"ungraded"`` when the process could not be started),
        ``reason``, ``cells`` (one ``{"index", "grade_id", "outcome"}`` per code cell run;
        outcome ``ok``, ``error``, ``timeout``, ``died``, ``protocol``, ``scratch`` or ``budget``),
        ``restarts``, ``elapsed`` (seconds) and ``notes`` (files left out).

    Examples
    --------
    >>> import nbformat, os
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("def double(x):\\n    return 2 * x")])
    >>> test = nbformat.v4.new_code_cell("assert double(21) == 42", metadata={"nbgrader": {
    ...     "grade": True, "solution": False, "locked": True, "points": 1, "grade_id": "double"}})
    >>> nb.cells.append(test)
    >>> done, report = execute_submission(nb, tests={"double": "assert double(21) == 42"}, timeout=30)
    >>> report["status"], [c["outcome"] for c in report["cells"]]
    ('graded', ['ok', 'ok'])
    """
    from .context import test_cell

    start = time.monotonic()
    budget_deadline = start + submission_timeout
    nb = from_dict(json.loads(json.dumps(notebook)))
    setups = dict(setups or {})
    report = {"status": "graded", "reason": "", "cells": [], "restarts": 0, "elapsed": 0.0, "notes": []}
    if isinstance(files, (str, os.PathLike)):
        files, report["notes"] = read_files(files)
    files = dict(files or {})
    if sandbox is None:
        sandbox = Sandbox()
    sandbox.check()

    who = {"assignment": assignment, "student": student} if assignment and student else None
    with tempfile.TemporaryDirectory(prefix="grading-") as tmp:
        os.chmod(tmp, 0o755)
        _write_files(files, Path(tmp) / "files")
        if withheld:
            sandbox = _withholding(sandbox, withheld, assignment, Path(tmp) / "lib")
        session = Session(Path(tmp) / "files", sandbox=sandbox, startup_timeout=startup_timeout,
                          replay_timeout=replay_timeout, budget_deadline=budget_deadline, budget=submission_timeout,
                          log=log)
        try:
            session.start()
        except KernelDied as exc:
            report.update(status="ungraded", reason=str(exc), elapsed=time.monotonic() - start)
            return nb, report
        try:
            _run_cells(nb, session, tests, setups, who, timeout, setup_timeout, budget_deadline, report, test_cell)
        except KernelDied as exc:
            report.update(status="ungraded", reason=str(exc))
        finally:
            session.close()
    report["restarts"] = session.restarts
    report["elapsed"] = time.monotonic() - start
    return nb, report


def _withholding(sandbox, names, assignment, folder):
    """``sandbox`` showing a copy of course_lib without ``names`` in place of the real one."""
    import dataclasses

    from .withhold import course_lib_dir, withheld_copy

    real = Path(os.path.realpath(course_lib_dir()))
    folder.mkdir(mode=0o755)
    copy = withheld_copy(names, assignment, folder / "course_lib", source=real)
    if sandbox.mode == "off":   # no mount namespace: the copy goes first on the worker's path
        return dataclasses.replace(sandbox, overlays={"sys.path": str(folder)})
    return dataclasses.replace(sandbox, overlays=dict(sandbox.overlays, **{str(real): str(copy)}))


def _outcome(error):
    if error is None:
        return "ok"
    return {"CellTimeoutError": "timeout", "ProcessDied": "died", "ProtocolError": "protocol",
            "BudgetExceeded": "budget", "ScratchSpaceError": "scratch"}.get(error.get("ename"), "error")


def _run_cells(nb, session, tests, setups, who, timeout, setup_timeout, budget_deadline, report, test_cell):
    setup_ns = {"__builtins__": builtins}
    count, judged = 0, set()
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        cell.outputs = []
        source = source_of(cell)
        if not source.strip():
            cell.execution_count = None
            continue
        count += 1
        cell.execution_count = count
        gid = grade_id(cell)
        if time.monotonic() >= budget_deadline:
            error = {"ename": "BudgetExceeded", "evalue": f"{session.budget_text()} ran out before this cell; it was "
                     "not run and earns no points"}
            cell.outputs.append(_error_output(error))
            report["cells"].append({"index": index, "grade_id": gid, "outcome": "budget"})
            continue
        if is_test_cell(cell) and gid in tests and gid not in judged:
            judged.add(gid)
            context = test_cell(cell=gid, **who) if who else contextlib.nullcontext()
            with context as current:
                printed, error = run_test_cell(session, tests[gid], setup_namespace=setup_ns, timeout=timeout)
            if printed:
                cell.outputs.append(_stream(printed))
            if error:
                if current is not None and error["ename"] not in ("CellTimeoutError", "ProcessDied", "ProtocolError",
                                                                  "BudgetExceeded", "ScratchSpaceError"):
                    from .context import replay_note
                    error = dict(error, evalue=f"{error['evalue']}\n{replay_note(current)}")
                cell.outputs.append(_error_output(dict(error, traceback=f"{error['ename']}: {error['evalue']}")))
            report["cells"].append({"index": index, "grade_id": gid, "outcome": _outcome(error)})
            continue
        setup = is_setup_cell(cell) and gid in setups
        cell_timeout = max(timeout, setup_timeout) if setup else timeout
        if setup:
            # the instructor's imports are trusted: the judge runs them too (from the gradebook),
            # but not the rest of a setup cell (data loading, pictures), which only the student needs
            with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
                exec(compile(_imports_only(setups[gid]), "<setup>", "exec"), setup_ns)
        printed, error = session.exec_cell(index, source, cell_timeout)
        if printed:
            cell.outputs.append(_stream(printed))
        if error:
            cell.outputs.append(_error_output(error))
        report["cells"].append({"index": index, "grade_id": gid, "outcome": _outcome(error)})
        if session.log and error and _outcome(error) != "error":
            session.log.warning("%s: %s", describe_cell(cell, index), error.get("evalue"))
    return nb
