"""Release and autograde with nbgrader, grading every new or changed submission fairly.

``make release`` -> :func:`release`; ``make autograde`` -> :func:`autograde`.

Plain ``nbgrader autograde`` drops a submission whose kernel dies or whose file is not
valid JSON and later exports it as 0.0; it does not restore deleted test cells unless told
to. Here every run

1. chooses the submissions to grade: new or changed ones by content (or one student, or
   all), see :mod:`grading.scheduler`; a submission withdrawn from ``submitted/`` loses its
   automatic grades; grades given by hand are never removed,
2. brings the gradebook's copy of the assignment (and its hidden tests) up to date with
   ``source/`` — so it works on a fresh clone with no gradebook,
3. grades them with nbgrader's Autograde, configured in ``nbgrader_config.py`` (restoring
   deleted or edited grade cells, executing with the course's engine,
   :class:`grading.preprocessors.CourseExecute` — the same code that ``nbgrader autograde``
   and the Formgrader run); the engine's work runs in parallel (local processes or Dask),
   nbgrader's bookkeeping in this process, one submission at a time,
4. records for each student whether the submission was graded and, if not, why, in
   ``autograded/grading-status.json``, as soon as it is done; a submission that could not
   be graded has no automatic grades in the gradebook and is exported as *ungraded*, never
   as 0.
"""
import contextlib
import copy
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


def _gradebook_holds(db_url, assignment, identity):
    """True while the gradebook is the one this run started with and still holds ``assignment``.

    A SQLite file that was removed is not opened (opening would create an empty one), and a
    new file in its place (the same inode number can come back) holds no assignment: grading
    on would score every test cell against nothing.
    """
    from sqlalchemy import create_engine, text

    if _database_identity(db_url) != identity:
        return False
    try:
        engine = create_engine(db_url)
        try:
            with engine.connect() as conn:
                found = conn.execute(text("SELECT 1 FROM assignment WHERE name = :a"), {"a": assignment}).first()
        finally:
            engine.dispose()
    except Exception:  # noqa: BLE001 - any failure means it is not usable
        return False
    return found is not None


def _require_course_engine(cfg):
    """Refuse to grade with a configuration that does not run the course's engine."""
    steps = [p if isinstance(p, str) else f"{p.__module__}.{p.__name__}"
             for p in cfg.get("Autograde", {}).get("autograde_preprocessors", [])]
    if "grading.preprocessors.CourseExecute" not in steps:
        raise CourseError("nbgrader_config.py does not register the course's grading engine "
                          "(c.Autograde.autograde_preprocessors must hold grading.preprocessors.CourseExecute): "
                          "student code would run unsandboxed, so nothing was graded")


def _outcome(course, assignment, student, failures):
    """``(status, reason)`` of one student after nbgrader's Autograde ran for them."""
    notebooks = course.notebooks(assignment)
    folder = course.submitted_dir / student / assignment
    graded_dir = course.autograded_dir / student / assignment
    missing = [n for n in notebooks if not (folder / f"{n}.ipynb").is_file()]
    if student in failures:
        return "ungraded", failures[student]
    if missing:
        return "ungraded", f"no {', '.join(m + '.ipynb' for m in missing)} in {folder}"
    if not all((graded_dir / f"{n}.ipynb").is_file() for n in notebooks):
        return "ungraded", "nbgrader did not grade it (see autograded/nbgrader.log)"
    return "graded", ""


def _forget(course, assignment, student, *, keep_manual):
    """Take an ungraded (or withdrawn) submission's grades out of the gradebook and autograded/.

    Grades a TA gave by hand are kept (with the submission) when ``keep_manual``.
    """
    from nbgrader.api import Gradebook

    from .scheduler import manual_work
    if not (keep_manual and manual_work(course.db_url, course.course_id, assignment, student)):
        with warnings.catch_warnings(), Gradebook(course.db_url, course.course_id) as gb:
            warnings.simplefilter("ignore")
            try:
                gb.remove_submission(assignment, student)
            except Exception:
                pass
    graded_dir = course.autograded_dir / student / assignment
    if graded_dir.exists():
        shutil.rmtree(graded_dir)


def _grade_student(course, assignment, cfg, logger, student):
    """nbgrader's Autograde for one student, in this process (the gradebook's one writer)."""
    from nbgrader.converters.base import NbGraderException

    one = copy.deepcopy(cfg)            # (Config.merge would share the sections with cfg)
    one.CourseDirectory.student_id = student
    failures = {}
    converter = _make_converter(course, assignment, one, logger, failures)
    try:
        with _quiet_database():
            converter.start()
    except NbGraderException:
        pass  # the reason is in failures
    return _outcome(course, assignment, student, failures)


def _require_gradebook(course):
    """Refuse to start (one line, nothing changed) when the gradebook's database does not answer."""
    from .scheduler import gradebook_place, gradebook_problem

    problem = gradebook_problem(course.db_url)
    if problem:
        raise CourseError(f"the gradebook ({gradebook_place(course.db_url)}) does not answer: {problem}. Nothing was "
                          "graded; start its database server (or correct c.CourseDirectory.db_url in "
                          "nbgrader_config.py) and run the same command again")


def _went_away(course, assignment, counts, why):
    """Stop with one readable line: what was graded before is saved, the next run continues."""
    from .scheduler import gradebook_place

    done = counts["graded"] + counts["ungraded"]
    raise CourseError(f"the gradebook ({gradebook_place(course.db_url)}) went away while {assignment} was graded "
                      f"({' '.join(why.split())[:200]}). The {done} submission(s) finished before are saved; bring "
                      f"the gradebook back and run `make autograde ASSIGNMENT={assignment}` again: it grades the rest.")


def autograde(root, assignment, *, overrides=None, echo=print, student=None, force=False, jobs=None,
              scheduler=None, progress=None):
    """Autograde the new and changed submissions of ``assignment`` in ``submitted/``.

    A submission whose files are byte for byte those graded last time (and whose assignment
    and time limits did not change) is left as it is; see :mod:`grading.scheduler`.

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
    student : str, optional
        Grade only this student's submission (whether it changed or not).
    force : bool
        Grade every submission again.
    jobs : int, optional
        Submissions graded at once on this machine (default: one per core; 1 grades in this
        process).
    scheduler : str, optional
        Address of a Dask scheduler (``tcp://host:port``): the submissions are executed on
        its workers instead.
    progress : bool, optional
        Show a progress bar (default: when stderr is a terminal).

    Returns
    -------
    dict
        ``{student: {"status": "graded" | "ungraded", "reason": str, ...}}`` for every
        submission of the class (graded in this run or earlier).

    Raises
    ------
    CourseError
        Unknown assignment or student, no submission in ``submitted/``, a sandbox that cannot
        start, or a gradebook that stopped answering (what was graded before is kept).
    """
    from . import scheduler as sched

    course = Course(root, overrides)
    course.check_assignment(assignment)
    students = course.submissions(assignment)
    if not students:
        raise CourseError(
            f"no submissions of {assignment!r} to grade: expected folders "
            f"{course.submitted_dir}/<student>/{assignment}/ holding "
            f"{', '.join(n + '.ipynb' for n in course.notebooks(assignment))}")
    if student is not None and student not in students:
        raise CourseError(f"no submission of {assignment!r} by student {student!r}: expected a folder "
                          f"{course.submitted_dir}/{student}/{assignment}/")

    try:
        Sandbox().check()
    except SandboxError as exc:
        raise CourseError(f"not grading: {exc}") from None

    logger = _nbgrader_logger(course)
    _require_gradebook(course)
    try:
        sync_gradebook(course, assignment, logger)
    except Exception:
        _require_gradebook(course)           # (nbgrader reports a database that stopped as an upgrade to do)
        raise

    cfg = course.nbgrader_config()
    cfg.CourseDirectory.assignment_id = assignment
    cfg.Autograde.force = True
    _require_course_engine(cfg)
    database = _database_identity(course.db_url)

    notebooks = course.notebooks(assignment)
    state = course.read_status(assignment)
    from .preprocessors import CourseExecute
    settings = dict(CourseExecute(config=cfg).settings(assignment),
                    **{k: dict(cfg.get(k, {})) for k in ("LatePenalty", "LimitOutput")})
    source = sched.source_digest(course, assignment, settings)
    digests = {s: sched.submission_digest(course.submitted_dir / s / assignment) for s in students}
    todo, unchanged = sched.plan(students, state, digests, source, student=student, force=force)
    for gone in sorted(set(state) - set(students)):           # submission folder removed
        _forget(course, assignment, gone, keep_manual=True)
        state.pop(gone)
    course.write_status(assignment, state)

    remote = sched.engine_in(cfg)
    executor, close, width = sched.make_executor(jobs=jobs if remote else 1, scheduler=scheduler if remote else None)
    finishing = sched.with_precomputed(cfg) if remote else cfg
    counts = {"graded": 0, "ungraded": 0}
    start = sched.timed()

    def prepare(sid):
        if not remote:
            return None
        job = sched.prepare_job(cfg, course, assignment, sid, notebooks)
        for name, spec in job["notebooks"].items():
            sched._PREPARED[(sid, name)] = spec["notebook"]
        return job

    def finish(sid, result, error, bar=None):
        folder = course.submitted_dir / sid / assignment
        old = state.get(sid) or {}
        manual_before = sched.manual_work(course.db_url, course.course_id, assignment, sid)
        state[sid] = dict(old, interrupted=True)
        course.write_status(assignment, state)
        if remote:
            for name in notebooks:
                sched._RESULTS[(sid, name)] = error if error is not None else (result or {}).get(name, error)
        if not _gradebook_holds(course.db_url, assignment, database):
            raise sched.GradebookGone("the database was removed or replaced, or no longer holds the assignment")
        try:
            status, reason = _grade_student(course, assignment, finishing, logger, sid)
        finally:
            for name in notebooks:
                sched._RESULTS.pop((sid, name), None)
                sched._PREPARED.pop((sid, name), None)
        if not _gradebook_holds(course.db_url, assignment, database):
            raise sched.GradebookGone("the database was removed or replaced, or no longer holds the assignment")
        if status != "graded" and not sched.gradebook_alive(course.db_url):
            raise sched.GradebookGone(reason)
        if status != "graded":
            _forget(course, assignment, sid, keep_manual=True)
        cells = sched.cell_digests(folder, notebooks)
        review = sched.cells_to_review(manual_before, old.get("cells", {}), cells) if old.get("cells") else []
        state[sid] = {"status": status, "reason": reason, "digest": digests[sid], "source": source,
                      "cells": cells, "review": review}
        if isinstance(error, sched.JobFailed):
            state[sid]["interrupted"] = True          # not the submission's fault: the next run retries it
        course.write_status(assignment, state)
        counts[status] += 1
        if bar is not None:
            bar.set_postfix_str(f"{counts['graded']} graded, {counts['ungraded']} not graded", refresh=False)

    try:
        with sched.progress_bar(len(todo), desc=assignment, enabled=progress) as bar:
            def reopen():
                nonlocal executor, close
                close()
                executor, close, _ = sched.make_executor(jobs=jobs)
                return executor
            sched.run_jobs(todo, prepare, lambda s, r, e: finish(s, r, e, bar), executor=executor, width=width,
                           work=sched.execute_job if remote else sched.no_job, progress=bar,
                           reopen=reopen if remote and not scheduler else None)
    except sched.GradebookGone as exc:
        _went_away(course, assignment, counts, str(exc))
    except Exception as exc:
        if sched.is_database_error(exc):
            _went_away(course, assignment, counts, sched.database_error_line(exc))
        raise
    finally:
        close()
    wall = sched.timed()[0] - start[0]
    done = counts["graded"] + counts["ungraded"]

    status = {s: state[s] for s in students if s in state}
    where = (f"on the Dask cluster at {scheduler}" if remote and scheduler else
             f"{width} process(es) at once" if remote else "in this process")
    echo(f"{assignment}: this run graded {done} submission(s) in {wall:.0f} s ({where})"
         + (f"; {len(unchanged)} unchanged since last graded, left as they were (FORCE=1 regrades them)"
            if unchanged else ""))
    # (an earlier run interrupted while grading a submission leaves it marked, for the next run to grade)
    waiting = sorted(s for s, v in status.items() if v.get("interrupted") and v.get("status") != "ungraded")
    graded = [s for s, v in status.items() if v.get("status") == "graded" and s not in waiting]
    echo(f"{assignment}: graded {len(graded)} of {len(students)} submission(s)")
    bad = {s: v.get("reason", "") for s, v in status.items() if v.get("status") == "ungraded"}
    if bad:
        echo(f"NOT GRADED ({len(bad)}) — exported as ungraded, not as 0; look at them by hand:")
        for s, why in bad.items():
            echo(f"  {s}: {why}")
    if waiting:
        echo(f"INTERRUPTED EARLIER ({len(waiting)}) — not exported until graded; `make autograde "
             f"ASSIGNMENT={assignment}` grades them: {', '.join(waiting)}")
    review = {s: v["review"] for s, v in status.items() if v.get("review")}
    if review:
        echo("CHANGED SINCE A MANUAL GRADE OR COMMENT (kept; review them in the Formgrader):")
        for s, cells in review.items():
            echo(f"  {s}: {', '.join(cells)}")
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
            names = [g.name for nb in sub.notebooks for g in nb.grades
                     if g.needs_manual_grade and g.manual_score is None]
            if names:
                pending[student] = names
    return pending
