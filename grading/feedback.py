"""``make feedback``: nbgrader's HTML feedback, without the hidden tests.

nbgrader builds feedback from the autograded notebook, which holds the hidden tests
(they were restored from the gradebook to grade it), and copies every traceback as it
is, hidden-test lines included. :class:`HideHiddenTests` runs before nbgrader's own
feedback preprocessors and

* cuts every ``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS`` region out of the
  cells, leaving a one-line note;
* rewrites error tracebacks so that no line of a hidden test appears in them: frames
  and context lines that show hidden-test code are replaced by a note; the error's own
  message (what was expected, what came back) stays.
"""
import re
import shutil

from nbconvert.filters import strip_ansi
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from .course import Course, CourseError

__all__ = ["HideHiddenTests", "hidden_lines", "feedback"]

BEGIN, END = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
NOTE = "# (hidden tests were run here; their code is not shown)"
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


def feedback(root, assignment, *, echo=print):
    """Generate ``feedback/<student>/<assignment>/*.html`` for every graded submission.

    Feedback of students whose submission is no longer graded (or no longer exists) is
    removed, so no stale page survives.
    """
    from nbgrader.converters import GenerateFeedback
    from nbgrader.converters.base import NbGraderException
    from nbgrader.coursedir import CourseDirectory

    course = Course(root)
    course.check_assignment(assignment)
    status = course.read_status(assignment)
    graded = sorted(s for s, v in status.items() if v["status"] == "graded")
    if course.feedback_dir.is_dir():
        for folder in course.feedback_dir.glob(f"*/{assignment}"):
            shutil.rmtree(folder)
    if not graded:
        raise CourseError(f"no graded submission of {assignment!r}: run `make autograde ASSIGNMENT={assignment}` first")
    cfg = course.nbgrader_config()
    cfg.CourseDirectory.assignment_id = assignment
    cfg.CourseDirectory.student_id = "*"
    cfg.GenerateFeedback.force = True
    # which preprocessors run (HideHiddenTests first) is set in nbgrader_config.py, for every route
    import logging
    logger = logging.getLogger("grading.nbgrader")
    converter = GenerateFeedback(coursedir=CourseDirectory(config=cfg), config=cfg, log=logger)
    try:
        converter.start()
    except NbGraderException as exc:
        raise CourseError(f"nbgrader could not generate feedback: {exc}") from None
    done = sorted(p.parent.name for p in course.feedback_dir.glob(f"*/{assignment}"))
    echo(f"{assignment}: feedback for {len(done)} graded submission(s) in {course.feedback_dir}")
    ungraded = sorted(s for s, v in status.items() if v["status"] != "graded")
    if ungraded:
        echo(f"no feedback for the {len(ungraded)} ungraded submission(s): {', '.join(ungraded)}")
    return course.feedback_dir
