"""Release and autograde with nbgrader, grading every submission fairly and from a clean slate.

``make release`` -> :func:`release`; ``make autograde`` -> :func:`autograde`.

Plain ``nbgrader autograde`` drops a submission whose kernel dies or whose file is not
valid JSON and later exports it as 0.0; it keeps scores from earlier runs; it does not
restore deleted test cells unless told to. Here every run

1. removes this assignment's earlier submissions from the gradebook and ``autograded/``
   (nothing stale survives),
2. brings the gradebook's copy of the assignment (and its hidden tests) up to date with
   ``source/`` — so it works on a fresh clone with no gradebook,
3. grades every folder ``submitted/<student>/<assignment>/`` with nbgrader's Autograde,
   configured in ``nbgrader_config.py`` (restoring deleted or edited grade cells, executing
   with the course's engine, :class:`grading.preprocessors.CourseExecute` — the same code
   that ``nbgrader autograde`` and the Formgrader run),
4. records for each student whether the submission was graded and, if not, why, in
   ``autograded/grading-status.json``; a submission that could not be graded has no
   grades in the gradebook and is exported as *ungraded*, never as 0.
"""
import contextlib
import logging
import os
import shutil
import tempfile
import warnings
from pathlib import Path

from .course import Course, CourseError
from .engine import KernelDied, SubmissionRefused
from .sandbox import Sandbox, SandboxError

__all__ = ["release", "sync_gradebook", "autograde"]

log = logging.getLogger("grading")


def _quiet_database():
    """Silence SQLAlchemy's "not in session" warnings that nbgrader's gradebook code triggers (harmless)."""
    import contextlib

    @contextlib.contextmanager
    def quiet():
        with warnings.catch_warnings():
            try:
                from sqlalchemy.exc import SAWarning
                warnings.simplefilter("ignore", SAWarning)
            except ImportError:  # pragma: no cover
                pass
            yield

    return quiet()


def _nbgrader_logger(course):
    """nbgrader's own log goes to autograded/nbgrader.log; the console gets a short summary."""
    logger = logging.getLogger("grading.nbgrader")
    logger.propagate = False
    logger.setLevel(logging.INFO)
    for h in list(logger.handlers):
        logger.removeHandler(h)
        h.close()
    course.autograded_dir.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(course.autograded_dir / "nbgrader.log", mode="a")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger.addHandler(handler)
    return logger


def _generate(course, assignment, *, release_dir, db_url, logger=None):
    from nbgrader.converters import GenerateAssignment
    from nbgrader.coursedir import CourseDirectory

    cfg = course.nbgrader_config()
    cfg.CourseDirectory.release_directory = str(release_dir)
    cfg.CourseDirectory.db_url = db_url
    cfg.CourseDirectory.assignment_id = assignment
    cfg.GenerateAssignment.force = True
    cfg.GenerateAssignment.create_assignment = True
    coursedir = CourseDirectory(config=cfg)
    kwargs = {"log": logger} if logger is not None else {}
    with _quiet_database():
        GenerateAssignment(coursedir=coursedir, config=cfg, **kwargs).start()


def release(root, assignment, *, dest=None):
    """Generate the student version of ``assignment`` from ``source/``.

    Runs nbgrader's ``generate_assignment`` with a throwaway gradebook, so releasing
    never touches the instructor's ``gradebook.db``.

    Parameters
    ----------
    root : str or Path
        The course directory.
    assignment : str
        Name of a folder of ``source/``.
    dest : str or Path, optional
        Release directory (default: the course's ``release/``); the notebook goes to
        ``dest/<assignment>/``.

    Returns
    -------
    Path
        The folder that now holds the student version.
    """
    course = Course(root)
    course.check_assignment(assignment)
    dest = Path(dest).resolve() if dest is not None else course.release_dir
    quiet = logging.getLogger("grading.release")
    quiet.propagate = False
    quiet.setLevel(logging.ERROR)
    if not quiet.handlers:
        quiet.addHandler(logging.StreamHandler())
    with tempfile.TemporaryDirectory() as tmp:
        _generate(course, assignment, release_dir=dest, db_url=f"sqlite:///{Path(tmp) / 'gradebook.db'}", logger=quiet)
    return dest / assignment


def sync_gradebook(course, assignment, logger=None):
    """Record ``source/<assignment>`` (cells, points, hidden tests) in the course's gradebook.

    Creates the gradebook when it does not exist (a fresh clone).
    """
    with tempfile.TemporaryDirectory() as tmp:
        _generate(course, assignment, release_dir=tmp, db_url=course.db_url, logger=logger)


def _clear_previous(course, assignment):
    """Forget every earlier grade of ``assignment``: gradebook submissions and autograded/ folders."""
    from nbgrader.api import Gradebook, MissingEntry

    with warnings.catch_warnings(), Gradebook(course.db_url, course.course_id) as gb:
        warnings.simplefilter("ignore")  # SQLAlchemy chatter from nbgrader's remove_submission
        try:
            a = gb.find_assignment(assignment)
        except MissingEntry:
            a = None
        if a is not None:
            for student in [s.student.id for s in a.submissions]:
                gb.remove_submission(assignment, student)
    if course.autograded_dir.is_dir():
        for folder in course.autograded_dir.glob(f"*/{assignment}"):
            shutil.rmtree(folder)


def _reason(exc):
    """One line saying why a submission could not be graded."""
    from nbformat.reader import NotJSONError
    try:
        from jsonschema import ValidationError
    except ImportError:  # pragma: no cover
        ValidationError = ()
    if isinstance(exc, (KernelDied, SubmissionRefused)):
        return str(exc)
    if isinstance(exc, NotJSONError):
        return "the notebook file is not valid JSON (broken file): " + str(exc).splitlines()[0][:160]
    if isinstance(exc, ValidationError):
        return "the file is not a valid Jupyter notebook: " + str(exc).splitlines()[0][:160]
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200] if text else ''}".rstrip(": ")


def _make_converter(course, assignment, cfg, logger, failures):
    from nbgrader.converters import Autograde
    from nbgrader.coursedir import CourseDirectory

    class CourseAutograde(Autograde):
        """nbgrader's Autograde (configured by nbgrader_config.py) that remembers why a submission failed."""

        def convert_single_notebook(self, notebook_filename):
            try:
                super().convert_single_notebook(notebook_filename)
            except Exception as exc:
                student = Path(notebook_filename).parents[1].name
                failures.setdefault(student, _reason(exc))
                raise

    coursedir = CourseDirectory(config=cfg)
    return CourseAutograde(coursedir=coursedir, config=cfg, log=logger)


def _database_identity(db_url):
    """What identifies a SQLite gradebook file (device, inode), to notice it vanishing mid-run; None otherwise."""
    if not db_url.startswith("sqlite:///"):
        return None
    try:
        st = os.stat(db_url[len("sqlite:///"):])
    except OSError:
        return "missing"
    return (st.st_dev, st.st_ino)


def _gradebook_went_away(course, assignment, status, why):
    """Keep what was graded (autograded/ and the status file) and stop with one readable message."""
    for info in status.values():
        if info["status"] == "graded":
            info["reason"] = "graded, but its grades may not be in the gradebook: autograde again"
    course.write_status(assignment, status)
    graded = sum(info["status"] == "graded" for info in status.values())
    raise CourseError(f"the gradebook ({course.db_url.split('@')[-1]}) went away while {assignment} was graded ({why}). "
                      f"Nothing was deleted: the {graded} autograded notebook(s) are in {course.autograded_dir}. "
                      f"Bring the gradebook back and run `make autograde ASSIGNMENT={assignment}` again.")


def _require_course_engine(cfg):
    """Refuse to grade with a configuration that does not run the course's engine."""
    steps = [p if isinstance(p, str) else f"{p.__module__}.{p.__name__}"
             for p in cfg.get("Autograde", {}).get("autograde_preprocessors", [])]
    if "grading.preprocessors.CourseExecute" not in steps:
        raise CourseError("nbgrader_config.py does not register the course's grading engine "
                          "(c.Autograde.autograde_preprocessors must hold grading.preprocessors.CourseExecute): "
                          "student code would run unsandboxed, so nothing was graded")


def autograde(root, assignment, *, overrides=None, echo=print):
    """Autograde every submission of ``assignment`` in ``submitted/``.

    Parameters
    ----------
    root : str or Path
        The course directory.
    assignment : str
        Name of a folder of ``source/``.
    overrides : traitlets.config.Config, optional
        Configuration on top of ``nbgrader_config.py`` (e.g. ``Execute.timeout``).
    echo : callable
        Where the summary lines go.

    Returns
    -------
    dict
        ``{student: {"status": "graded" | "ungraded", "reason": str}}``.

    Raises
    ------
    CourseError
        Unknown assignment, or no submission of it in ``submitted/``.
    """
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.converters.base import NbGraderException

    course = Course(root, overrides)
    course.check_assignment(assignment)
    students = course.submissions(assignment)
    if not students:
        raise CourseError(
            f"no submissions of {assignment!r} to grade: expected folders "
            f"{course.submitted_dir}/<student>/{assignment}/ holding "
            f"{', '.join(n + '.ipynb' for n in course.notebooks(assignment))}")

    try:
        Sandbox().check()
    except SandboxError as exc:
        raise CourseError(f"not grading: {exc}") from None

    logger = _nbgrader_logger(course)
    _clear_previous(course, assignment)
    sync_gradebook(course, assignment, logger)

    cfg = course.nbgrader_config()
    cfg.CourseDirectory.assignment_id = assignment
    cfg.CourseDirectory.student_id = "*"
    cfg.Autograde.force = True
    _require_course_engine(cfg)
    failures = {}
    database = _database_identity(course.db_url)
    converter = _make_converter(course, assignment, cfg, logger, failures)
    try:
        with _quiet_database():
            converter.start()
    except NbGraderException:
        pass  # failures are recorded per submission below

    status = {}
    notebooks = course.notebooks(assignment)
    for student in students:
        folder = course.submitted_dir / student / assignment
        graded_dir = course.autograded_dir / student / assignment
        missing = [n for n in notebooks if not (folder / f"{n}.ipynb").is_file()]
        if student in failures:
            status[student] = {"status": "ungraded", "reason": failures[student]}
        elif missing:
            status[student] = {"status": "ungraded",
                               "reason": f"no {', '.join(m + '.ipynb' for m in missing)} in {folder}"}
        elif not all((graded_dir / f"{n}.ipynb").is_file() for n in notebooks):
            status[student] = {"status": "ungraded", "reason": "nbgrader did not grade it (see autograded/nbgrader.log)"}
        else:
            status[student] = {"status": "graded", "reason": ""}
    if _database_identity(course.db_url) != database:
        _gradebook_went_away(course, assignment, status, "the database file was removed or replaced")
    try:
        with warnings.catch_warnings(), Gradebook(course.db_url, course.course_id) as gb:
            warnings.simplefilter("ignore")
            try:
                gb.find_assignment(assignment)
            except MissingEntry:
                _gradebook_went_away(course, assignment, status, "it no longer holds the assignment")
            for student, info in status.items():
                if info["status"] == "ungraded":
                    try:
                        gb.remove_submission(assignment, student)
                    except Exception:
                        pass
                    graded_dir = course.autograded_dir / student / assignment
                    if graded_dir.exists():
                        shutil.rmtree(graded_dir)
    except CourseError:
        raise
    except Exception as exc:  # noqa: BLE001 - the database server went away, its file vanished ...
        _gradebook_went_away(course, assignment, status, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
    course.write_status(assignment, status)

    graded = [s for s, v in status.items() if v["status"] == "graded"]
    echo(f"{assignment}: graded {len(graded)} of {len(students)} submission(s)")
    bad = {s: v["reason"] for s, v in status.items() if v["status"] != "graded"}
    if bad:
        echo(f"NOT GRADED ({len(bad)}) — exported as ungraded, not as 0; look at them by hand:")
        for s, why in bad.items():
            echo(f"  {s}: {why}")
    pending = _needs_manual_grading(course, assignment, graded)
    if pending:
        cells = sorted({g for names in pending.values() for g in names})
        echo(f"NEEDS MANUAL GRADING ({len(pending)}) — {', '.join(cells)}: totals are provisional until a grader "
             "gives these points in the Formgrader (make grades lists who is waiting)")
    return status


def _needs_manual_grading(course, assignment, students):
    """``{student: [grade_id, ...]}`` of answers graded by hand that have no grade yet."""
    from nbgrader.api import Gradebook

    pending = {}
    with contextlib.suppress(Exception), warnings.catch_warnings(), Gradebook(course.db_url, course.course_id) as gb:
        warnings.simplefilter("ignore")
        for student in students:
            sub = gb.find_submission(assignment, student)
            names = [g.name for nb in sub.notebooks for g in nb.grades if g.needs_manual_grade and g.manual_score is None]
            if names:
                pending[student] = names
    return pending
