"""nbgrader for the course's graders on the JupyterHub: course folder, exchange, gradebook.

deploy/setup.sh installs this file as ~GRADER/.jupyter/nbgrader_config.py (mode 600)
for the instructor, each grader (``setup.sh --add-grader``) and the course account (which
runs the shared Formgrader). It is read by nbgrader's commands, by the Formgrader and by
``python -m grading`` on top of VENV/etc/jupyter/nbgrader_config.py, and below the course's
own nbgrader_config.py, which setup gives the deployment's course id.

The course folder PREFIX/courses/<course id> belongs to the graders' group
(``formgrade-<course id>``, mode 2770) and nbgrader keeps what it writes there and in the
exchange group-writable (``groupshared``), as nbgrader documents for several graders; every
process that loads this file also gets umask 007, so that whatever writes a file (the
Formgrader, a grader's terminal, ``make``) leaves it to the graders' group.
The gradebook is the course's PostgreSQL database, reached through a libpq service file
(PREFIX/secrets/pg_service.conf, readable by the graders' group only) that holds its
password: the database URL, which nbgrader prints in some messages, has none.
"""
import json
import os

c = get_config()  # noqa: F821  (provided by nbgrader)

with open("@DEPLOY_JSON@") as f:
    deploy = json.load(f)

os.umask(0o007)
os.environ["PGSERVICEFILE"] = deploy["pg_service_file"]
c.CourseDirectory.course_id = deploy["course_id"]
c.CourseDirectory.root = deploy["course_dir"]
c.CourseDirectory.db_url = f"postgresql+psycopg:///?service={deploy['pg_service']}"
c.Exchange.root = deploy["exchange"]
c.Exchange.path_includes_course = False
c.CourseDirectory.groupshared = True
# collect: entries only from the student they name, regular files only, opened without following
# links, bounded, dated by the clerk's records (see course_exchange.py)
c.ExchangeFactory.collect = "course_exchange.OwnerCheckedCollect"
c.OwnerCheckedCollect.records_path = deploy["submission_records"]

# The course's own settings (cell timeout, ...) also for the Formgrader, which runs in the home folder.
if os.path.isfile(os.path.join(deploy["course_dir"], "nbgrader_config.py")):
    load_subconfig("nbgrader_config.py", path=deploy["course_dir"])  # noqa: F821
c.CourseDirectory.course_id = deploy["course_id"]
