"""The course's grading inside nbgrader: preprocessors registered in ``nbgrader_config.py``.

``nbgrader_config.py`` puts these into nbgrader's own ``Autograde`` converter, so every way
of autograding runs the same engine (:func:`grading.engine.execute_submission`):
``nbgrader autograde``, the Formgrader's autograde button (``NbGraderAPI.autograde``),
``make autograde`` and ``python -m grading autograde``.

Sanitizing (before anything runs):

* :class:`RefuseLinks` — a submission whose student folder, assignment folder or notebook is
  a symbolic link is not graded (nbgrader would grade the linked files as the student's);
* :class:`TrustOnlyTheGradebook` — a cell's nbgrader metadata is taken from the gradebook,
  never from the submission: a cell under an unknown grade_id is the student's own code, a
  known cell gets every key back from the gradebook (a flipped flag or a forged
  ``cell_type`` cannot make nbgrader fail), and every text of the notebook is made valid
  UTF-8 (a lone surrogate cannot make the graded notebook impossible to save).

Autograding: :class:`CourseExecute` in place of nbgrader's ``Execute``; its options are the
one place a submission's limits come from (:meth:`CourseExecute.limits`).

nbgrader's own steps that asked the gradebook the same questions for every submission, or
opened it again, or committed after every grade, run as the course's subclasses:
:class:`OverwriteKernelspec` and :class:`OverwriteCells` (answered from the gradebook's copy of
the notebook that a class run reads once), :class:`SaveAutoGrades` (a notebook's scores
committed together) and :class:`AssignLatePenalties`; the last two work in the class run's one
gradebook (:class:`grading.gradebook.RunGradebook`) when there is one. Their decisions are
nbgrader's, and without a class run they are nbgrader's steps as they are.

Both steps end with :class:`CheckCellMetadata`, nbgrader's check of the cells' metadata
with its JSON schema compiled once (nbgrader's recompiles it for every cell).
"""
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import jsonschema
from nbgrader.nbgraderformat.common import BaseMetadataValidator, SchemaTooNewError, SchemaTooOldError
from nbgrader.nbgraderformat.v3 import MetadataValidatorV3
from nbgrader.preprocessors import AssignLatePenalties as _AssignLatePenalties
from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.preprocessors import OverwriteCells as _OverwriteCells
from nbgrader.preprocessors import OverwriteKernelspec as _OverwriteKernelspec
from nbgrader.preprocessors import SaveAutoGrades as _SaveAutoGrades
from traitlets import Dict, Float, Integer, Unicode

from . import gradebook as gbk
from . import wire
from .context import course_secret
from .engine import KernelDied, SubmissionRefused, execute_submission
from .limits import GradingLimits
from .plan import submission_digest
from .withhold import withheld_names

__all__ = ["AssignLatePenalties", "CheckCellMetadata", "CourseExecute", "OverwriteCells", "OverwriteKernelspec",
           "RefuseLinks", "SaveAutoGrades", "TrustOnlyTheGradebook", "run_gradebook", "source_notebook",
           "submission_folder", "trusted_metadata"]


def submission_folder(config, assignment, student):
    """``submitted/<student>/<assignment>`` of the course that ``config`` describes."""
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(config=config)
    return Path(coursedir.format_path(coursedir.submitted_directory, student, assignment))


def source_folder(config, assignment):
    """``source/<assignment>`` of the course that ``config`` describes."""
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(config=config)
    return Path(coursedir.format_path(coursedir.source_directory, ".", assignment))


_PATTERN_CHARACTERS = "*?[]"


def check_no_links(folder, notebook=None):
    """Raise :class:`SubmissionRefused` when the submission's folders (or its notebook) are links.

    Also when the student folder's name holds a character nbgrader reads as a file pattern
    (``*``, ``?``, ``[``, ``]``): nbgrader finds a student's files by globbing
    ``submitted/<student>/...``, so a folder named ``r*`` (from an unzipped LMS download, say)
    would be graded with the files of every student whose id starts with r.
    """
    folder = Path(folder)
    student = folder.parent.name
    if any(c in student for c in _PATTERN_CHARACTERS):
        raise SubmissionRefused(f"the student folder name {student!r} holds one of {_PATTERN_CHARACTERS}, which "
                                "nbgrader reads as a pattern matching other students' folders; it was not graded "
                                "(rename the folder)")
    for path, what in ((folder.parent, "student folder"), (folder, "assignment folder")):
        if path.is_symlink():
            raise SubmissionRefused(f"the {what} {path} is a symbolic link to {os.readlink(path)!r}, not the "
                                    "student's own folder; it was not graded (links are never followed)")
    if notebook is not None and os.path.islink(notebook):
        raise SubmissionRefused(f"the notebook {Path(notebook).name} is a symbolic link to {os.readlink(notebook)!r}, "
                                "not a file; it was not graded")


def source_notebook(resources):
    """The gradebook's :class:`grading.gradebook.SourceNotebook` of the notebook of ``resources`` (None: unknown to it).

    A class run reads it once and hands it over in ``resources["grading"]["book"]``
    (:mod:`grading.jobs`); otherwise the gradebook is read here.
    """
    grading = resources.get("grading") or {}
    if grading.get("book") is not None:
        return grading["book"]
    info = resources["nbgrader"]
    with gbk.open_url(info["db_url"]) as gb:
        return gbk.source_notebook(gb, info["assignment"], info["notebook"])


class RefuseLinks(NbGraderPreprocessor):
    """Refuse a submission whose student folder, assignment folder or notebook is a symbolic link.

    nbgrader has already copied the submission's other files into ``autograded/``, following
    links with the instructor's rights (and would copy them on into the feedback): the copy of
    every link is removed here, before anything else happens.
    """

    def preprocess(self, nb, resources):
        from nbgrader.coursedir import CourseDirectory

        info = resources.get("nbgrader", {})
        if info.get("student") and info.get("assignment"):
            folder = submission_folder(self.config, info["assignment"], info["student"])
            check_no_links(folder, folder / f"{info.get('notebook', '')}.ipynb")
            coursedir = CourseDirectory(config=self.config)
            copy = Path(coursedir.format_path(coursedir.autograded_directory, info["student"], info["assignment"]))
            for here, dirs, files in os.walk(folder):
                for name in files + dirs:
                    path = os.path.join(here, name)
                    if os.path.islink(path):
                        copied = copy / os.path.relpath(path, folder)
                        if copied.is_dir() and not copied.is_symlink():
                            import shutil
                            shutil.rmtree(copied, ignore_errors=True)
                        elif os.path.lexists(copied):
                            os.remove(copied)
                        self.log.warning("Left out the link %s (links are never followed)", path)
        return nb, resources


def trusted_metadata(db_url, notebook, assignment):
    """``{grade_id: nbgrader metadata}`` of every cell the gradebook knows for ``notebook`` of ``assignment``.

    Every key is the gradebook's: ``grade_id``, ``grade``, ``solution``, ``locked``, ``task``,
    ``points``, ``cell_type`` and ``checksum`` (as released), ``schema_version`` 3. Empty when
    the gradebook does not know the notebook.
    """
    with gbk.open_url(db_url) as gb:
        book = gbk.source_notebook(gb, assignment, notebook)
    return book.metadata() if book is not None else {}


def valid_texts(node, depth=0):
    """Make every string of a notebook (sources, outputs, metadata, keys) valid UTF-8, in place; return it."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    if depth > 64:
        return node
    for key, value in list(items):
        if isinstance(value, str):
            node[key] = wire.valid_text(value)
        elif isinstance(value, (dict, list)):
            valid_texts(value, depth + 1)
        if isinstance(key, str) and isinstance(node, dict) and wire.valid_text(key) != key:
            node[wire.valid_text(key)] = node.pop(key)
    return node


class TrustOnlyTheGradebook(NbGraderPreprocessor):
    """Give every cell the nbgrader metadata the gradebook has for its grade_id (or none); make every text valid UTF-8."""

    def preprocess(self, nb, resources):
        valid_texts(nb)
        book = source_notebook(resources)
        known = book.metadata() if book is not None else {}
        for cell in nb.cells:
            meta = cell.get("metadata", {})
            if "nbgrader" not in meta:
                continue
            nbg = meta["nbgrader"] if isinstance(meta["nbgrader"], dict) else {}
            gid = nbg.get("grade_id")
            if not isinstance(gid, str) or gid not in known:
                self.log.warning("cell %r is not in the gradebook: graded as the student's own code", gid)
                del meta["nbgrader"]
                continue
            meta["nbgrader"] = dict(known[gid])
        return nb, resources


class CourseExecute(NbGraderPreprocessor):
    """nbgrader's ``Execute`` replaced by the course's engine (:func:`grading.engine.execute_submission`).

    The test cells come from the gradebook, the student's files from ``submitted/`` (links
    never followed), the functions withheld from ``course_lib`` from
    ``source/<assignment>/course_lib_withheld.txt`` (:mod:`grading.withhold`), the seeds of the
    hidden tests' data from the course's secret and the submission's digest
    (:mod:`grading.context`), and the limits from here (``c.CourseExecute.*`` in
    nbgrader_config.py, see :meth:`limits`). A cell's limit is the assignment's entry in
    ``assignment_timeouts`` when it has one, else ``timeout``, which defaults to
    ``c.Execute.timeout``; it counts CPU seconds of the student's process.
    """

    timeout = Integer(10, help="CPU seconds a cell may use before it is stopped (it then earns 0 points).").tag(
        config=True)
    assignment_timeouts = Dict(
        value_trait=Integer(),
        help="CPU seconds a cell may use in the assignments named here ({assignment: seconds}), in place of timeout.",
    ).tag(config=True)
    setup_timeout = Integer(120, help="CPU seconds allowed for one of the instructor's read-only cells.").tag(
        config=True)
    replay_timeout = Integer(60, help="CPU seconds allowed to re-run the cells above a stopped cell.").tag(config=True)
    submission_timeout = Float(
        600, help="Wall-clock seconds for one submission, restarts included; when spent, the cells left score 0."
    ).tag(config=True)
    startup_timeout = Float(60, help="Wall-clock seconds for the student's process to start.").tag(config=True)
    wall_factor = Float(
        5, help="A cell's wall-clock backstop, as a multiple of its CPU limit (for code that sleeps or blocks)."
    ).tag(config=True)
    output_budget = Integer(
        2_000_000, help="Characters of output kept for a whole notebook; beyond, outputs are left out with a note."
    ).tag(config=True)
    secret_file = Unicode(
        "grading-secret.key", help="The course's secret that seeds the hidden tests' data (relative to the course "
        "directory); made at the first grading, never committed, backed up with the gradebook."
    ).tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        execute = self.config.get("Execute", {})
        if "timeout" in execute and "timeout" not in self.config.get("CourseExecute", {}):
            self.timeout = int(execute["timeout"])

    def cell_timeout(self, assignment):
        """CPU seconds a cell of ``assignment`` may use: its entry in ``assignment_timeouts``, else ``timeout``."""
        return int(self.assignment_timeouts.get(assignment, self.timeout))

    def limits(self, assignment):
        """The :class:`grading.limits.GradingLimits` of a submission of ``assignment`` (the one place they come from)."""
        return GradingLimits(timeout=self.cell_timeout(assignment), setup_timeout=self.setup_timeout,
                             replay_timeout=self.replay_timeout, submission_timeout=self.submission_timeout,
                             startup_timeout=self.startup_timeout, wall_factor=self.wall_factor,
                             output_budget=self.output_budget)

    def secret_path(self):
        """Where the course's secret is (:attr:`secret_file` under the course directory)."""
        from nbgrader.coursedir import CourseDirectory

        return Path(CourseDirectory(config=self.config).root) / self.secret_file

    def secret(self, *, create=True):
        """The course's secret (made at the first grading; see :func:`grading.context.course_secret`)."""
        return course_secret(self.secret_path(), create=create)

    def settings(self, assignment):
        """What a grade depends on besides the submission and ``source/``: the limits, and which secret seeds the data.

        The autograder hashes it: when it changes, every submission is graded again.
        """
        return {"limits": self.limits(assignment).as_dict(),
                "secret": hashlib.sha256(b"grading-secret\0" + self.secret()).hexdigest()[:16]}

    def arguments(self, resources):
        """The keyword arguments of :func:`execute_submission` for the notebook of ``resources``.

        (Also what a grading job carries to a worker, with the files read as bytes: :mod:`grading.jobs`.)
        """
        from nbgrader.api import MissingEntry

        info = resources.get("nbgrader", {})
        assignment, student = info.get("assignment"), info.get("student")
        folder = submission_folder(self.config, assignment, student)
        check_no_links(folder)
        book = source_notebook(resources)
        if book is None:
            raise MissingEntry(f"the gradebook holds no notebook {info.get('notebook')!r} of {assignment!r}")
        tests, setups = book.tests(), book.setups()
        return {"files": folder, "tests": tests, "setups": setups, "assignment": assignment, "student": student,
                "submission": submission_digest(folder), "secret": self.secret(),
                "withheld": withheld_names(source_folder(self.config, assignment)), "limits": self.limits(assignment)}

    def preprocess(self, nb, resources):
        """Execute the notebook with the engine, or take its result from ``resources["grading"]["result"]``.

        A class run executes its submissions elsewhere and hands each result (or the exception of
        a job that failed) over in ``resources`` (:mod:`grading.jobs`); it is used as the engine's.
        """
        info = resources.get("nbgrader", {})
        student = info.get("student")
        given = (resources.get("grading") or {}).get("result")
        if isinstance(given, BaseException):
            raise given
        if given is None:
            given = execute_submission(nb, log=self.log, **self.arguments(resources))
        executed, report = given
        for note in report.notes:
            self.log.warning("%s: %s", student, note)
        if not report.graded:
            raise KernelDied(report.reason)
        nb.cells = executed.cells
        resources.setdefault("grading", {})["report"] = report
        return nb, resources


class _SchemaChecked(BaseMetadataValidator):
    """``BaseMetadataValidator.validate_cell`` with the schema checked and compiled once."""

    _compiled = None

    def validate_cell(self, cell):
        if "nbgrader" not in cell.metadata:
            return
        version = cell.metadata["nbgrader"].get("schema_version", 0)
        if version < self.schema_version:
            raise SchemaTooOldError(f"Outdated schema version: {version} (expected {self.schema_version})",
                                    version, self.schema_version)
        if version > self.schema_version:
            raise SchemaTooNewError(f"Schema version is too new: {version} (expected {self.schema_version})",
                                    version, self.schema_version)
        cls = self.__class__
        if cls._compiled is None:
            kind = jsonschema.validators.validator_for(self.schema)
            kind.check_schema(self.schema)
            cls._compiled = kind(self.schema)
        error = jsonschema.exceptions.best_match(cls._compiled.iter_errors(cell.metadata["nbgrader"]))
        if error is not None:
            raise error


class CourseMetadataValidator(MetadataValidatorV3, _SchemaChecked):
    """nbgrader's metadata validator (schema 3): the same checks, the same errors."""


class CheckCellMetadata(NbGraderPreprocessor):
    """nbgrader's ``CheckCellMetadata`` with its schema compiled once.

    nbgrader validates every cell's metadata with ``jsonschema.validate``, which checks and
    compiles the schema again for each cell: a sixth of the grader's time per submission.
    The checks and their errors are nbgrader's own.
    """

    _validator = None

    def preprocess(self, nb, resources):
        import traceback

        from nbgrader.nbgraderformat import ValidationError

        if CheckCellMetadata._validator is None:
            CheckCellMetadata._validator = CourseMetadataValidator()
        try:
            CheckCellMetadata._validator.validate_nb(nb)
        except ValidationError:
            self.log.error(traceback.format_exc())
            msg = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(msg)
            raise ValidationError(msg) from None
        return nb, resources


class SaveAutoGrades(_SaveAutoGrades):
    """nbgrader's ``SaveAutoGrades``, its scores and comments of a notebook committed together.

    nbgrader commits after each grade and each comment (a submission of ps1: 35 commits, each
    one expiring everything the session had loaded). Here the same decisions, made by nbgrader's
    own code, are flushed as they are made and committed once at the end of the notebook: what
    a grader reads in the Formgrader is the same, and a grading stopped half-way leaves no half
    of a notebook's scores behind.
    """

    def preprocess(self, nb, resources):
        self.notebook_id = resources["nbgrader"]["notebook"]
        self.assignment_id = resources["nbgrader"]["assignment"]
        self.student_id = resources["nbgrader"]["student"]
        self.db_url = resources["nbgrader"]["db_url"]
        with run_gradebook(resources) as gradebook:
            self.gradebook = _CommitAtTheEnd(gradebook)
            try:
                nb, resources = NbGraderPreprocessor.preprocess(self, nb, resources)
                gradebook.db.commit()
            except BaseException:
                gradebook.db.rollback()
                raise
            finally:
                self.gradebook = gradebook
        return nb, resources


def run_gradebook(resources):
    """The gradebook for a step of nbgrader's, as a context: the class run's (:class:`grading.gradebook.RunGradebook`,
    ``resources["grading"]["gradebook"]``) when it has one, else nbgrader's ``Gradebook`` opened here."""
    return gbk.use_or_open((resources.get("grading") or {}).get("gradebook"), resources["nbgrader"]["db_url"])


class AssignLatePenalties(_AssignLatePenalties):
    """nbgrader's ``AssignLatePenalties``: its decisions, on the class run's gradebook when there is one.

    nbgrader's step opens a gradebook of its own for every notebook; in a class run this one
    works in the run's (:func:`run_gradebook`). The penalty, its bounds and the warnings are
    nbgrader's; the plug-in is ``AssignLatePenalties.plugin_class`` (the course's
    :class:`grading.late.LatePenalty`).
    """

    def preprocess(self, nb, resources):
        if (resources.get("grading") or {}).get("gradebook") is None:
            return super().preprocess(nb, resources)
        self.notebook_id = resources["nbgrader"]["notebook"]
        self.assignment_id = resources["nbgrader"]["assignment"]
        self.student_id = resources["nbgrader"]["student"]
        self.db_url = resources["nbgrader"]["db_url"]
        self.init_plugin()
        with run_gradebook(resources) as gradebook:
            self.gradebook = gradebook
            submitted = gradebook.find_submission(self.assignment_id, self.student_id)
            notebook = gradebook.find_submission_notebook(self.notebook_id, self.assignment_id, self.student_id)
            notebook.late_submission_penalty = None
            if submitted.total_seconds_late > 0:
                self.log.warning(f"{submitted} is {submitted.total_seconds_late} seconds late")
                penalty = self.plugin_inst.late_submission_penalty(self.student_id, notebook.score,
                                                                   submitted.total_seconds_late)
                self.log.warning(f"Late submission penalty: {penalty}")
                if penalty is not None:
                    notebook.late_submission_penalty = self._check_late_penalty(notebook, penalty)
            gradebook.db.commit()
        return nb, resources


class OverwriteKernelspec(_OverwriteKernelspec):
    """nbgrader's ``OverwriteKernelspec``, answered from the gradebook's copy of the notebook a class run read once.

    The submission's kernelspec becomes the instructor's notebook's, as nbgrader's step makes
    it; without the run's copy (``resources["grading"]["book"]``) this is nbgrader's step as it is.
    """

    def preprocess(self, nb, resources):
        book = (resources.get("grading") or {}).get("book")
        if book is None:
            return super().preprocess(nb, resources)
        kernelspec = json.loads(book.kernelspec) if book.kernelspec is not None else None
        self.log.debug(f"Source notebook kernelspec: {kernelspec}")
        self.log.debug(f"Submitted notebook kernelspec: {nb.metadata.get('kernelspec', None)}")
        if kernelspec:
            self.log.debug(f"Overwriting submitted notebook kernelspec: {kernelspec}")
            nb.metadata["kernelspec"] = kernelspec
        return nb, resources


class _CommitAtTheEnd:
    """A gradebook whose session's ``commit`` flushes (the caller commits once); everything else is the gradebook's."""

    class _Session:
        def __init__(self, session):
            self._session = session

        def commit(self):
            self._session.flush()

        def __getattr__(self, name):
            return getattr(self._session, name)

    def __init__(self, gradebook):
        self._gradebook = gradebook
        self.db = self._Session(gradebook.db)

    def __getattr__(self, name):
        return getattr(self._gradebook, name)


class OverwriteCells(_OverwriteCells):
    """nbgrader's ``OverwriteCells``, answered from the gradebook's copy of the notebook that the run read once.

    For every cell with a ``grade_id`` nbgrader asks the gradebook for the instructor's source,
    checksum and points (two queries a cell, for every submission). A class run reads those
    answers once (``resources["grading"]["book"]``, a :class:`grading.gradebook.SourceNotebook`)
    and nbgrader's own code runs on them here: same restorations, same warnings. Without them
    (``nbgrader autograde``, the Formgrader) this is nbgrader's step as it is.
    """

    def preprocess(self, nb, resources):
        book = (resources.get("grading") or {}).get("book")
        if book is None:
            return super().preprocess(nb, resources)
        self.notebook_id = resources["nbgrader"]["notebook"]
        self.assignment_id = resources["nbgrader"]["assignment"]
        self.db_url = resources["nbgrader"]["db_url"]
        self.gradebook = _BookAnswers(book)
        nb, resources = NbGraderPreprocessor.preprocess(self, nb, resources)
        if self.add_missing_cells:
            nb, resources = self.add_missing_grade_cells(nb, resources)
            nb, resources = self.add_missing_task_cells(nb, resources)
        return nb, resources


class _BookAnswers:
    """The gradebook's answers ``OverwriteCells`` asks for, from a :class:`grading.gradebook.SourceNotebook`."""

    @dataclass(frozen=True)
    class _Graded:
        name: str
        max_score: float

    def __init__(self, book):
        self.book = book
        self.source_cells = list(book.cells.values())
        self.grade_cells = [self._Graded(name, points) for name, points in book.points.items()]
        self.task_cells = [self._Graded(name, points) for name, points in book.tasks.items()]
        self.solution_cells = [self._Graded(name, 0.0) for name in book.cells if name in book.solutions]

    def find_source_cell(self, name, notebook, assignment):
        from nbgrader.api import MissingEntry

        if name not in self.book.cells:
            raise MissingEntry(f"No such source cell: {name}")
        return self.book.cells[name]

    def find_graded_cell(self, name, notebook, assignment):
        from nbgrader.api import MissingEntry

        for graded in self.grade_cells + self.task_cells:
            if graded.name == name:
                return graded
        raise MissingEntry(f"No such graded cell: {name}")

    def find_notebook(self, notebook, assignment):
        return self
