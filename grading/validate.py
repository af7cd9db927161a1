"""The students' self-check: nbgrader's Validator with an exit status that means something.

``nbgrader validate`` prints "VALIDATION FAILED" but exits 0. :func:`check` runs the same
validation (the notebook's visible tests, in a fresh kernel) with
:class:`grading.execute.GradingExecute` — so a warning on stderr is not a failure and an
endless cell is stopped — and returns 1 when any test fails or any test cell was edited.
"""
import sys

from traitlets import List

from .course import ensure_tools_on_path
from .execute import GradingExecute

__all__ = ["CourseValidator", "check"]


def _validator_class():
    from nbgrader.preprocessors import CheckCellMetadata, ClearOutput
    from nbgrader.validator import Validator

    class CourseValidator(Validator):
        """nbgrader's Validator executing with :class:`GradingExecute`."""

        preprocessors = List([CheckCellMetadata, ClearOutput, GradingExecute])

    return CourseValidator


def CourseValidator(**kwargs):  # noqa: N802  (a factory that looks like the class)
    """Create the course's Validator (nbgrader is imported lazily)."""
    return _validator_class()(**kwargs)


def check(notebooks, *, timeout=None, stream=None):
    """Validate notebooks; return 0 when every visible test passes, 1 otherwise.

    Parameters
    ----------
    notebooks : list of str
        Paths of student notebooks.
    timeout : int, optional
        Seconds per cell (default: the course configuration, else 10).
    stream : file, optional
        Where the report goes (default: stdout).
    """
    from pathlib import Path
    from traitlets.config import Config, PyFileConfigLoader

    ensure_tools_on_path()
    cfg = Config()
    here = Path.cwd()
    if (here / "nbgrader_config.py").is_file():
        cfg.merge(PyFileConfigLoader("nbgrader_config.py", path=str(here)).load_config())
    if timeout is not None:
        cfg.Execute.timeout = timeout
    stream = stream or sys.stdout
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
        failed = any(results.get(k) for k in ("type_changed", "changed", "failed"))
        print(f"{path}: {'FAILED' if failed else 'all visible tests passed'}", file=stream)
        worst = max(worst, 1 if failed else 0)
    return worst


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
