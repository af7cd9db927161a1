"""grading — the course's grading engine and its nbgrader plug-ins.

The instructor commands of the Makefile (``make release``, ``make autograde``,
``make feedback``, ``make grades``, ``make audit``) and the students' self-check
(``make check``) call ``python -m grading <command>``; see the instructors' guide
(docs/guides/instructors.md). Real nbgrader does the work underneath (its gradebook, converters and feedback);
this package adds what a fair and tamper-proof grade needs on top of it:

* :mod:`grading.engine` — the one engine: :func:`grading.engine.execute_submission` runs
  one submission (plain data in, plain data out, no gradebook), for autograde and for the
  self-check alike, under one :class:`grading.limits.GradingLimits` and reporting in the
  typed records of :mod:`grading.results`; :mod:`grading.session` holds one submission's
  process while it runs;
* :mod:`grading.preprocessors` — the engine inside nbgrader's Autograde, registered in
  ``nbgrader_config.py`` (so ``nbgrader autograde`` and the Formgrader run it too), with the
  sanitizing steps that refuse links and take cell metadata from the gradebook only;
* :mod:`grading.sandbox` — the bubblewrap sandbox in which all student code runs while it
  is graded (no access to the instructor's files, no network, bounded resources);
* :mod:`grading.worker` (the student's side, in the sandbox), :mod:`grading.channel` (the
  grader's side of the pipe, every exchange bounded in time and size), :mod:`grading.wire`
  (the one message format, used by both) and :mod:`grading.judge` (test cells run in the
  grader, the student's functions called through the channel);
* :mod:`grading.cells` — what kind of cell a cell is (over ``nbgrader.utils``);
* :mod:`grading.autograde` — new and changed submissions graded, failures (a submission
  that cannot start, a broken file, a linked folder) reported by name and kept apart from a
  score of 0;
* :mod:`grading.plan` — what is graded again (by content); :mod:`grading.executors` — where
  submissions run (in parallel on local processes or a Dask cluster); :mod:`grading.jobs` — one
  submission as a job, its results handed to nbgrader's Autograde in ``resources`` (one writer
  of the gradebook);
* :mod:`grading.classrun` — the record of each submission's grading, written the same way by
  every path (nbgrader's Autograde plug-ins), and what changed since a grader's work;
  :mod:`grading.status` — those records, typed; :mod:`grading.gradebook` — the one door to
  nbgrader's gradebook for the class run, the exports and the feedback;
* :mod:`grading.feedback` — feedback without hidden-test source or hidden-test lines;
  :mod:`grading.pages` — the late note, the graders' rubric and formulas drawn offline on the
  Formgrader's page and in feedback;
* :mod:`grading.report`, :mod:`grading.exporters`, :mod:`grading.late` — grade files
  (per assignment, course-wide, Canvas, Moodle, ``nbgrader export``) with a final, provisional
  or ungraded status each, statistics per graded cell, the late policy and extensions,
  all written formula-safe (:mod:`grading.csvfiles`);
* :mod:`grading.lms` — submissions in from a Canvas or Moodle download, and the roster;
* :mod:`grading.workers` — grading machines on Dask that run the same course as the scheduler;
* :mod:`grading.audit` — code in the submissions that looks like tampering or copying, listed;
* :mod:`grading.validate` — the students' self-check (``make check``, and :func:`check` from
  inside a notebook) on the same engine, with the released visible tests, saying what it
  checked and what is graded later; :mod:`grading.validate_service` runs it for JupyterLab's
  Validate button (the course's extension in ``jupyter/labextensions/``);
* :mod:`grading.checks` — helpers the hidden tests of an assignment call: the comparison that
  refuses NaN, infinities and wrong shapes, and :func:`grading.checks.test_rng`, their random data;
* :mod:`grading.context` — which test cell of whose submission is being graded (the seed of
  its random data, keyed by the course's secret and the submission's digest);
* :mod:`grading.replay` — ``make regrade-check``: a student's test cell run again as graded.

Nothing here is imported by ``course_lib``.
"""


def check(exercise=None, *, notebook=None, timeout=None):
    """Check one exercise of this notebook (as last saved) with the grading engine: ``grading.check("pla")``.

    The same engine, sandbox, limits and withheld functions as ``make check``, on the released
    visible tests of that exercise; see :func:`grading.validate.check_exercise`.
    """
    from .validate import check_exercise

    return check_exercise(exercise, notebook=notebook, timeout=timeout)
