"""nbgrader configuration: the repository root is the course directory.

Instructor assignments live in source/<assignment>/, student versions are generated
into release/<assignment>/ by `make release`; submitted/, autograded/, feedback/ and
gradebook.db are created on the instructor's machine and never committed.
"""
import os

c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)

c.CourseDirectory.course_id = "ml-foundations"
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "release"

# --- Grading (see "For instructors" in README.md) ----------------------------------
# A cell may run this many seconds before it is stopped; it then earns 0 points and the
# rest of the notebook is still graded (make autograde, make check, the Validate button).
c.Execute.timeout = 10
# The Validate button of JupyterLab runs nbgrader's own Validator, which counts any text
# on stderr (a harmless warning, say) as a failed test. Its kernel sends stderr to the
# ordinary output instead, as `make autograde` and `make check` do.
c.Execute.extra_arguments = ["--IPKernelApp.exec_lines=import sys; sys.stderr = sys.stdout"]

# --- Student HTML is shown inert (grading/safe_html.py) ------------------------------
# Feedback pages (nbgrader generate_feedback, the Formgrader's button, make feedback) and
# the Formgrader's view of a submission sanitize the student's Markdown and outputs and
# carry a Content-Security-Policy that runs none of the student's scripts.
import sys  # noqa: E402

if c.CourseDirectory.root not in sys.path:  # the Formgrader may run outside the course folder
    sys.path.insert(0, c.CourseDirectory.root)
from grading.safe_html import configure as _course_html  # noqa: E402

_course_html(c)
