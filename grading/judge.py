"""Grading that does not trust the student's process.

nbgrader grades a test cell by running it in the same Python process as the student's
code, so a submission can change what the test sees: replace ``numpy.testing``'s assert
functions, return an object whose ``==`` is always true, read the hidden tests. Here the
two sides are apart:

* the **worker** (:mod:`grading.worker`) is a fresh Python process in the sandbox
  (:mod:`grading.sandbox`) that runs the submission's cells — everything but the test
  cells — in notebook order;
* the **judge** is this process. It runs each test cell's code, taken from the gradebook
  (never from the submission), in a namespace of its own where every name the student
  defines is a :class:`Proxy`: calling it sends plain-data arguments to the worker and
  gets back plain data (numbers, strings, lists and numeric arrays, rebuilt here from
  bytes). No object of the student's ever reaches the judge, so nothing the student's
  code does to its own process can change a test's verdict.

:class:`JudgeExecute` puts this into nbgrader's autograde pipeline in place of nbgrader's
``Execute``: a cell's outputs and errors are recorded in the notebook exactly as a kernel
would record them, and nbgrader scores the test cells from those outputs. A cell that
runs past ``timeout`` seconds is stopped by killing the worker (whatever the code does
with signals); the worker is started again, the cells above are replayed silently and
grading goes on. If the worker dies (``os._exit``, a crash) the submission is reported
as not graded (:class:`KernelDied`), never scored 0.
"""
import ast
import base64
import builtins
import contextlib
import io
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from nbformat import NotebookNode
from traitlets import Integer

from .context import replay_note, test_cell
from .sandbox import Sandbox, fresh_uid, kill_user_processes

__all__ = ["Worker", "WorkerDied", "CallTimeout", "StudentError", "Proxy", "KernelDied", "JudgeExecute",
           "student_names", "run_test_cell"]

WORKER_SOURCE = (Path(__file__).with_name("worker.py")).read_text()
MAX_REPLY = 256 * 1024**2  # bytes: a larger reply is refused


class KernelDied(RuntimeError):
    """The process running the submission died: the submission cannot be graded."""


class WorkerDied(RuntimeError):
    """The worker process ended while it was running student code."""


class CallTimeout(RuntimeError):
    """Student code did not finish in time; the worker was stopped."""


class StudentError(Exception):
    """Student code raised an exception (its type and message are in ``args[0]``)."""


# -- plain data ---------------------------------------------------------------------
def encode(obj, depth=0):
    """Arguments for the worker as plain JSON data (numeric arrays as bytes)."""
    if depth > 20:
        raise TypeError("argument nested too deeply")
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in "biuf":
            raise TypeError(f"cannot send an array of dtype {obj.dtype}")
        arr = np.array(obj, order="C")  # (ascontiguousarray would turn a 0-d array into 1-d)
        return {"__ndarray__": base64.b64encode(arr.tobytes()).decode("ascii"), "dtype": arr.dtype.str,
                "shape": list(arr.shape)}
    if isinstance(obj, tuple):
        return {"__tuple__": [encode(v, depth + 1) for v in obj]}
    if isinstance(obj, list):
        return [encode(v, depth + 1) for v in obj]
    if isinstance(obj, dict):
        return {str(k): encode(v, depth + 1) for k, v in obj.items()}
    raise TypeError(f"cannot send an object of type {type(obj).__name__} to student code")


_SAFE_DTYPES = {"|b1", "<i8", "<f8", ">i8", ">f8"}


def decode(obj, depth=0):
    """Plain data from the worker, with numeric arrays rebuilt; anything else is refused."""
    if depth > 25:
        raise ValueError("reply nested too deeply")
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, list):
        return [decode(v, depth + 1) for v in obj]
    if isinstance(obj, dict):
        if "__ndarray__" in obj:
            dtype = obj.get("dtype")
            if dtype not in _SAFE_DTYPES:
                raise ValueError(f"reply holds an array of dtype {dtype!r}")
            shape = obj.get("shape")
            if not isinstance(shape, list) or not all(isinstance(n, int) and n >= 0 for n in shape):
                raise ValueError("reply holds an array with a malformed shape")
            raw = base64.b64decode(obj["__ndarray__"], validate=True)
            arr = np.frombuffer(raw, dtype=np.dtype(dtype))
            if arr.size != int(np.prod(shape, dtype=np.int64)):
                raise ValueError("reply holds an array whose data do not match its shape")
            return arr.reshape(shape).copy()
        return {str(k): decode(v, depth + 1) for k, v in obj.items()}
    raise ValueError(f"reply holds {type(obj).__name__}")


# -- the worker ----------------------------------------------------------------------
class Worker:
    """A sandboxed Python process holding one submission's namespace.

    Parameters
    ----------
    workdir : path
        A scratch copy of the submission's folder: the worker's cwd, its only writable folder.
    sandbox : Sandbox, optional
    startup_timeout : float
    """

    def __init__(self, workdir, *, sandbox=None, startup_timeout=60.0):
        self.workdir = Path(workdir)
        self.sandbox = sandbox or Sandbox()
        self.startup_timeout = startup_timeout
        self.proc = None
        self._buf = b""
        self._next_id = 0
        self.stdout_log = []

    def start(self):
        self.sandbox.check()
        # as root, every start gets its own user id: its process limit is its own, and nothing
        # a killed worker left behind (a fork bomb's children) can slow down the next one
        self.uid = fresh_uid() if (os.geteuid() == 0 and self.sandbox.mode == "bwrap") else None
        self.sandbox.prepare_workdir(self.workdir, uid=self.uid)
        argv = self.sandbox.command([sys.executable, "-I", "-c", WORKER_SOURCE], workdir=self.workdir, uid=self.uid)
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TZ")}
        env.update(HOME=str(self.workdir), MPLBACKEND="Agg", MPLCONFIGDIR=str(self.workdir / ".mpl"),
                   OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     cwd=self.workdir, env=env, preexec_fn=self.sandbox.preexec())
        self._buf = b""
        hello = self._read(self.startup_timeout)
        if not hello.get("ready"):
            self.kill()
            raise WorkerDied("the grading process did not start")
        return self

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
        if getattr(self, "uid", None) is not None:
            kill_user_processes(self.uid)

    def _read(self, timeout):
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buf:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise CallTimeout()
                if not sel.select(remaining):
                    continue
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise WorkerDied("the process running the submission ended")
                self._buf += chunk
                if len(self._buf) > MAX_REPLY:
                    raise WorkerDied("the submission sent back more data than allowed")
        line, self._buf = self._buf.split(b"\n", 1)
        try:
            message = json.loads(line)
        except ValueError:
            raise WorkerDied("the process running the submission sent back garbage") from None
        if not isinstance(message, dict):
            raise WorkerDied("the process running the submission sent back garbage")
        return message

    def request(self, message, timeout):
        """Send one request and wait at most ``timeout`` seconds for its reply."""
        if not self.alive():
            raise WorkerDied("the process running the submission is not running")
        self._next_id += 1
        message = dict(message, id=self._next_id)
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise WorkerDied("the process running the submission ended") from None
        while True:
            reply = self._read(timeout)
            if reply.get("id") == self._next_id:
                return reply

    def exec(self, source, *, cell=None, timeout):
        return self.request({"op": "exec", "source": source, "cell": cell}, timeout)

    def describe(self, names, *, timeout):
        return self.request({"op": "describe", "names": sorted(names)}, timeout)

    def call(self, name, args, kwargs, *, timeout):
        reply = self.request({"op": "call", "name": name, "args": encode(list(args)), "kwargs": encode(dict(kwargs))},
                             timeout)
        if reply.get("stdout"):
            self.stdout_log.append(reply["stdout"])
        if reply.get("error"):
            err = reply["error"]
            detail = f"\n{err['traceback'].rstrip()}" if err.get("traceback") else ""
            raise StudentError(f"{name}(...) raised {err.get('ename')}: {err.get('evalue')}{detail}")
        try:
            return decode(reply.get("result"))
        except (ValueError, TypeError) as exc:
            raise StudentError(f"{name}(...) returned something that is not plain data: {exc}") from None


class Proxy:
    """Stands for a function of the submission inside a test: calling it calls the worker.

    Only plain data crosses: arguments are sent as numbers and arrays, and the result comes
    back as numbers, lists and NumPy arrays built by the judge.
    """

    def __init__(self, name, session):
        self.__name__ = name
        self._session = session

    def __call__(self, *args, **kwargs):
        return self._session.call(self.__name__, args, kwargs)

    def student_sources(self):
        """The code of the cells the submission ran, in order (for static checks)."""
        return [source for _, source in self._session.history]

    def __repr__(self):
        return f"<the submission's function {self.__name__}>"


class Opaque:
    """A name of the submission that is neither a function nor plain data: any use fails clearly."""

    def __init__(self, name, what):
        object.__setattr__(self, "_text", f"{name} is {what}; the tests need a function or a plain value")

    def _fail(self, *args, **kwargs):
        raise AssertionError(object.__getattribute__(self, "_text"))

    __call__ = __float__ = __int__ = __index__ = __iter__ = __len__ = __bool__ = __array__ = _fail
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __add__ = __sub__ = __mul__ = __truediv__ = _fail

    def __getattr__(self, name):
        self._fail()

    __hash__ = object.__hash__


# -- which names a test takes from the submission ---------------------------------------
def _bound_names(tree):
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound


def student_names(source, known=()):
    """Names a test cell reads but neither defines itself nor finds in ``known`` or builtins.

    Examples
    --------
    >>> sorted(student_names("import numpy as np\\nx = np.ones(3)\\nassert predict(x) == answer_1"))
    ['answer_1', 'predict']
    """
    tree = ast.parse(source)
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return loaded - _bound_names(tree) - set(known) - set(dir(builtins))


# -- running the cells of one submission ------------------------------------------------
class Session:
    """One submission being graded: its worker, the cells it has run, and the deadline of a cell."""

    def __init__(self, workdir, *, sandbox, replay_timeout=60.0, log=None):
        self.workdir = Path(workdir)
        self.sandbox = sandbox
        self.replay_timeout = replay_timeout
        self.history = []         # (index, source) of cells the worker has run successfully or not
        self.worker = None
        self.deadline = None
        self.timeout = None
        self.log = log
        self.source_by_index = {}

    def start(self):
        self.worker = Worker(self.workdir, sandbox=self.sandbox).start()

    def close(self):
        if self.worker is not None:
            self.worker.kill()
            self.worker = None

    def _remaining(self):
        return max(0.05, self.deadline - time.monotonic())

    def restart(self, skip=()):
        """A fresh worker with the cells run so far replayed (except those in ``skip``)."""
        self.close()
        try:
            self.start()
        except (WorkerDied, CallTimeout, OSError) as exc:
            raise KernelDied(f"after a cell was stopped, a fresh process could not be started ({exc})") from None
        deadline = time.monotonic() + self.replay_timeout
        for index, source in self.history:
            if index in skip:
                continue
            try:
                self.worker.exec(source, cell=index, timeout=max(0.05, deadline - time.monotonic()))
            except CallTimeout:
                raise KernelDied(f"after a cell was stopped, the cells above it could not be run again "
                                 f"within {self.replay_timeout:.0f} s") from None
            except WorkerDied as exc:
                raise KernelDied(f"the process running the submission died while cell {index} was run again ({exc})") from None

    def exec_cell(self, index, source, timeout):
        """Run a non-test cell; return (stdout, error dict or None, timed_out)."""
        try:
            reply = self.worker.exec(source, cell=index, timeout=timeout)
        except CallTimeout:
            self.restart()
            return "", None, True
        except WorkerDied as exc:
            raise KernelDied(f"the process running the submission died while running cell {index} ({exc}): "
                             "the kernel died") from None
        self.history.append((index, source))
        return reply.get("stdout", ""), reply.get("error"), False

    def call(self, name, args, kwargs):
        try:
            return self.worker.call(name, args, kwargs, timeout=self._remaining())
        except CallTimeout:
            self.restart()
            raise CallTimeout(f"{name}(...) did not finish within {self.timeout} s and was stopped; it earns "
                              "no points. Does every loop end?") from None
        except WorkerDied as exc:
            raise KernelDied(f"the process running the submission died while a test called {name} ({exc}): "
                             "the kernel died") from None

    def bind(self, names):
        """Proxies and plain values for the submission's names (missing names are left out)."""
        if not names:
            return {}
        try:
            reply = self.worker.describe(names, timeout=self._remaining())
        except CallTimeout:
            self.restart()
            raise CallTimeout("the submission did not answer in time") from None
        except WorkerDied as exc:
            raise KernelDied(f"the process running the submission died ({exc}): the kernel died") from None
        bound = {}
        for name, kind in reply.get("kinds", {}).items():
            if name not in names:
                continue
            if kind == "callable":
                bound[name] = Proxy(name, self)
            elif kind == "value":
                try:
                    bound[name] = decode(reply["values"][name])
                except (KeyError, ValueError, TypeError):
                    bound[name] = Opaque(name, "not plain data")
            elif kind == "other":
                bound[name] = Opaque(name, str(reply.get("values", {}).get(name, "not plain data")))
        return bound


def run_test_cell(session, source, *, setup_namespace, timeout):
    """Run one test cell in the judge. Return (printed text, error dict or None)."""
    session.timeout = timeout
    session.deadline = time.monotonic() + timeout
    namespace = dict(setup_namespace)
    namespace["__name__"] = "__grading_test__"
    printed = io.StringIO()
    try:
        names = student_names(source, known=namespace)
        namespace.update(session.bind(names))
        code = compile(source, "<test>", "exec")
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            exec(code, namespace)
    except KernelDied:
        raise
    except CallTimeout as exc:
        return printed.getvalue(), {"ename": "CellTimeoutError", "evalue": str(exc)}
    except StudentError as exc:
        return printed.getvalue(), {"ename": "StudentCodeError", "evalue": str(exc)}
    except Exception as exc:  # noqa: BLE001 - a failed test is any exception
        return printed.getvalue(), {"ename": type(exc).__name__, "evalue": str(exc)}
    return printed.getvalue(), None


# -- the nbgrader preprocessor ---------------------------------------------------------
def _nbgrader(cell):
    return cell.get("metadata", {}).get("nbgrader", {})


def is_test_cell(cell):
    meta = _nbgrader(cell)
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


def is_setup_cell(cell):
    meta = _nbgrader(cell)
    return cell.get("cell_type") == "code" and bool(meta.get("locked")) and not meta.get("grade") \
        and not meta.get("solution")


def _imports_only(source):
    """The import statements of a piece of code (top level), as code."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    tree.body = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    return ast.unparse(tree)


def _stream(text):
    return NotebookNode(output_type="stream", name="stdout", text=text)


def _error_output(error):
    ename, evalue = error.get("ename", "Error"), error.get("evalue", "")
    tb = error.get("traceback") or f"{ename}: {evalue}"
    return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=tb.rstrip("\n").split("\n"))


def _judge_preprocessor_base():
    from nbgrader.preprocessors import NbGraderPreprocessor
    return NbGraderPreprocessor


class JudgeExecute(_judge_preprocessor_base()):
    """Execute a submission for grading: student cells in the sandboxed worker, tests in the judge."""

    timeout = Integer(10, help="Seconds a cell may run before it is stopped (it then earns 0 points).").tag(config=True)
    setup_timeout = Integer(120, help="Seconds allowed for the instructor's read-only cells.").tag(config=True)
    replay_timeout = Integer(60, help="Seconds allowed to re-run the cells above a stopped cell.").tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        # `Execute.timeout` in nbgrader_config.py is the course's per-cell timeout
        execute = self.config.get("Execute", {})
        if "timeout" in execute and "timeout" not in self.config.get("JudgeExecute", {}):
            self.timeout = int(execute["timeout"])

    def preprocess(self, nb, resources):
        path = Path(resources.get("metadata", {}).get("path") or ".")
        tests, setups = self._trusted_cells(resources)
        info = resources.get("nbgrader", {})
        self._who = {"assignment": info.get("assignment") or "unknown", "student": info.get("student") or "unknown"}
        sandbox = Sandbox()
        with tempfile.TemporaryDirectory(prefix="grading-") as tmp:
            work = Path(tmp) / "work"
            # links are copied as links: a link to the instructor's files stays a dead link in the sandbox
            shutil.copytree(path, work, symlinks=True, ignore=shutil.ignore_patterns("*.ipynb", ".ipynb_checkpoints"))
            session = Session(work, sandbox=sandbox, replay_timeout=self.replay_timeout, log=self.log)
            session.start()
            try:
                self._run(nb, session, tests, setups)
            finally:
                session.close()
        return nb, resources

    @staticmethod
    def _trusted_cells(resources):
        """``({grade_id: source} of test cells, {grade_id: source} of setup cells)`` from the gradebook.

        The judge runs only this code, never a cell's source from the submission: a student who
        gives one of their own cells the metadata of a test cell still has it run in the sandbox.
        """
        from nbgrader.api import Gradebook

        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gb:
            notebook = gb.find_notebook(info["notebook"], info["assignment"])
            solutions = {c.name for c in notebook.solution_cells}
            graded = {c.name for c in notebook.grade_cells} - solutions
            tests, setups = {}, {}
            for c in notebook.source_cells:
                if c.name in graded:
                    tests[c.name] = c.source
                elif c.locked and c.cell_type == "code" and c.name not in solutions:
                    setups[c.name] = c.source
        return tests, setups

    def _run(self, nb, session, tests, setups):
        setup_ns = {"__builtins__": builtins}
        count, judged = 0, set()
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            cell.outputs = []
            if not cell.source.strip():
                cell.execution_count = None
                continue
            count += 1
            cell.execution_count = count
            gid = _nbgrader(cell).get("grade_id")
            if is_test_cell(cell) and gid in tests and gid not in judged:
                judged.add(gid)
                with test_cell(cell=gid, **getattr(self, "_who", {"assignment": "unknown", "student": "unknown"})) as who:
                    printed, error = run_test_cell(session, tests[gid], setup_namespace=setup_ns, timeout=self.timeout)
                if printed:
                    cell.outputs.append(_stream(printed))
                if error:
                    error = dict(error, evalue=f"{error['evalue'].strip()}\n{replay_note(who)}")
                    cell.outputs.append(_error_output(dict(error, traceback=f"{error['ename']}: {error['evalue']}")))
                continue
            setup = is_setup_cell(cell) and gid in setups
            timeout = max(self.timeout, self.setup_timeout) if setup else self.timeout
            if setup:
                # the instructor's imports are trusted: the judge runs them too (from the gradebook),
                # but not the rest of a setup cell (data loading, pictures), which only the student needs
                with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
                    exec(compile(_imports_only(setups[gid]), "<setup>", "exec"), setup_ns)
            printed, error, timed_out = session.exec_cell(index, cell.source, timeout)
            if printed:
                cell.outputs.append(_stream(printed))
            if timed_out:
                cell.outputs.append(_error_output({
                    "ename": "CellTimeoutError",
                    "evalue": f"this cell did not finish within {timeout} s and was stopped; it earns no points. "
                              "Does every loop end?"}))
            elif error:
                cell.outputs.append(_error_output(error))
        return nb
