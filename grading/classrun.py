"""One assignment's autograding, recorded the same way on every path that grades it.

nbgrader's ``Autograde`` converter does the grading on every path: ``make autograde`` and
``python -m grading autograde`` (:func:`grading.autograde.autograde`, one submission at a
time in the instructor's process, execution in parallel or on Dask), ``nbgrader
autograde`` in a terminal, and the Formgrader's *autograde* button. ``nbgrader_config.py``
registers three small plug-ins of this module in that converter, so whichever path runs
it, the same code records the outcome (:class:`ClassRun`):

* :func:`before_autograde` (``Autograde.pre_convert_hook``) — before a submission is
  graded: the gradebook is brought up to date with ``source/`` when it does not know the
  assignment yet (``nbgrader autograde`` works on a fresh clone), the submission is marked
  *under way* (so an interrupted grading is never taken for a finished one), what graders
  had left on it is noted, and a submission that lacks a notebook of the assignment is
  recorded as ungraded with the reason (``make autograde``, which brings the gradebook up to
  date once when it starts, has its converter call :meth:`ClassRun.begin` directly:
  :meth:`grading.jobs.CourseAutograde.run_pre_convert_hook`);
* :class:`RecordingExporter` (``Autograde.exporter_class``) — records the reason when a
  notebook cannot be graded (not valid JSON, its sandbox could not start, ...) and the
  outcome when the last notebook is graded;
* :class:`RestoreUnchangedTests` (a sanitize step) — a test cell the student left as
  released gets its hidden tests back quietly; nbgrader's "checksum has changed" warning is
  left for cells that really changed.

The record (:mod:`grading.status`) is what every export reads: a submission that could not be
graded is *ungraded* with its reason on every path, never 0.

When a submission is graded again, a cell a grader had scored or commented keeps that work
(nbgrader keeps it) and keeps nbgrader's ``needs_manual_grade`` as the grader left it, unless
the answer changed: then it is listed for review (and flagged for manual grading in the
Formgrader) until a grader looks at it again (:meth:`grading.status.StudentStatus.open_review`).
"""
import os
import shutil
from pathlib import Path

from nbconvert.exporters import NotebookExporter
from nbgrader.preprocessors import NbGraderPreprocessor

from . import gradebook as gbk
from .cells import exercise_of
from .course import Course, CourseError
from .late import Policy, read_extensions
from .plan import cell_digests, changed_exercises, source_digest, submission_digest
from .status import GRADED, UNGRADED, StatusBook, StudentStatus

__all__ = ["ClassRun", "RecordingExporter", "RestoreUnchangedTests", "before_autograde", "extension",
           "grading_settings", "reason_for"]

HOOKS = {"pre_convert_hook": "grading.classrun.before_autograde",
         "exporter_class": "grading.classrun.RecordingExporter"}


def grading_settings(config, assignment):
    """What decides a grade besides the submission and ``source/``, as plain data: the engine's resolved limits and
    secret (:meth:`grading.preprocessors.CourseExecute.settings`) and nbgrader's output limits.

    The late policy is not part of it: penalties are computed from the score now, at every export.
    """
    from .preprocessors import CourseExecute

    return dict(CourseExecute(config=config).settings(assignment), LimitOutput=dict(config.get("LimitOutput", {})))


def reason_for(exc):
    """One line saying why a submission could not be graded."""
    from nbformat.reader import NotJSONError

    from .engine import KernelDied, SubmissionRefused
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
    if isinstance(exc, UnicodeError):
        return f"the graded notebook could not be written ({type(exc).__name__}: {str(exc)[:160]})"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200] if text else ''}".rstrip(": ")


def _rel(course, path):
    try:
        return Path(path).relative_to(course.root).as_posix()
    except ValueError:
        return str(path)


class ClassRun:
    """The grading records of one assignment: the status file and the gradebook writes of each student.

    Parameters
    ----------
    course : grading.course.Course
    assignment : str
    config : traitlets.config.Config, optional
        The configuration the submissions are graded with (default: the course's); its
        grading settings go into each record's ``source`` digest.
    gradebook : grading.gradebook.RunGradebook, optional
        The class run's gradebook, used for every write (default: the course's gradebook,
        opened for each).
    """

    def __init__(self, course, assignment, config=None, *, gradebook=None):
        self.course, self.assignment = course, assignment
        self.config = config if config is not None else course.nbgrader_config()
        self.book = StatusBook(course, assignment)
        self.gradebook = gradebook
        self._source = None

    def _gradebook(self):
        return gbk.use_or_open(self.gradebook, self.course.db_url, self.course.course_id)

    # -- what was graded ------------------------------------------------------------------------
    @property
    def source(self):
        """Digest of the instructor's version and the grading settings (see :func:`grading.plan.source_digest`)."""
        if self._source is None:
            self._source = source_digest(self.course, self.assignment, grading_settings(self.config, self.assignment))
        return self._source

    def folder(self, student):
        return self.course.submitted_dir / student / self.assignment

    # -- the gradebook knows the assignment --------------------------------------------------------
    def source_files_digest(self):
        return submission_digest(self.course.source_dir / self.assignment)

    def gradebook_current(self):
        """Whether the gradebook holds the assignment's notebooks as ``source/`` has them now."""
        from nbgrader.api import MissingEntry

        if self.book.meta().get("synced") != self.source_files_digest():
            return False
        try:
            with self._gradebook() as gb:
                a = gb.find_assignment(self.assignment)
                return sorted(nb.name for nb in a.notebooks) == self.course.notebooks(self.assignment)
        except MissingEntry:
            return False

    def sync_gradebook(self, logger=None):
        """Record ``source/<assignment>`` (cells, points, hidden tests) in the course's gradebook.

        Creates the gradebook when it does not exist (a fresh clone). Submissions that hold
        no notebook at all (left by a run that could not find the assignment) are removed
        first: nbgrader refuses to add notebooks to an assignment that has submissions.
        """
        import tempfile

        from nbgrader.api import MissingEntry

        with self._gradebook() as gb:
            try:
                a = gb.find_assignment(self.assignment)
            except MissingEntry:
                a = None
            if a is not None and not a.notebooks:
                for sub in list(a.submissions):
                    if not sub.notebooks:
                        gb.remove_submission(self.assignment, sub.student.id)
        with tempfile.TemporaryDirectory() as tmp:
            generate(self.course, self.assignment, release_dir=tmp, db_url=self.course.db_url, logger=logger)
        self.book.set_meta(synced=self.source_files_digest())

    # -- one submission -------------------------------------------------------------------------
    def begin(self, student, notebooks_found):
        """A grading of ``student``'s submission begins: mark it under way, note the graders' work.

        ``notebooks_found`` are the names (without ``.ipynb``) of the notebooks in the
        submission. When one of the assignment's notebooks is missing the submission is
        recorded as ungraded at once (whatever nbgrader then makes of the rest).
        """
        old = self.book.read(student) or StudentStatus(student)
        with self._gradebook() as gb:
            before = gbk.manual_marks(gb, self.assignment, student)
        wanted = self.course.notebooks(self.assignment)
        missing = tuple(n for n in wanted if n not in set(notebooks_found))
        self.book.write(old.replace(interrupted=True, before=before, missing=missing))
        if missing:
            found = sorted(set(notebooks_found) - set(wanted))
            self.finish(student, failure=f"no {', '.join(m + '.ipynb' for m in missing)} in "
                                         f"{_rel(self.course, self.folder(student))}/"
                                         + (f" (found {', '.join(f + '.ipynb' for f in found)})" if found else ""))
        return missing

    def begin_notebooks(self, notebooks):
        """:meth:`begin` for the submission whose notebook paths nbgrader is about to grade (its student is read
        from the paths: nbgrader's own student id may be a pattern)."""
        student, _ = _student_of(self.course, notebooks[0])
        return self.begin(student, [Path(n).stem for n in notebooks])

    def finish(self, student, *, failure=None):
        """The grading of ``student``'s submission ended: record its outcome, once.

        ``failure`` is the reason it could not be graded (None when it was). A failed
        submission's automatic grades are taken out of the gradebook (grades given by hand
        stay) and so is its ``autograded/`` copy.
        """
        old = self.book.read(student) or StudentStatus(student)
        if old.missing and not old.interrupted:
            return old                       # recorded as ungraded by begin(): a notebook is missing
        before = old.before or {}
        folder = self.folder(student)
        notebooks = self.course.notebooks(self.assignment)
        with self._gradebook() as gb:
            if failure is not None:
                gbk.forget(gb, self.assignment, student, keep_manual=True)
                graded_dir = self.course.autograded_dir / student / self.assignment
                if graded_dir.is_dir() and not graded_dir.is_symlink():
                    shutil.rmtree(graded_dir, ignore_errors=True)
                record = old.replace(status=UNGRADED, reason=failure, interrupted=False, before=None,
                                     digest=submission_digest(folder), source=self.source)
                self.book.write(record)
                return record
            cells = cell_digests(folder, notebooks)
            review, basis = self._review(old, before, cells)
            flags = {gid: (True if gid in review else mark.needs_manual_grade)
                     for gid, mark in before.items() if mark.work is not None and mark.needs_manual_grade is not None}
            gbk.set_flags(gb, self.assignment, student, flags)
            gbk.refresh_late(gb, self.assignment, student, policy=Policy.from_config(self.config),
                             extension=read_extensions(self.course.root).get((self.assignment, student)))
        record = StudentStatus(student, status=GRADED, reason="", interrupted=False,
                               digest=submission_digest(folder), source=self.source, cells=cells,
                               review=tuple(review), review_basis=basis)
        self.book.write(record)
        return record

    @staticmethod
    def _review(old, before, cells):
        """Cells to review after this grading, and what the grader had left on each when it was flagged."""
        still = [g for g in old.open_review(before)]
        basis = {g: old.review_basis.get(g) for g in still}
        if old.cells:
            changed = changed_exercises(old.cells, cells)
            for gid, mark in before.items():
                if mark.work is not None and exercise_of(gid) in changed and gid not in basis:
                    still.append(gid)
                    basis[gid] = mark.to_list()
        return sorted(set(still)), basis

    def mark_interrupted(self, student):
        """The grading of ``student`` did not come back (not the submission's fault): graded again next time."""
        record = self.book.read(student) or StudentStatus(student)
        self.book.write(record.replace(interrupted=True))

    def reviewed(self, student, cells=None):
        """A grader looked at ``student``'s flagged cells again (all, or ``cells``): they leave the list."""
        record = self.book.read(student)
        if record is None:
            raise CourseError(f"no graded submission of {self.assignment!r} by student {student!r}")
        keep = [g for g in record.review if cells is not None and g not in set(cells)]
        unknown = sorted(set(cells or ()) - set(record.review))
        if unknown:
            raise CourseError(f"{student!r} has no cell {', '.join(unknown)} to review on {self.assignment!r}; "
                              f"the cells to review are: {', '.join(record.review) or '(none)'}")
        self.book.write(record.replace(review=tuple(keep),
                                       review_basis={g: record.review_basis.get(g) for g in keep}))
        return [g for g in record.review if g not in keep]

    def withdraw(self, student):
        """``student``'s submission folder is gone: its automatic grades and record go too (manual work stays)."""
        with self._gradebook() as gb:
            gbk.forget(gb, self.assignment, student, keep_manual=True)
        graded_dir = self.course.autograded_dir / student / self.assignment
        if graded_dir.is_dir() and not graded_dir.is_symlink():
            shutil.rmtree(graded_dir, ignore_errors=True)
        self.book.remove(student)


def extension(root, assignment, student, *, due=None, reason="", echo=print):
    """``make extension``: show, give (``due``) or remove (``due=""``) a student's later due date.

    It is written to ``extensions.csv`` and put into the gradebook at once (the student's
    late penalty computed again), so the exports, the Formgrader and the feedback follow it.
    """
    from .late import give_extension

    course = Course(root)
    course.check_assignment(assignment)
    if due is not None:
        give_extension(course.root, assignment, student, due, reason)
    ext = read_extensions(course.root).get((assignment, student))
    late = None
    if not gbk.problem(course.db_url):
        with gbk.open_gradebook(course) as gb:
            late = gbk.refresh_late(gb, assignment, student, policy=Policy.from_config(course.config), extension=ext)
    what = (f"due {ext.due:%Y-%m-%d %H:%M} UTC" + (f" ({ext.reason})" if ext.reason else "")) if ext else "no extension"
    echo(f"{student} on {assignment}: {what}")
    if late is not None:
        echo(f"  submitted {late.timestamp or 'at an unknown time'}; "
             f"{Policy.from_config(course.config).explain(late.raw_score, late.seconds_late)}")
    return ext


def generate(course, assignment, *, release_dir, db_url, logger=None):
    """nbgrader's ``generate_assignment`` of ``assignment`` into ``release_dir`` with the gradebook ``db_url``."""
    from nbgrader.converters import GenerateAssignment
    from nbgrader.coursedir import CourseDirectory

    cfg = course.nbgrader_config()
    cfg.CourseDirectory.release_directory = str(release_dir)
    cfg.CourseDirectory.db_url = db_url
    cfg.CourseDirectory.assignment_id = assignment
    cfg.GenerateAssignment.force = True
    cfg.GenerateAssignment.create_assignment = True
    cfg.GenerateAssignment.exporter_class = "nbconvert.exporters.NotebookExporter"
    coursedir = CourseDirectory(config=cfg)
    kwargs = {"log": logger} if logger is not None else {}
    with gbk.quiet():
        GenerateAssignment(coursedir=coursedir, config=cfg, **kwargs).start()


# -- nbgrader's Autograde, on every path --------------------------------------------------------
def _student_of(course, path):
    """``(student, assignment)`` of a notebook path under ``submitted/`` or ``autograded/``."""
    path = Path(path).resolve()
    for base in (course.submitted_dir, course.autograded_dir):
        try:
            parts = path.relative_to(Path(base).resolve()).parts
        except ValueError:
            continue
        if len(parts) >= 3:
            return parts[0], parts[1]
    raise ValueError(f"{path} is not a notebook of a submission of {course.root}")


def before_autograde(assignment=None, student=None, notebooks=(), **_):
    """nbgrader's ``Autograde.pre_convert_hook``: a submission is about to be graded (see the module).

    nbgrader calls it from the course folder with the submission's notebook paths (its
    ``assignment`` and ``student`` arguments are the command's patterns, not names).
    """
    notebooks = list(notebooks)
    if not notebooks:
        return
    try:
        _before_autograde(notebooks)
    except Exception as exc:
        import sys
        print(f"grading: the course's record of this grading could not be started ({type(exc).__name__}: {exc})",
              file=sys.stderr)
        raise


def _before_autograde(notebooks):
    course = Course(os.getcwd())
    _, assignment = _student_of(course, notebooks[0])
    run = ClassRun(course, assignment)
    if not run.gradebook_current():
        try:
            run.sync_gradebook()
        except Exception as exc:  # said in one line; nbgrader then reports the assignment missing
            import sys
            print(f"grading: the gradebook could not be brought up to date with source/{assignment} ({exc}); "
                  f"run `make release ASSIGNMENT={assignment}` in {course.root}", file=sys.stderr)
    run.begin_notebooks(notebooks)


class RecordingExporter(NotebookExporter):
    """The notebook exporter of nbgrader's ``Autograde`` that records each submission's outcome.

    Registered as ``c.Autograde.exporter_class``: nbgrader converts every notebook through
    it twice (sanitizing, then autograding). A notebook that fails records the reason; the
    last notebook of a submission, once graded, records the outcome.
    """

    def _run(self, assignment):
        converter = self.parent
        given = getattr(converter, "classrun", None)        # a class run's own (grading.jobs.CourseAutograde)
        if given is not None and given.assignment == assignment:
            return given
        runs = self.__dict__.setdefault("_course_runs", {})
        if assignment not in runs:
            course = Course(converter.coursedir.root)
            runs[assignment] = ClassRun(course, assignment, config=converter.config)
        return runs[assignment]

    def from_filename(self, filename, resources=None, **kw):
        converter = self.parent
        info = (resources or {}).get("nbgrader", {})
        student, assignment = info.get("student"), info.get("assignment")
        if student is None or assignment is None or not hasattr(converter, "_sanitizing"):
            return super().from_filename(filename, resources=resources, **kw)
        run = self._run(assignment)
        grading = not converter._sanitizing
        try:
            output, resources = super().from_filename(filename, resources=resources, **kw)
            if grading:
                output.encode("utf-8")        # what nbgrader is about to write must be writable
        except Exception as exc:
            run.finish(student, failure=reason_for(exc))
            raise
        names = [Path(n).stem for n in getattr(converter, "notebooks", [])]
        if grading and names and Path(filename).stem == names[-1]:
            run.finish(student)
        return output, resources


class RestoreUnchangedTests(NbGraderPreprocessor):
    """A locked cell the student left as released gets the gradebook's version (hidden tests included) quietly.

    nbgrader's ``OverwriteCells`` compares each locked cell with the gradebook's copy, which
    holds the hidden tests the released notebook does not, so it warned "checksum has
    changed!" for every test cell of every submission. Here a cell whose source is the
    released one is given the gradebook's source and checksum first; ``OverwriteCells`` still
    restores (and reports) a cell the student really changed.
    """

    def preprocess(self, nb, resources):
        from nbformat import from_dict
        from nbgrader.preprocessors import ClearHiddenTests

        from .preprocessors import source_notebook

        book = source_notebook(resources)
        if book is None:
            return nb, resources
        locked = book.locked()
        clear = ClearHiddenTests(config=self.config)
        for cell in nb.cells:
            nbg = cell.get("metadata", {}).get("nbgrader")
            gid = nbg.get("grade_id") if isinstance(nbg, dict) else None
            if gid not in locked or locked[gid].cell_type != cell.cell_type:
                continue
            released = from_dict({"cell_type": cell.cell_type, "source": locked[gid].source, "metadata": {}})
            try:
                clear._remove_hidden_test_region(released)
            except RuntimeError:
                continue
            if cell.source.strip() == released.source.strip():
                cell.source = locked[gid].source
                nbg["checksum"] = locked[gid].checksum
        return nb, resources
