"""nbgrader for everyone on the course's JupyterHub: the course and its exchange.

deploy/setup.sh installs this file as VENV/etc/jupyter/nbgrader_config.py, so every
server and command run from the course's environment uses it; the instructor's
~/.jupyter/nbgrader_config.py (nbgrader_config_instructor.py) adds the gradebook.
"""
import json

c = get_config()  # noqa: F821  (provided by nbgrader)

with open("@DEPLOY_JSON@") as f:
    deploy = json.load(f)

c.CourseDirectory.course_id = deploy["course_id"]
c.Exchange.root = deploy["exchange"]
c.Exchange.path_includes_course = False
# an exchange root only root may write to; a submission readable by its student and the
# graders only (nbgrader's own makes it 0777). See course_exchange.py.
c.ExchangeFactory.submit = "course_exchange.CourseSubmit"
c.ExchangeFactory.fetch_assignment = "course_exchange.CourseFetchAssignment"
c.ExchangeFactory.fetch_feedback = "course_exchange.CourseFetchFeedback"
c.ExchangeFactory.list = "course_exchange.CourseList"
