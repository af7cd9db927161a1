"""The course directory: its nbgrader configuration and where things live."""
import json
import os
import sys
from pathlib import Path

from jupyter_core.paths import jupyter_config_path
from traitlets.config import Config, PyFileConfigLoader

__all__ = ["Course", "CourseError"]

STATUS_FILE = "grading-status.json"


def ensure_tools_on_path():
    """Put this interpreter's ``bin/`` first on PATH: nbgrader runs ``alembic`` and ``jupyter`` from it."""
    bindir = os.path.dirname(sys.executable)
    parts = os.environ.get("PATH", "").split(os.pathsep)
    if bindir not in parts:
        os.environ["PATH"] = os.pathsep.join([bindir] + parts)


class CourseError(Exception):
    """Bad input from the instructor (unknown assignment, no submissions, ...)."""


class Course:
    """An nbgrader course directory (the folder that holds ``nbgrader_config.py``).

    Parameters
    ----------
    root : str or Path
        The course directory.
    overrides : traitlets.config.Config, optional
        Configuration applied on top of ``nbgrader_config.py`` (e.g. a shorter timeout).

    Examples
    --------
    >>> from pathlib import Path
    >>> course = Course(Path(__file__).resolve().parents[1])
    >>> course.source_dir.name
    'source'
    """

    def __init__(self, root, overrides=None):
        ensure_tools_on_path()
        self.root = Path(root).resolve()
        cfg_file = self.root / "nbgrader_config.py"
        if not cfg_file.is_file():
            raise CourseError(f"{self.root} is not a course directory: expected {cfg_file}")
        # as nbgrader does: the user's and the environment's nbgrader_config.py (a deployment's
        # gradebook and exchange), then the course's own, which wins
        self.config = Config()
        for path in reversed(jupyter_config_path()):
            if (Path(path) / cfg_file.name).is_file():
                self.config.merge(PyFileConfigLoader(cfg_file.name, path=path).load_config())
        self.config.merge(PyFileConfigLoader(cfg_file.name, path=str(self.root)).load_config())
        self.config.CourseDirectory.root = str(self.root)
        if overrides is not None:
            self.config.merge(overrides)
            if any("timeout" in overrides.get(k, {}) for k in ("Execute", "CourseExecute")):
                # a limit given for this run (``--timeout``) holds for every assignment
                self.config.CourseExecute.assignment_timeouts = {}
        cd = self.config.CourseDirectory
        self.source_dir = self.root / cd.get("source_directory", "source")
        self.release_dir = self.root / cd.get("release_directory", "release")
        self.submitted_dir = self.root / cd.get("submitted_directory", "submitted")
        self.autograded_dir = self.root / cd.get("autograded_directory", "autograded")
        self.feedback_dir = self.root / cd.get("feedback_directory", "feedback")
        self.db_url = cd.get("db_url", f"sqlite:///{self.root / 'gradebook.db'}")
        self.course_id = cd.get("course_id", "")

    # -- assignments and submissions ----------------------------------------------
    def assignments(self):
        """Names of the assignments in ``source/`` (folders holding a notebook)."""
        if not self.source_dir.is_dir():
            return []
        return sorted(p.name for p in self.source_dir.iterdir() if p.is_dir() and any(p.glob("*.ipynb")))

    def check_assignment(self, assignment):
        """Raise :class:`CourseError` unless ``assignment`` is in ``source/``."""
        known = self.assignments()
        if assignment not in known:
            raise CourseError(
                f"unknown assignment {assignment!r}: expected one of {', '.join(known) or '(none)'} "
                f"(a folder of {self.source_dir} holding the instructor's notebook)")

    def notebooks(self, assignment):
        """Names (without .ipynb) of the notebooks of an assignment."""
        return sorted(p.stem for p in (self.source_dir / assignment).glob("*.ipynb"))

    def submissions(self, assignment):
        """Student ids that have a folder ``submitted/<student>/<assignment>/``."""
        if not self.submitted_dir.is_dir():
            return []
        return sorted(p.name for p in self.submitted_dir.iterdir() if (p / assignment).is_dir())

    # -- grading status -------------------------------------------------------------
    def read_status(self, assignment, *, name=STATUS_FILE):
        """``{student: record as a dict}`` of the course's grading records of ``assignment`` (:mod:`grading.status`).

        ``name``: another record kept as one JSON file in ``autograded/`` (``feedback-status.json``).
        """
        if name == STATUS_FILE:
            from .status import StatusBook
            return {s: r.to_dict() for s, r in StatusBook(self, assignment).all().items()}
        try:
            data = json.loads((self.autograded_dir / name).read_text())
        except (OSError, ValueError):
            return {}
        return data.get(assignment, {})

    def write_status(self, assignment, status, *, name=STATUS_FILE):
        """Write ``{student: record}`` (see :meth:`read_status`); the grading records go one file per student."""
        if name == STATUS_FILE:
            from .status import StatusBook, StudentStatus
            book = StatusBook(self, assignment)
            for student, record in status.items():
                book.write(StudentStatus.from_dict(student, record))
            return
        path = self.autograded_dir / name
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            data = {}
        data[assignment] = status
        self.autograded_dir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
        os.replace(tmp, path)

    def nbgrader_config(self, **sections):
        """A copy of the course configuration with ``sections`` merged in."""
        cfg = Config()
        cfg.merge(self.config)
        cfg.merge(Config(sections))
        return cfg
