"""The shared Formgrader's limits: no kernels, and a log of what each grader does, by name.

The Formgrader runs as a hub service as the course account (deploy/jupyterhub_config.py).
Graders grade there; they must not get a shell or a Python of that account beyond what
grading needs. The service runs with ``--ServerApp.terminals_enabled=False`` and with
:class:`NoKernels` as its kernel manager (nbgrader's autograde, collect and feedback run in
the server's own process and do not use it), and this extension appends one line per
request that changes something (any method but GET, HEAD, OPTIONS) to the file named by
``COURSE_FORMGRADER_LOG``: time, grader, method, path, status. The graders' group reads it.
"""
import datetime
import os

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado import web
from tornado.ioloop import IOLoop

__all__ = ["NoKernels"]


class NoKernels(AsyncMappingKernelManager):
    """A kernel manager that starts no kernel: the Formgrader is for grading, not for running code."""

    async def start_kernel(self, *args, **kwargs):
        raise web.HTTPError(403, "The Formgrader runs no kernels: open notebooks in your own server.")


def _user_name(handler):
    user = getattr(handler, "current_user", None)
    if user is None:
        return "-"
    return getattr(user, "username", None) or (user.get("name") if isinstance(user, dict) else str(user))


def _jupyter_server_extension_points():
    return [{"module": "course_formgrader"}]


def _load_jupyter_server_extension(serverapp):
    path = os.environ.get("COURSE_FORMGRADER_LOG")
    if not path:
        return
    settings = serverapp.web_app.settings

    def log_function(handler):
        if previous is not None:
            previous(handler)
        request = handler.request
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return
        line = (f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M:%S} UTC {_user_name(handler)} "
                f"{request.method} {request.path} {handler.get_status()}\n")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o660)
            try:
                os.write(fd, line.encode("utf-8", "replace"))
            finally:
                os.close(fd)
        except OSError as e:
            serverapp.log.warning("could not write the graders' log %s: %s", path, e)

    previous = None

    def install():
        # once the server runs: the extensions loaded after this one (jupyterhub's) set theirs first
        nonlocal previous
        previous = settings.get("log_function")
        settings["log_function"] = log_function

    IOLoop.current().add_callback(install)
