"""Command line of the grading pipeline: ``python -m grading <command> ...``.

Commands (run from the course directory, or pass ``--course``):

  release   [ASSIGNMENT ...]      student versions into release/ (nbgrader generate_assignment);
                                  without an assignment, every assignment in source/
  autograde ASSIGNMENT            grade the new and changed submissions in submitted/
            [--student ID] [--force] [--jobs N] [--dask-scheduler tcp://HOST:PORT]
  feedback  ASSIGNMENT            HTML feedback into feedback/ (hidden tests removed) for the
            [--student ID] [--force]  submissions graded since their feedback was made
  grades    ASSIGNMENT [--out F] [--format csv|canvas|moodle] [--provisional] [--roster F]
                                  grades-ASSIGNMENT.csv, its summary and pictures, the
                                  course's grades.csv (and a file Canvas or Moodle imports)
  collect-lms ASSIGNMENT DOWNLOAD [--roster F] [--times F]
                                  a Canvas submissions.zip or Moodle download into submitted/
  extension ASSIGNMENT STUDENT [--due "2026-11-24 23:59 UTC"] [--reason TEXT]
                                  a later due date for one student (no --due: show it;
                                  --due "": remove it), in extensions.csv and the gradebook
  reviewed  ASSIGNMENT STUDENT [CELL ...]
                                  a grader looked again at answers changed since their grade
  audit     ASSIGNMENT            list code in the submissions that looks like tampering or copying
  check     NOTEBOOK...           run a notebook's released visible tests in the sandbox; exit 1 if one fails
            [--json] [--sandbox required|preferred]
  regrade-check ASSIGNMENT STUDENT [CELL]
                                  run a student's test cells again as graded (same seeds), show CELL
"""
import argparse
import sys

from .course import CourseError


def _jobs(text):
    """``--jobs``: a positive whole number (empty: one per core)."""
    if text in ("", "0"):
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number of processes, got {text!r}")
    return value


def _parser():
    """The command line's parser: one subcommand per action of the course."""
    parser = argparse.ArgumentParser(prog="python -m grading", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--course", default=".", help="the course directory (default: the current directory)")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("release")
    p.add_argument("assignments", nargs="*", metavar="assignment",
                   help="assignments to release (default: every assignment in source/)")
    for name in ("autograde", "feedback", "grades", "audit"):
        p = sub.add_parser(name)
        p.add_argument("assignment")
        if name == "grades":
            p.add_argument("--out", default=None, help="the assignment's CSV (default: grades-ASSIGNMENT.csv)")
            p.add_argument("--format", default="csv", choices=("csv", "canvas", "moodle"),
                           help="also write the assignment's final totals as Canvas or Moodle import them")
            p.add_argument("--provisional", action="store_true",
                           help="also write the provisional totals for the LMS, in a file of their own")
            p.add_argument("--roster", default=None, help="the roster for the LMS file (default: roster.csv)")
        if name == "feedback":
            p.add_argument("--student", default=None, help="make only this student's feedback")
            p.add_argument("--force", action="store_true",
                           help="make every graded submission's feedback again, changed or not")
        if name == "autograde":
            p.add_argument("--timeout", type=int, default=None, help="seconds per cell (default: nbgrader_config.py)")
            p.add_argument("--student", default=None, help="grade only this student's submission")
            p.add_argument("--force", action="store_true", help="grade every submission again, changed or not")
            p.add_argument("--jobs", type=_jobs, default=None,
                           help="submissions graded at once (default: one per core; 1: in this process)")
            p.add_argument("--dask-scheduler", default=None, metavar="tcp://HOST:PORT",
                           help="run the submissions on this Dask cluster's workers")
            p.add_argument("--progress", choices=("bar", "lines"), default=None,
                           help="a progress bar, or a line every few submissions or seconds (default: the bar "
                                "on a terminal, lines in a log)")
    p = sub.add_parser("collect-lms")
    p.add_argument("assignment")
    p.add_argument("download", help="Canvas's submissions.zip, Moodle's download, or the folder it unpacks to")
    p.add_argument("--roster", default=None, help="the roster (default: roster.csv in the course directory)")
    p.add_argument("--times", default=None, help="submission times (a CSV, Canvas's submissions JSON, or Moodle's "
                                                 "grading worksheet)")
    p = sub.add_parser("extension")
    p.add_argument("assignment")
    p.add_argument("student")
    p.add_argument("--due", default=None, help='the student\'s due date ("2026-11-24 23:59 UTC"; "" removes it)')
    p.add_argument("--reason", default="", help="why (shown in the feedback and the Formgrader)")
    p = sub.add_parser("reviewed")
    p.add_argument("assignment")
    p.add_argument("student")
    p.add_argument("cells", nargs="*", help="grade_ids (default: every cell listed for review)")
    p = sub.add_parser("check")
    p.add_argument("notebooks", nargs="+")
    p.add_argument("--timeout", type=int, default=None, help="CPU seconds per cell (default: nbgrader_config.py)")
    p.add_argument("--json", action="store_true", help="one line of JSON: each notebook's report (the Validate button)")
    p.add_argument("--sandbox", default="required", choices=("required", "preferred"),
                   help="preferred: where the sandbox cannot start, run without it and say so (default: refuse)")
    p = sub.add_parser("regrade-check")
    p.add_argument("assignment")
    p.add_argument("student")
    p.add_argument("cell", nargs="?", default=None, help="grade_id of one test cell (default: all)")
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except CourseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        from .gradebook import database_error_line, is_database_error
        from .gradebook import place as gradebook_place
        if not is_database_error(exc):
            raise
        try:
            from .course import Course
            where = f" ({gradebook_place(Course(args.course).db_url)})"
        except Exception:  # the message is about the database
            where = ""
        print(f"error: the gradebook{where} does not answer: {database_error_line(exc)}; start its database "
              "server (or correct c.CourseDirectory.db_url in nbgrader_config.py) and run the same command again",
              file=sys.stderr)
        return 2


def _run(args):
    """Do what ``args`` (parsed by :func:`_parser`) ask: the subcommand's entry in :data:`COMMANDS`; the exit status."""
    return COMMANDS[args.command](args) or 0


def _release(args):
    from .autograde import release
    from .course import Course
    names = args.assignments or Course(args.course).assignments()
    if not names:
        raise CourseError(f"no assignment to release: {Course(args.course).source_dir} holds none")
    for name in names:
        where = release(args.course, name)
        print(f"released {name} into {where}")


def _autograde(args):
    from traitlets.config import Config

    from .autograde import autograde
    overrides = Config()
    if args.timeout is not None:
        overrides.Execute.timeout = args.timeout
    try:
        autograde(args.course, args.assignment, overrides=overrides, student=args.student or None,
                  force=args.force, jobs=args.jobs, scheduler=args.dask_scheduler or None,
                  progress={"bar": True, "lines": False}.get(args.progress))
    except KeyboardInterrupt:
        print("\ninterrupted: the submissions graded so far are saved; run the same command again "
              "to grade the rest", file=sys.stderr)
        return 130
    return 0


def _feedback(args):
    from .feedback import feedback
    feedback(args.course, args.assignment, student=args.student or None, force=args.force)


def _grades(args):
    from .report import grades
    grades(args.course, args.assignment, out=args.out, form=args.format, provisional=args.provisional,
           roster=args.roster)


def _collect_lms(args):
    from .lms import collect_lms
    collect_lms(args.course, args.assignment, args.download, roster=args.roster, times=args.times)


def _extension(args):
    from .classrun import extension
    extension(args.course, args.assignment, args.student, due=args.due, reason=args.reason)


def _reviewed(args):
    from .classrun import ClassRun
    from .course import Course
    course = Course(args.course)
    course.check_assignment(args.assignment)
    done = ClassRun(course, args.assignment).reviewed(args.student, args.cells or None)
    print(f"{args.student}: {', '.join(done)} no longer listed for review on {args.assignment}" if done else
          f"{args.student}: no answer of {args.assignment} was listed for review")


def _audit(args):
    from .audit import audit
    audit(args.course, args.assignment)


def _regrade_check(args):
    from .replay import regrade_check
    regrade_check(args.course, args.assignment, args.student, args.cell)


def _check(args):
    from .validate import check
    return check(args.notebooks, timeout=args.timeout, course=args.course, as_json=args.json, sandbox=args.sandbox)


COMMANDS = {"release": _release, "autograde": _autograde, "feedback": _feedback, "grades": _grades,
            "collect-lms": _collect_lms, "extension": _extension, "reviewed": _reviewed, "audit": _audit,
            "regrade-check": _regrade_check, "check": _check}
"""The subcommands, by name: each takes the parsed arguments and returns the exit status (None: 0)."""

if __name__ == "__main__":
    sys.exit(main())
