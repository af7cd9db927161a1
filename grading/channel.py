"""The grader's end of the channel to the student's process: every read and write bounded.

:class:`Worker` starts :mod:`grading.worker` in the sandbox and exchanges
:mod:`grading.wire` messages with it over two pipes. The student's code runs in that
process and may write anything to the pipe (it can reach the worker's own objects), so
every exchange has a deadline and a size bound and checks what comes back:

* a write that the student's process does not read in time, a reply that does not come in
  time, is larger than :data:`grading.wire.MAX_MESSAGE`, is not a JSON object, or answers
  another request, raises :class:`ChannelError` (or :class:`CallTimeout`); the grader
  then kills the process, gives the cell 0 points and starts a fresh one;
* nothing read from the pipe is kept beyond one message;
* time is counted two ways: the **CPU time** of the student's process tree (every process
  the sandbox holds, its threads, and the children they waited for), read from ``/proc``
  every :data:`WATCH_INTERVAL` seconds (more often as the limit nears) and after every
  reply, against a request's CPU deadline; and wall-clock time, a backstop for code that sleeps or blocks (a
  :class:`CallTimeout` says which ran out);
* while a cell runs the worker writes a progress line before each top-level statement; the
  last one read tells which statement was running when the cell was stopped
  (:attr:`Worker.progress`). A forged progress line can only name a statement of the same
  cell, whose replay then runs under its own limit;
* the student's scratch space (its working folder and private ``/tmp``, two tmpfs of
  ``Limits.scratch_bytes`` each, bounded by the kernel) is also bounded in the number of
  files and folders, counted from here, where the student's code cannot reach: after every
  reply and every :data:`WATCH_INTERVAL` seconds while a request runs, the grader reads the
  inode counts of the sandbox's two file systems (``statvfs`` through ``/proc/<pid>/root``,
  one system call, whatever they hold); beyond ``Limits.scratch_files`` it raises
  :class:`ScratchExceeded`, the cell scores 0 and a fresh process starts on an empty
  scratch space (nothing is walked or re-owned: the file systems end with the process).
"""
import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import wire
from .sandbox import SCRATCH, fresh_uid, kill_user_processes

__all__ = ["Worker", "ChannelError", "WorkerDied", "CallTimeout", "ScratchExceeded", "WATCH_INTERVAL", "MIN_WATCH_INTERVAL",
           "tree_cpu"]

WATCH_INTERVAL = 0.2
"""Seconds between two counts of the scratch space's files while the student's code runs."""

MIN_WATCH_INTERVAL = 0.01
"""Seconds between two checks of the CPU time near a request's CPU limit (``/proc`` counts it in 10 ms ticks)."""

_CORES = os.cpu_count() or 1


class ChannelError(RuntimeError):
    """The student's process broke the protocol (forged, malformed or oversized message)."""


class WorkerDied(ChannelError):
    """The student's process ended (``os._exit``, killed for memory, a crash)."""


class ScratchExceeded(ChannelError):
    """The student's process holds more files and folders in its scratch space than allowed."""


class CallTimeout(RuntimeError):
    """The student's process did not answer in time; it must be stopped.

    ``cpu`` is True when its CPU time ran out, False when the wall-clock backstop did.
    """

    def __init__(self, *, cpu=False):
        super().__init__("CPU time" if cpu else "wall-clock time")
        self.cpu = cpu


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def tree_cpu(root):
    """CPU seconds used so far by process ``root`` and every process below it (None when it is gone).

    User and system time of each process (all its threads) and of the children it waited for,
    read from ``/proc/<pid>/stat``; the tree is followed through ``/proc/<pid>/task/*/children``.
    """
    total, stack, seen, found = 0, [root], set(), False
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                data = fh.read()
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        found = True
        fields = data[data.rindex(b")") + 2:].split()
        total += sum(int(v) for v in fields[11:15])      # utime, stime, cutime, cstime
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                    stack.extend(int(c) for c in fh.read().split())
            except (OSError, ValueError):
                continue
    return total / _TICKS if found else None


class Worker:
    """A sandboxed Python process holding one submission's namespace.

    Parameters
    ----------
    files : path
        A folder with the submission's files (read-only for the worker). The worker copies
        it into its own bounded scratch folder, its working directory.
    sandbox : Sandbox
        Already checked (:meth:`grading.sandbox.Sandbox.check`).
    startup_timeout : float
        Seconds the process may take to start and report ready.
    """

    def __init__(self, files, *, sandbox, startup_timeout=60.0):
        self.files = Path(files)
        self.sandbox = sandbox
        self.startup_timeout = startup_timeout
        self.proc = None
        self.uid = None
        self._buf = bytearray()
        self._next_id = 0
        self._inside = None      # a process in the sandbox's mount namespace (its /proc/<pid>/root)
        self._scratch = None
        self.scratch_peak = 0    # the most entries counted in the scratch space of any start
        self.progress = None     # the last statement the current request said it started (exec)
        self._cpu_deadline = None
        self._cpu_seen = None    # (the last reading of cpu_seconds(), when it was read)

    def start(self):
        # as root, every start gets its own user id: its process limit is its own, and nothing
        # a killed worker left behind (a fork bomb's children) can slow down the next one
        self.uid = fresh_uid() if (os.geteuid() == 0 and self.sandbox.mode == "bwrap") else None
        argv = self.sandbox.command([sys.executable, "-I", "-m", "grading.worker"], submission=self.files,
                                    uid=self.uid)
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TZ")}
        cwd = "/"
        if self.sandbox.mode == "off":           # no sandbox: a scratch folder of its own, removed by kill()
            self._scratch = tempfile.mkdtemp(prefix="grading-scratch-")
            cwd = self._scratch
            env.update(GRADING_SUBMISSION=str(self.files), HOME=cwd)
            if self.sandbox.course_lib is not None:
                env.update(GRADING_FIRST_ON_PATH=str(Path(self.sandbox.course_lib).parent))
        env.update(MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
        self._cpu_seen = None
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     cwd=cwd, env=env,
                                     preexec_fn=self.sandbox.preexec())
        os.set_blocking(self.proc.stdin.fileno(), False)
        self._buf = bytearray()
        try:
            hello = self._read(time.monotonic() + self.startup_timeout)
        except CallTimeout:
            self.kill()
            raise WorkerDied(f"the grading process did not start within {self.startup_timeout:.0f} s") from None
        except ChannelError:
            self.kill()
            raise
        if hello.get("ready") is not True:
            self.kill()
            raise WorkerDied(f"the grading process did not start: {str(hello.get('error', ''))[:300]}")
        self._inside = self._find_inside() if self.sandbox.mode == "bwrap" else None
        if self.sandbox.mode == "bwrap" and self._inside is None:
            self.kill()
            raise WorkerDied("the grader cannot see the sandbox's scratch space (/proc/<pid>/root) to bound it")
        return self

    # -- the scratch space, counted from outside ----------------------------------------
    def _find_inside(self):
        """A process of the sandbox in its own mount namespace (bubblewrap's child), or None."""
        try:
            ours = os.stat("/proc/self/ns/mnt").st_ino
        except OSError:
            return None
        pid = self.proc.pid
        for _ in range(4):   # bwrap -> its child in the new namespaces (-> setpriv/python)
            try:
                with open(f"/proc/{pid}/task/{pid}/children") as fh:
                    children = fh.read().split()
            except OSError:
                return None
            if not children:
                return None
            pid = int(children[0])
            try:
                if os.stat(f"/proc/{pid}/ns/mnt").st_ino != ours:
                    os.statvfs(f"/proc/{pid}/root{SCRATCH}")
                    return pid
            except OSError:
                return None
        return None

    def scratch_entries(self):
        """Files and folders in the scratch space and the private ``/tmp`` now (None when the process is gone).

        In the sandbox: the inodes in use of its two tmpfs (constant time). Without it
        (``GRADING_SANDBOX=off``): the scratch folder's entries, counted up to one more than the limit.
        """
        limit = self.sandbox.limits.scratch_files
        if self._inside is not None:
            n = 0
            try:
                for top in (SCRATCH, "/tmp"):
                    st = os.statvfs(f"/proc/{self._inside}/root{top}")
                    n += max(0, st.f_files - st.f_ffree - 1)   # the file system's own root is not counted
            except OSError:
                return None
            return n
        if self._scratch:
            return _count_entries(self._scratch, limit + 1)
        return None

    def check_scratch(self):
        """Raise :class:`ScratchExceeded` when the scratch space holds more entries than ``Limits.scratch_files``."""
        n = self.scratch_entries()
        if n is None:
            return
        self.scratch_peak = max(self.scratch_peak, n)
        limit = self.sandbox.limits.scratch_files
        if n > limit:
            more = "more than " if self._inside is None else ""
            raise ScratchExceeded(f"the submission's code left {more}{n} files and folders in its working folder "
                                  f"and /tmp; at most {limit} are allowed")

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        """Stop the worker and everything it started (its whole process group / sandbox)."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.proc.wait(timeout=10)
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(Exception):
                stream.close()
        self.proc = None
        self._inside = None
        if self.uid is not None:
            kill_user_processes(self.uid)
        if getattr(self, "_scratch", None):
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    # -- bounded I/O ---------------------------------------------------------------------
    def _write(self, data, deadline):
        fd = self.proc.stdin.fileno()
        view = memoryview(data)
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_WRITE)
            while view:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise CallTimeout()
                if not sel.select(remaining):
                    continue
                try:
                    n = os.write(fd, view[:1 << 16])
                except BlockingIOError:
                    continue
                except (BrokenPipeError, OSError):
                    raise WorkerDied("the process running the submission ended") from None
                view = view[n:]

    def cpu_seconds(self):
        """CPU seconds the student's process tree has used since it started (None when it is gone)."""
        if self.proc is None:
            return None
        used = tree_cpu(self.proc.pid)
        self._cpu_seen = None if used is None else (used, time.monotonic())
        return used

    def _cpu_at_most(self):
        """An upper bound of :meth:`cpu_seconds` now, without reading ``/proc``: the last reading plus every core
        busy since (None before any reading)."""
        if self._cpu_seen is None:
            return None
        used, when = self._cpu_seen
        return used + (time.monotonic() - when) * _CORES

    def _watch(self):
        """The checks made while a request runs: the scratch space, and the CPU deadline.

        Returns the wall seconds until the next check: :data:`WATCH_INTERVAL`, or less when the CPU
        time left could run out sooner (every core busy), so that a cell is stopped close to its
        limit rather than up to an interval after it.
        """
        self.check_scratch()
        if self._cpu_deadline is None:
            return WATCH_INTERVAL
        used = self._cpu_at_most()
        if used is None or used >= self._cpu_deadline - MIN_WATCH_INTERVAL:    # it may have run out: read it
            used = self.cpu_seconds()
        if used is None:
            return WATCH_INTERVAL
        if used > self._cpu_deadline:
            raise CallTimeout(cpu=True)
        return min(WATCH_INTERVAL, max(MIN_WATCH_INTERVAL, (self._cpu_deadline - used) / _CORES))

    def _read(self, deadline, rid=None):
        fd = self.proc.stdout.fileno()
        watch = time.monotonic() + WATCH_INTERVAL
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while True:
                while b"\n" in self._buf:
                    end = self._buf.index(b"\n")
                    line = bytes(self._buf[:end])
                    del self._buf[:end + 1]
                    try:
                        message = wire.loads(line)
                    except wire.WireError as exc:
                        raise ChannelError(f"the submission's process sent a malformed message ({exc})") from None
                    if rid is not None and message.get("id") == rid and set(message) == {"id", "progress"}:
                        step = message["progress"]
                        if type(step) is int and step >= 0:
                            self.progress = step
                        continue
                    return message
                if len(self._buf) > wire.MAX_MESSAGE:
                    raise ChannelError(f"the submission's process sent more than "
                                       f"{wire.MAX_MESSAGE // 1024**2} MiB in one message")
                now = time.monotonic()
                if now >= deadline:
                    raise CallTimeout()
                if now >= watch:
                    watch = now + self._watch()
                if not sel.select(max(0.0, min(deadline, watch) - now)):
                    continue
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise WorkerDied("the process running the submission ended")
                self._buf += chunk

    def request(self, message, timeout, *, cpu_deadline=None):
        """Send one request and return its reply, within ``timeout`` wall-clock seconds for both.

        ``cpu_deadline``: a reading of :meth:`cpu_seconds` beyond which the request is stopped
        (checked while it runs and after its reply). Raises :class:`CallTimeout` when either
        time is up, :class:`ChannelError` when the reply is malformed, too large or answers
        another request, :class:`WorkerDied` when the process ended. :attr:`progress` holds the
        last statement an ``exec`` request reported starting.
        """
        if not self.alive():
            raise WorkerDied("the process running the submission is not running")
        deadline = time.monotonic() + timeout
        self._next_id += 1
        self.progress = None
        self._cpu_deadline = cpu_deadline
        try:
            data = wire.dumps(dict(message, id=self._next_id))
        except wire.WireError as exc:
            raise ChannelError(f"could not send the request: {exc}") from None
        try:
            self._write(data, deadline)
            reply = self._read(deadline, rid=self._next_id)
            self._watch()
        finally:
            self._cpu_deadline = None
        if reply.get("id") != self._next_id:
            raise ChannelError("the submission's process sent a message that answers no request "
                               "(its code wrote to the grader's channel)")
        return reply


def _count_entries(top, stop):
    """Entries below ``top`` (links not followed), counting no further than ``stop``."""
    n, stack = 0, [top]
    while stack:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for e in entries:
                n += 1
                if n >= stop:
                    return n
                try:
                    if e.is_dir(follow_symlinks=False):
                        stack.append(e.path)
                except OSError:
                    pass
    return n
