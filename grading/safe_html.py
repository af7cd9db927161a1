"""Student HTML is shown inert: feedback pages and the Formgrader's submission view.

Everything a submission contains is the student's: the Markdown of its cells (raw HTML
included), the HTML, SVG and Markdown its code displays, its cell attachments and the
nbgrader metadata of its cells. nbgrader renders all of it into the feedback page and
into the Formgrader's view of a submission, which the instructor opens while logged in
to the course's Jupyter server: a script there acts with the instructor's rights.

Two layers, both through nbgrader's and nbconvert's extension points, so that they hold
for ``nbgrader generate_feedback``, the Formgrader's *Generate Feedback* button, its
submission view and ``make feedback`` alike (:func:`configure` is called from
``nbgrader_config.py``):

* **Sanitizing.** Markdown is rendered to HTML and then cleaned by `nh3
  <https://nh3.readthedocs.io>`_ (the Rust *ammonia* sanitizer) with an allow-list:
  no script, style, iframe, object, embed, form, meta, base, SVG or MathML elements;
  no event handler or ``style`` attribute; links only to ``http(s):``, ``mailto:`` or
  within the page (not to files of the submission, which the Formgrader would serve
  from the instructor's server); ``data:`` only for pictures (``<img src="data:image/png...">``).
  HTML outputs are cleaned the same way; SVG outputs are shown as pictures
  (``<img src="data:image/svg+xml...">``, in which scripts never run); JavaScript and
  widget outputs are left out. Headings, tables, lists, code, images and the TeX of
  formulas stay, so the page reads as the student wrote it.
* **Content-Security-Policy.** Every page carries, as the first element of its head,
  a policy (:func:`content_security_policy`) that runs only scripts holding a random
  number chosen for that page (the page's own, and MathJax), no inline event handlers
  and no ``javascript:`` links, loads no frames, objects or forms elsewhere. Should a
  payload ever get past the sanitizer, the browser still refuses to run it.

The page templates live in ``grading/templates/``: ``course_formgrade`` (the
Formgrader's submission view) and ``course_feedback`` (the feedback page) extend
nbgrader's own, adding the policy and giving the page's scripts that number.
"""
import base64
import re
import secrets
from pathlib import Path
from urllib.parse import urlsplit

import nh3
from jinja2 import pass_context
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from nbconvert.preprocessors import Preprocessor

from .pages import render_math

__all__ = ["clean_html", "markdown2html", "content_security_policy", "InertStudentContent", "FeedbackExporter",
           "configure", "TEMPLATES"]

TEMPLATES = Path(__file__).resolve().parent / "templates"

# nh3's default allow-list (text, headings, lists, tables, images, links) without the
# image maps (<area href>), plus nothing else.
_TAGS = set(nh3.ALLOWED_TAGS) - {"area", "map"}
_ATTRIBUTES = {tag: set(attrs) for tag, attrs in nh3.ALLOWED_ATTRIBUTES.items() if tag in _TAGS}
_ATTRIBUTES["img"] = _ATTRIBUTES.get("img", set()) | {"title"}
_ATTRIBUTES["a"] = _ATTRIBUTES.get("a", set()) | {"title"}
_ATTRIBUTES["*"] = {"title", "lang", "dir"}
_SCHEMES = {"http", "https", "mailto", "data"}
_PICTURE = re.compile(r"data:image/(png|jpeg|jpg|gif|webp|bmp|svg\+xml)[;,]", re.I)
_GRADE_ID = re.compile(r"^[A-Za-z0-9_-]+$")


_LINK = re.compile(r"^\s*(#|https?:|mailto:)", re.I)


def _attribute_filter(tag, attribute, value):
    # ``data:`` is allowed by the scheme list only so that pictures can be embedded:
    # anywhere else (a link to data:text/html, say) the attribute is dropped.
    if value.lstrip()[:5].lower() == "data:":
        if not (tag == "img" and attribute == "src" and _PICTURE.match(value.lstrip())):
            return None
    # A link leads elsewhere on the web or within the page, never to a file of the
    # submission: the Formgrader serves those from the instructor's own server, where
    # an HTML file the student handed in would run with the instructor's rights.
    if tag == "a" and attribute == "href" and not _LINK.match(value):
        return None
    return value


def clean_html(html):
    """Student-authored HTML with everything that could run or load code removed.

    Parameters
    ----------
    html : str or bytes
        An HTML fragment (a cell's rendered Markdown, an HTML output).

    Returns
    -------
    str
        The fragment with only text, structure, tables, links to ``http(s):``,
        ``mailto:`` or within the page, and pictures left.

    Examples
    --------
    >>> clean_html('<img src="x" onerror="alert(1)"><b>bold</b>')
    '<img src="x"><b>bold</b>'
    >>> clean_html('<a href="javascript:alert(1)">link</a><script>alert(2)</script>')
    '<a rel="noopener noreferrer nofollow">link</a>'
    """
    if isinstance(html, bytes):
        html = html.decode("utf-8", errors="replace")
    return nh3.clean(str(html), tags=_TAGS, attributes=_ATTRIBUTES, url_schemes=_SCHEMES,
                     attribute_filter=_attribute_filter, link_rel="noopener noreferrer nofollow",
                     strip_comments=True)


@pass_context
def markdown2html(context, source):
    """Jinja filter: a cell's Markdown as sanitized HTML (replaces nbconvert's ``markdown2html``).

    Renders as nbconvert does (formulas kept as TeX for MathJax, ``attachment:``
    pictures embedded), then applies :func:`clean_html` to the result.
    """
    cell = context.get("cell", {}) or {}
    resources = context.get("resources", {}) or {}
    renderer = IPythonRenderer(escape=False, attachments=cell.get("attachments", {}) or {},
                               path=(resources.get("metadata") or {}).get("path", ""))
    return render_math(clean_html(MarkdownWithMath(renderer=renderer).render(source or "")))


def content_security_policy(nonce, mathjax_url=""):
    """The Content-Security-Policy of a page that shows student work.

    Scripts run only if they carry ``nonce`` (the page's own), or come from MathJax's
    server; no inline handler, ``javascript:`` link, ``eval``, frame, object, plugin,
    ``<base>`` or form submission elsewhere. Pictures may be embedded (``data:``).

    Examples
    --------
    >>> p = content_security_policy("abc", "https://cdn.example.org/mathjax/latest.js")
    >>> "script-src 'nonce-abc' https://cdn.example.org" in p, "'unsafe-inline'" in p.split(";")[1]
    (True, False)
    """
    if not re.fullmatch(r"[A-Za-z0-9+/_=-]+", nonce or ""):
        raise ValueError(f"nonce: expected a base64 string, got {nonce!r}")
    origin = ""
    parts = urlsplit(mathjax_url or "")
    if parts.scheme in ("http", "https") and parts.netloc:
        origin = f" {parts.scheme}://{parts.netloc}"
    elif mathjax_url:
        origin = " 'self'"  # MathJax served by this server (a relative address)
    return "; ".join([
        "default-src 'none'",
        f"script-src 'nonce-{nonce}'{origin}",
        f"style-src 'self' 'unsafe-inline'{origin}",
        f"font-src 'self' data:{origin}",
        "img-src 'self' data:",
        "media-src 'self' data:",
        "connect-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "object-src 'none'",
        "frame-src 'none'",
        "worker-src 'none'",
    ])


class InertStudentContent(Preprocessor):
    """Prepare a submission for an HTML page that shows it inert.

    * Chooses the page's script number and its policy (``resources["csp_nonce"]``,
      ``resources["content_security_policy"]``) for the course's templates.
    * Turns sanitizing on for the page's outputs (nbconvert then drops JavaScript and
      widget outputs and passes HTML outputs through :func:`clean_html`).
    * Shows SVG outputs as pictures (``data:image/svg+xml``), where no script runs.
    * Replaces nbgrader metadata a student could have edited and that nbgrader's
      templates write into the page unescaped: a ``grade_id`` that is not letters,
      digits, ``_`` and ``-`` is rewritten to such, points and scores that are not
      numbers become 0.
    """

    def preprocess(self, nb, resources):
        nonce = secrets.token_urlsafe(18)
        resources["csp_nonce"] = nonce
        resources["content_security_policy"] = content_security_policy(nonce, resources.get("mathjax_url", ""))
        resources["should_sanitize_html"] = True
        resources["should_not_encode_svg"] = False
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader")
            if isinstance(meta, dict):
                self._clean_nbgrader_metadata(meta)
            for output in cell.get("outputs", []):
                data = output.get("data")
                if isinstance(data, dict) and "image/svg+xml" in data:
                    svg = data.pop("image/svg+xml")
                    svg = "".join(svg) if isinstance(svg, list) else str(svg)
                    encoded = base64.b64encode(svg.encode("utf-8")).decode("ascii")
                    data.setdefault("text/html", f'<img src="data:image/svg+xml;base64,{encoded}" alt="SVG figure">')
        return nb, resources

    @staticmethod
    def _clean_nbgrader_metadata(meta):
        gid = meta.get("grade_id")
        if gid is not None and not (isinstance(gid, str) and _GRADE_ID.match(gid)):
            meta["grade_id"] = re.sub(r"[^A-Za-z0-9_-]", "_", str(gid))[:100] or "cell"
        for key in ("points", "score"):
            if key in meta:
                try:
                    float(meta[key])
                    if isinstance(meta[key], str):
                        raise ValueError
                except (TypeError, ValueError):
                    meta[key] = 0


class FeedbackExporter(HTMLExporter):
    """nbconvert's HTML exporter for the feedback page (template ``course_feedback``)."""


def configure(c):
    """Apply the course's HTML settings to an nbgrader configuration ``c``.

    Called from the course's ``nbgrader_config.py`` (and so also by the hub's instructor
    configuration, which loads that file): the Formgrader's exporter (nbconvert's
    ``HTMLExporter``, configured by class) gets the sanitizing filters and
    preprocessor and the ``course_formgrade`` template; ``nbgrader generate_feedback``
    and the Formgrader's feedback button get :class:`FeedbackExporter` with the
    ``course_feedback`` template.
    """
    import nbgrader.server_extensions.formgrader.handlers as fg
    c.HTMLExporter.sanitize_html = True
    c.HTMLExporter.filters = {"markdown2html": f"{__name__}.markdown2html", "clean_html": f"{__name__}.clean_html",
                              "rubric_html": "grading.pages.rubric_html", "render_math": "grading.pages.render_math"}
    # formulas are drawn as MathML when the page is made (grading/pages.py): no MathJax from a CDN
    c.HTMLExporter.mathjax_url = ""
    c.HTMLExporter.preprocessors = [f"{__name__}.InertStudentContent", "grading.pages.LateNote",
                                    "grading.pages.GraderNotes"]
    bases = [str(TEMPLATES), fg.template_path]
    # the folders themselves too, for {% extends 'formgrade/index.html.j2' %} and the macros
    c.HTMLExporter.extra_template_basedirs = bases
    c.HTMLExporter.extra_template_paths = bases
    c.HTMLExporter.template_name = "course_formgrade"
    c.FeedbackExporter.template_name = "course_feedback"
    # nbgrader's GenerateFeedback sets HTMLExporter.extra_template_paths to bootstrap's CSS
    # folder (for the page's inlined style sheet); the feedback exporter's own setting keeps it.
    bootstrap_css = Path(fg.static_path, "node_modules", "bootstrap", "dist", "css")
    c.FeedbackExporter.extra_template_paths = [*bases, str(bootstrap_css)]
    c.GenerateFeedback.exporter_class = f"{__name__}.FeedbackExporter"
    return c
