"""The Validate buttons of nbgrader's Assignment List: nbgrader's own handler, each failure led by the test's message.

The Validate button of a notebook's toolbar is the course's (``grading/validate_service.py``).
The Assignment List (in ``make lab-instructor``) still has nbgrader's Validate button for each
fetched notebook, whose dialog shows, for every failing cell, the cell's code and then the whole
traceback, whose last line (what the test expected, what came back) is the one a student
needs. This server extension answers that button's request (``/assignments/validate``) with
nbgrader's handler and validator unchanged, and reorders each failure it reports: the
test's message first, then the test cell and the traceback. It takes the place of
``nbgrader.server_extensions.validate_assignment`` in ``jupyter/instructor/jupyter_server_config.json``.
"""
import html
import re

from nbconvert.filters import strip_ansi
from nbgrader.server_extensions.validate_assignment import handlers as _nbgrader

__all__ = ["lead_with_message", "failure_message"]

_ERROR_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Warning|Exit|Interrupt)\b.*$", re.M)


def failure_message(raw_error):
    """The line(s) of a failure that say what went wrong: from the last ``SomeError: ...`` line to the end."""
    text = strip_ansi(raw_error or "").rstrip()
    found = list(_ERROR_LINE.finditer(text))
    message = text[found[-1].start():] if found else (text.strip().splitlines() or ["failed"])[-1]
    if message.strip().rstrip(":").strip() == "NotImplementedError":
        return "NotImplementedError: not done yet (the function still raises NotImplementedError)"
    return message.strip()


def lead_with_message(result):
    """Reorder each failure of a Validator result: the message where the dialog shows first, then cell and traceback."""
    for entry in result.get("failed", []):
        message = failure_message(entry.get("raw_error", ""))
        source = html.escape(entry.get("source", ""))
        if strip_ansi(entry.get("raw_error", "")).strip() == message:     # the message is all there is to say
            entry["error"] = source
        else:
            entry["error"] = f"{source}\n\n{entry.get('error', '')}" if source else entry.get("error", "")
        entry["source"] = message
    return result


class ValidateAssignmentHandler(_nbgrader.ValidateAssignmentHandler):
    """nbgrader's Validate handler; each failure it reports leads with the test's message."""

    def validate_notebook(self, path):
        reply = super().validate_notebook(path)
        if reply.get("success") and isinstance(reply.get("value"), dict):
            lead_with_message(reply["value"])
        return reply


def _jupyter_server_extension_points():
    return [{"module": "grading.validate_button"}]


def _load_jupyter_server_extension(serverapp):
    from jupyter_server.utils import url_path_join

    serverapp.log.info("Loading nbgrader's Validate handler for the Assignment List (failures led by their message)")
    webapp = serverapp.web_app
    webapp.settings["root_dir"] = serverapp.root_dir
    handlers = [(pattern, ValidateAssignmentHandler if handler is _nbgrader.ValidateAssignmentHandler else handler)
                for pattern, handler in _nbgrader.default_handlers]
    webapp.add_handlers(".*$", [(url_path_join(webapp.settings["base_url"], p), h) for p, h in handlers])


load_jupyter_server_extension = _load_jupyter_server_extension
