"""Release and autograde with nbgrader, grading every new or changed submission fairly.

``make release`` -> :func:`release`; ``make autograde`` -> :func:`autograde`.

Plain ``nbgrader autograde`` drops a submission whose kernel dies or whose file is not
valid JSON and later exports it as 0.0; it does not restore deleted test cells unless told
to. Here every run

1. chooses the submissions to grade: new or changed ones by content (or one student, or
   all), see :mod:`grading.plan`; a submission withdrawn from ``submitted/`` loses its
   automatic grades; grades given by hand are never removed,
2. brings the gradebook's copy of the assignment (and its hidden tests) up to date with
   ``source/`` — so it works on a fresh clone with no gradebook,
3. grades them with nbgrader's Autograde, configured in ``nbgrader_config.py`` (restoring
   deleted or edited grade cells, executing with the course's engine,
   :class:`grading.preprocessors.CourseExecute` — the same code that ``nbgrader autograde``
   and the Formgrader run); the engine's work runs in parallel (local processes or Dask),
   nbgrader's bookkeeping in this process, one submission at a time,
4. records each submission's outcome (graded, or ungraded and why) as soon as it is done,
   through the same plug-ins that record it when nbgrader's own command or the Formgrader
   grades (:mod:`grading.classrun`); a submission that could not be graded has no automatic
   grades in the gradebook and is exported as *ungraded*, never as 0.
"""
import copy
import logging
import shutil
import tempfile
from pathlib import Path

from nbconvert.exporters import NotebookExporter

from . import gradebook as gbk
from .classrun import HOOKS, ClassRun, generate
from .course import Course, CourseError
from .executors import JobFailed, make_executor, progress_reporter, run_jobs, timed
from .jobs import ENGINE_STEP, CourseAutograde, JobMaker, execute_job, read_books, results_of, step_name
from .plan import plan, submission_digest
from .sandbox import Sandbox, SandboxError
from .status import GRADED

__all__ = ["RefuseBeforeRemoving", "autograde", "release", "sync_gradebook"]

log = logging.getLogger("grading")


def nbgrader_logger(course):
    """nbgrader's own log goes to autograded/nbgrader.log; the console gets a short summary."""
    logger = logging.getLogger("grading.nbgrader")
    logger.propagate = False
    logger.setLevel(logging.INFO)
    path = str(course.autograded_dir / "nbgrader.log")
    if not any(getattr(h, "baseFilename", None) == path for h in logger.handlers):
        for h in list(logger.handlers):
            logger.removeHandler(h)
            h.close()
        course.autograded_dir.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(path, mode="a")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        logger.addHandler(handler)
    # nbgrader's gradebook reports a database error (with its traceback) on tornado's application log, which
    # nothing handles in a command: it belongs in the same file (the command says what happened in one line)
    gradebook_log = logging.getLogger("tornado.application")
    if not any(not getattr(h, "_course_log", False) for h in gradebook_log.handlers):   # (a server's own: left alone)
        for h in list(gradebook_log.handlers):
            gradebook_log.removeHandler(h)
        logger.handlers[0]._course_log = True
        gradebook_log.propagate = False
        gradebook_log.addHandler(logger.handlers[0])
    return logger


_nbgrader_logger = nbgrader_logger    # (the name other modules used)


def release(root, assignment, *, dest=None):
    """Generate the student version of ``assignment`` from ``source/``.

    nbgrader's ``generate_assignment`` runs with a throwaway gradebook, so releasing never
    touches the instructor's ``gradebook.db`` (the course's autograde, on every path, records
    the assignment there when it first grades it). The student version is made beside
    ``release/`` and put in place only when it was made whole: a failure removes nothing.

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
    # generated beside, then put in place: a generation that fails leaves the released (committed) files as they were
    with tempfile.TemporaryDirectory() as tmp:
        staging = Path(tmp) / "release"
        generate(course, assignment, release_dir=staging, db_url=f"sqlite:///{Path(tmp) / 'gradebook.db'}",
                 logger=quiet)
        made = staging / assignment
        if not (made / f"{course.notebooks(assignment)[0]}.ipynb").is_file():
            raise CourseError(f"nbgrader could not generate {assignment} from {course.source_dir / assignment} "
                              f"(nothing in {dest} was changed); run `nbgrader generate_assignment {assignment}` "
                              "to see why")
        dest.mkdir(parents=True, exist_ok=True)
        target = dest / assignment
        old = dest / f".{assignment}.replaced"
        if old.exists():
            shutil.rmtree(old)
        if target.exists():
            target.rename(old)
        shutil.move(str(made), str(target))
        if old.exists():
            shutil.rmtree(old)
    return dest / assignment


class RefuseBeforeRemoving(NotebookExporter):
    """The exporter of ``nbgrader generate_assignment`` that refuses *before* anything is removed.

    With ``--force`` nbgrader removes ``release/<assignment>/`` first and only then finds that
    it may not change an assignment that has submissions — leaving the course without its
    released (committed) notebooks. nbgrader makes its exporter before it removes anything,
    so the check is made here, with the same rule nbgrader applies, and the command stops
    with one line naming what to do. Registered as ``c.GenerateAssignment.exporter_class``.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        converter = self.parent
        coursedir = getattr(converter, "coursedir", None)
        if coursedir is None or getattr(converter, "no_database", False):
            return
        from nbgrader.api import MissingEntry
        from nbgrader.converters.base import NbGraderException

        with gbk.open_url(coursedir.db_url, coursedir.course_id) as gb:
            for folder, notebooks in getattr(converter, "assignments", {}).items():
                name = Path(folder).name
                try:
                    a = gb.find_assignment(name)
                except MissingEntry:
                    continue
                wanted = sorted(Path(n).stem for n in notebooks)
                if sorted(nb.name for nb in a.notebooks) != wanted and a.submissions:
                    msg = (f"not generating {name}: the gradebook holds {len(a.submissions)} submission(s) of it and "
                           f"nbgrader cannot change its notebooks then (nothing was removed). "
                           f"`make release ASSIGNMENT={name}` releases it with a throwaway gradebook; "
                           f"`make autograde ASSIGNMENT={name}` brings the gradebook up to date")
                    converter.log.error(msg)
                    raise NbGraderException(msg)


def sync_gradebook(course, assignment, logger=None):
    """Record ``source/<assignment>`` (cells, points, hidden tests) in the course's gradebook.

    Creates the gradebook when it does not exist (a fresh clone).
    """
    ClassRun(course, assignment).sync_gradebook(logger)


def _require_course_engine(cfg):
    """Refuse to grade with a configuration that does not run the course's engine and record its outcome."""
    section = cfg.get("Autograde", {})
    if ENGINE_STEP not in [step_name(p) for p in section.get("autograde_preprocessors", [])]:
        raise CourseError("nbgrader_config.py does not register the course's grading engine "
                          f"(c.Autograde.autograde_preprocessors must hold {ENGINE_STEP}): "
                          "student code would run unsandboxed, so nothing was graded")
    for key, name in HOOKS.items():
        value = section.get(key)
        if (step_name(value) if value is not None else None) != name:
            raise CourseError(f"nbgrader_config.py does not register the course's grading record "
                              f"(c.Autograde.{key} must be {name!r}): a submission that cannot be graded would "
                              "be exported as 0, so nothing was graded")


def _require_gradebook(course):
    """Refuse to start (one line, nothing changed) when the gradebook's database does not answer."""
    why = gbk.problem(course.db_url)
    if why:
        raise CourseError(f"the gradebook ({gbk.place(course.db_url)}) does not answer: {why}. Nothing was "
                          "graded; start its database server (or correct c.CourseDirectory.db_url in "
                          "nbgrader_config.py) and run the same command again")


class _ClassGrading:
    """``make autograde`` of one assignment: what to grade, each result handed to nbgrader, the summary.

    Execution happens anywhere (a pool, Dask: :mod:`grading.executors`); nbgrader's bookkeeping
    for one submission at a time happens here, in :meth:`record`, through
    :class:`grading.jobs.CourseAutograde`, which hands the job's notebooks and results to nbgrader's
    steps in ``resources``; its outcome is recorded by the plug-ins of :mod:`grading.classrun`
    (as on every other path).
    """

    def __init__(self, course, assignment, cfg, logger):
        self.course, self.assignment, self.cfg, self.logger = course, assignment, cfg, logger
        self.gradebook = gbk.RunGradebook(course.db_url, course.course_id)
        self.run = ClassRun(course, assignment, config=cfg, gradebook=self.gradebook)
        self.notebooks = course.notebooks(assignment)
        self.books = read_books(course.db_url, assignment, self.notebooks)
        self.jobs = JobMaker(cfg, assignment, books=self.books)
        self.prepared = {}                 # student -> {notebook: sanitized notebook} of the jobs in flight
        self.database = gbk.identity(course.db_url)
        self.counts = {"graded": 0, "ungraded": 0}
        self.progress = None

    def plan(self, students, *, student=None, force=False):
        state = {s: r.to_dict() for s, r in self.run.book.all().items()}
        digests = {s: submission_digest(self.course.submitted_dir / s / self.assignment) for s in students}
        todo, unchanged = plan(students, state, digests, self.run.source, student=student, force=force)
        for gone in sorted(set(state) - set(students)):           # submission folder removed
            self.run.withdraw(gone)
        return todo, unchanged

    def prepare(self, student):
        job = self.jobs.make(student, self.notebooks)
        self.prepared[student] = {name: spec["notebook"] for name, spec in job["notebooks"].items()}
        return job

    def _check_gradebook(self, why="the database was removed or replaced, or no longer holds the assignment"):
        if not gbk.holds(self.course.db_url, self.assignment, self.database):
            raise gbk.GradebookGone(why)

    def record(self, student, result, error):
        """Hand ``student``'s executed notebooks to nbgrader's Autograde here (one writer of the gradebook)."""
        from nbgrader.converters.base import NbGraderException
        from nbgrader.coursedir import CourseDirectory

        prepared = self.prepared.pop(student, {})
        self._check_gradebook()
        one = copy.deepcopy(self.cfg)                  # (Config.merge would share the sections)
        one.CourseDirectory.student_id = student
        converter = CourseAutograde(coursedir=CourseDirectory(config=one), config=one, log=self.logger,
                                    prepared=prepared, results=results_of(self.notebooks, result, error),
                                    books=self.books, classrun=self.run, gradebook=self.gradebook)
        try:
            with self.gradebook.use():                 # one session for the submission's bookkeeping
                converter.start()
        except NbGraderException:
            pass                                       # the reason is in the student's record
        self._check_gradebook()
        record = self.run.book.read(student)
        if record is None or record.interrupted or record.status is None:   # nbgrader stopped before grading it
            if not gbk.alive(self.course.db_url):
                raise gbk.GradebookGone("the gradebook stopped answering")
            record = self.run.finish(student, failure="nbgrader did not grade it (see autograded/nbgrader.log)")
        if record.status != GRADED and not gbk.alive(self.course.db_url):
            raise gbk.GradebookGone(record.reason)
        if isinstance(error, JobFailed):
            self.run.mark_interrupted(student)          # not the submission's fault: the next run retries it
        self.counts[GRADED if record.status == GRADED else "ungraded"] += 1
        if self.progress is not None:
            self.progress.note(f"{self.counts['graded']} graded, {self.counts['ungraded']} not graded")


def _went_away(course, assignment, counts, why):
    """Stop with one readable line: what was graded before is saved, the next run continues."""
    done = counts["graded"] + counts["ungraded"]
    raise CourseError(f"the gradebook ({gbk.place(course.db_url)}) went away while {assignment} was graded "
                      f"({' '.join(why.split())[:200]}). The {done} submission(s) finished before are saved; bring "
                      f"the gradebook back and run `make autograde ASSIGNMENT={assignment}` again: it grades the rest.")


def autograde(root, assignment, *, overrides=None, echo=print, student=None, force=False, jobs=None,
              scheduler=None, progress=None):
    """Autograde the new and changed submissions of ``assignment`` in ``submitted/``.

    A submission whose files are byte for byte those graded last time (and whose assignment
    and time limits did not change) is left as it is; see :mod:`grading.plan`.

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
        A progress bar (True), progress lines every few submissions or seconds (False: for a
        log), or the bar on a terminal and lines otherwise (None, the default).

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

    logger = nbgrader_logger(course)
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
    grading = _ClassGrading(course, assignment, cfg, logger)
    todo, unchanged = grading.plan(students, student=student, force=force)
    if scheduler:
        from .workers import check_cluster
        check_cluster(scheduler)
    executor, close, width = make_executor(jobs=jobs, scheduler=scheduler)
    start = timed()
    try:
        with progress_reporter(len(todo), desc=assignment, bar=progress) as reporter:
            grading.progress = reporter

            def reopen():
                nonlocal executor, close
                close()
                executor, close, _ = make_executor(jobs=jobs)
                return executor
            run_jobs(todo, grading.prepare, grading.record, executor=executor, width=width, work=execute_job,
                     progress=reporter, reopen=None if scheduler else reopen)
    except gbk.GradebookGone as exc:
        _went_away(course, assignment, grading.counts, str(exc))
    except Exception as exc:
        if gbk.is_database_error(exc):
            _went_away(course, assignment, grading.counts, gbk.database_error_line(exc))
        raise
    finally:
        close()
        grading.gradebook.close()
    wall = timed()[0] - start[0]
    records = grading.run.book.all()
    status = {s: records[s].to_dict() for s in students if s in records}
    _summary(course, assignment, students, records, echo=echo, wall=wall, unchanged=unchanged,
             done=grading.counts["graded"] + grading.counts["ungraded"],
             where=f"on the Dask cluster at {scheduler}" if scheduler else f"{width} process(es) at once")
    return status


def _summary(course, assignment, students, records, *, echo, wall, unchanged, done, where):
    """The lines a TA reads after a run: what was graded, what was not and why, what waits for a grader."""
    from .exporters import class_rows

    echo(f"{assignment}: this run graded {done} submission(s) in {wall:.0f} s ({where})"
         + (f"; {len(unchanged)} unchanged since last graded, left as they were (FORCE=1 regrades them)"
            if unchanged else ""))
    records = {s: records[s] for s in students if s in records}
    waiting = sorted(s for s, r in records.items() if r.interrupted and r.status != "ungraded")
    graded = [s for s, r in records.items() if r.final]
    echo(f"{assignment}: graded {len(graded)} of {len(students)} submission(s)")
    bad = {s: r.reason for s, r in records.items() if r.ungraded}
    if bad:
        echo(f"NOT GRADED ({len(bad)}) — exported as ungraded, not as 0; look at them by hand:")
        for s, why in bad.items():
            echo(f"  {s}: {why}")
    if waiting:
        echo(f"INTERRUPTED EARLIER ({len(waiting)}) — not exported until graded; `make autograde "
             f"ASSIGNMENT={assignment}` grades them: {', '.join(waiting)}")
    rows = {r.student: r for r in class_rows(course, assignment)}
    review = {s: rows[s].review for s in graded if s in rows and rows[s].review}
    if review:
        echo("CHANGED SINCE A MANUAL GRADE OR COMMENT (kept; review them in the Formgrader, or `make reviewed`):")
        for s, cells in review.items():
            echo(f"  {s}: {', '.join(cells)}")
    pending = {s: rows[s].pending for s in graded if s in rows and rows[s].pending}
    if pending:
        cells = sorted({g for names in pending.values() for g in names})
        echo(f"NEEDS MANUAL GRADING ({len(pending)}) — {', '.join(cells)}: totals are provisional until a grader "
             "gives these points in the Formgrader (make grades lists who is waiting)")
