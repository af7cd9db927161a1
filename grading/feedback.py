"""``make feedback``: nbgrader's HTML feedback, without the hidden tests.

nbgrader builds feedback from the autograded notebook, which holds the hidden tests
(they were restored from the gradebook to grade it), and copies every traceback as it
is, hidden-test lines included. :class:`HideHiddenTests` runs before nbgrader's own
feedback preprocessors and

* cuts every ``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS`` region out of the
  cells, leaving a one-line note;
* rewrites error tracebacks so that no line of a hidden test appears in them: frames
  and context lines that show hidden-test code are replaced by a note; the error's own
  message (what was expected, what came back) stays;
* leaves out what is written for the instructor (how to replay a test with ``make
  regrade-check``): a student cannot run it, and it ran off the page; the test's seed stays.
"""
import re
import shutil

from nbconvert.filters import strip_ansi
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from . import gradebook as gbk
from .course import Course, CourseError
from .late import Policy, read_extensions

__all__ = ["HideHiddenTests", "feedback", "hidden_lines", "without_instructor_lines"]

BEGIN, END = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
NOTE = "# (hidden tests were run here; their code is not shown)"
INSTRUCTOR_ONLY = re.compile(r"^.*\bmake regrade-check\b.*$\n?", re.M)
_REPLAY = re.compile(r";\s*an instructor replays it with make regrade-check[^)\n]*\)")
_CONTEXT = re.compile(r"^\s*(?:-*>\s*)?\d+\s(?P<code>.*)$")


def hidden_lines(source):
    """The stripped, non-empty lines of a cell's hidden-test regions.

    Examples
    --------
    >>> hidden_lines("a = 1\\n### BEGIN HIDDEN TESTS\\nassert a == 1\\n### END HIDDEN TESTS")
    {'assert a == 1'}
    """
    out, inside = set(), False
    for line in source.splitlines():
        if BEGIN in line:
            inside = True
        elif END in line:
            inside = False
        elif inside and line.strip():
            out.add(line.strip())
    return out


def strip_hidden(source):
    """``source`` with every hidden-test region replaced by a one-line note."""
    lines, inside, noted = [], False, False
    for line in source.splitlines():
        if BEGIN in line:
            inside, noted = True, False
            continue
        if END in line:
            inside = False
            continue
        if inside:
            if not noted:
                lines.append(line[: len(line) - len(line.lstrip())] + NOTE)
                noted = True
            continue
        lines.append(line)
    return "\n".join(lines)


def without_instructor_lines(text):
    """``text`` without what is meant for the instructor (how to replay a test: ``make regrade-check``).

    A failing test's note keeps its seed (the student can quote it) and loses the command.

    Examples
    --------
    >>> note = "(this test's random data: seed 7; an instructor replays it with make regrade-check A=a CELL=c)"
    >>> without_instructor_lines("expected 3, got 4\\n" + note)
    "expected 3, got 4\\n(this test's random data: seed 7)"
    >>> without_instructor_lines("run make regrade-check STUDENT=b\\nok")
    'ok'
    """
    return INSTRUCTOR_ONLY.sub("", _REPLAY.sub(")", text))


def _scrub_frame(frame, secret):
    """Drop the lines of one traceback entry that show hidden-test code."""
    kept, hidden = [], False
    for line in strip_ansi(frame).split("\n"):
        m = _CONTEXT.match(line)
        code = (m.group("code") if m else line).strip()
        if code and (code in secret or any(code == s or (len(s) > 12 and s in code) for s in secret)):
            if not hidden:
                kept.append("    ... (a hidden test; its code is not shown)")
            hidden = True
            continue
        hidden = False
        kept.append(line)
    return "\n".join(kept)


class HideHiddenTests(Preprocessor):
    """Remove hidden-test code from cells and tracebacks before feedback is rendered."""

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        for cell in nb.cells:
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["evalue"] = without_instructor_lines(str(output.get("evalue", "")))
                    output["traceback"] = [without_instructor_lines(f) for f in output.get("traceback", [])]
                elif output.get("output_type") == "stream":
                    output["text"] = without_instructor_lines(output.get("text", ""))
        secret = set()
        for cell in nb.cells:
            if BEGIN in cell.get("source", ""):
                secret |= hidden_lines(cell.source)
        if not secret:
            return nb, resources
        secret |= {BEGIN, END}
        for cell in nb.cells:
            if BEGIN in cell.get("source", ""):
                cell.source = strip_hidden(cell.source)
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [_scrub_frame(f, secret) for f in output.get("traceback", [])]
                elif output.get("output_type") == "stream":
                    output["text"] = _scrub_frame(output.get("text", ""), secret)
        return nb, resources


FEEDBACK_STATUS = "feedback-status.json"


def _made_from(gb, course, assignment, student):
    """SHA-256 of what a student's feedback is made from: the autograded files and the gradebook's grades.

    It changes when the submission is graded again, and when a grader gives a manual score,
    extra credit or a comment in the Formgrader; file times play no part.
    """
    import hashlib
    import json

    from .plan import submission_digest

    folder = course.autograded_dir / student / assignment
    h = hashlib.sha256(submission_digest(folder).encode())
    try:
        h.update((folder / "timestamp.txt").read_bytes())
    except OSError:
        pass
    sub = gb.find_submission(assignment, student)
    rows = [str(sub.timestamp), str(sub.extension)]
    for nb in sorted(sub.notebooks, key=lambda n: n.name):
        rows.append([nb.name, nb.late_submission_penalty])
        rows += [[g.name, g.auto_score, g.manual_score, g.extra_credit] for g in sorted(nb.grades, key=lambda g: g.name)]
        rows += [[c.name, c.auto_comment, c.manual_comment] for c in sorted(nb.comments, key=lambda c: c.name)]
    h.update(json.dumps(rows, default=str).encode())
    return h.hexdigest()


def _remove_stale(course, assignment, graded):
    """Remove the feedback of submissions no longer graded; the record of the feedback made, so updated."""
    made = course.read_status(assignment, name=FEEDBACK_STATUS)
    if course.feedback_dir.is_dir():
        for folder in course.feedback_dir.glob(f"*/{assignment}"):
            if folder.parent.name not in graded:
                shutil.rmtree(folder)
                made.pop(folder.parent.name, None)
    for gone in set(made) - set(graded):
        made.pop(gone)
    course.write_status(assignment, made, name=FEEDBACK_STATUS)
    return made


def _runs(todo, others):
    """nbgrader's passes that make the feedback of ``todo`` and leave ``others``'s alone: (student_id, exclude)."""
    if not others:
        return [("*", "")]
    if len(todo) > 1 and not any("," in s for s in others):
        return [("*", ",".join(others))]              # one pass over the class, the rest left alone
    return [(s, "") for s in todo]


def feedback(root, assignment, *, student=None, force=False, echo=print):
    """Generate ``feedback/<student>/<assignment>/*.html`` for the graded submissions.

    Only the feedback that is out of date is made again: a submission's feedback is made when
    it has none, or when it was graded since (again by ``make autograde``, or by hand in the
    Formgrader), or when its pages were changed or removed; ``student`` makes one student's,
    ``force`` everyone's. Feedback of students whose submission is no longer graded (or no
    longer exists) is removed, so no stale page survives.

    Returns
    -------
    Path
        The feedback folder.
    """
    from .status import StatusBook

    course = Course(root)
    course.check_assignment(assignment)
    status = StatusBook(course, assignment).all()
    # (a submission whose grading was interrupted gets no feedback until it is graded)
    graded = sorted(s for s, r in status.items() if r.final)
    if student is not None:
        _require_graded(assignment, student, status)
    made = _remove_stale(course, assignment, graded)
    if not graded:
        raise CourseError(f"no graded submission of {assignment!r}: run `make autograde ASSIGNMENT={assignment}` first")
    wanted = [student] if student is not None else graded
    sources = _sources(course, assignment, wanted)
    notebooks = course.notebooks(assignment)
    todo = [s for s in wanted if force or not _up_to_date(course, assignment, s, notebooks, made.get(s), sources[s])]
    if todo:
        failed = _generate(course, assignment, todo)
        _record(course, assignment, notebooks, todo, made, sources, failed)
    ungraded = sorted(s for s in status if s not in graded) if student is None else []
    _say(echo, assignment, course.feedback_dir, made=len(todo), kept=len(wanted) - len(todo), ungraded=ungraded)
    return course.feedback_dir


def _say(echo, assignment, folder, *, made, kept, ungraded):
    """What ``make feedback`` did: the pages made, those left as they were, the submissions without feedback."""
    echo(f"{assignment}: feedback made for {made} graded submission(s) in {folder}"
         + (f"; {kept} unchanged since their feedback was made, left as they were (FORCE=1 makes them again)"
            if kept else ""))
    if ungraded:
        echo(f"no feedback for the {len(ungraded)} ungraded submission(s): {', '.join(ungraded)}")


def _require_graded(assignment, student, status):
    """Refuse one student's feedback unless their submission is graded, saying what to run."""
    if student not in status:
        raise CourseError(f"no graded submission of {assignment!r} by student {student!r}: "
                          f"run `make autograde ASSIGNMENT={assignment} STUDENT={student}` first")
    if not status[student].final:
        raise CourseError(f"no feedback for {student!r}: the submission of {assignment!r} is not graded "
                          f"({status[student].reason or 'its grading was interrupted: run make autograde'})")


def _sources(course, assignment, students):
    """``{student: what their feedback is made from}`` (:func:`_made_from`; None: the gradebook lacks it).

    The late penalty in the gradebook is brought in step first: it follows the score and the
    extension now, and the page shows it.
    """
    from nbgrader.api import MissingEntry

    policy, extensions = Policy.from_config(course.config), read_extensions(course.root)
    sources = {}
    with gbk.open_gradebook(course) as gb:
        for s in students:
            gbk.refresh_late(gb, assignment, s, policy=policy, extension=extensions.get((assignment, s)))
            try:
                sources[s] = _made_from(gb, course, assignment, s)
            except MissingEntry:
                sources[s] = None               # graded by an older run, gone from the gradebook: nbgrader says so
    return sources


def _has_pages(folder, notebooks):
    """Whether the feedback ``folder`` holds a page for each of the assignment's ``notebooks``."""
    return all((folder / f"{n}.html").is_file() for n in notebooks)


def _up_to_date(course, assignment, student, notebooks, old, source):
    """Whether a student's pages are all there, as they were made (``old``), from what ``source`` says."""
    from .plan import submission_digest

    old = old or {}
    folder = course.feedback_dir / student / assignment
    return (old.get("from") == source and source is not None and _has_pages(folder, notebooks)
            and old.get("pages") == submission_digest(folder))


def _generate(course, assignment, todo):
    """Run nbgrader's GenerateFeedback for the students ``todo``; the last error it raised, or None."""
    from nbgrader.converters import GenerateFeedback
    from nbgrader.converters.base import NbGraderException
    from nbgrader.coursedir import CourseDirectory

    from .autograde import nbgrader_logger

    cfg = course.nbgrader_config()
    cfg.CourseDirectory.assignment_id = assignment
    cfg.GenerateFeedback.force = True
    # which preprocessors run (HideHiddenTests first) is set in nbgrader_config.py, for every route
    present = sorted(p.parent.name for p in course.autograded_dir.glob(f"*/{assignment}"))
    logger = nbgrader_logger(course)             # nbgrader's own messages go to autograded/nbgrader.log
    failed = None
    for pattern, exclude in _runs(todo, [s for s in present if s not in todo]):
        cfg.CourseDirectory.student_id = pattern
        cfg.CourseDirectory.student_id_exclude = exclude
        converter = GenerateFeedback(coursedir=CourseDirectory(config=cfg), config=cfg, log=logger)
        try:
            converter.start()
        except NbGraderException as exc:
            failed = exc
    return failed


def _record(course, assignment, notebooks, todo, made, sources, failed):
    """Note the feedback made for ``todo`` in the record of feedback made; a student left without pages is an error."""
    from .plan import submission_digest

    done = []
    for s in todo:
        folder = course.feedback_dir / s / assignment
        if _has_pages(folder, notebooks) and sources[s] is not None:
            made[s] = {"from": sources[s], "pages": submission_digest(folder)}
            done.append(s)
        else:
            made.pop(s, None)
    course.write_status(assignment, made, name=FEEDBACK_STATUS)
    missing = sorted(set(todo) - set(done))
    if missing:
        raise CourseError(f"nbgrader could not generate the feedback of {', '.join(missing)}"
                          + (f": {failed}" if failed else "") + " (see autograded/nbgrader.log)")
