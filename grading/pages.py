"""What the Formgrader's page of a submission and a student's feedback page show beyond nbgrader's.

Registered through :func:`grading.safe_html.configure` (from ``nbgrader_config.py``), so they
hold for the Formgrader, ``nbgrader generate_feedback``, the Formgrader's *Generate Feedback*
button and ``make feedback`` alike:

* :func:`render_math` — formulas (``$...$``, ``$$...$$``, ``\\(...\\)``, ``\\[...\\]``) become
  MathML when the page is made, which every current browser draws: no MathJax from a CDN,
  no script at all, so the math reads offline, in JupyterLab's HTML viewer (which runs no
  script) and under the pages' Content-Security-Policy. A formula the converter cannot read
  is shown as its TeX.
* :class:`LateNote` — how late the submission was, the student's due date (with an
  extension and its reason), and the penalty under the course's policy, computed from the
  score now; the gradebook's penalty is brought in step first, so nbgrader's own score line
  agrees. Shown on both pages.
* :class:`GraderNotes` — for each answer graded by hand, its rubric and model answer from
  ``source/`` beside the student's answer, and a mark on answers changed since a grader's
  work; on the Formgrader's page only (graders), never in feedback.
"""
import html
import os
import re
import xml.etree.ElementTree as ET

from nbconvert.preprocessors import Preprocessor

__all__ = ["GraderNotes", "LateNote", "render_math", "tex_to_mathml"]

_MATH = re.compile(r"\$\$(?P<d1>.+?)\$\$|\\\[(?P<d2>.+?)\\\]|\\\((?P<i2>.+?)\\\)|(?<![\\$])\$(?P<i1>[^$\s](?:[^$]*?[^$\s])?)\$",
                   re.S)
_TAG = re.compile(r"(<[^>]*>)")
_SKIP = {"code", "pre", "script", "style", "textarea", "math"}
# MathML Core elements and the attributes latex2mathml writes; anything else is not trusted
_ELEMENTS = {"math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup", "mfrac", "msqrt",
             "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd", "mstyle", "mpadded", "mphantom",
             "menclose", "semantics", "annotation", "mmultiscripts", "mprescripts", "none", "merror", "mfenced"}
_ATTRIBUTES = {"xmlns", "display", "mathvariant", "stretchy", "fence", "separator", "accent", "accentunder",
               "columnalign", "columnspacing", "rowspacing", "columnlines", "rowlines", "frame", "lspace", "rspace",
               "width", "height", "depth", "voffset", "linethickness", "displaystyle", "scriptlevel", "minsize",
               "maxsize", "movablelimits", "largeop", "symmetric", "form", "notation", "open", "close", "separators",
               "rowalign", "align", "mathsize", "encoding", "bevelled", "numalign", "denomalign", "columnwidth",
               "equalrows", "equalcolumns", "rowspan", "columnspan"}
_NS = "{http://www.w3.org/1998/Math/MathML}"


def tex_to_mathml(tex, *, display=False):
    """``tex`` as a MathML element (a string), or None when it cannot be read or the result is not plain MathML.

    Examples
    --------
    >>> tex_to_mathml("x^2").startswith('<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">')
    True
    >>> tex_to_mathml(r"\\href{javascript:alert(1)}{x}") is None
    True
    """
    try:
        from latex2mathml.converter import convert
        out = convert(tex, display="block" if display else "inline")
        root = ET.fromstring(out)
    except Exception:  # whatever the converter cannot read stays TeX
        return None
    for el in root.iter():
        name = el.tag[len(_NS):] if el.tag.startswith(_NS) else el.tag
        if name not in _ELEMENTS or any(a.split("}")[-1] not in _ATTRIBUTES for a in el.attrib):
            return None
    return out


def _replace_math(text):
    def one(m):
        tex = next(v for v in m.groupdict().values() if v is not None)
        display = m.group("d1") is not None or m.group("d2") is not None
        out = tex_to_mathml(tex, display=display)
        return out if out is not None else f'<code class="tex">{html.escape(m.group(0), quote=False)}</code>'

    pieces, last = [], 0
    for m in _MATH.finditer(text):
        pieces.append(html.escape(text[last:m.start()], quote=False))
        pieces.append(one(m))
        last = m.end()
    pieces.append(html.escape(text[last:], quote=False))
    return "".join(pieces)


def render_math(fragment):
    """An HTML fragment with the formulas of its text drawn as MathML (code and preformatted text left alone).

    Examples
    --------
    >>> out = render_math("<p>the error $E_{in}$ &amp; <code>$x$</code></p>")
    >>> "<msub>" in out, "<code>$x$</code>" in out, "&amp;" in out
    (True, True, True)
    """
    parts = _TAG.split(str(fragment))
    depth = {}
    out = []
    for part in parts:
        if part.startswith("<") and part.endswith(">"):
            m = re.match(r"<\s*(/)?\s*([a-zA-Z0-9]+)", part)
            if m and m.group(2).lower() in _SKIP and not part.endswith("/>"):
                name = m.group(2).lower()
                depth[name] = max(0, depth.get(name, 0) + (-1 if m.group(1) else 1))
            out.append(part)
        elif any(depth.values()) or ("$" not in part and "\\(" not in part and "\\[" not in part):
            out.append(part)
        else:
            out.append(_replace_math(html.unescape(part)))
    return "".join(out)


def _course(config):
    from .course import Course

    root = config.get("CourseDirectory", {}).get("root") if config is not None else None
    return Course(root or os.getcwd())


def _who(resources):
    """``(student, assignment, notebook)`` of the page being made (feedback or the Formgrader)."""
    info = resources.get("nbgrader") or {}
    return (info.get("student") or resources.get("student"), info.get("assignment") or resources.get("assignment_id"),
            info.get("notebook") or resources.get("notebook_id"))


class LateNote(Preprocessor):
    """Puts ``resources["course_late"]``: the lines that say how late the submission was and what it cost."""

    def preprocess(self, nb, resources):
        from . import gradebook as gbk
        from .exporters import fmt
        from .late import Policy, read_extensions

        student, assignment, _ = _who(resources)
        if not student or not assignment:
            return nb, resources
        try:
            course = _course(self.config)
            policy = Policy.from_config(course.config)
            ext = read_extensions(course.root).get((assignment, student))
            with gbk.open_gradebook(course) as gb:
                late = gbk.refresh_late(gb, assignment, student, policy=policy, extension=ext)
        except Exception as exc:  # the page is still made, and says why the note is missing
            self.log.warning("the late note of %s could not be made: %s", student, exc)
            return nb, resources
        if late is None or late.duedate is None:
            return nb, resources
        lines = []
        if late.extension is not None:
            lines.append(f"Due date for you: {late.duedate:%Y-%m-%d %H:%M} UTC (an extension"
                         + (f": {late.extension.reason}" if late.extension.reason else "") + ").")
        else:
            lines.append(f"Due date: {late.duedate:%Y-%m-%d %H:%M} UTC.")
        if late.timestamp is not None:
            lines.append(f"Submitted: {late.timestamp:%Y-%m-%d %H:%M} UTC.")
        if late.penalty > 0:
            lines.append(f"Late penalty: {policy.explain(late.raw_score, late.seconds_late)}; "
                         f"score {fmt(late.raw_score)} - {fmt(late.penalty)} = "
                         f"{fmt(max(0.0, late.raw_score - late.penalty))}.")
        elif late.seconds_late > 0:
            lines.append(f"{policy.explain(late.raw_score, late.seconds_late)}: no penalty.")
        resources["course_late"] = {"lines": lines, "penalty": late.penalty}
        return nb, resources


def _solution_text(source):
    """What an instructor's cell holds between its solution markers (all of it when it has none)."""
    m = re.search(r"### BEGIN SOLUTION[^\n]*\n(?P<body>.*?)^[ \t]*### END SOLUTION", source, re.S | re.M)
    return (m.group("body") if m else source).strip("\n")


class GraderNotes(Preprocessor):
    """On the Formgrader's page: the rubric and model answer of each answer graded by hand, and review marks.

    ``resources["course_rubrics"]`` maps a grade_id to ``{"kind": "markdown" | "code", "text": ...}``
    from the instructor's notebook in ``source/``; ``resources["course_review"]`` lists the
    grade_ids whose answer changed since a grader's work. Only pages of the Formgrader (they
    carry a ``submission_id``) get them; feedback pages never do.
    """

    def preprocess(self, nb, resources):
        import nbformat

        if "submission_id" not in resources:
            return nb, resources
        student, assignment, notebook = _who(resources)
        try:
            course = _course(self.config)
            source = nbformat.read(course.source_dir / assignment / f"{notebook}.ipynb", as_version=4)
        except Exception as exc:  # the page is still made
            self.log.warning("no rubric for %s/%s: %s", assignment, notebook, exc)
            return nb, resources
        rubrics = {}
        for cell in source.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            gid = meta.get("grade_id")
            if gid and ((meta.get("solution") and meta.get("grade")) or meta.get("task")):
                rubrics[gid] = {"kind": cell.cell_type, "text": _solution_text(cell.source)}
        resources["course_rubrics"] = rubrics
        try:
            from . import gradebook as gbk
            from .status import StatusBook
            record = StatusBook(course, assignment).read(student)
            if record is not None and record.review:
                with gbk.open_gradebook(course) as gb:
                    marks = gbk.manual_marks(gb, assignment, student)
                resources["course_review"] = record.open_review(marks)
        except Exception as exc:
            self.log.warning("no review marks for %s: %s", student, exc)
        return nb, resources


def rubric_html(entry):
    """A rubric entry as HTML for the Formgrader (Markdown rendered and cleaned, code highlighted as text)."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    from .safe_html import clean_html

    if entry.get("kind") == "markdown":
        rendered = clean_html(MarkdownWithMath(renderer=IPythonRenderer(escape=False)).render(entry.get("text", "")))
        return render_math(rendered)
    return f"<pre>{html.escape(entry.get('text', ''), quote=False)}</pre>"

