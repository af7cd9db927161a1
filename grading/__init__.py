"""grading — the course's autograding pipeline, a thin layer over nbgrader.

The instructor commands of the Makefile (``make release``, ``make autograde``,
``make feedback``, ``make grades``, ``make audit``) and the students' self-check
(``make check``) call ``python -m grading <command>``; see "For instructors" in the
README. Real nbgrader does the work underneath (its gradebook, converters and feedback);
this package adds what a fair and tamper-proof grade needs on top of it:

* :mod:`grading.sandbox` — the bubblewrap sandbox in which all student code runs while
  it is graded (no access to the instructor's files, no network, bounded resources);
* :mod:`grading.judge` and :mod:`grading.worker` — the student's cells run in a sandboxed
  process, the test cells (taken from the gradebook) in the grader's own process, and
  only plain data cross between them; a cell that runs too long is stopped by killing
  the student's process, a process that dies makes the submission *ungraded*;
* :mod:`grading.autograde` — every submission graded from a clean slate, failures
  (dead process, broken file) reported by name and kept apart from a score of 0;
* :mod:`grading.feedback` — feedback without hidden-test source or hidden-test lines;
* :mod:`grading.report` — the grades CSV and a per-exercise summary;
* :mod:`grading.audit` — code in the submissions that looks like tampering, listed;
* :mod:`grading.validate` and :mod:`grading.execute` — the self-check in a kernel (as the
  Validate button runs it), which exits non-zero when a test fails;
* :mod:`grading.checks` — helpers the hidden tests of an assignment call.

Nothing here is imported by ``course_lib``.
"""
