"""Student HTML is inert in feedback pages and the Formgrader (grading/safe_html.py).

The sanitizer's output is checked by an independent reader (the standard library's
HTMLParser): every element and attribute must be on the allow-list, every address
``http(s):``, ``mailto:``, relative, or a picture embedded as ``data:image/...``. The
whole pages, rendered with the configuration nbgrader reads (``nbgrader_config.py``),
must carry the Content-Security-Policy first, give the nonce to the page's scripts only,
and keep the student's formulas, tables and pictures. The browser test
(tests/test_browser.py) opens such a submission in the Formgrader and its feedback.
"""
import re
from html.parser import HTMLParser
from pathlib import Path

import hostile_html as hh
import nbformat
import pytest

from grading import safe_html

ROOT = Path(__file__).resolve().parents[1]
ALLOWED_TAGS = {"a", "abbr", "acronym", "article", "aside", "b", "bdi", "bdo", "blockquote", "br", "caption", "center",
                "cite", "code", "col", "colgroup", "data", "dd", "del", "details", "dfn", "div", "dl", "dt", "em",
                "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "i",
                "img", "ins", "kbd", "li", "mark", "nav", "ol", "p", "pre", "q", "rp", "rt", "rtc", "ruby", "s", "samp",
                "small", "span", "strike", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th",
                "thead", "time", "tr", "tt", "u", "ul", "var", "wbr"}
URL_ATTRIBUTES = {"href", "src", "cite", "action", "formaction", "data", "srcdoc", "xlink:href", "poster", "background"}
SAFE_URL = re.compile(r"^(https?:|mailto:|data:image/(png|jpeg|gif|webp|svg\+xml)[;,]|[^:]*$)", re.I)


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.scripts, self._in_script = [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append(data)


def parse(html):
    p = _Collect()
    p.feed(html)
    p.close()
    return p


def problems(fragment):
    """What in a sanitized fragment could still run or load code (empty when inert)."""
    found = []
    for tag, attrs in parse(fragment).tags:
        if tag not in ALLOWED_TAGS:
            found.append(f"element <{tag}>")
        for name, value in attrs.items():
            if name.startswith("on") or name in ("style", "srcdoc", "http-equiv", "formaction", "xmlns:xlink"):
                found.append(f"attribute {name} on <{tag}>")
            if name in URL_ATTRIBUTES and value is not None and not SAFE_URL.match(value.strip()):
                found.append(f"address {value[:40]!r} in {name} of <{tag}>")
            if name == "src" and tag != "img" and value and value.strip().lower().startswith("data:"):
                found.append(f"data: address in <{tag}>")
            if tag == "a" and name == "href" and value and not re.match(r"^\s*(#|https?:|mailto:)", value, re.I):
                found.append(f"link {value[:40]!r} to a file of the submission")
    return found


# --- the sanitizer --------------------------------------------------------------------

@pytest.mark.parametrize("tag", list(hh.html_vectors()))
def test_every_html_vector_is_made_inert(tag):
    html = hh.html_vectors()[tag]
    assert problems(html), f"the checker itself must see the vector {tag} as dangerous"
    cleaned = safe_html.clean_html(html)
    assert problems(cleaned) == [], cleaned
    assert "__pwned" not in re.sub(r"&[a-z]+;|&#\d+;", "", cleaned) or not parse(cleaned).tags, cleaned


@pytest.mark.parametrize("tag", list(hh.markdown_vectors()))
def test_markdown_links_and_pictures_cannot_run_script(tag):
    md = hh.markdown_vectors()[tag]
    html = safe_html.markdown2html({"cell": {}, "resources": {}}, md)
    assert problems(html) == [], html
    for t, attrs in parse(html).tags:
        assert not any("__pwned" in (v or "") for v in attrs.values()), (t, attrs)


def test_markdown_raw_html_vectors_are_inert_after_rendering():
    for tag, html in hh.html_vectors().items():
        out = safe_html.markdown2html({"cell": {}, "resources": {}}, f"Some text\n\n{html}\n\nmore text")
        assert problems(out) == [], (tag, out)
        assert "Some text" in out, (tag, out)
        # an element left open (the mXSS vector's <style>) may swallow the rest of its cell
        assert "more text" in out or tag == "math-mxss", (tag, out)


def test_attachment_pictures_are_kept_and_attachments_of_other_kinds_dropped():
    cell = {"attachments": {"fig.png": {"image/png": hh.PNG_1x1},
                            "page.html": {"text/html": hh._b64("<script>alert(1)</script>")}}}
    out = safe_html.markdown2html({"cell": cell, "resources": {}},
                                  "![figure](attachment:fig.png) [page](attachment:page.html)")
    imgs = [a for t, a in parse(out).tags if t == "img"]
    assert imgs and imgs[0]["src"].startswith("data:image/png;base64,"), out
    assert "text/html" not in out and problems(out) == [], out


def test_legitimate_content_stays_readable():
    out = safe_html.markdown2html({"cell": {}, "resources": {}}, hh.LEGIT_MARKDOWN)
    tags = [t for t, _ in parse(out).tags]
    assert {"h2", "table", "th", "td", "img", "a", "code"} <= set(tags), tags
    # the formula reaches the page drawn as MathML (grading/pages.py), its TeX gone
    assert "<math" in out and "<mfrac>" in out and "$E_{\\text{in}}" not in out
    img = next(a for t, a in parse(out).tags if t == "img" and a.get("alt") == "one pixel")
    assert img["src"] == f"data:image/png;base64,{hh.PNG_1x1}"
    link = next(a for t, a in parse(out).tags if t == "a" and a.get("href", "").startswith("http"))
    assert link["href"] == "https://work.caltech.edu/telecourse"
    assert ">7<" in out and ">42<" in out


def test_content_security_policy_forbids_inline_script_and_names_mathjax():
    policy = safe_html.content_security_policy("n0nce", "https://cdn.example.org/mathjax/2.7.7/latest.js")
    directives = {d.split()[0]: d.split()[1:] for d in policy.split("; ")}
    assert directives["script-src"] == ["'nonce-n0nce'", "https://cdn.example.org"]
    assert directives["default-src"] == ["'none'"]
    for name in ("object-src", "frame-src", "base-uri"):
        assert directives[name] == ["'none'"]
    assert not any("unsafe" in s for s in directives["script-src"])
    with pytest.raises(ValueError, match="nonce"):
        safe_html.content_security_policy("x' 'unsafe-inline", "")


# --- whole pages, as nbgrader's configuration renders them ---------------------------

def nbgrader_config():
    """The HTML settings nbgrader_config.py gives nbgrader (loaded as nbgrader loads it)."""
    from traitlets.config.loader import PyFileConfigLoader
    loader = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT))
    return loader.load_config()


def hostile_notebook(grade_id="answer-1"):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    answer = nbformat.v4.new_markdown_cell("My **answer**.")
    answer.metadata["nbgrader"] = {"grade": True, "solution": True, "locked": False, "grade_id": grade_id,
                                   "points": 2, "score": 1, "schema_version": 3}
    nb.cells = [answer, *hh.hostile_cells(), hh.hostile_outputs_cell()]
    return nb


def check_page(html):
    """The page's policy comes first, only the page's own scripts hold its nonce, nothing of the student's runs."""
    page = parse(html)
    names = [t for t, _ in page.tags]
    tag, first = page.tags[names.index("head") + 1]
    assert tag == "meta" and first.get("http-equiv") == "Content-Security-Policy", (tag, first)
    nonce = re.search(r"script-src 'nonce-([^']+)'", first["content"]).group(1)
    body = html.split("<body", 1)[1]
    for tag, attrs in page.tags:
        for name, value in attrs.items():
            assert not (name.startswith("on") and "__pwned" in (value or "")), (tag, name, value)
            assert "javascript:" not in (value or "").lower(), (tag, name, value)
        if tag == "script":
            assert attrs.get("nonce") == nonce, attrs
    assert not any("__pwned" in s for s in page.scripts), "a student script reached the page"
    for tag in ("iframe", "object", "embed", "form", "base", "svg"):
        assert f"<{tag}" not in body.lower(), tag
    assert 'http-equiv="refresh"' not in body.lower()
    return page, body


def test_formgrader_submission_view_is_inert_and_readable():
    from nbconvert.exporters import HTMLExporter
    cfg = nbgrader_config()
    assert cfg.HTMLExporter.template_name == "course_formgrade"
    exporter = HTMLExporter(config=cfg)
    resources = {"assignment_id": "ps1", "notebook_id": "ps1", "submission_id": "abc", "index": 0, "total": 1,
                 "base_url": "", "student": "s1", "last_name": None, "first_name": None, "notebook_path": "x"}
    html, _ = exporter.from_notebook_node(hostile_notebook(), resources=resources)
    page, body = check_page(html)
    # nbgrader's grading form is there, with its scripts (carrying the nonce)
    assert 'class="score tabbable" id="answer-1"' in html
    assert sum(1 for t, _ in page.tags if t == "script") >= 10
    assert "kept-table-cell" in body and "<msub><mi>E</mi>" in body
    assert f"data:image/png;base64,{hh.PNG_1x1}" in body
    # SVG outputs are pictures, where scripts never run
    assert "data:image/svg+xml;base64," in body


def test_feedback_page_is_inert_and_readable():
    cfg = nbgrader_config()
    exporter = safe_html.FeedbackExporter(config=cfg)
    resources = {"nbgrader": {"notebook": "ps1", "score": 1.0, "max_score": 2.0, "late_penalty": 0}}
    html, _ = exporter.from_notebook_node(hostile_notebook(), resources=resources)
    page, body = check_page(html)
    assert "ps1 (Score: 1.0 / 2.0)" in html
    assert "kept-table-cell" in body and "<msub><mi>E</mi>" in body


def test_a_grade_id_written_into_the_page_cannot_open_an_attribute():
    from nbconvert.exporters import HTMLExporter
    evil = 'x" autofocus onfocus="' + hh.script("grade-id") + '" y="'
    nb = hostile_notebook(grade_id=evil)
    for exporter, resources in ((HTMLExporter(config=nbgrader_config()), {"base_url": "", "index": 0, "total": 1}),
                                (safe_html.FeedbackExporter(config=nbgrader_config()),
                                 {"nbgrader": {"notebook": "ps1", "score": 0, "max_score": 2, "late_penalty": 0}})):
        html, _ = exporter.from_notebook_node(nb, resources=resources)
        page, _ = check_page(html)
        assert not any("onfocus" in attrs or "autofocus" in attrs for _, attrs in page.tags)


def test_nbgrader_generate_feedback_uses_the_course_exporter():
    from nbgrader.converters import GenerateFeedback
    cfg = nbgrader_config()
    converter = GenerateFeedback(config=cfg)
    assert converter.exporter_class is safe_html.FeedbackExporter
    converter.exporter = converter.exporter_class(parent=converter, config=converter.config)
    assert converter.exporter.template_name == "course_feedback"
    assert any(isinstance(p, safe_html.InertStudentContent) for p in converter.exporter._preprocessors)


# --- the Formgrader's headers (grading/formgrader_csp.py) ------------------------------

@pytest.mark.parametrize(("path", "kind"), [
    ("/formgrader/submissions/abc/", "page"), ("/formgrader/submissions/abc", "page"),
    ("/formgrader/submissions/abc/next", "page"), ("/formgrader/submissions/abc/prev_incorrect", "page"),
    ("/formgrader/submissions/abc/helper.html", "file"), ("/formgrader/submissions/abc/sub/figure.png", "file"),
    ("/formgrader/submissions/components/bootstrap.js", None), ("/lab", None), ("/formgrader/gradebook", None),
])
def test_only_submission_pages_and_files_get_a_policy(path, kind):
    from nbconvert.exporters import HTMLExporter
    from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

    from grading.formgrader_csp import FILE_POLICY, SubmissionPagePolicy
    html, _ = HTMLExporter(config=nbgrader_config()).from_notebook_node(
        hostile_notebook(), resources={"base_url": "", "index": 0, "total": 1})
    meta = next(a for t, a in parse(html).tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    request = HTTPServerRequest(start_line=RequestStartLine("GET", path, "HTTP/1.1"),
                                headers=HTTPHeaders({"Host": "127.0.0.1"}))
    transform = SubmissionPagePolicy(request)
    headers = HTTPHeaders({"Content-Type": "text/html; charset=UTF-8",
                           "Content-Security-Policy": "frame-ancestors 'self'"})
    _, out, chunk = transform.transform_first_chunk(200, headers, html.encode(), True)
    assert chunk == html.encode()
    policy = out["Content-Security-Policy"]
    if kind == "page":
        assert policy == meta["content"] + "; frame-ancestors 'self'"
    elif kind == "file":
        assert policy == FILE_POLICY and policy.startswith("sandbox;")
    else:
        assert policy == "frame-ancestors 'self'"


def test_the_server_extension_follows_the_server_s_base_url():
    """Under a hub the Formgrader lives below the user's base URL: the extension's transform looks there."""
    import logging
    from types import SimpleNamespace

    from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine
    from tornado.web import Application

    from grading.formgrader_csp import FILE_POLICY, _load_jupyter_server_extension
    app = Application(base_url="/user/ta/")
    before = list(app.transforms)
    _load_jupyter_server_extension(SimpleNamespace(web_app=app, log=logging.getLogger("test")))
    (transform,) = [t for t in app.transforms if t not in before]
    for path, policy in [("/user/ta/formgrader/submissions/abc/helper.html", FILE_POLICY),
                         ("/formgrader/submissions/abc/helper.html", None)]:
        request = HTTPServerRequest(start_line=RequestStartLine("GET", path, "HTTP/1.1"),
                                    headers=HTTPHeaders({"Host": "127.0.0.1"}))
        _, out, _ = transform(request).transform_first_chunk(200, HTTPHeaders({"Content-Type": "text/html"}),
                                                             b"<p>hi</p>", True)
        assert out.get("Content-Security-Policy") == policy, path
