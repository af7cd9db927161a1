"""The grading engine: execute one submission, plain data in, plain data out.

:func:`execute_submission` is the one way the course runs a student's notebook, whoever
asks: nbgrader's autograde (through :class:`grading.preprocessors.CourseExecute`, so
``nbgrader autograde``, the Formgrader's button, ``make autograde`` and ``python -m grading
autograde`` alike), ``make regrade-check``, and the students' self-check (``make check`` and
the in-notebook check, with the released visible tests as its trusted cells). It takes and
returns only picklable data and never touches the gradebook, so it can run in a process
pool or on a Dask worker while only the instructor's process writes grades.

How a submission runs: the student's cells run in notebook order in a sandboxed worker
process (:mod:`grading.session`, :mod:`grading.worker`, :mod:`grading.sandbox`); each trusted
test cell runs here, in the grader (:mod:`grading.judge`), calling the student's functions
over a bounded channel (:mod:`grading.channel`, :mod:`grading.wire`), under the limits of one
:class:`grading.limits.GradingLimits`. Every failure is a failure of one cell:

* a cell that uses more than its CPU time (or its wall-clock backstop), whose process dies
  (``os._exit``, memory, a crash), that breaks the channel (a forged, malformed or oversized
  message) or that fills the scratch space beyond its number of files scores 0; the worker
  is started again, the cells above are replayed, and of the stopped cell what ran before it
  stopped (its top-level statements up to the one that was running), and grading goes on;
* a cell of more than :data:`MAX_CELL_CHARS` characters is refused without running;
* when the submission's wall-clock budget (``submission_timeout``) is spent, the cells left
  score 0 without running;
* only a submission whose process cannot be started at all is *ungraded*.

What reaches the notebook is bounded and gives nothing away: each output is capped; all
outputs together stay within ``GradingLimits.output_budget`` characters (a failing test
still fails: its error is kept, shortened); a test cell holding hidden tests shows only its
verdict (never a value, a display or what the student's code printed while it ran); and
the student's own cells after the first hidden test keep at most :data:`AFTER_HIDDEN_CHARS`
characters of output each, so hidden inputs a submission recorded cannot be carried home in
its feedback (they would be of no use anyway: a resubmission draws fresh data, see
:mod:`grading.context`).
"""
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
from .cells import describe_cell, grade_id, has_hidden_tests, is_setup_cell, is_test_cell, source_of
from .judge import run_test_cell
from .limits import GradingLimits
from .results import CellError, CellResult, Outcome, SubmissionReport
from .sandbox import Sandbox
from .session import Session, WorkerDidNotStart

__all__ = ["execute_submission", "WorkerDidNotStart", "KernelDied", "SubmissionRefused", "read_files", "FileLimits",
           "MAX_CELL_CHARS", "AFTER_HIDDEN_CHARS", "NBGRADER_FILES"]

MAX_CELL_CHARS = 1_000_000
"""Characters of code in one cell of the student's: a longer cell is refused (as a cell error) without running."""

AFTER_HIDDEN_CHARS = 1_000
"""Characters of output (printed text, an error's message) kept per cell of the student's after the first hidden test."""

NBGRADER_FILES = ("timestamp.txt",)
"""Files that nbgrader writes at the top of a submission's folder (``nbgrader collect``'s time of submission): not
the student's work, so neither shown to the student's code nor part of the submission's digest (which seeds the
hidden tests' data, :mod:`grading.context`). A student's code that could read a file the digest leaves out could
behave differently on the same hidden data."""

KernelDied = WorkerDidNotStart
"""The former name of :class:`grading.session.WorkerDidNotStart` (the submission is not graded)."""


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
    notebook it is given), nbgrader's own files at the top (:data:`NBGRADER_FILES`) and
    whatever goes beyond ``limits``.

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
            if not entry.is_file(follow_symlinks=False) or entry.name.endswith(skip) or \
                    (depth == 0 and entry.name in NBGRADER_FILES):
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


# -- outputs -----------------------------------------------------------------------------
class _Outputs:
    """The outputs kept for one notebook: each capped, all together within ``budget`` characters.

    Beyond the budget, printed text is left out (one note says so) and an error keeps its
    name and the start of its message: a failing test cell still fails in nbgrader's eyes.
    """

    SHORT = 200

    def __init__(self, budget):
        self.left = budget
        self.budget = budget
        self.noted = False

    def _take(self, text):
        self.left -= len(text)
        return text

    def stream(self, text, limit=wire.MAX_TEXT):
        if not text:
            return []
        text = wire.valid_text(wire.cap(text, limit))
        if len(text) <= self.left:
            return [NotebookNode(output_type="stream", name="stdout", text=self._take(text))]
        return self._note()

    def _note(self):
        if self.noted:
            return []
        self.noted = True
        return [NotebookNode(output_type="stream", name="stdout",
                             text=f"... (output left out from here on: the notebook's output budget of "
                                  f"{self.budget:,} characters is spent; CourseExecute.output_budget)\n")]

    def error(self, error, limit=None):
        """The error as an output: always one (a failing test must still fail), shortened beyond the budget."""
        if limit is not None:
            error = error.capped(limit)
        out, note = error.output(), []
        if _size(out) > self.left:
            note = self._note()
            out = CellError(error.ename, wire.cap(error.evalue, self.SHORT), outcome=error.outcome).output()
        self.left -= _size(out)
        out.ename, out.evalue = wire.valid_text(out.ename), wire.valid_text(out.evalue)
        out.traceback = [wire.valid_text(line) for line in out.traceback]
        return note + [out]


def _size(output):
    return len(output.evalue) + sum(len(line) for line in output.traceback)


# -- the core ----------------------------------------------------------------------------
def execute_submission(notebook, *, files=None, tests, setups=None, assignment=None, student=None, submission=None,
                       secret=None, withheld=(), limits=None, sandbox=None, log=None):
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
    assignment, student, submission : str, optional
        Who is graded, and the submission's digest. With the course's ``secret`` they seed the
        hidden tests' random data: each test cell runs inside ``grading.context.test_cell``
        (see :func:`grading.context.seed_for`). When any of the four is missing the tests run
        with the self-check's fixed data.
    secret : bytes, optional
        The course's secret (:func:`grading.context.course_secret`).
    withheld : sequence of str, optional
        ``course_lib`` functions the assignment asks students to write: the student's process
        sees a ``course_lib`` without them (:mod:`grading.withhold`); the tests keep them.
    limits : grading.limits.GradingLimits, optional
        Time limits and output budget (default: ``GradingLimits()``).
    sandbox : grading.sandbox.Sandbox, optional
        Default: ``Sandbox()``, checked once per process.
    log : logging.Logger, optional

    Returns
    -------
    notebook : nbformat.NotebookNode
        A copy of ``notebook`` with outputs, as a kernel would have recorded them (bounded as
        said above); nbgrader scores its test cells from them.
    report : grading.results.SubmissionReport

    Examples
    --------
    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("def double(x):\\n    return 2 * x")])
    >>> test = nbformat.v4.new_code_cell("assert double(21) == 42", metadata={"nbgrader": {
    ...     "grade": True, "solution": False, "locked": True, "points": 1, "grade_id": "double"}})
    >>> nb.cells.append(test)
    >>> done, report = execute_submission(nb, tests={"double": "assert double(21) == 42"})
    >>> report.status, report.outcomes()
    ('graded', ['ok', 'ok'])
    """
    limits = limits if limits is not None else GradingLimits()
    start = time.monotonic()
    budget_deadline = start + limits.submission_timeout
    nb = from_dict(json.loads(json.dumps(notebook)))
    setups = dict(setups or {})
    report = SubmissionReport()
    if isinstance(files, (str, os.PathLike)):
        files, report.notes = read_files(files)
    files = dict(files or {})
    if sandbox is None:
        sandbox = Sandbox()
    sandbox.check()

    who = None
    if assignment and student and submission and secret:
        who = {"assignment": assignment, "student": student, "submission": submission, "secret": bytes(secret)}
    with tempfile.TemporaryDirectory(prefix="grading-") as tmp:
        os.chmod(tmp, 0o755)
        _write_files(files, Path(tmp) / "files")
        if withheld:
            sandbox = _withholding(sandbox, withheld, assignment, Path(tmp) / "lib")
        session = Session(Path(tmp) / "files", sandbox=sandbox, limits=limits, budget_deadline=budget_deadline,
                          log=log)
        try:
            session.start()
            _run_cells(nb, session, tests, setups, who, _Outputs(limits.output_budget), report)
        except WorkerDidNotStart as exc:
            report.status, report.reason = "ungraded", str(exc)
        finally:
            session.close()
    report.restarts = session.restarts
    report.elapsed = time.monotonic() - start
    return nb, report


def _withholding(sandbox, names, assignment, folder):
    """``sandbox`` showing a copy of course_lib without ``names`` in place of the real one."""
    import dataclasses

    from .withhold import course_lib_dir, withheld_copy

    real = Path(os.path.realpath(course_lib_dir()))
    folder.mkdir(mode=0o755)
    copy = withheld_copy(names, assignment, folder / "course_lib", source=real)
    return dataclasses.replace(sandbox, course_lib=copy)


def _imports_only(source):
    """The import statements of a piece of trusted code (top level), as code."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return ""
    tree.body = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    return ast.unparse(tree)


def _run_cells(nb, session, tests, setups, who, outputs, report):
    from .context import replay_note, test_cell

    setup_ns = {"__builtins__": builtins}
    limits = session.limits
    count, judged, after_hidden = 0, set(), False
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
        if time.monotonic() >= session.budget_deadline:
            error = CellError("BudgetExceeded", f"{session.budget_text()} ran out before this cell; it was not run "
                              "and earns no points", outcome=Outcome.BUDGET)
            cell.outputs += outputs.error(error)
            report.cells.append(CellResult(index, gid, error.outcome))
            continue
        if is_test_cell(cell) and gid in tests and gid not in judged:
            judged.add(gid)
            hidden = has_hidden_tests(tests[gid])
            context = test_cell(cell=gid, **who) if who else contextlib.nullcontext()
            with context as current:
                printed, error = run_test_cell(session, tests[gid], setup_namespace=setup_ns, timeout=limits.timeout)
            if not hidden:                      # a test cell holding hidden tests shows its verdict only
                cell.outputs += outputs.stream(printed)
            if error is not None:
                if current is not None and not error.outcome.stopped:
                    error = CellError(error.ename, f"{error.evalue}\n{replay_note(current)}", outcome=error.outcome)
                cell.outputs += outputs.error(CellError(error.ename, error.evalue, f"{error.ename}: {error.evalue}",
                                                        error.outcome))
            report.cells.append(CellResult(index, gid, Outcome.OK if error is None else error.outcome))
            after_hidden = after_hidden or hidden
            continue
        if len(source) > MAX_CELL_CHARS:
            error = CellError("CellTooLarge", f"this cell holds {len(source):,} characters of code; at most "
                              f"{MAX_CELL_CHARS:,} are run, so it was not run and earns no points")
            cell.outputs += outputs.error(error)
            report.cells.append(CellResult(index, gid, error.outcome))
            continue
        setup = is_setup_cell(cell) and gid in setups
        if setup:
            # the instructor's imports are trusted: the judge runs them too (from the gradebook or the
            # release), but not the rest of a setup cell (data loading, pictures), which only the student needs
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    exec(compile(_imports_only(setups[gid]), "<setup>", "exec"), setup_ns)
            except Exception as exc:  # said in the log, and the tests then fail on the name
                if session.log:
                    session.log.warning("%s: the tests' imports failed: %s: %s", describe_cell(cell, index),
                                        type(exc).__name__, exc)
        printed, error = session.exec_cell(index, source, limits.setup_timeout if setup else limits.timeout)
        cap = AFTER_HIDDEN_CHARS if after_hidden else wire.MAX_TEXT
        cell.outputs += outputs.stream(printed, cap)
        if error is not None:
            cell.outputs += outputs.error(error, cap)
        report.cells.append(CellResult(index, gid, Outcome.OK if error is None else error.outcome))
        if session.log and error is not None and error.outcome.stopped:
            session.log.warning("%s: %s", describe_cell(cell, index), error.evalue)
    return nb
