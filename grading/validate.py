"""The students' self-check: nbgrader's Validator with an exit status that means something.

``nbgrader validate`` prints "VALIDATION FAILED" but exits 0. :func:`check` runs the same
validation (the notebook's visible tests, in a fresh kernel) with
:class:`grading.execute.GradingExecute` — so a warning on stderr is not a failure and an
endless cell is stopped — and returns 1 when any test fails or any test cell was edited.
"""
import os
import sys

from traitlets import List

from .course import ensure_tools_on_path
from .execute import GradingExecute

__all__ = ["CourseValidator", "check"]


def _validator_class():
    from nbgrader.preprocessors import CheckCellMetadata, ClearOutput
    from nbgrader.validator import Validator

    class CourseValidator(Validator):
        """nbgrader's Validator executing with :class:`GradingExecute`, showing errors in full.

        nbgrader cuts every line at 90 characters, which drops the end of a test's message:
        what the student's code returned. Here code is still shortened, but an error's lines
        are wrapped, never cut.
        """

        preprocessors = List([CheckCellMetadata, ClearOutput, GradingExecute])

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

    Each notebook is validated inside the grading sandbox (:mod:`grading.sandbox`): a copy of
    its folder, the course configuration, a kernel of its own, no access to anything else.
    Where the sandbox cannot start the check refuses, unless ``GRADING_SANDBOX=off``.

    Parameters
    ----------
    notebooks : list of str
        Paths of student notebooks.
    timeout : int, optional
        Seconds per cell (default: the course configuration, else 10).
    stream : file, optional
        Where the report goes (default: stdout).
    sandboxed : bool, optional
        Validate inside the sandbox (default: unless ``GRADING_SANDBOX=off``).
    """
    from .sandbox import SandboxError, sandbox_mode

    stream = stream or sys.stdout
    try:
        if sandboxed is None:
            sandboxed = sandbox_mode() == "bwrap"
        if sandboxed:
            return _check_in_sandbox(notebooks, timeout=timeout, stream=stream)
    except SandboxError as exc:
        print(f"error: not checking: {exc}", file=sys.stderr)
        return 2
    return _check_here(notebooks, timeout=timeout, stream=stream)


def _check_in_sandbox(notebooks, *, timeout, stream):
    """Run :func:`check` for each notebook inside the sandbox, on a copy of its folder."""
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    from .sandbox import Sandbox, fresh_uid, kill_user_processes

    box = Sandbox()
    box.check()
    worst = 0
    for path in notebooks:
        path = Path(path)
        if not path.is_file():
            print(f"error: no notebook at {path}", file=sys.stderr)
            worst = 2
            continue
        with tempfile.TemporaryDirectory(prefix="grading-check-") as tmp:
            work = Path(tmp) / "work"
            folder = path.resolve().parent
            if (folder / "nbgrader_config.py").exists() or (folder / "source").is_dir():
                work.mkdir()                      # the course folder itself: the notebook alone
                shutil.copy(path, work / path.name)
            else:                                 # links are copied as links, never followed
                shutil.copytree(folder, work, symlinks=True, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
            if Path("nbgrader_config.py").is_file():
                shutil.copy("nbgrader_config.py", work / "nbgrader_config.py")
            uid = fresh_uid() if os.geteuid() == 0 else None
            box.prepare_workdir(work, uid=uid)
            argv = [sys.executable, "-I", "-m", "grading", "check", "--here", path.name]
            if timeout is not None:
                argv += ["--timeout", str(timeout)]
            try:
                run = subprocess.run(box.command(argv, workdir=work, uid=uid), capture_output=True, text=True,
                                     timeout=900, preexec_fn=box.preexec())
                code, out = run.returncode, run.stdout + run.stderr
            except subprocess.TimeoutExpired:
                code, out = 1, f"{path}: the check did not finish within 900 s and was stopped\n"
            finally:
                if uid is not None:
                    kill_user_processes(uid)
            out = "\n".join(line for line in out.splitlines()
                            if "Kernel is running over TCP without encryption" not in line)
            out = ("\n" + out).replace(f"\n{path.name}: ", f"\n{path}: ")[1:]
            stream.write(out + ("\n" if out and not out.endswith("\n") else ""))
            worst = max(worst, code if code in (0, 1, 2) else 1)
    return worst


def _check_here(notebooks, *, timeout, stream):
    """Validate notebooks in this process, each in a fresh kernel (what the sandboxed check runs)."""
    from pathlib import Path
    from traitlets.config import Config, PyFileConfigLoader

    ensure_tools_on_path()
    cfg = Config()
    here = Path.cwd()
    if (here / "nbgrader_config.py").is_file():
        cfg.merge(PyFileConfigLoader("nbgrader_config.py", path=str(here)).load_config())
    if timeout is not None:
        cfg.Execute.timeout = timeout
    worst = 0
    for path in notebooks:
        if not Path(path).is_file():
            print(f"error: no notebook at {path}", file=sys.stderr)
            worst = 2
            continue
        validator = CourseValidator(config=cfg)
        validator.stream = stream
        try:
            results = validator.validate(str(path))
        except Exception as exc:  # broken file, unknown kernel, dead kernel ...
            print(f"{path}: could not be checked: {type(exc).__name__}: {exc}", file=stream)
            worst = max(worst, 1)
            continue
        _print(validator, results)
        _summary(path, results, stream)
        failed = any(results.get(k) for k in ("type_changed", "changed", "failed"))
        print(f"{path}: {'FAILED' if failed else 'all visible tests passed'}", file=stream)
        worst = max(worst, 1 if failed else 0)
    return worst


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
    rows = []
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            gid = meta.get("grade_id", "?")
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
