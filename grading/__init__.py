"""grading — the course's autograding pipeline, a thin layer over nbgrader.

The instructor commands of the Makefile (``make release``, ``make autograde``,
``make feedback``, ``make grades``) and the students' self-check (``make check``) call
``python -m grading <command>``; see ``docs/instructors.md``. Real nbgrader does the
work underneath (its gradebook, converters and feedback); this package adds what a fair
grade needs on top of it:

* :mod:`grading.execute` — cell execution that does not zero a correct answer for
  writing to stderr, stops endless cells (also those that swallow ``KeyboardInterrupt``)
  and goes on with the rest of the notebook;
* :mod:`grading.autograde` — every submission graded from a clean slate, failures
  (dead kernel, broken file) reported by name and kept apart from a score of 0;
* :mod:`grading.feedback` — feedback without hidden-test source or hidden-test lines;
* :mod:`grading.report` — the grades CSV and a per-exercise summary;
* :mod:`grading.validate` — the self-check, which exits non-zero when a test fails;
* :mod:`grading.checks` — helpers the hidden tests of an assignment call.

Nothing here is imported by ``course_lib``.
"""
