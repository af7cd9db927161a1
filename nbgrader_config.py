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
