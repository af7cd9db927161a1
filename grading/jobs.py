"""One submission as a job: prepared here, executed anywhere, its result handed to nbgrader.

``make autograde`` grades a class through nbgrader's own ``Autograde`` converter, one
submission at a time in the instructor's process, while the student code runs elsewhere (a
local process pool or a Dask cluster, :mod:`grading.executors`):

1. :class:`JobMaker` (the instructor's process) runs nbgrader's sanitize steps on a submission
   as nbgrader's Autograde runs them, and adds the engine's arguments: a job, plain data;
2. :func:`execute_job` (any worker) runs it through the engine
   (:func:`grading.engine.execute_submission`) and returns plain data;
3. :class:`CourseAutograde` (the instructor's process again) is nbgrader's Autograde for that
   one student, carrying the job's notebooks and results: each notebook's
   ``resources["grading"]`` holds them (:meth:`CourseAutograde.init_single_notebook_resources`),
   the sanitizing is not done a second time (:class:`TakePrepared`), and
   :class:`grading.preprocessors.CourseExecute` takes the result instead of running the engine.
   nbgrader then does its own bookkeeping (scores, late penalties, ``autograded/``) and the
   course's plug-ins record the outcome (:mod:`grading.classrun`), all in the run's one
   gradebook (:class:`grading.gradebook.RunGradebook`, one session per submission) where
   nbgrader would open about ten.

What the gradebook holds of the assignment (its cells, tests and checksums,
:class:`grading.gradebook.SourceNotebook`) is read once per run and travels in the same
``resources["grading"]``. Every other way of autograding (``nbgrader autograde``, the
Formgrader's button) runs nbgrader's own converter with nothing there: the steps read the
gradebook and CourseExecute runs the engine in place.
"""
import copy
import json
import os
import shutil

import nbformat
from nbgrader.api import MissingEntry
from nbgrader.converters import Autograde
from nbgrader.converters.base import BaseConverter, NbGraderException
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.utils import find_all_files
from traitlets import Any, Dict
from traitlets.utils.importstring import import_item

from . import gradebook as gbk
from .engine import KernelDied, execute_submission, read_files
from .executors import JobFailed
from .preprocessors import check_no_links, submission_folder
from .results import SubmissionReport

__all__ = ["ENGINE_STEP", "CourseAutograde", "JobMaker", "TakePrepared", "execute_job", "prepare_job", "read_books",
           "results_of"]

ENGINE_STEP = "grading.preprocessors.CourseExecute"
"""The autograde step that runs the course's engine (``nbgrader_config.py`` registers it)."""


def step_name(step):
    """A preprocessor's dotted name, whether configured as a class or as its name."""
    return step if isinstance(step, str) else f"{step.__module__}.{step.__qualname__}"


def _resolve(step):
    return import_item(step) if isinstance(step, str) else step


def sanitizing_steps(config):
    """nbgrader's sanitize steps under ``config`` (nbgrader's own list when it sets none), as classes."""
    steps = config.get("Autograde", {}).get("sanitize_preprocessors")
    if steps is None:
        steps = Autograde.class_traits()["sanitize_preprocessors"].default()
    return [_resolve(p) for p in steps]


def sanitize_steps(config):
    """The steps nbgrader's Autograde runs on a submission before the engine, as classes.

    Its sanitize steps (:func:`sanitizing_steps`), then the autograde steps above :data:`ENGINE_STEP`.
    """
    steps = sanitizing_steps(config)
    for step in config.get("Autograde", {}).get("autograde_preprocessors", []):
        if step_name(step) == ENGINE_STEP:
            break
        steps.append(_resolve(step))
    return steps


def read_books(db_url, assignment, notebooks):
    """``{notebook: grading.gradebook.SourceNotebook}`` of ``assignment`` (None for a notebook the gradebook lacks)."""
    with gbk.open_url(db_url) as gb:
        return {name: gbk.source_notebook(gb, assignment, name) for name in notebooks}


class JobMaker:
    """The jobs of one assignment's submissions, made in the instructor's process (it reads the gradebook).

    Parameters
    ----------
    config : traitlets.config.Config
        The course's configuration, ``CourseDirectory.assignment_id`` set.
    assignment : str
    books : dict, optional
        :func:`read_books` of the assignment (read here when not given).
    """

    def __init__(self, config, assignment, *, books=None):
        self.config, self.assignment = config, assignment
        self.db_url = CourseDirectory(config=config).db_url
        self.steps = sanitize_steps(config)
        self.books = books
        self.execute = _resolve(ENGINE_STEP)(config=config)

    def make(self, student, notebooks):
        """The job of ``student``'s submission: ``{"notebooks": {name: {"notebook": dict, "arguments": dict}}}``.

        Each notebook sanitized as nbgrader's Autograde sanitizes it, with the keyword arguments of
        :func:`grading.engine.execute_submission` (:meth:`grading.preprocessors.CourseExecute.arguments`:
        trusted cells, withheld functions, limits) and the submission's files read as bytes
        (links never followed).
        """
        if self.books is None:
            self.books = read_books(self.db_url, self.assignment, notebooks)
        folder = submission_folder(self.config, self.assignment, student)
        check_no_links(folder)
        files, _ = read_files(folder)
        job = {"notebooks": {}}
        for name in notebooks:
            path = folder / f"{name}.ipynb"
            check_no_links(folder, path)
            nb = nbformat.read(str(path), as_version=4)
            resources = {"nbgrader": {"db_url": self.db_url, "assignment": self.assignment, "notebook": name,
                                      "student": student}, "metadata": {"path": str(folder)},
                         "grading": {"book": self.books.get(name)}}
            for step in self.steps:
                nb, resources = step(config=self.config).preprocess(nb, resources)
            arguments = dict(self.execute.arguments(resources), files=files)
            job["notebooks"][name] = {"notebook": json.loads(json.dumps(nb)), "arguments": arguments}
        return job


def prepare_job(config, assignment, student, notebooks):
    """The plain-data job of one submission (see :meth:`JobMaker.make`)."""
    return JobMaker(config, assignment).make(student, notebooks)


def execute_job(job):
    """Run one submission's notebooks through the course's engine: plain data in, plain data out.

    ``job`` is what :meth:`JobMaker.make` made. Returns ``{name: {"notebook": dict, "report": dict}}``.
    Runs on any worker: it reads and writes no gradebook and no course folder.
    """
    out = {}
    for name, spec in job["notebooks"].items():
        executed, report = execute_submission(spec["notebook"], **spec["arguments"])
        out[name] = {"notebook": json.loads(json.dumps(executed)), "report": report.to_dict()}
    return out


def results_of(notebooks, result, error):
    """``{notebook: (executed notebook, SubmissionReport) or the exception}`` for nbgrader, from a job's outcome.

    ``error`` is the exception of a job that could not be made or did not come back (else None).
    """
    if isinstance(error, JobFailed):
        error = KernelDied(f"the grading job did not come back ({error}); it is graded again by the next run"[:300])
    out = {}
    for name in notebooks:
        done = (result or {}).get(name)
        if error is not None or done is None:
            out[name] = error if error is not None else KernelDied("the grading job returned no result for "
                                                                   f"{name}.ipynb; it is graded again by the next run")
        else:
            out[name] = (nbformat.from_dict(done["notebook"]), SubmissionReport.from_dict(done["report"]))
    return out


class TakePrepared(NbGraderPreprocessor):
    """Stands for the sanitize steps when the notebook's job was made from them: the notebook the job carried.

    :class:`JobMaker` ran nbgrader's sanitize steps to make the job; the bookkeeping does not
    read and sanitize the submission a second time (the executed cells replace its cells later).
    """

    def preprocess(self, nb, resources):
        prepared = (resources.get("grading") or {}).get("prepared")
        if prepared is not None:
            return nbformat.from_dict(copy.deepcopy(prepared)), resources
        for step in sanitizing_steps(self.config):         # a notebook without a job: sanitized here
            nb, resources = step(config=self.config).preprocess(nb, resources)
        return nb, resources


class CourseAutograde(Autograde):
    """nbgrader's ``Autograde`` of one student's submission, whose notebooks were executed elsewhere.

    Parameters (besides nbgrader's)
    -------------------------------
    prepared : dict
        ``{notebook: sanitized notebook}`` of the job; when given, :class:`TakePrepared` stands
        for the sanitize steps.
    results : dict
        :func:`results_of` the job: :class:`grading.preprocessors.CourseExecute` takes a
        notebook's result (or raises its exception) instead of running the engine.
    books : dict
        :func:`read_books` of the assignment.
    classrun : grading.classrun.ClassRun, optional
        The class run that records each outcome (:class:`grading.classrun.RecordingExporter`
        records with it rather than with a ClassRun of its own).
    gradebook : grading.gradebook.RunGradebook, optional
        The class run's gradebook: nbgrader's bookkeeping of the submission (:meth:`init_assignment`
        and the steps that take it from ``resources["grading"]["gradebook"]``) works in it
        instead of opening a gradebook for each step.
    """

    prepared = Dict()
    results = Dict()
    books = Dict()
    classrun = Any(None, allow_none=True)
    gradebook = Any(None, allow_none=True)

    def init_single_notebook_resources(self, notebook_filename):
        resources = super().init_single_notebook_resources(notebook_filename)
        name = resources["nbgrader"]["notebook"]
        grading = {"book": self.books.get(name)}
        if name in self.prepared:
            grading["prepared"] = self.prepared[name]
        if name in self.results:
            grading["result"] = self.results[name]
        if self.gradebook is not None:
            grading["gradebook"] = self.gradebook
        resources["grading"] = grading
        return resources

    def init_assignment(self, assignment_id, student_id):
        """nbgrader's ``Autograde.init_assignment``, its steps in that order, in the class run's gradebook.

        nbgrader opens a gradebook for each of them (five); with the run's
        (:attr:`gradebook`) they share it. The student is created or required, the
        assignment required, the submission's timestamp recorded, the other files of the
        submission and then the instructor's copied, unknown notebooks skipped and a
        missing one scored zero, with nbgrader's own messages and errors.
        """
        if self.gradebook is None:
            return super().init_assignment(assignment_id, student_id)
        BaseConverter.init_assignment(self, assignment_id, student_id)   # the submission's other files
        with self.gradebook.use() as gb:
            self._student_and_assignment(gb, assignment_id, student_id)
            self._submission(gb, assignment_id, student_id)
            self._copy_instructor_files(assignment_id, student_id)
            self._keep_known_notebooks(gb, assignment_id)
            self._zero_missing_notebooks(gb, assignment_id, student_id)

    def _student_and_assignment(self, gb, assignment_id, student_id):
        if self.create_student:
            self.log.info("Creating/updating student with ID '%s': %s", student_id, {})
            gb.update_or_create_student(student_id)
        else:
            self._require(gb.find_student, student_id,
                          missing=f"No student with ID '{student_id}' exists in the database")
        self._require(gb.find_assignment, assignment_id,
                      missing=f"No assignment with ID '{assignment_id}' exists in the database")

    def _require(self, find, *args, missing):
        try:
            find(*args)
        except MissingEntry:
            raise self._stop(missing) from None

    def _stop(self, msg):
        """nbgrader's way of stopping a submission: the message logged as an error, then raised."""
        self.log.error(msg)
        return NbGraderException(msg)

    def _submission(self, gb, assignment_id, student_id):
        timestamp = self.coursedir.get_existing_timestamp(self._format_source(assignment_id, student_id))
        if timestamp:
            submission = gb.update_or_create_submission(assignment_id, student_id, timestamp=timestamp)
            self.log.info("%s submitted at %s", submission, timestamp)
            if submission.total_seconds_late > 0:
                self.log.warning("%s is %s seconds late", submission, submission.total_seconds_late)
        else:
            gb.update_or_create_submission(assignment_id, student_id)

    def _copy_instructor_files(self, assignment_id, student_id):
        self.log.info("Overwriting files with master versions from the source directory")
        dest_path = self._format_dest(assignment_id, student_id)
        source_path = self.coursedir.format_path(self.coursedir.source_directory, ".", assignment_id)
        source_files = set(find_all_files(source_path, self.coursedir.ignore + ["*.ipynb"]))
        excluded = {os.path.join(source_path, x) for x in self.exclude_overwriting.get(assignment_id, [])}
        for filename in source_files - excluded:
            dest = os.path.join(dest_path, os.path.relpath(filename, source_path))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            if os.path.exists(dest):
                os.remove(dest)
            self.log.info("Copying %s -> %s", filename, dest)
            shutil.copy(filename, dest)

    def _keep_known_notebooks(self, gb, assignment_id):
        notebooks = []
        for notebook in self.notebooks:
            try:
                gb.find_notebook(os.path.splitext(os.path.basename(notebook))[0], assignment_id)
            except MissingEntry:
                self.log.warning("Skipping unknown notebook: %s", notebook)
            else:
                notebooks.append(notebook)
        self.notebooks = notebooks
        if not notebooks:
            raise self._stop("No notebooks found, did you forget to run 'nbgrader generate_assignment'?")

    def _zero_missing_notebooks(self, gb, assignment_id, student_id):
        for notebook in gb.find_assignment(assignment_id).notebooks:
            path = os.path.join(self.coursedir.format_path(self.coursedir.submitted_directory, student_id,
                                                           assignment_id), f"{notebook.name}.ipynb")
            if not os.path.exists(path):
                self.log.warning(f"No submitted file: {path}")
                for grade in gb.find_submission_notebook(notebook.name, assignment_id, student_id).grades:
                    grade.auto_score = 0
                    grade.needs_manual_grade = False
                gb.db.commit()

    def run_pre_convert_hook(self):
        """The class run's :meth:`grading.classrun.ClassRun.begin` (it brought the gradebook up to date when it started)."""
        if self.classrun is None or not self.notebooks:
            return super().run_pre_convert_hook()
        try:
            self.classrun.begin_notebooks(self.notebooks)
        except Exception:                   # as nbgrader treats a failing hook: said, and the grading goes on
            self.log.error("the course's record of this grading could not be started", exc_info=True)

    def _init_preprocessors(self):
        if self._sanitizing and self.prepared:
            self.exporter._preprocessors = []
            self.exporter.register_preprocessor(TakePrepared)
            return
        super()._init_preprocessors()
