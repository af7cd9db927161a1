"""Jupyter server extension: the server side of the course's Validate button.

The button (the JupyterLab extension in jupyter/validate/, prebuilt in jupyter/labextensions/)
saves the notebook and posts its path to ``<base_url>/course/validate``. This handler runs
the students' self-check on it, ``python -m grading check --json`` (:func:`grading.validate.check`):
the released visible tests, with the grading engine, limits and withheld functions of
autograding, exactly what ``make check`` runs. It answers the report as JSON
(:meth:`grading.validate.CheckReport.as_dict`), which the dialog shows as text: each failing
test's message first, then "N of N visible test cells passed; M more tests and K questions
are graded later", or, on a lecture, that there is nothing to check.

The check runs in a process of its own, started from the folder the server serves: a check
that crashes or runs long never stalls the server (nbgrader's own Validate handler runs in
the server's event loop, which answers nothing else meanwhile), and the course it reads is
the one the server was started in (``make lab``: the course folder), never a configuration
file found beside the notebook (a student's submission could carry one). One check runs at
a time per server; a second waits for it.

Where the bubblewrap sandbox cannot start (macOS, a machine without user namespaces), the
check runs the student's code without it and the dialog says so, as a student's own
kernel would run it: on a student's machine that is her own code in her own account. An
instructor's or TA's server, which may validate a submission someone else wrote, sets
``ValidateService.require_sandbox = True`` and refuses instead, as ``make check`` does.

Enabled for ``make lab`` and ``make lab-instructor`` in jupyter/*/jupyter_server_config.json
(``"grading.validate_service": true``) and on the hub by deploy/setup.sh.
"""
import asyncio
import contextlib
import json
import os
import signal
import sys
from pathlib import Path

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web
from traitlets import Bool, Float
from traitlets.config import LoggingConfigurable

__all__ = ["ValidateService", "CourseValidateHandler", "ROUTE"]

ROUTE = "course/validate"
"""Where the button posts ``{"path": <notebook path, relative to the server's root>}``."""


class ValidateService(LoggingConfigurable):
    """The settings of the Validate button's server side (``c.ValidateService...``)."""

    require_sandbox = Bool(False, config=True, help=(
        "Refuse to check a notebook where the grading sandbox cannot start (as make check does), instead of "
        "running its code without it and saying so. Set it for instructors and TAs, whose Validate may run a "
        "notebook someone else wrote."))
    timeout = Float(900.0, config=True, help=(
        "Seconds a whole check may take (the course's own limits stop a cell, and a submission, well before)."))

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.lock = asyncio.Lock()

    def command(self, course, notebook):
        """The check's command line: ``python -m grading --course COURSE check --json [--sandbox preferred] NB``."""
        cmd = [sys.executable, "-m", "grading", "--course", str(course), "check", "--json"]
        if not self.require_sandbox:
            cmd += ["--sandbox", "preferred"]
        return cmd + [str(notebook)]

    async def check(self, course, notebook):
        """Run the check of ``notebook`` from ``course`` (the server's root); return its report (a dict)."""
        async with self.lock:
            proc = await asyncio.create_subprocess_exec(
                *self.command(course, notebook), cwd=str(course), stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True)
            try:
                out, err = await asyncio.wait_for(proc.communicate(), self.timeout)
            except asyncio.TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                await proc.wait()
                return _error(notebook, f"the check did not finish within {self.timeout:g} s and was stopped")
            finally:
                if proc.returncode is None:        # the request went away (the page was closed): stop the check
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(proc.pid, signal.SIGKILL)
        report = _last_json_line(out)
        if report is None:
            text = err.decode(errors="replace").strip()
            self.log.warning("course Validate: the check of %s ended with %s:\n%s", notebook, proc.returncode, text)
            why = text.splitlines()[-1] if text else f"it ended with status {proc.returncode} and no report"
            return _error(notebook, f"the check could not run: {why}")
        return report


def _error(notebook, text):
    return {"notebook": str(notebook), "status": "error", "headline": text, "tests": [], "failures": [],
            "problems": [], "notes": [], "error": text}


def _last_json_line(out):
    """The report: the last line of the check's output that is a JSON list holding one report."""
    for line in reversed(out.decode(errors="replace").splitlines()):
        with contextlib.suppress(ValueError):
            reports = json.loads(line)
            if isinstance(reports, list) and len(reports) == 1 and isinstance(reports[0], dict):
                return reports[0]
    return None


class CourseValidateHandler(APIHandler):
    """``POST <base_url>/course/validate`` with ``{"path": ...}``: the self-check's report of that notebook."""

    auth_resource = "kernels"       # checking a notebook runs its code: allowed to whoever may run kernels

    @property
    def service(self):
        return self.settings["course_validate_service"]

    @web.authenticated
    @authorized(action="execute")
    async def post(self):
        body = self.get_json_body() or {}
        path = body.get("path") if isinstance(body, dict) else None
        if not isinstance(path, str) or not path.strip():
            raise web.HTTPError(400, 'expected a JSON body {"path": "<the notebook\'s path>"}')
        root = Path(self.settings["server_root_dir"]).expanduser().resolve()
        target = (root / path.lstrip("/")).resolve()
        if not target.is_relative_to(root):
            raise web.HTTPError(403, "Access denied: path outside the server's folder")
        if target.suffix != ".ipynb" or not target.is_file():
            raise web.HTTPError(404, f"no notebook at {path}")
        report = await self.service.check(root, target)
        report["notebook"] = path
        self.finish(json.dumps(report))


def _jupyter_server_extension_points():
    return [{"module": "grading.validate_service"}]


def _load_jupyter_server_extension(server_app):
    web_app = server_app.web_app
    web_app.settings["course_validate_service"] = ValidateService(parent=server_app, log=server_app.log)
    route = url_path_join(web_app.settings.get("base_url", "/"), ROUTE)
    web_app.add_handlers(".*$", [(route, CourseValidateHandler)])
    server_app.log.info("grading.validate_service: the Validate button checks notebooks as make check does (%s)", route)


load_jupyter_server_extension = _load_jupyter_server_extension
