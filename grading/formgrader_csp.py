"""Jupyter server extension: the Formgrader's submission pages send a Content-Security-Policy.

The Formgrader shows a submission at ``formgrader/submissions/<id>/`` and serves the files
of the student's folder below it (``formgrader/submissions/<id>/<file>``), from the
instructor's own server. The submission view already carries the course's policy in a
``<meta>`` element (grading/safe_html.py); this extension sends it as an HTTP header as
well, and sends every file of the student's folder with ``sandbox`` so that an HTML page
the student handed in never runs script with the instructor's rights, even when opened
by its address. No other page of the server is touched: JupyterLab's own pages keep
their inline scripts.

Enabled for ``make lab-instructor`` in jupyter/instructor/jupyter_server_config.json
(``"grading.formgrader_csp": true``); a deployment enables it in the instructor's
server configuration the same way.
"""
import functools
import html
import re

from tornado.web import OutputTransform

__all__ = ["SubmissionPagePolicy", "FILE_POLICY"]

# A file of the student's folder: shown as it is (pictures, text), never as an active page.
FILE_POLICY = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; media-src 'self'"
_META = re.compile(r"<meta\b(?=[^>]*\bhttp-equiv=\"Content-Security-Policy\")[^>]*\bcontent=\"([^\"]+)\"[^>]*>", re.I)


class SubmissionPagePolicy(OutputTransform):
    """Adds the policy headers to the Formgrader's submission pages and files under ``prefix``.

    ``prefix`` is where the server serves them (``<base_url>/formgrader/submissions/``).
    """

    def __init__(self, request, *, prefix="/formgrader/submissions/"):
        super().__init__(request)
        self.kind = None
        path = request.path
        if path.startswith(prefix):
            rest = path[len(prefix):]
            if not rest.startswith("components/"):
                _, _, file = rest.partition("/")
                self.kind = "file" if file and not re.fullmatch(r"(next|prev)(_incorrect)?/?", file) else "page"

    def transform_first_chunk(self, status_code, headers, chunk, finishing):
        if self.kind == "file":
            headers["Content-Security-Policy"] = FILE_POLICY
            headers["X-Content-Type-Options"] = "nosniff"
        elif self.kind == "page" and headers.get("Content-Type", "").startswith("text/html"):
            head = chunk[:65536].decode("utf-8", errors="replace").split("<body", 1)[0]
            m = _META.search(head)
            if m:  # the page's own policy (with its nonce), which the browser also reads from the page
                headers["Content-Security-Policy"] = f"{html.unescape(m.group(1))}; frame-ancestors 'self'"
        return status_code, headers, chunk


def _jupyter_server_extension_points():
    return [{"module": "grading.formgrader_csp"}]


def _load_jupyter_server_extension(server_app):
    web_app = server_app.web_app
    base = web_app.settings.get("base_url", "/").rstrip("/")
    # tornado makes each request's transforms by calling what it holds with the request
    web_app.transforms.append(functools.partial(SubmissionPagePolicy, prefix=f"{base}/formgrader/submissions/"))
    server_app.log.info("grading.formgrader_csp: the Formgrader's submission pages send a Content-Security-Policy")
