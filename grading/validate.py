"""The students' self-check: ``make check`` and, from inside a notebook, ``grading.check("predict")``.

Both run the notebook with the course's grading engine (:func:`grading.engine.execute_submission`)
exactly as autograding runs it — the student's cells in the grading sandbox, the notebook's
folder as their working directory, the assignment's ``course_lib`` functions withheld, the
same limits (:meth:`grading.preprocessors.CourseExecute.limits`) — with one difference: the
tests are the **released visible tests**, never the hidden ones, and never the test cells of
the notebook under check. They come from the course (:func:`released_tests`): the released
notebook in ``release/`` (or the exchange the student fetched it from), else the
instructor's version in ``source/`` or the gradebook with the hidden tests cut out. A test
cell of the notebook that was edited, or that claims to be a test cell without being one,
is not run: the released test runs in its place (and the summary says so). So a TA can run
``make check`` on a student's notebook: nothing the student wrote runs outside the sandbox.

The check says what it checked (:class:`CheckReport`): "11 of 12 visible test cells passed;
12 more tests and 1 question are graded later" — never "all the tests" while hidden tests or
answers graded by hand remain; a lecture (no tests) has nothing to check.

``nbgrader validate`` prints "VALIDATION FAILED" but exits 0; :func:`check` exits 1 when a
visible test fails or an answer graded by hand was left as released.
"""
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbgrader import utils
from nbgrader.validator import Validator

from .cells import HIDDEN_TESTS, grade_id, has_hidden_tests, is_graded_by_hand, is_setup_cell, is_test_cell
from .course import Course, CourseError

__all__ = ["CourseValidator", "CheckReport", "ReleasedTests", "check", "check_exercise", "released_tests"]

_HIDDEN_REGION = re.compile(rf"^[ \t]*{re.escape(HIDDEN_TESTS[0])}.*?^[ \t]*{re.escape(HIDDEN_TESTS[1])}[ \t]*\n?",
                            re.M | re.S)


# -- the released tests -------------------------------------------------------------------
@dataclass
class ReleasedTests:
    """What the course released for one notebook: its visible tests and the nbgrader metadata of its cells.

    ``tests`` and ``setups`` map grade_ids to code (test cells, the instructor's read-only
    code cells), ``metadata`` every released cell's nbgrader metadata by grade_id, ``order``
    the test cells' grade_ids in notebook order; ``hidden`` the grade_ids of the test cells
    that hold hidden tests (None when only the released version was found, which does not
    say); ``by_hand`` the answers graded by hand; ``where`` what they were read from.
    """

    tests: dict
    setups: dict
    metadata: dict
    order: list
    hidden: set | None
    by_hand: list
    where: str


def _visible(source):
    """A test cell's code without its hidden tests (as nbgrader releases it)."""
    return _HIDDEN_REGION.sub("", source)


def _from_notebook(nb, where, *, instructor):
    tests, setups, metadata, order, by_hand, hidden = {}, {}, {}, [], [], set()
    for cell in nb.cells:
        gid = grade_id(cell)
        if gid is None or gid in metadata:
            continue
        metadata[gid] = dict(cell.metadata["nbgrader"])
        if is_test_cell(cell):
            tests[gid] = _visible(cell.source)
            order.append(gid)
            if has_hidden_tests(cell.source):
                hidden.add(gid)
        elif is_setup_cell(cell):
            setups[gid] = cell.source
        elif is_graded_by_hand(cell):
            by_hand.append(gid)
    return ReleasedTests(tests, setups, metadata, order, hidden if instructor else None, by_hand, where)


def _read(path):
    return nbformat.read(str(path), as_version=4)


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _from_gradebook(db_url, name, assignment):
    from nbgrader.api import MissingEntry

    from . import gradebook as gbk
    from .preprocessors import trusted_metadata

    metadata = trusted_metadata(db_url, name, assignment)
    if not metadata:
        return None
    with gbk.open_url(db_url) as gb:
        try:
            book = gb.find_notebook(name, assignment)
        except MissingEntry:
            return None
        sources = {c.name: c.source for c in book.source_cells}
    cells = [nbformat.v4.new_code_cell(sources.get(g) or "", metadata={"nbgrader": m})
             if m.get("cell_type") == "code" else nbformat.v4.new_markdown_cell(sources.get(g) or "",
                                                                             metadata={"nbgrader": m})
             for g, m in metadata.items()]
    return _from_notebook(nbformat.v4.new_notebook(cells=cells), f"the gradebook ({name} of {assignment})",
                          instructor=True)


def _nbgrader_config():
    """nbgrader's configuration as the Validate button loads it (the working folder, then Jupyter's paths)."""
    from jupyter_core.paths import jupyter_config_path
    from nbgrader.apps import NbGrader

    app = NbGrader()
    app.config_file_paths.append([os.getcwd()] + jupyter_config_path())
    app.load_config_file()
    return app.config


def _exchange_release(assignment, name):
    """The released notebook in nbgrader's exchange (what a student fetched on the course's hub), if any."""
    try:
        config = _nbgrader_config()
        root, course_id = config.Exchange.get("root"), config.CourseDirectory.get("course_id")
    except Exception:  # no nbgrader configuration: no exchange
        return None
    if not root or not course_id:
        return None
    path = Path(root) / course_id / "outbound" / assignment / f"{name}.ipynb"
    return path if path.is_file() else None


def released_tests(notebook, course=None):
    """The released tests of ``notebook`` (a path): from the course, never from the notebook itself.

    Looked up, for assignment ``A`` (the notebook's folder name) and notebook ``N``, in
    ``release/A/N.ipynb`` of ``course`` (unless that is the very file under check), the
    exchange's released copy, ``source/A/N.ipynb`` and the gradebook (hidden tests cut out).
    The number of test cells holding hidden tests is taken from ``source/`` or the gradebook
    when either is at hand.

    Returns
    -------
    ReleasedTests or None
        None when nothing was released for it (a lecture, a notebook of one's own).
    """
    notebook = Path(notebook).resolve()
    assignment, name = notebook.parent.name, notebook.stem
    found, instructor = None, None
    if course is not None:
        source = course.source_dir / assignment / f"{name}.ipynb"
        if source.is_file() and not _same_file(source, notebook):
            instructor = _from_notebook(_read(source), str(source), instructor=True)
        elif course.db_url.startswith("sqlite:///") and not Path(course.db_url[len("sqlite:///"):]).is_file():
            instructor = None
        else:
            try:
                instructor = _from_gradebook(course.db_url, name, assignment)
            except Exception:  # no gradebook to ask
                instructor = None
        release = course.release_dir / assignment / f"{name}.ipynb"
        if release.is_file() and not _same_file(release, notebook):
            found = _from_notebook(_read(release), str(release), instructor=False)
    if found is None:
        exchanged = _exchange_release(assignment, name)
        if exchanged is not None and not _same_file(exchanged, notebook):
            found = _from_notebook(_read(exchanged), str(exchanged), instructor=False)
    if found is None:
        return instructor
    if instructor is not None:
        found.hidden = {g for g in instructor.hidden if g in found.tests}
    return found


# -- what the check found --------------------------------------------------------------------
@dataclass
class CheckReport:
    """What a self-check found in one notebook, and how it says so."""

    notebook: str
    tests: list = field(default_factory=list)          # [(grade_id, None or the failure's message)]
    missing: list = field(default_factory=list)        # released test cells the notebook no longer has
    edited: list = field(default_factory=list)         # test cells that differ from the release (the release ran)
    unanswered: list = field(default_factory=list)     # answers graded by hand left as released
    hidden: int | None = None
    by_hand: int = 0
    lecture: bool = False
    exercise: str | None = None
    where: str = ""
    failures: list = field(default_factory=list)       # [{grade_id, message, test, traceback}] of failing tests
    error: str | None = None                           # why the notebook could not be checked at all
    unsandboxed: str | None = None                     # why the student's code ran without the sandbox

    @property
    def passed(self):
        return not self.lecture and not self.missing and not self.unanswered and all(m is None for _, m in self.tests)

    def headline(self):
        """One line: what passed, and what is graded later."""
        if self.lecture:
            return "this notebook has no tests (a lecture, or not an assignment of the course): there is nothing to check"
        what = f"exercise {self.exercise!r}: " if self.exercise else ""
        passed = sum(m is None for _, m in self.tests)
        if not self.tests:
            return f"{what}no visible test cell to run"
        line = f"{what}{passed} of {len(self.tests)} visible test cells passed"
        later = []
        if self.hidden is None:
            later.append("the hidden tests these cells may hold")
        elif self.hidden:
            later.append(f"{self.hidden} more test{'s' if self.hidden != 1 else ''}")
        if self.by_hand:
            later.append(f"{self.by_hand} question{'s' if self.by_hand != 1 else ''}")
        if later:
            single = len(later) == 1 and (self.hidden == 1 or (not self.hidden and self.by_hand == 1))
            line += f"; {' and '.join(later)} {'is' if single else 'are'} graded later"
        return line

    def lines(self):
        """The summary: one line per visible test cell, then the headline."""
        if self.lecture:
            return [f"{self.notebook}: {self.headline()}"]
        rows = [f"  {gid}: passed" if msg is None else f"  {gid}: FAILED — {msg}" for gid, msg in self.tests]
        rows += [f"  {gid}: MISSING — this test cell was deleted; it is restored and run when graded"
                 for gid in self.missing]
        rows += [f"  {gid}: not answered yet (graded by hand)" for gid in self.unanswered]
        notes = [f"note: the test cell {gid} differs from the released one; the released tests ran (your edits to "
                 "a test cell are not graded)" for gid in self.edited]
        where = f" (the released tests, from {self.where})" if self.where else ""
        return ["", f"Summary{where}:"] + rows + notes + [f"{self.notebook}: {self.headline()}"]

    def status(self):
        """``"error"`` (not checked), ``"nothing"`` (no tests), ``"passed"`` or ``"failed"``."""
        if self.error is not None:
            return "error"
        if self.lecture:
            return "nothing"
        return "passed" if self.passed else "failed"

    def as_dict(self):
        """The report as plain data (``python -m grading check --json``, the Validate button's dialog).

        ``failures`` lead: each failing test's message (what was expected, what the code
        returned), its test code and traceback; ``problems`` are the deleted test cells and the
        answers left as released; ``headline`` is the line ``make check`` ends with; ``notes``
        say which tests ran and how.
        """
        problems = [f"{gid}: this test cell was deleted; it is restored and run when graded" for gid in self.missing]
        problems += [f"{gid}: not answered yet (graded by hand)" for gid in self.unanswered]
        notes = [f"The test cell {gid} differs from the released one; the released tests ran (your edits to a "
                 "test cell are not graded)." for gid in self.edited]
        if self.tests:
            notes.append(_LATER if (self.hidden or self.hidden is None or self.by_hand) else _VISIBLE_ONLY)
        if self.where:
            notes.append(f"The released tests came from {self.where}.")
        if self.unsandboxed:
            notes.append(f"Your code ran without the grading sandbox, which cannot start here ({self.unsandboxed}); "
                         "autograding runs it inside the sandbox.")
        return {"notebook": self.notebook, "status": self.status(),
                "headline": _capitalized(self.error or self.headline()),
                "tests": [{"grade_id": gid, "passed": msg is None, "message": msg} for gid, msg in self.tests],
                "failures": list(self.failures), "problems": problems, "notes": notes, "error": self.error}

    def __repr__(self):
        return "\n".join(self.lines()).strip("\n")

    def _repr_pretty_(self, printer, cycle):
        printer.text(repr(self))


_LATER = ("Passing the visible tests is not full marks: the hidden tests and the answers graded by hand "
          "decide the rest of the grade.")
_VISIBLE_ONLY = "This notebook has no hidden tests and no answers graded by hand."

# What a failure shows: its message in full up to this many characters, its traceback up to this many.
MESSAGE_CHARS = 2000
TRACEBACK_CHARS = 20000


def _capitalized(text):
    return text[:1].upper() + text[1:]


def _shortened(text, limit):
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}\n… ({len(text) - limit} more characters)"


# -- the check ---------------------------------------------------------------------------
def _trust_the_release(nb, released):
    """Give the notebook's cells the released nbgrader metadata (by grade_id); return (edited, missing) grade_ids."""
    seen, edited = set(), []
    for cell in nb.cells:
        meta = cell.get("metadata", {})
        if "nbgrader" not in meta:
            continue
        gid = grade_id(cell)
        if gid not in released.metadata or gid in seen:
            del meta["nbgrader"]                     # not a cell of the release: the student's own code
            continue
        seen.add(gid)
        meta["nbgrader"] = dict(released.metadata[gid])
        if gid in released.tests and cell.get("cell_type") == "code" and \
                _normal(cell.source) != _normal(released.tests[gid]):
            edited.append(gid)
    return edited, [g for g in released.order if g not in seen]


def _normal(source):
    return "\n".join(line.rstrip() for line in str(source).strip().splitlines())


def _last_line(text):
    lines = [line for line in str(text).strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "failed"


NOT_DONE = "not done yet (the function still raises NotImplementedError)"


def _whole_message(error):
    """An error output's message as a student reads it: ``AssertionError: with w = [1, 2], ...`` (ANSI codes out)."""
    from nbconvert.filters import strip_ansi

    name, value = strip_ansi(str(error.get("ename") or "")).strip(), strip_ansi(str(error.get("evalue") or "")).strip()
    if name == "StudentCodeError" and value:    # "f(...) raised ValueError: ..."; the student's traceback follows
        value = value.splitlines()[0].strip()
    return f"{name}: {value}" if name and value else (name or value or "failed")


def _not_done(message):
    """Whether a test failed because the function is not written yet (it still raises NotImplementedError).

    Examples
    --------
    >>> _not_done("NotImplementedError"), _not_done("StudentCodeError:"), _not_done("pla raised NotImplementedError")
    (True, True, True)
    >>> _not_done("AssertionError: expected 3, got 4")
    False
    """
    return message.rstrip(":") in ("NotImplementedError", "StudentCodeError") or "raised NotImplementedError" in message


def _not_released(path, course):
    """The error for an assignment's notebook whose released version was found nowhere."""
    where = f"{course.root}" if course is not None else "no course directory"
    return CourseError(f"the released version of {path.parent.name}/{path.name} was not found ({where}; "
                       "release/, source/, the gradebook and nbgrader's exchange were looked at): the check "
                       "runs the released tests only, never the test cells of the notebook itself")


class CourseValidator(Validator):
    """nbgrader's Validator run by the course's grading engine on the released visible tests.

    :meth:`validate` returns nbgrader's result dictionary (``failed`` with each failing cell's
    source and error); :attr:`check_report` holds the :class:`CheckReport`. nbgrader cuts
    every line at 90 characters, which drops the end of a test's message (what the student's
    code returned): here code is still shortened, but an error's lines are wrapped, never cut.
    """

    course = None           # the grading.course.Course the released tests come from (None: none)
    folder = None           # the notebook's files (None: none)
    timeout = None          # seconds per cell in place of the course's (make check --timeout)
    exercise = None         # check the test cells of this exercise only
    sandbox = None          # the grading.sandbox.Sandbox to run the student's code in (None: the default)
    check_report = None

    def limits(self, assignment):
        from .preprocessors import CourseExecute

        config = self.course.config if self.course is not None else self.config
        limits = CourseExecute(config=config).limits(assignment)
        return limits.replace(timeout=self.timeout) if self.timeout is not None else limits

    def validate(self, filename):
        path = Path(filename).resolve()
        nb = nbformat.read(str(path), as_version=4)
        released = released_tests(path, self.course)
        report = CheckReport(notebook=str(filename), exercise=self.exercise)
        self.check_report = report
        if released is None and any(is_test_cell(c) or is_graded_by_hand(c) for c in nb.cells):
            raise _not_released(path, self.course)
        if released is None or not (released.order or released.by_hand):
            report.lecture = True
            return {}
        nb, tests = self._what_to_check(nb, path, released, report)
        executed, result = self._execute(nb, path, tests, released)
        failed = self._outcomes(executed, result, tests, report)
        return {"failed": failed} if failed else {}

    def _what_to_check(self, nb, path, released, report):
        """The notebook with the released metadata (cut after the exercise's last test) and the tests to run."""
        from .exporters import exercise_of

        report.where, report.by_hand = released.where, len(released.by_hand)
        report.hidden = None if released.hidden is None else len(released.hidden)
        report.edited, report.missing = _trust_the_release(nb, released)
        wanted = [g for g in released.order if self.exercise is None or exercise_of(g) == self.exercise]
        if self.exercise is not None:
            nb = self._one_exercise(nb, path, released, wanted, report)
        return nb, {g: released.tests[g] for g in wanted}

    def _one_exercise(self, nb, path, released, wanted, report):
        """The report narrowed to the exercise's test cells (``wanted``), the notebook up to its last test."""
        from .exporters import exercise_of

        if not wanted:
            raise CourseError(f"{path.name} has no exercise {self.exercise!r}: its exercises are "
                              f"{', '.join(dict.fromkeys(exercise_of(g) for g in released.order))}")
        report.missing = [g for g in report.missing if g in wanted]
        report.edited = [g for g in report.edited if g in wanted]
        report.by_hand = 0
        report.hidden = None if released.hidden is None else len(released.hidden & set(wanted))
        return _up_to_the_last_test_of(nb, wanted)

    def _execute(self, nb, path, tests, released):
        """Run the notebook and the released ``tests`` with the engine, as autograde would; ``(executed, report)``."""
        from .engine import execute_submission

        assignment = path.parent.name
        with utils.setenv(NBGRADER_VALIDATING="1", NBGRADER_EXECUTION="validate"):
            executed, result = execute_submission(nb, files=self.folder, tests=tests, setups=released.setups,
                                                  assignment=assignment, withheld=_withheld_for(path, self.course),
                                                  limits=self.limits(assignment), sandbox=self.sandbox, log=self.log)
        if not result.graded:
            raise RuntimeError(result.reason)
        return executed, result

    def _outcomes(self, executed, result, tests, report):
        """Each test cell that ran passed or failed, each answer graded by hand answered or not: into ``report``.

        Returns nbgrader's ``failed`` list.
        """
        failed = []
        ran = {c.index for c in result.cells}
        for index, cell in enumerate(executed.cells):
            gid = grade_id(cell)
            if gid in tests and index in ran and is_test_cell(cell):
                report.tests.append((gid, self._failure(cell, gid, report, failed)))
            elif self.exercise is None and is_graded_by_hand(cell) and utils.determine_grade(cell, self.log)[0] == 0:
                report.unanswered.append(gid)
                failed.append({"grade_id": gid, "source": cell.source.strip(),
                               "raw_error": "You did not provide a response.",
                               "error": "You did not provide a response."})
        return failed

    def _failure(self, cell, gid, report, failed):
        """The failure message of a test cell that ran (None: it passed); a failure goes to ``report`` and ``failed``."""
        from nbconvert.filters import strip_ansi

        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        if not errors:
            return None
        message = _last_line(errors[0].get("evalue") or errors[0].get("ename"))
        whole = _whole_message(errors[0])
        if _not_done(message):
            message = whole = NOT_DONE
        raw = self._extract_error(cell)
        failed.append({"grade_id": gid, "source": cell.source.strip(), "raw_error": raw, "error": raw})
        report.failures.append({"grade_id": gid, "message": _shortened(whole, MESSAGE_CHARS),
                                "test": cell.source.strip(),
                                "traceback": _shortened(strip_ansi(raw).strip(), TRACEBACK_CHARS)})
        return message

    def _print_error(self, source, error):
        import textwrap

        from nbconvert.filters import strip_ansi

        self.stream.write("\n" + "=" * self.width + "\n")
        self.stream.write("The following cell failed:\n\n")
        self.stream.write(self._indent(source) + "\n\n")
        self.stream.write("The error was:\n\n")
        lines = []
        for line in strip_ansi(error).split("\n"):
            lines += textwrap.wrap(line, self.width - len(self.indent), subsequent_indent="  ") or [""]
        self.stream.write("\n".join(self.indent + line for line in lines) + "\n\n")


def _up_to_the_last_test_of(nb, wanted):
    """The notebook's cells up to the last test cell of ``wanted`` (the cells below it need not run)."""
    last = max((i for i, c in enumerate(nb.cells) if grade_id(c) in wanted), default=len(nb.cells) - 1)
    out = nbformat.from_dict(dict(nb))
    out.cells = nb.cells[:last + 1]
    return out


def _withheld_for(notebook, course):
    """The course_lib functions withheld for ``notebook``: from the course's ``source/<assignment>/``
    when there is one (the instructor's list), else from the notebook's own folder (as released)."""
    from .withhold import withheld_names

    assignment = notebook.resolve().parent.name
    listed = withheld_names(course.source_dir / assignment) if course is not None else []
    return listed or withheld_names(notebook.resolve().parent)


def _course_of(folder):
    """The course directory at or above ``folder`` (holding nbgrader_config.py), or None."""
    for here in [Path(folder).resolve()] + list(Path(folder).resolve().parents):
        if (here / "nbgrader_config.py").is_file():
            try:
                return Course(here)
            except CourseError:
                return None
    return None


def _validator(course, folder, *, timeout=None, exercise=None, stream=None):
    validator = CourseValidator(config=course.config if course is not None else _nbgrader_config())
    validator.course = course
    validator.timeout = timeout
    validator.exercise = exercise
    validator.stream = stream or sys.stdout
    # the course folder itself holds the instructor's files: a notebook there runs with no other file
    if course is None or Path(folder).resolve() != course.root:
        validator.folder = Path(folder)
    return validator


def check(notebooks, *, timeout=None, stream=None, course=".", as_json=False, sandbox="required"):
    """Check notebooks against their released visible tests; return 0 when all pass, 1 otherwise (2: bad input).

    The student's cells run in the grading sandbox (:mod:`grading.sandbox`), as when the
    notebook is autograded; where the sandbox cannot start the check refuses, unless
    ``GRADING_SANDBOX=off`` or ``sandbox="preferred"``.

    Parameters
    ----------
    notebooks : list of str
        Paths of notebooks.
    timeout : int, optional
        CPU seconds per cell (default: the course configuration's limit for the assignment).
    stream : file, optional
        Where the report goes (default: stdout).
    course : path
        The course directory (default: the current directory): where the released tests are.
    as_json : bool
        Write one line of JSON instead of the text report: a list with each notebook's
        :meth:`CheckReport.as_dict` (the Validate button's server reads it).
    sandbox : {"required", "preferred"}
        ``"preferred"``: where the sandbox cannot start, run the student's code without it (in
        the account running the check, as a student's own kernel does) and say so in the
        report; the Validate button of a student's own JupyterLab does this.
    """
    from .sandbox import Sandbox, SandboxError

    if sandbox not in ("required", "preferred"):
        raise ValueError(f"sandbox={sandbox!r}: expected 'required' or 'preferred'")
    stream = stream or sys.stdout
    reports, box, unsandboxed = [], None, None
    try:
        Sandbox().check()
    except SandboxError as exc:
        if sandbox == "required":
            _refuse(notebooks, f"not checking: {exc}", as_json=as_json, stream=stream)
            return 2
        box, unsandboxed = Sandbox(mode="off"), _first_sentence(str(exc))
    try:
        course = Course(course)
    except CourseError:
        course = None
    worst = 0
    quiet = open(os.devnull, "w") if as_json else None
    try:
        for path in notebooks:
            report, code = _check_one(path, course, timeout=timeout, box=box, unsandboxed=unsandboxed,
                                      stream=stream, quiet=quiet)
            reports.append(report)
            worst = max(worst, code)
    finally:
        if quiet is not None:
            quiet.close()
    if as_json:
        print(json.dumps([r.as_dict() for r in reports]), file=stream)
    return worst


def _check_one(path, course, *, timeout, box, unsandboxed, stream, quiet):
    """Check one notebook: ``(CheckReport, exit code)``; the text report goes to ``stream`` unless ``quiet`` (JSON).

    The exit code is 0 (passed, or nothing to check), 1 (failed, or could not be checked) or 2
    (no such notebook).
    """
    if not Path(path).is_file():
        if quiet is None:
            print(f"error: no notebook at {path}", file=sys.stderr)
        return CheckReport(notebook=str(path), error=f"no notebook at {path}"), 2
    validator = _validator(course, Path(path).resolve().parent, timeout=timeout, stream=quiet or stream)
    validator.sandbox = box
    try:
        results = validator.validate(str(path))
    except Exception as exc:  # the course's refusal; a broken file, a process that cannot start ...
        why = str(exc) if isinstance(exc, CourseError) else f"{type(exc).__name__}: {exc}"
        if quiet is None:
            print(f"{path}: could not be checked: {why}", file=stream)
        return CheckReport(notebook=str(path), error=f"could not be checked: {why}"), 1
    report = validator.check_report
    report.unsandboxed = unsandboxed
    if quiet is None:
        _print_report(validator, results, report, stream=stream)
    return report, 0 if report.passed or report.lecture else 1


def _refuse(notebooks, error, *, as_json, stream):
    """Say that no notebook is checked, and why: one report per notebook (JSON), or one line on stderr."""
    if as_json:
        print(json.dumps([CheckReport(notebook=str(p), error=error).as_dict() for p in notebooks]), file=stream)
    else:
        print(f"error: {error}", file=sys.stderr)


def _print_report(validator, results, report, *, stream):
    """The text report of one checked notebook: nbgrader's lines for each failed cell, then the summary."""
    failed = results.get("failed", [])
    if failed:
        validator._print_num_failed(len(failed))
        for cell in failed:
            validator._print_error(cell["source"], cell["raw_error"])
    print("\n".join(report.lines()), file=stream)
    if report.unsandboxed:
        print(f"note: your code ran without the grading sandbox ({report.unsandboxed})", file=stream)


def _first_sentence(text):
    first = str(text).strip().split(". ")[0].strip().rstrip(".")
    return first or "the sandbox cannot start"


def check_exercise(exercise=None, *, notebook=None, timeout=None):
    """Check one exercise (or the whole notebook) from inside the notebook, as ``make check`` does.

    ``grading.check("pla")`` in the cell below an exercise runs the notebook **as last saved**
    (save it first) with the grading engine, in the sandbox, with the assignment's limits
    and withheld functions, up to the last test cell of exercise ``pla`` (the part of its
    test cells' grade_ids before the first ``-``), and runs that exercise's released visible
    tests. Returns the :class:`CheckReport` (shown as its summary).

    Parameters
    ----------
    exercise : str, optional
        The exercise; default every test cell of the notebook.
    notebook : path, optional
        Default: the notebook of this kernel (``JPY_SESSION_NAME``, set by Jupyter), else
        the one notebook in the working folder named like it.
    timeout : int, optional
        CPU seconds per cell in place of the course's.
    """
    path = _this_notebook(notebook)
    course = _course_of(path.parent)
    validator = _validator(course, path.parent, timeout=timeout, exercise=exercise, stream=open(os.devnull, "w"))
    validator.validate(str(path))
    return validator.check_report


def _this_notebook(notebook):
    if notebook is not None:
        path = Path(notebook)
    else:
        session = os.environ.get("JPY_SESSION_NAME", "")
        path = Path(session) if session.endswith(".ipynb") else None
        if path is None:
            here = Path.cwd()
            candidates = [here / f"{here.name}.ipynb"] + sorted(here.glob("*.ipynb"))
            path = next((p for p in candidates if p.is_file()), None)
    if path is None or not path.is_file():
        raise CourseError("cannot tell which notebook to check: save it, and pass its path, e.g. "
                          "grading.check('pla', notebook='ps1_perceptron.ipynb')")
    return path.resolve()
