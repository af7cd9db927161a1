"""The one door to nbgrader's gradebook for the class run, the exports and the feedback.

Everything of the course that reads or writes the gradebook outside nbgrader's own
preprocessors comes through here: opening it (SQLAlchemy's harmless "not in session"
warnings silenced once, here), asking whether its database answers, the manual work on a
submission (:func:`manual_marks`), putting ``needs_manual_grade`` back as a grader left it
(:func:`set_flags`), taking an ungraded submission's automatic grades out (:func:`forget`),
and keeping the late penalty and the student's extension in step with the score
(:func:`refresh_late`). Errors are raised, never swallowed: a database that does not
answer is not "nothing to grade".
"""
import contextlib
import os
import warnings
from dataclasses import dataclass

__all__ = ["GradebookGone", "LateState", "ManualMark", "RunGradebook", "SourceNotebook", "alive", "database_error_line", "forget",
           "holds", "identity", "is_database_error", "manual_marks", "open_gradebook", "open_url", "place", "problem",
           "quiet", "refresh_late", "set_flags", "source_notebook", "submission", "use_or_open"]


class GradebookGone(RuntimeError):
    """The gradebook's database stopped answering, or was replaced, while a class was graded."""


@contextlib.contextmanager
def quiet():
    """Silence SQLAlchemy's "not in session" warnings that nbgrader's gradebook code triggers (harmless)."""
    with warnings.catch_warnings():
        try:
            from sqlalchemy.exc import SAWarning
            warnings.simplefilter("ignore", SAWarning)
        except ImportError:  # pragma: no cover
            pass
        yield


@contextlib.contextmanager
def open_gradebook(course):
    """nbgrader's ``Gradebook`` of ``course`` (a :class:`grading.course.Course`), quietly, as a context."""
    with open_url(course.db_url, course.course_id) as gb:
        yield gb


@contextlib.contextmanager
def open_url(db_url, course_id=""):
    """nbgrader's ``Gradebook`` at ``db_url``, quietly (for nbgrader's plug-ins, which know only the URL)."""
    from nbgrader.api import Gradebook

    with quiet(), Gradebook(db_url, course_id) as gb:
        yield gb


class RunGradebook:
    """One nbgrader ``Gradebook`` for a whole class run, used by one submission at a time.

    Each ``Gradebook`` nbgrader opens is a new SQLAlchemy engine: the schema inspected, the
    course's row checked and committed, and every statement compiled again (nbgrader opens
    about ten for each submission it grades). A class run opens this one once. Each use
    (:meth:`use`) gets what a newly opened gradebook has, a new session and new connections,
    while the engine, and with it SQLAlchemy's cache of compiled statements, stays. Uses
    nest: inside one, every step of a submission works in the same session.

    Parameters
    ----------
    db_url : str
    course_id : str, optional
        The course (nbgrader's ``CourseDirectory.course_id``).

    Examples
    --------
    >>> run = RunGradebook("sqlite://")
    >>> with run.use() as gb:
    ...     gb.add_student("s1")
    ...     with run.use() as same:              # a step inside the same use
    ...         same.find_student("s1").id
    Student<s1>
    's1'
    >>> run.close()
    """

    def __init__(self, db_url, course_id=""):
        self.db_url, self.course_id = db_url, course_id
        self._gradebook = None
        self._depth = 0

    @contextlib.contextmanager
    def use(self):
        """The gradebook, as a context: a fresh session when it is the outermost use, else the one in use.

        An error leaving a use rolls back what was not committed (as closing nbgrader's
        gradebook does), so that the steps after it, recording the failure, start clean.
        """
        from nbgrader.api import Gradebook

        with quiet():
            if self._gradebook is None:
                self._gradebook = Gradebook(self.db_url, self.course_id)
            gb = self._gradebook
            self._depth += 1
            try:
                yield gb
            except BaseException:
                gb.db.rollback()
                raise
            finally:
                self._depth -= 1
                if self._depth == 0:
                    gb.db.remove()                   # the session goes, as when a gradebook is closed,
                    gb.engine.dispose()              # and its connections: the next use connects again

    def __deepcopy__(self, memo):
        return self                                  # a handle: nbconvert copies the resources it travels in

    def close(self):
        """Close the gradebook (a later :meth:`use` opens it again)."""
        if self._gradebook is not None:
            self._gradebook.close()
            self._gradebook = None


def use_or_open(held, db_url, course_id=""):
    """The gradebook as a context: ``held`` (a :class:`RunGradebook`) in use when there is one, else opened here."""
    return held.use() if held is not None else open_url(db_url, course_id)


# -- does the database answer ----------------------------------------------------------------
def place(db_url):
    """Where the gradebook is, for messages: its URL without the password.

    Examples
    --------
    >>> place("postgresql+psycopg://grader:s3cret@127.0.0.1:5432/gradebook")
    'postgresql+psycopg://grader:***@127.0.0.1:5432/gradebook'
    """
    try:
        from sqlalchemy.engine import make_url
        return make_url(db_url).render_as_string(hide_password=True)
    except Exception:  # not a URL SQLAlchemy reads: show only what follows the credentials
        return str(db_url).rsplit("@", 1)[-1]


def database_error_line(exc):
    """The first line of a database error's own message, without SQLAlchemy's wrapping."""
    inner = getattr(exc, "orig", None) or exc
    lines = [line.strip() for line in str(inner).splitlines() if line.strip()]
    return f"{type(inner).__name__}: {lines[0][:240] if lines else ''}"


def is_database_error(exc):
    """Whether ``exc`` (or what caused it) is an error of the gradebook's database."""
    try:
        from sqlalchemy.exc import SQLAlchemyError
    except ImportError:  # pragma: no cover
        return False
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, SQLAlchemyError):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _query(db_url, sql, *, timeout=None):
    from sqlalchemy import create_engine, text

    args = {"connect_timeout": timeout} if timeout and db_url.startswith(("postgresql", "mysql")) else {}
    engine = create_engine(db_url, connect_args=args)
    try:
        with engine.connect() as conn:
            return conn.execute(text(sql)).first()
    finally:
        engine.dispose()


def problem(db_url, *, timeout=20):
    """Why the gradebook's database does not answer (one line), or None when it does.

    A SQLite file that does not exist yet is no problem (nbgrader creates it); a database
    server is given ``timeout`` seconds to accept the connection.
    """
    if db_url.startswith("sqlite:"):
        return None
    try:
        _query(db_url, "SELECT 1", timeout=timeout)
    except Exception as exc:  # whatever it is, it is the reason
        return database_error_line(exc)
    return None


def identity(db_url):
    """What identifies a SQLite gradebook file (device, inode), to notice it vanishing mid-run; None otherwise."""
    if not db_url.startswith("sqlite:///"):
        return None
    try:
        st = os.stat(db_url[len("sqlite:///"):])
    except OSError:
        return "missing"
    return (st.st_dev, st.st_ino)


def holds(db_url, assignment, since):
    """True while the gradebook is the one a run started with (``since``: its :func:`identity`) and holds ``assignment``.

    A SQLite file that was removed is not opened (opening would create an empty one), and a
    new file in its place (the same inode number can come back) holds no assignment: grading
    on would score every test cell against nothing.
    """
    from sqlalchemy import create_engine, text

    if identity(db_url) != since:
        return False
    try:
        engine = create_engine(db_url)
        try:
            with engine.connect() as conn:
                found = conn.execute(text("SELECT 1 FROM assignment WHERE name = :a"), {"a": assignment}).first()
        finally:
            engine.dispose()
    except Exception:  # any failure means it is not usable
        return False
    return found is not None


def alive(db_url):
    """True when the gradebook answers a query (a SQLite file must still exist)."""
    if db_url.startswith("sqlite:///"):
        path = db_url[len("sqlite:///"):]
        if path and path != ":memory:" and not os.path.exists(path):
            return False
    try:
        _query(db_url, "SELECT 1 FROM assignment LIMIT 1")
    except Exception:  # any failure means it is not usable
        return False
    return True


# -- the assignment as released ----------------------------------------------------------------
@dataclass(frozen=True)
class SourceCell:
    """One cell of the instructor's notebook as the gradebook holds it."""

    name: str
    cell_type: str
    source: str
    checksum: str
    locked: bool


@dataclass(frozen=True)
class SourceNotebook:
    """What the gradebook holds of one notebook of an assignment: the only cells a grading trusts.

    ``cells`` are every cell with a ``grade_id`` (``{grade_id: SourceCell}``), ``points`` the
    points of the graded ones, ``tasks`` those of the task cells, ``solutions`` the grade_ids
    the student writes, ``kernelspec`` the notebook's kernelspec as the gradebook keeps it (a
    JSON text, or None). Read once (:func:`source_notebook`), it answers every question the
    sanitizing steps and the engine ask about the assignment.
    """

    cells: dict
    points: dict
    tasks: dict
    solutions: frozenset
    kernelspec: str = None

    def metadata(self):
        """``{grade_id: nbgrader metadata}`` of every cell, every key the gradebook's (schema 3)."""
        known = {}
        for c in self.cells.values():
            meta = {"grade_id": c.name, "grade": c.name in self.points, "solution": c.name in self.solutions,
                    "locked": c.locked, "schema_version": 3, "cell_type": c.cell_type}
            if c.name in self.tasks:
                meta.update(task=True, points=self.tasks[c.name])
            elif c.name in self.points:
                meta["points"] = self.points[c.name]
            if c.checksum:
                meta["checksum"] = c.checksum
            known[c.name] = meta
        return known

    def tests(self):
        """``{grade_id: source}`` of the test cells (graded code cells the student does not write)."""
        return {c.name: c.source for c in self.cells.values()
                if c.name in self.points and c.name not in self.solutions and c.cell_type == "code"}

    def setups(self):
        """``{grade_id: source}`` of the instructor's read-only code cells that are neither tests nor solutions."""
        return {c.name: c.source for c in self.cells.values()
                if c.locked and c.cell_type == "code" and c.name not in self.solutions and c.name not in self.points}

    def locked(self):
        """``{grade_id: SourceCell}`` of the cells a student may not change."""
        return {c.name: c for c in self.cells.values() if c.locked}


def source_notebook(gb, assignment, notebook):
    """The :class:`SourceNotebook` of ``notebook`` of ``assignment`` in ``gb`` (None when the gradebook lacks it)."""
    from nbgrader.api import MissingEntry

    try:
        book = gb.find_notebook(notebook, assignment)
    except MissingEntry:
        return None
    cells = {c.name: SourceCell(c.name, c.cell_type, c.source, c.checksum, bool(c.locked)) for c in book.source_cells}
    return SourceNotebook(cells=cells, points={c.name: float(c.max_score) for c in book.grade_cells},
                          tasks={c.name: float(c.max_score) for c in book.task_cells},
                          solutions=frozenset(c.name for c in book.solution_cells), kernelspec=book.kernelspec)


# -- one submission ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ManualMark:
    """What a grader left on one cell of a submission.

    ``work`` is the manual score, extra credit and comment as one comparable value (None
    when the grader left nothing); ``needs_manual_grade`` is nbgrader's flag on the cell's
    grade (None for a cell without a grade, which can carry only a comment).
    """

    work: tuple = None
    needs_manual_grade: bool = None

    def to_list(self):
        return [list(self.work) if self.work is not None else None, self.needs_manual_grade]

    @classmethod
    def from_list(cls, value):
        work, flag = (list(value) + [None, None])[:2] if isinstance(value, (list, tuple)) else (None, None)
        return cls(tuple(work) if isinstance(work, (list, tuple)) else None, flag if isinstance(flag, bool) else None)


def submission(gb, assignment, student):
    """``student``'s submitted assignment in the gradebook, or None."""
    from nbgrader.api import MissingEntry

    try:
        return gb.find_submission(assignment, student)
    except MissingEntry:
        return None


def manual_marks(gb, assignment, student):
    """``{grade_id: ManualMark}`` of every cell of ``student``'s submission (empty when there is none)."""
    sub = submission(gb, assignment, student)
    if sub is None:
        return {}
    marks = {}
    for nb in sub.notebooks:
        comments = {c.name: (c.manual_comment or "").strip() for c in nb.comments}
        grades = {g.name: g for g in nb.grades}
        for name in sorted(set(comments) | set(grades)):
            g = grades.get(name)
            score = g.manual_score if g is not None else None
            extra = g.extra_credit if g is not None else None
            comment = comments.get(name, "")
            work = (score, extra or None, comment) if (score is not None or extra or comment) else None
            marks[name] = ManualMark(work, bool(g.needs_manual_grade) if g is not None else None)
    return marks


def set_flags(gb, assignment, student, flags):
    """Set nbgrader's ``needs_manual_grade`` of the named cells (``{grade_id: bool}``); returns what changed."""
    changed = []
    sub = submission(gb, assignment, student) if flags else None
    if sub is None:
        return changed
    for nb in sub.notebooks:
        for g in nb.grades:
            want = flags.get(g.name)
            if want is not None and bool(g.needs_manual_grade) != want:
                g.needs_manual_grade = want
                changed.append(g.name)
    if changed:
        gb.db.commit()
    return changed


def forget(gb, assignment, student, *, keep_manual=True):
    """Take ``student``'s submission (its automatic grades) out of the gradebook.

    With ``keep_manual``, a submission on which a grader left work (a manual score, extra
    credit, a comment) is kept as it is. Returns True when it was removed.
    """
    if submission(gb, assignment, student) is None:
        return False
    if keep_manual and any(m.work is not None for m in manual_marks(gb, assignment, student).values()):
        return False
    gb.remove_submission(assignment, student)
    return True


@dataclass(frozen=True)
class LateState:
    """How late a submission is and what it costs, as the gradebook now holds it."""

    timestamp: object = None          # naive UTC datetime, or None
    duedate: object = None            # the student's due date (with any extension), or None
    extension: object = None          # the Extension in force, or None
    seconds_late: float = 0.0
    raw_score: float = 0.0
    penalty: float = 0.0


def refresh_late(gb, assignment, student, *, policy, extension=None):
    """Bring ``student``'s extension and late penalties in the gradebook in step with their score now.

    The extension (a :class:`grading.late.Extension`, or None for none) becomes nbgrader's
    ``extension`` of the submission, and every notebook's ``late_submission_penalty`` is the
    ``policy``'s penalty of that notebook's current score (manual grades included). nbgrader
    computes a penalty once, when it autogrades; a grade given by hand later, or an extension,
    would leave it stale. Commits only when something changed. Returns a :class:`LateState`
    (None when the student has no submission).
    """
    sub = submission(gb, assignment, student)
    if sub is None:
        return None
    changed = False
    due = sub.assignment.duedate
    want = None
    if extension is not None and due is not None and extension.due > due:
        want = extension.due - due
    if (sub.extension or None) != want:
        sub.extension = want
        changed = True
    seconds = float(sub.total_seconds_late or 0.0)
    raw = penalty_total = 0.0
    for nb in sub.notebooks:
        score = float(nb.score or 0.0)
        penalty = policy.penalty(score, seconds)
        raw += score
        penalty_total += penalty
        if nb.late_submission_penalty is None or abs(float(nb.late_submission_penalty) - penalty) > 1e-9:
            nb.late_submission_penalty = penalty
            changed = True
    if changed:
        gb.db.commit()
    effective_due = due + want if (due is not None and want is not None) else due
    return LateState(timestamp=sub.timestamp, duedate=effective_due, extension=extension if want else None,
                     seconds_late=seconds, raw_score=raw, penalty=round(penalty_total, 6))

