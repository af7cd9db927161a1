"""The students' self-check: nbgrader's Validator, run by the grading engine, with an exit status.

``nbgrader validate`` prints "VALIDATION FAILED" but exits 0. :func:`check` runs the same
validation — the notebook's visible tests — with the course's grading engine
(:func:`grading.engine.execute_submission`): the student's cells run in the grading sandbox
exactly as autograding runs them (the notebook's folder is the working directory, its ``.py``
files importable), the visible test cells run as the trusted tests, and a test cell whose
checksum shows it was edited is reported as changed, not run. It returns 1 when any test
fails or any test cell was edited.
"""
import sys
from pathlib import Path

from .course import ensure_tools_on_path

__all__ = ["CourseValidator", "check", "visible_tests"]


def visible_tests(nb):
    """``({grade_id: source} of test cells, {grade_id: source} of setup cells)`` the notebook still has unedited.

    A read-only cell counts only when its source matches the checksum nbgrader recorded at release.
    """
    from nbgrader import utils

    from .cells import grade_id, is_setup_cell, is_test_cell

    tests, setups = {}, {}
    for cell in nb.cells:
        gid = grade_id(cell)
        if gid is None or cell.get("cell_type") != "code":
            continue
        recorded = cell.metadata.get("nbgrader", {}).get("checksum")
        if recorded is not None and recorded != utils.compute_checksum(cell):
            continue
        if is_test_cell(cell):
            tests.setdefault(gid, cell.source)
        elif is_setup_cell(cell):
            setups.setdefault(gid, cell.source)
    return tests, setups


def _validator_class():
    from nbgrader import utils
    from nbgrader.validator import Validator
    from traitlets import Float, Integer

    class CourseValidator(Validator):
        """nbgrader's Validator executing with the course's grading engine, showing errors in full.

        nbgrader cuts every line at 90 characters, which drops the end of a test's message:
        what the student's code returned. Here code is still shortened, but an error's lines
        are wrapped, never cut.
        """

        timeout = Integer(10, help="Seconds per cell (default: Execute.timeout).").tag(config=True)
        submission_timeout = Float(600, help="Seconds for the whole notebook.").tag(config=True)
        folder = None           # the notebook's files (None: none)
        assignment = None       # named in the withheld functions' message
        withheld = ()           # course_lib functions the student's process does not get

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            execute = self.config.get("Execute", {})
            if "timeout" in execute and "timeout" not in self.config.get("CourseValidator", {}):
                self.timeout = int(execute["timeout"])
            course = self.config.get("CourseExecute", {})
            if "submission_timeout" in course and "submission_timeout" not in self.config.get("CourseValidator", {}):
                self.submission_timeout = float(course["submission_timeout"])

        def _preprocess(self, nb):
            from .engine import execute_submission

            tests, setups = visible_tests(nb)
            with utils.setenv(NBGRADER_VALIDATING="1", NBGRADER_EXECUTION="validate"):
                executed, self.report = execute_submission(
                    nb, files=self.folder, tests=tests, setups=setups, timeout=self.timeout,
                    assignment=self.assignment, withheld=self.withheld,
                    submission_timeout=self.submission_timeout, log=self.log)
            if self.report["status"] != "graded":
                raise RuntimeError(self.report["reason"])
            return executed

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

    return CourseValidator


def CourseValidator(**kwargs):  # noqa: N802  (a factory that looks like the class)
    """Create the course's Validator (nbgrader is imported lazily)."""
    return _validator_class()(**kwargs)


def check(notebooks, *, timeout=None, stream=None, sandboxed=None):
    """Validate notebooks; return 0 when every visible test passes, 1 otherwise (2: bad input).

    The student's cells run in the grading sandbox (:mod:`grading.sandbox`), as when the
    notebook is autograded; where the sandbox cannot start the check refuses, unless
    ``GRADING_SANDBOX=off``.

    Parameters
    ----------
    notebooks : list of str
        Paths of student notebooks.
    timeout : int, optional
        Seconds per cell (default: the course configuration, else 10).
    stream : file, optional
        Where the report goes (default: stdout).
    sandboxed : bool, optional
        Ignored (kept for compatibility): the engine always uses the sandbox unless ``GRADING_SANDBOX=off``.
    """
    from traitlets.config import Config, PyFileConfigLoader

    from .preprocessors import CourseExecute
    from .sandbox import Sandbox, SandboxError

    stream = stream or sys.stdout
    try:
        Sandbox().check()
    except SandboxError as exc:
        print(f"error: not checking: {exc}", file=sys.stderr)
        return 2
    ensure_tools_on_path()
    cfg = Config()
    here = Path.cwd()
    if (here / "nbgrader_config.py").is_file():
        cfg.merge(PyFileConfigLoader("nbgrader_config.py", path=str(here)).load_config())
    if timeout is not None:
        cfg.CourseValidator.timeout = timeout
    worst = 0
    for path in notebooks:
        if not Path(path).is_file():
            print(f"error: no notebook at {path}", file=sys.stderr)
            worst = 2
            continue
        validator = CourseValidator(config=cfg)
        validator.stream = stream
        folder = Path(path).resolve().parent
        # the course folder itself holds the instructor's files: a notebook there runs with no other file
        if not ((folder / "nbgrader_config.py").exists() or (folder / "source").is_dir()):
            validator.folder = folder
        validator.withheld = _withheld_for(Path(path), here)
        validator.assignment = Path(path).resolve().parent.name
        if "timeout" not in cfg.get("CourseValidator", {}):        # the limit autograde gives this assignment
            validator.timeout = CourseExecute(config=cfg).cell_timeout(validator.assignment)
        try:
            results = validator.validate(str(path))
        except Exception as exc:  # broken file, a process that cannot start ...
            print(f"{path}: could not be checked: {type(exc).__name__}: {exc}", file=stream)
            worst = max(worst, 1)
            continue
        _print(validator, results)
        _summary(path, results, stream)
        failed = any(results.get(k) for k in ("type_changed", "changed", "failed"))
        print(f"{path}: {'FAILED' if failed else 'all visible tests passed'}", file=stream)
        worst = max(worst, 1 if failed else 0)
    return worst


def _withheld_for(notebook, course):
    """The course_lib functions withheld for ``notebook``: from the course's ``source/<assignment>/``
    when there is one (the instructor's list), else from the notebook's own folder (as released)."""
    from .withhold import withheld_names

    assignment = notebook.resolve().parent.name
    listed = withheld_names(course / "source" / assignment) if (course / "source").is_dir() else []
    return listed or withheld_names(notebook.resolve().parent)


def _summary(path, results, stream):
    """One line per test cell of the notebook: passed, or FAILED with the test's message."""
    import nbformat
    from nbconvert.filters import strip_ansi

    try:
        nb = nbformat.read(str(path), as_version=4)
    except Exception:  # noqa: BLE001 - already reported
        return
    failed = {}
    for cell in results.get("failed", []):
        text = strip_ansi(cell.get("raw_error") or cell.get("error") or "").strip().splitlines()
        last = text[-1].strip() if text else "failed"
        if last.rstrip(":") == "NotImplementedError":
            last = "not done yet (the function still raises NotImplementedError)"
        failed[cell.get("source", "").strip()] = last
    from .cells import grade_id, is_test_cell

    rows = []
    for cell in nb.cells:
        if is_test_cell(cell):
            gid = grade_id(cell) or "?"
            message = failed.get(cell.source.strip())
            rows.append(f"  {gid}: passed" if message is None else f"  {gid}: FAILED — {message}")
    if rows and not results.get("changed") and not results.get("type_changed"):
        passed = sum(r.endswith(": passed") for r in rows)
        print(f"\nSummary: {passed} of {len(rows)} test cells passed", file=stream)
        print("\n".join(rows), file=stream)


def _print(validator, results):
    """Print ``results`` the way ``nbgrader validate`` does (without validating again)."""
    type_changed = results.get("type_changed", [])
    changed = results.get("changed", [])
    failed = results.get("failed", [])
    if type_changed:
        validator._print_num_type_changed(len(type_changed))
        for cell in type_changed:
            validator._print_type_changed(cell["old_type"], cell["new_type"], cell["source"])
    elif changed:
        validator._print_num_changed(len(changed))
        for cell in changed:
            validator._print_changed(cell["source"])
    else:
        validator._print_num_failed(len(failed))
        for cell in failed:
            validator._print_error(cell["source"], cell["raw_error"])
