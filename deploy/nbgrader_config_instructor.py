"""nbgrader for the course's graders on the JupyterHub: course folder, exchange, gradebook.

deploy/setup.sh installs this file as ~GRADER/.jupyter/nbgrader_config.py (mode 600)
for the instructor and each grader (``setup.sh --add-grader``). It is read by nbgrader's
commands, by the Formgrader and by ``python -m grading`` on top of
VENV/etc/jupyter/nbgrader_config.py, and below the course's own nbgrader_config.py, which
stays as it is in the repository.

The course folder PREFIX/courses/<course id> belongs to the graders' group
(``formgrade-<course id>``, mode 2770) and nbgrader keeps what it writes there and in the
exchange group-writable (``groupshared``), as nbgrader documents for several graders.
The gradebook is the course's PostgreSQL database; its password is read from
PREFIX/secrets/gradebook-password (readable by the graders' group only) each time the
configuration is loaded and is never written anywhere else.
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
c.CourseDirectory.groupshared = True
# a submission is collected only from the student it names (nbgrader itself only warns)
c.ExchangeFactory.collect = "course_exchange.OwnerCheckedCollect"
del _password

# The course's own settings (cell timeout, ...) also for the Formgrader, which runs in the home folder.
if os.path.isfile(os.path.join(deploy["course_dir"], "nbgrader_config.py")):
    load_subconfig("nbgrader_config.py", path=deploy["course_dir"])  # noqa: F821
