"""nbgrader for everyone on the course's JupyterHub: the course, its exchange, its grading settings.

deploy/setup.sh installs this file as VENV/etc/jupyter/nbgrader_config.py, so every
server and command run from the course's environment uses it; a grader's
~/.jupyter/nbgrader_config.py (nbgrader_config_instructor.py) adds the gradebook.

The Validate button runs with the course's grading settings, as ``make check`` does: the
course's nbgrader_config.py (a copy setup keeps in PREFIX/etc, with the deployment's course
id) gives each assignment's cell limit, sends stderr to the ordinary output and withholds the
course_lib functions the assignment asks for.
"""
import json
import os

from jupyter_core.paths import jupyter_runtime_dir

c = get_config()  # noqa: F821  (provided by nbgrader)

with open("@DEPLOY_JSON@") as f:
    deploy = json.load(f)

_course = os.path.join(deploy["prefix"], "etc", "course_nbgrader_config.py")
if os.path.isfile(_course):
    load_subconfig(os.path.basename(_course), path=os.path.dirname(_course))  # noqa: F821
    c.CourseDirectory.pop("root", None)     # the course folder is the graders'; a student's is her home

c.CourseDirectory.course_id = deploy["course_id"]
c.Exchange.root = deploy["exchange"]
c.Exchange.path_includes_course = False
# an exchange root only root may write to; a submission readable by its student and the
# graders only (nbgrader's own makes it 0777), recorded by the clerk. See course_exchange.py.
c.ExchangeFactory.submit = "course_exchange.CourseSubmit"
c.ExchangeFactory.fetch_assignment = "course_exchange.CourseFetchAssignment"
c.ExchangeFactory.fetch_feedback = "course_exchange.CourseFetchFeedback"
c.ExchangeFactory.list = "course_exchange.CourseList"
c.CourseSubmit.clerk_socket = deploy["clerk_socket"]
# the kernels of Validate, like the server's, on Unix sockets in the user's private runtime folder
c.KernelManager.transport = "ipc"
os.makedirs(jupyter_runtime_dir(), mode=0o700, exist_ok=True)
c.KernelManager.ip = os.path.join(jupyter_runtime_dir(), "nbgrader-ipc")
