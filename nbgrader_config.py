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

# --- Grading (see docs/guides/instructors.md) ---------------------------------------
# A cell may use this many seconds of CPU time before it is stopped (with a wall-clock
# backstop CourseExecute.wall_factor times larger); it then earns 0 points and the rest of
# the notebook is still graded (make autograde, make check and JupyterLab's Validate button;
# nbgrader's own validator, in the student's kernel, counts wall-clock seconds).
c.Execute.timeout = 10
# JupyterLab's Validate button is the course's (grading/validate_service.py): it runs make
# check's check. nbgrader's own Validator (`nbgrader validate`, the Validate buttons of the
# hub's Assignment List) counts any text on stderr (a harmless warning, say) as a failed test.
# Its kernel sends stderr to the ordinary output instead, as `make autograde` and `make check` do.
# Its kernel also withholds the course_lib functions listed in the assignment's
# course_lib_withheld.txt, as make check and autograde do (see grading/withhold.py).
c.Execute.extra_arguments = ["--IPKernelApp.exec_lines=import sys; sys.stderr = sys.stdout; "
                             "__import__('grading.withhold').withhold.install_in_kernel()"]

# The course's grading engine runs every autograde: `nbgrader autograde`, the Formgrader's
# button, `make autograde` and `python -m grading autograde` (see grading/preprocessors.py).
# Student code runs in a bubblewrap sandbox; test cells come from the gradebook and run in
# the grader; nbgrader's own metadata checks and bookkeeping stay.
c.Autograde.sanitize_preprocessors = [
    "grading.preprocessors.RefuseLinks",            # a linked folder or notebook is not graded
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "grading.preprocessors.TrustOnlyTheGradebook",  # cell metadata from the gradebook, never the student's
    "grading.classrun.RestoreUnchangedTests",       # hidden tests back in untouched test cells, quietly
    "grading.preprocessors.OverwriteKernelspec",    # nbgrader's, answered from the gradebook read once per run
    "grading.preprocessors.OverwriteCells",         # nbgrader's, answered from the gradebook read once per run
    "grading.preprocessors.CheckCellMetadata",      # nbgrader's check, its schema compiled once
]
c.Autograde.autograde_preprocessors = [
    "grading.preprocessors.CourseExecute",          # in place of nbgrader's Execute
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "grading.preprocessors.SaveAutoGrades",         # nbgrader's, each notebook's scores in one commit
    "grading.preprocessors.AssignLatePenalties",    # nbgrader's, in a class run's one gradebook
    "grading.preprocessors.CheckCellMetadata",      # nbgrader's check, its schema compiled once
]
# Every path that autogrades (make autograde, nbgrader autograde, the Formgrader's button,
# Dask) records each submission's outcome the same way, for every export to read: graded,
# or ungraded with the reason (never 0), or interrupted; and which hand-graded answers
# changed since (grading/classrun.py). On a fresh clone the hook also records the
# assignment in the gradebook, so `nbgrader autograde` works without a `make` step.
c.Autograde.pre_convert_hook = "grading.classrun.before_autograde"
c.Autograde.exporter_class = "grading.classrun.RecordingExporter"
# `nbgrader generate_assignment --force` refuses before it removes release/<assignment>/
# when nbgrader would not be allowed to regenerate it (the gradebook holds submissions).
c.GenerateAssignment.exporter_class = "grading.autograde.RefuseBeforeRemoving"
# Deleted test cells are put back from the gradebook before grading.
c.OverwriteCells.add_missing_cells = True
c.OverwriteCells.missing_cell_notification = (
    "This cell (id:{cell_id}) was missing from the submission; it was restored for grading.\n\n")
# Time limits of the engine (seconds). A cell that runs longer is stopped and scores 0; the
# instructor's read-only cells (imports, data) get setup_timeout; after a stopped cell the
# cells above are replayed within replay_timeout; one submission may take submission_timeout
# in all (restarts and replays included), after which its remaining cells score 0 and the
# next submission is graded. CourseExecute.timeout defaults to Execute.timeout above.
# An assignment whose cells need far less than Execute.timeout gets a limit of its own, so
# that a submission that loops forever costs seconds, not minutes: ps1's test cells take
# 0.03 s at most with the reference solution, 0.05 s with a correct pure-Python PLA that
# recounts every mistake after each correction; 3 s leaves a wide margin for a busy
# machine. ps7's test cells take 0.03 s at most with the reference solution, and as long with
# a correct one that refits N times or loops over inputs in Python. `make check` and the
# Validate button use the same limits. A `--timeout` given to `python -m grading` holds for
# every assignment of that run.
c.CourseExecute.assignment_timeouts = {"ps1_perceptron": 3, "ps7_validation": 3}


def _validate_cell_limit(cell):
    """nbgrader's Validator's limit: it validates in the notebook's folder, named after its assignment."""
    return c.CourseExecute.assignment_timeouts.get(os.path.basename(os.getcwd()), c.Execute.timeout)


c.Execute.timeout_func = _validate_cell_limit
c.CourseExecute.setup_timeout = 120
c.CourseExecute.replay_timeout = 60
c.CourseExecute.submission_timeout = 600

# Feedback, whichever button or command makes it (`nbgrader generate_feedback`, the Formgrader's
# Generate Feedback, `make feedback`): the hidden tests' code is taken out first, and only the
# failing test's message is shown.
c.GenerateFeedback.preprocessors = [
    "grading.feedback.HideHiddenTests",
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]

# --- Late submissions and grade export (see docs/guides/instructors.md) ---------------
# nbgrader compares each submission's timestamp (written by `nbgrader collect`) with the
# assignment's due date (set in the Formgrader's Manage Assignments page, or with
# `nbgrader db assignment add ASSIGNMENT --duedate="2026-12-01 23:59 UTC"`). nbgrader's own
# default is no penalty; this course takes 10 % of the earned score per started day late
# (all of it after ten days). Set percent_per_day = 0 for none.
c.AssignLatePenalties.plugin_class = "grading.late.LatePenalty"
c.LatePenalty.percent_per_day = 10.0
c.LatePenalty.grace_minutes = 0.0
# `nbgrader export` writes one row per student and assignment with a status column
# (final, provisional, ungraded, not autograded, not submitted); a submission without a
# grade has an empty score, never 0, and the score is after the late penalty, computed
# from the score now (late_seconds and penalty columns). Per-student extensions are in
# extensions.csv (`make extension`).
c.ExportApp.plugin_class = "grading.exporters.CourseExport"

# --- Student HTML is shown inert (grading/safe_html.py) ------------------------------
# Feedback pages (nbgrader generate_feedback, the Formgrader's button, make feedback) and
# the Formgrader's view of a submission sanitize the student's Markdown and outputs and
# carry a Content-Security-Policy that runs none of the student's scripts.
import sys  # noqa: E402

if c.CourseDirectory.root not in sys.path:  # the Formgrader may run outside the course folder
    sys.path.insert(0, c.CourseDirectory.root)
try:
    from grading.safe_html import configure as _course_html

    _course_html(c)
except Exception as _exc:
    # Fail closed. nbgrader ignores a configuration file that raises and then runs its own
    # autograde: student code unsandboxed, as the instructor, in the course folder. So a
    # course whose grading code cannot be loaded (a missing package, say) must not raise
    # here; instead every nbgrader command that would run or show student work refuses,
    # naming the cause.
    from nbconvert.preprocessors import Preprocessor as _Preprocessor

    _REASON = (f"the course's grading code could not be loaded ({type(_exc).__name__}: {_exc}); "
               "nothing is graded or shown until it can (run `make setup` in the course folder)")

    class CourseConfigurationBroken(_Preprocessor):
        """Stands in for every step that would run or show student work, and refuses."""

        def __call__(self, nb, resources):  # whether or not nbconvert marks it enabled
            raise RuntimeError(_REASON)

        preprocess = __call__

    print(f"nbgrader_config.py: {_REASON}", file=sys.stderr)
    c.Autograde.sanitize_preprocessors = [CourseConfigurationBroken]
    c.Autograde.autograde_preprocessors = [CourseConfigurationBroken]
    c.Autograde.pre_convert_hook = None
    c.Autograde.exporter_class = "nbconvert.exporters.NotebookExporter"
    c.GenerateAssignment.exporter_class = "nbconvert.exporters.NotebookExporter"
    c.GenerateFeedback.preprocessors = [CourseConfigurationBroken]
