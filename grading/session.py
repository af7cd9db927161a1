"""One submission's process while it is graded: its worker, the cells it ran, the limits of the current cell.

:class:`Session` is what :mod:`grading.engine` runs cells through and what a test cell's
judge (:func:`grading.judge.run_test_cell`) calls the student's functions through. It keeps
every bound of the grader's side:

* **Time.** A cell may use ``timeout`` seconds of CPU time of the student's process (a test
  cell's calls together), counted by :class:`grading.channel.Worker` from ``/proc``, with a
  wall-clock backstop ``GradingLimits.wall_factor`` times larger for code that sleeps or
  blocks, and never beyond the submission's wall-clock budget.
* **A stopped cell keeps what ran.** When a cell is stopped (time, death, a broken channel,
  too many files), the process is started again and the cells above are replayed; of the
  stopped cell itself, the top-level statements that had finished before the one that was
  running are replayed, and nothing after it — what Jupyter's kernel would still hold. The
  worker splits the cell into statements (in the sandbox, under the cell's limits) and
  reports each one it starts; the grader never parses the student's code.
* **Hostile replies.** Every reply is checked (:mod:`grading.channel`); after a reply the
  worker must answer a ping at once, else the cell that let its code write to the channel
  fails.
"""
import time
from pathlib import Path

from . import wire
from .channel import CallTimeout, ChannelError, ScratchExceeded, Worker, WorkerDied
from .judge import CellStopped, Opaque, Proxy, StudentError
from .limits import GradingLimits
from .results import CellError, Outcome

__all__ = ["Session", "WorkerDidNotStart", "STUDENT_TEXT_IN_TESTS"]

STUDENT_TEXT_IN_TESTS = 1_000
"""Characters of a student's own exception (message and traceback) kept in a test's verdict."""

PING_SECONDS = 5.0
"""Wall-clock seconds the worker has, at least, to answer the ping that follows a reply."""


class WorkerDidNotStart(RuntimeError):
    """The submission's process could not be started at all: the submission is not graded."""


class Session:
    """One submission being graded: its worker, the cells it has run, the limits of the current cell.

    Parameters
    ----------
    files : path
        Folder with the submission's files (read-only for the worker).
    sandbox : grading.sandbox.Sandbox
    limits : grading.limits.GradingLimits
    budget_deadline : float, optional
        ``time.monotonic()`` after which nothing more is run (default: none).
    log : logging.Logger, optional
    """

    def __init__(self, files, *, sandbox, limits=None, budget_deadline=None, log=None):
        self.files = Path(files)
        self.sandbox = sandbox
        self.limits = limits if limits is not None else GradingLimits()
        self.budget_deadline = budget_deadline if budget_deadline is not None else float("inf")
        self.log = log
        self.history = []      # (cell index, source, statements to replay or None for all)
        self.worker = None
        self.restarts = 0
        self.cpu_limit = None  # the current cell's CPU seconds
        self._cpu_deadline = None
        self._wall_deadline = None
        self._stopped = None   # the CellError that stopped the process during the current cell
        self._touched = False  # whether the current cell has reached the worker

    # -- the process -----------------------------------------------------------------
    def start(self):
        try:
            self.worker = Worker(self.files, sandbox=self.sandbox,
                                 startup_timeout=self.limits.startup_timeout).start()
        except (ChannelError, CallTimeout, OSError) as exc:
            raise WorkerDidNotStart(f"the process that runs the submission could not be started ({exc})") from None

    def close(self):
        if self.worker is not None:
            self.worker.kill()
            self.worker = None

    def restart(self):
        """A fresh worker with the cells run so far replayed (within ``GradingLimits.replay_timeout`` CPU seconds)."""
        self.close()
        self.restarts += 1
        self.start()
        cpu = self.worker.cpu_seconds() or 0.0
        cpu_deadline = cpu + self.limits.replay_timeout
        wall_deadline = min(time.monotonic() + self.limits.wall(self.limits.replay_timeout), self.budget_deadline)
        for n, (index, source, statements) in enumerate(list(self.history)):
            remaining = wall_deadline - time.monotonic()
            if remaining <= 0:
                if self.log:
                    self.log.warning("replay after a stopped cell ran out of time: cells from %s on are not restored",
                                     index)
                self.history = self.history[:n]
                return
            message = {"op": "exec", "source": source, "cell": index}
            if statements is not None:
                message["statements"] = statements
            try:
                self.worker.request(message, remaining, cpu_deadline=cpu_deadline)
            except (CallTimeout, ChannelError):
                # it ran before; now it does not: drop it and start once more without it
                self.history = self.history[:n] + self.history[n + 1:]
                return self.restart()

    def budget_text(self):
        """How the messages name the submission's budget."""
        return (f"the {self.limits.submission_timeout:g} s budget for grading one submission "
                "(CourseExecute.submission_timeout)")

    # -- one cell --------------------------------------------------------------------
    def begin_cell(self, timeout):
        """Start the clocks of a cell that may use ``timeout`` CPU seconds of the student's process."""
        self.cpu_limit = float(timeout)
        used = self.worker.cpu_seconds() if self.worker is not None else None
        self._cpu_deadline = None if used is None else used + self.cpu_limit
        self._wall_deadline = time.monotonic() + self.limits.wall(self.cpu_limit)
        self._stopped = None
        self._touched = False

    def _remaining(self):
        return max(0.05, min(self._wall_deadline, self.budget_deadline) - time.monotonic())

    def _request(self, message):
        return self.worker.request(message, self._remaining(), cpu_deadline=self._cpu_deadline)

    def exec_cell(self, index, source, timeout):
        """Run a cell of the student's; return ``(printed text, CellError or None)``."""
        self.begin_cell(timeout)
        try:
            reply = self._request({"op": "exec", "source": source, "cell": index})
        except (CallTimeout, ChannelError) as exc:
            error = self._stopped_error(exc, "this cell")
            self._keep_what_ran(index, source, self.worker.progress)
            self.restart()
            return "", error
        progress = self.worker.progress
        if not self.in_step():
            error = CellError("ProtocolError", "the process running the submission answered for this cell, then did "
                              "not answer the grader (its code wrote to the grader's channel); this cell earns no "
                              "points", outcome=Outcome.PROTOCOL)
            self._keep_what_ran(index, source, progress)
            self.restart()
            return "", error
        self.history.append((index, source, None))
        error = reply.get("error")
        stdout = reply.get("stdout", "")
        return (stdout if isinstance(stdout, str) else ""), (None if error is None else CellError.from_reply(error))

    def _keep_what_ran(self, index, source, running):
        """Record the statements of a stopped cell that finished before the one that was ``running``."""
        if running:
            self.history.append((index, source, running))

    def in_step(self):
        """Whether the worker answers a ping at once: after a reply, the student's code must have stopped.

        A reply the student's code forged leaves it running (or reading nothing): the next
        request would then meet a deaf or desynchronised process. The ping finds out while
        the cell that did it is still the one to blame.
        """
        try:
            self.worker.request({"op": "ping"}, max(self._remaining(), min(PING_SECONDS, self.cpu_limit)))
        except (CallTimeout, ChannelError):
            return False
        return True

    def _stopped_error(self, exc, what):
        if isinstance(exc, CallTimeout):
            if time.monotonic() >= self.budget_deadline:
                return CellError("BudgetExceeded", f"{self.budget_text()} ran out while {what} was running; it was "
                                 "stopped and earns no points", outcome=Outcome.BUDGET)
            if exc.cpu:
                return CellError("CellTimeoutError", f"{what} did not finish within {self.cpu_limit:g} s of CPU time "
                                 "and was stopped; it earns no points. Does every loop end?", outcome=Outcome.TIMEOUT)
            return CellError("CellTimeoutError", f"{what} did not finish within {self.limits.wall(self.cpu_limit):g} s "
                             f"of wall-clock time (its limit is {self.cpu_limit:g} s of CPU time; was it waiting or "
                             "sleeping?) and was stopped; it earns no points", outcome=Outcome.TIMEOUT)
        if isinstance(exc, ScratchExceeded):
            return CellError("ScratchSpaceError", f"{exc}. The process was stopped while {what} was running and a "
                             "fresh one starts with an empty working folder; this cell earns no points",
                             outcome=Outcome.SCRATCH)
        if isinstance(exc, WorkerDied):
            return CellError("ProcessDied", f"the process running the submission died while {what} was running "
                             f"({exc}: os._exit, too much memory, or a crash); it earns no points",
                             outcome=Outcome.DIED)
        return CellError("ProtocolError", f"{exc}; {what} earns no points", outcome=Outcome.PROTOCOL)

    # -- the judge's side (grading.judge.StudentProcess) --------------------------------
    def _stop(self, exc, what):
        self._stopped = self._stopped_error(exc, what)
        self.restart()
        raise CellStopped(self._stopped)

    def call(self, name, args, kwargs, *, global_rng=None):
        """Call the student's function ``name`` with plain data; return its result as plain data.

        What the function changed in its arguments is written back into them. With a list as
        ``global_rng`` (see :func:`grading.judge.global_rng_calls`), the worker checks whether the
        call changes NumPy's global generator, and ``(name, verdict)`` is appended to the list
        (a verdict that is not ``"unchanged"``, or none at all, counts as changed).
        """
        if self._stopped is not None:
            raise CellStopped(self._stopped)
        try:
            message = {"op": "call", "name": name, "args": wire.encode(list(args)), "kwargs": wire.encode(dict(kwargs))}
        except TypeError as exc:
            raise TypeError(f"the test passed {name} something that cannot be sent to the submission: {exc}") from None
        if global_rng is not None:
            message["global_rng"] = True
        self._touched = True
        try:
            reply = self._request(message)
        except (CallTimeout, ChannelError) as exc:
            self._stop(exc, f"{name}(...)")
        if global_rng is not None:
            verdict = reply.get("global_rng")
            global_rng.append((name, wire.cap(verdict, 300) if isinstance(verdict, str) else "was not reported"))
        _write_back(reply.get("changed"), args, kwargs)
        if reply.get("error"):
            err = CellError.from_reply(reply["error"])
            text = err.evalue + (f"\n{err.traceback.rstrip()}" if err.traceback else "")
            raise StudentError(f"{name}(...) raised {err.ename}: {wire.cap(text, STUDENT_TEXT_IN_TESTS)}")
        try:
            return wire.decode(reply.get("result"))
        except wire.WireError as exc:
            raise StudentError(f"{name}(...) returned something that is not plain data: {exc}") from None

    def bind(self, names):
        """Proxies and plain values for the submission's names (missing names are left out)."""
        if not names:
            return {}
        self._touched = True
        try:
            reply = self._request({"op": "describe", "names": sorted(names)})
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

    def end_cell(self):
        """The error that stopped the process during this test cell (caught by the test or not), if any.

        Also fails (and restarts) a cell after which the process is out of step.
        """
        if self._stopped is not None:
            return self._stopped
        if not self._touched or self.in_step():
            return None
        self._stopped = CellError("ProtocolError", "the process running the submission did not answer after this "
                                  "test (its code wrote to the grader's channel); this cell earns no points",
                                  outcome=Outcome.PROTOCOL)
        self.restart()
        return self._stopped


def _write_back(changed, args, kwargs):
    """Make the test's arguments what the student's function left them (as a caller in Jupyter sees them).

    Arrays, lists and dicts are changed in place; a random generator the function drew from is set
    to the state the function left it in, so that the test's generator has moved on as in Jupyter.

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
    if isinstance(target, np.random.Generator):       # a generator the function drew from moves on
        if not isinstance(value, np.random.Generator) or type(value.bit_generator) is not type(target.bit_generator):
            return False
        target.bit_generator.state = value.bit_generator.state
        return True
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
