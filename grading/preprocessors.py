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
  known cell gets the gradebook's flags back (a flipped flag cannot make nbgrader fail).

Autograding: :class:`CourseExecute` in place of nbgrader's ``Execute``.

Both steps end with :class:`CheckCellMetadata`, nbgrader's check of the cells' metadata
with its JSON schema compiled once (nbgrader's recompiles it for every cell).
"""
import os
from pathlib import Path

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Dict, Float, Integer

from .engine import KernelDied, SubmissionRefused, execute_submission
from .withhold import withheld_names

__all__ = ["CheckCellMetadata", "CourseExecute", "RefuseLinks", "TrustOnlyTheGradebook", "submission_folder",
           "trusted_cells"]


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


def trusted_cells(db_url, notebook, assignment):
    """``({grade_id: source} of test cells, {grade_id: source} of setup cells)`` from the gradebook."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gb:
        nb = gb.find_notebook(notebook, assignment)
        solutions = {c.name for c in nb.solution_cells}
        graded = {c.name for c in nb.grade_cells} - solutions
        tests, setups = {}, {}
        for c in nb.source_cells:
            if c.name in graded and c.cell_type == "code":
                tests[c.name] = c.source
            elif c.locked and c.cell_type == "code" and c.name not in solutions:
                setups[c.name] = c.source
    return tests, setups


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


class TrustOnlyTheGradebook(NbGraderPreprocessor):
    """Give every cell the nbgrader metadata the gradebook has for its grade_id (or none)."""

    def preprocess(self, nb, resources):
        from nbgrader.api import Gradebook, MissingEntry

        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gb:
            try:
                book = gb.find_notebook(info["notebook"], info["assignment"])
            except MissingEntry:
                known = {}
            else:
                grades = {c.name: float(c.max_score) for c in book.grade_cells}
                solutions = {c.name for c in book.solution_cells}
                known = {c.name: {"grade": c.name in grades, "solution": c.name in solutions, "locked": c.locked,
                                  "points": grades.get(c.name)} for c in book.source_cells}
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
            fixed = {k: v for k, v in nbg.items() if k in ("checksum", "cell_type", "schema_version")}
            fixed.update(grade_id=gid, grade=known[gid]["grade"], solution=known[gid]["solution"],
                         locked=known[gid]["locked"], schema_version=3)
            if known[gid]["grade"]:
                fixed["points"] = known[gid]["points"]
            meta["nbgrader"] = fixed
        return nb, resources


class CourseExecute(NbGraderPreprocessor):
    """nbgrader's ``Execute`` replaced by the course's engine (:func:`grading.engine.execute_submission`).

    The test cells come from the gradebook, the student's files from ``submitted/`` (links
    never followed), the functions withheld from ``course_lib`` from
    ``source/<assignment>/course_lib_withheld.txt`` (:mod:`grading.withhold`), and the timeouts
    from here (``c.CourseExecute.*`` in nbgrader_config.py). A cell's limit is the
    assignment's entry in ``assignment_timeouts`` when it has one, else ``timeout``, which
    defaults to ``c.Execute.timeout``.
    """

    timeout = Integer(10, help="Seconds a cell may run before it is stopped (it then earns 0 points).").tag(config=True)
    assignment_timeouts = Dict(
        value_trait=Integer(),
        help="Seconds a cell may run in the assignments named here ({assignment: seconds}), in place of timeout.",
    ).tag(config=True)
    setup_timeout = Integer(120, help="Seconds allowed for the instructor's read-only cells.").tag(config=True)
    replay_timeout = Integer(60, help="Seconds allowed to re-run the cells above a stopped cell.").tag(config=True)
    submission_timeout = Float(
        600, help="Wall-clock seconds for one submission, restarts included; when spent, the cells left score 0."
    ).tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        execute = self.config.get("Execute", {})
        if "timeout" in execute and "timeout" not in self.config.get("CourseExecute", {}):
            self.timeout = int(execute["timeout"])

    def cell_timeout(self, assignment):
        """Seconds a cell of ``assignment`` may run: its entry in ``assignment_timeouts``, else ``timeout``."""
        return int(self.assignment_timeouts.get(assignment, self.timeout))

    def arguments(self, resources):
        """The keyword arguments of :func:`execute_submission` for the notebook of ``resources``.

        (Also what :mod:`grading.scheduler` sends to a worker, with the files read as bytes.)
        """
        info = resources.get("nbgrader", {})
        assignment, student = info.get("assignment"), info.get("student")
        folder = submission_folder(self.config, assignment, student)
        check_no_links(folder)
        tests, setups = trusted_cells(info["db_url"], info["notebook"], assignment)
        return {"files": folder, "tests": tests, "setups": setups, "assignment": assignment, "student": student,
                "withheld": withheld_names(source_folder(self.config, assignment)),
                "timeout": self.cell_timeout(assignment), "setup_timeout": self.setup_timeout,
                "replay_timeout": self.replay_timeout, "submission_timeout": self.submission_timeout}

    def preprocess(self, nb, resources):
        info = resources.get("nbgrader", {})
        student = info.get("student")
        executed, report = execute_submission(nb, log=self.log, **self.arguments(resources))
        for note in report["notes"]:
            self.log.warning("%s: %s", student, note)
        if report["status"] != "graded":
            raise KernelDied(report["reason"])
        nb.cells = executed.cells
        resources.setdefault("grading", {})[info.get("notebook")] = report
        return nb, resources


def _metadata_validator_class():
    import jsonschema
    from nbgrader.nbgraderformat.common import BaseMetadataValidator, SchemaTooNewError, SchemaTooOldError
    from nbgrader.nbgraderformat.v3 import MetadataValidatorV3

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
            cls = type(self)
            if cls._compiled is None:
                kind = jsonschema.validators.validator_for(self.schema)
                kind.check_schema(self.schema)
                cls._compiled = kind(self.schema)
            error = jsonschema.exceptions.best_match(cls._compiled.iter_errors(cell.metadata["nbgrader"]))
            if error is not None:
                raise error

    class CourseMetadataValidator(MetadataValidatorV3, _SchemaChecked):
        """nbgrader's metadata validator (schema 3): the same checks, the same errors."""

    return CourseMetadataValidator


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
            CheckCellMetadata._validator = _metadata_validator_class()()
        try:
            CheckCellMetadata._validator.validate_nb(nb)
        except ValidationError:
            self.log.error(traceback.format_exc())
            msg = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(msg)
            raise ValidationError(msg) from None
        return nb, resources
