"""nbgrader for the course's instructor on the JupyterHub: course folder, exchange, gradebook.

deploy/setup.sh installs this file as ~instructor/.jupyter/nbgrader_config.py (mode
600). It is read by nbgrader's commands, by the Formgrader and by ``python -m grading``
on top of VENV/etc/jupyter/nbgrader_config.py, and below the course's own
nbgrader_config.py, which stays as it is in the repository.

The gradebook is the course's PostgreSQL database; its password is read from
~/.gradebook-password (mode 600) each time the configuration is loaded and is never
written anywhere else.
"""
import json
import os
from urllib.parse import quote

c = get_config()  # noqa: F821  (provided by nbgrader)

with open("@DEPLOY_JSON@") as f:
    deploy = json.load(f)
with open(deploy["gradebook_secret"]) as f:
    _password = f.read().strip()

c.CourseDirectory.course_id = deploy["course_id"]
c.CourseDirectory.root = deploy["course_dir"]
c.CourseDirectory.db_url = (f"postgresql+psycopg://{deploy['db_role']}:{quote(_password, safe='')}"
                            f"@127.0.0.1:{deploy['pg_port']}/{deploy['db_name']}")
c.Exchange.root = deploy["exchange"]
c.Exchange.path_includes_course = False
# a submission is collected only from the student it names (nbgrader itself only warns)
c.ExchangeFactory.collect = "course_exchange.OwnerCheckedCollect"
del _password

# The course's own settings (cell timeout, ...) also for the Formgrader, which runs in the home folder.
if os.path.isfile(os.path.join(deploy["course_dir"], "nbgrader_config.py")):
    load_subconfig("nbgrader_config.py", path=deploy["course_dir"])  # noqa: F821
