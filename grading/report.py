"""``make grades``: grade files and the statistics a course team reads, from nbgrader's gradebook.

For ``ASSIGNMENT`` it writes, in the course directory:

* ``grades-<assignment>.csv`` — one row per student: ``status`` (graded, ungraded with
  the reason, ...), ``late_seconds``, ``raw_score``, ``penalty`` (the course's late policy,
  :mod:`grading.late`), ``score`` after the penalty, one column per exercise; a submission
  that was not graded has empty scores, never 0;
* ``grades-<assignment>-summary.txt`` — per exercise: points, mean, how many earned
  full/some/no points and the distribution of scores; per test cell the share of graded
  submissions that pass it (a test nobody passes stands out); late submissions; the
  submissions that could not be graded, with the reason;
* ``grades-<assignment>-histogram.png`` — the distribution of total scores;
* ``grades.csv`` — the whole course: one row per student, one column per assignment;
* with ``FORMAT=canvas`` / ``FORMAT=moodle`` also ``grades-canvas.csv`` / ``grades-moodle.csv``,
  files those platforms import as they are (see :mod:`grading.exporters`).

Grade cells are grouped into exercises by the part of their ``grade_id`` before the
first ``-`` (``pla-halts-with-no-training-mistake`` belongs to exercise ``pla``).
"""
import warnings
from collections import Counter
from pathlib import Path

from .course import Course, CourseError
from .exporters import (
    FORMATS,
    GRADED,
    NOT_SUBMITTED,
    SCORED,
    assignment_rows,
    course_table,
    exercise_of,
    fmt,
    write_assignment_csv,
    write_canvas_csv,
    write_course_csv,
    write_moodle_csv,
)

__all__ = ["collect", "exercise_of", "grades", "histogram", "statistics"]


def _gradebook(course):
    from nbgrader.api import Gradebook
    return Gradebook(course.db_url, course.course_id)


def collect(root, assignment, *, with_tests=False):
    """Grades of ``assignment`` as recorded in the gradebook (and the autograde status file).

    Returns
    -------
    exercises : dict
        ``{exercise: max_points}`` in notebook order.
    rows : list of dict
        One per student who submitted: ``student``, ``status``, ``reason``, ``score`` (after
        any late penalty; None unless scored), ``raw_score``, ``penalty``, ``late_seconds``,
        ``max_score``, ``{exercise: score}`` under ``parts``, ``{grade_id: score}`` under ``cells``.
    tests : dict
        Only with ``with_tests=True``: ``{grade_id: max points}`` of the autograded test cells.
    """
    from nbgrader.api import MissingEntry

    course = Course(root)
    course.check_assignment(assignment)
    status = course.read_status(assignment)
    submitted = course.submissions(assignment)
    try:
        with warnings.catch_warnings(), _gradebook(course) as gb:
            warnings.simplefilter("ignore")
            exercises, tests, rows = assignment_rows(gb, assignment, status=status, submitted=submitted)
    except MissingEntry:
        raise CourseError(f"{assignment!r} has not been autograded yet: "
                          f"run `make autograde ASSIGNMENT={assignment}` first") from None
    rows = [r for r in rows if r["status"] != NOT_SUBMITTED]
    if not rows:
        raise CourseError(f"{assignment!r} has not been autograded yet: "
                          f"run `make autograde ASSIGNMENT={assignment}` first")
    return (exercises, rows, tests) if with_tests else (exercises, rows)


def statistics(exercises, tests, rows):
    """Summary lines: per exercise mean and distribution, per test cell pass rate.

    Examples
    --------
    >>> rows = [{"status": "graded", "parts": {"a": 2.0}, "cells": {"a-x": 2.0}, "score": 2.0},
    ...         {"status": "graded", "parts": {"a": 0.0}, "cells": {"a-x": 0.0}, "score": 0.0}]
    >>> print("\\n".join(statistics({"a": 2.0}, {"a-x": 2.0}, rows)))  # doctest: +NORMALIZE_WHITESPACE
    exercise      points    mean    full    some    none  distribution (points x students)
    a                  2    1.00       1       0       1  0x1 2x1
    total              2    1.00
    <BLANKLINE>
    test cell                                       points   passed
    a-x                                                  2    50.0%
    """
    scored = [r for r in rows if r["status"] in SCORED]
    lines = [f"{'exercise':<12}{'points':>8}{'mean':>8}{'full':>8}{'some':>8}{'none':>8}"
             "  distribution (points x students)"]
    for ex, pts in exercises.items():
        scores = [r["parts"].get(ex, 0.0) for r in scored]
        mean = sum(scores) / len(scores) if scores else float("nan")
        full = sum(s >= pts for s in scores)
        some = sum(0 < s < pts for s in scores)
        dist = " ".join(f"{fmt(v)}x{n}" for v, n in sorted(Counter(scores).items()))
        lines.append(f"{ex:<12}{fmt(pts):>8}{mean:>8.2f}{full:>8}{some:>8}{len(scores) - full - some:>8}  {dist}")
    if scored:
        lines.append(f"{'total':<12}{fmt(sum(exercises.values())):>8}"
                     f"{sum(r['score'] for r in scored) / len(scored):>8.2f}")
    lines += ["", f"{'test cell':<48}{'points':>6}{'passed':>9}"]
    for gid, pts in tests.items():
        results = [r["cells"].get(gid) for r in scored if gid in r["cells"]]
        if not results:
            lines.append(f"{gid:<48}{fmt(pts):>6}{'-':>9}")
            continue
        rate = sum(s >= pts for s in results) / len(results)
        flag = "   <- nobody passes this test" if rate == 0 else ("   <- fewer than 1 in 4 pass" if rate < 0.25 else "")
        lines.append(f"{gid:<48}{fmt(pts):>6}{100 * rate:>8.1f}%{flag}")
    return lines


def histogram(path, rows, max_score, *, title):
    """Draw the distribution of total scores of the scored submissions into a PNG at ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    scores = [r["score"] for r in rows if r["status"] in SCORED]
    fig = Figure(figsize=(6, 3.5))
    ax = fig.subplots()
    top = max(1, int(-(-max_score // 1)))
    ax.hist(scores, bins=[b - 0.5 for b in range(top + 2)], color="tab:blue", edgecolor="white")
    ax.set_xlim(-0.5, top + 0.5)
    ax.set_xlabel(f"total score (of {fmt(max_score)})")
    ax.set_ylabel("submissions")
    ax.set_title(f"{title} — {len(scores)} scored")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return Path(path)


def _course_files(course, out_dir, form):
    """grades.csv over every assignment with grades, plus the LMS file of ``form``."""
    statuses = {a: course.read_status(a) for a in course.assignments()}
    submitted = {a: course.submissions(a) for a in course.assignments()}
    with warnings.catch_warnings(), _gradebook(course) as gb:
        warnings.simplefilter("ignore")
        maxima, table = course_table(gb, course.assignments(), statuses=statuses, submitted=submitted)
    written = [write_course_csv(out_dir / "grades.csv", maxima, table)]
    if form == "canvas":
        written.append(write_canvas_csv(out_dir / "grades-canvas.csv", maxima, table))
    elif form == "moodle":
        written.append(write_moodle_csv(out_dir / "grades-moodle.csv", maxima, table))
    return written


def grades(root, assignment, *, out=None, form="csv", echo=print):
    """Write the grade files of ``assignment`` and the course, and print the summary.

    Parameters
    ----------
    root : str or Path
        The course directory.
    assignment : str
    out : str or Path, optional
        The assignment's CSV (default ``grades-<assignment>.csv`` in the course directory);
        the summary, histogram and course-wide files go next to it.
    form : {"csv", "canvas", "moodle"}
        Also write the course's grades as the LMS imports them.
    echo : callable
        Where the summary lines go.

    Returns
    -------
    Path
        The assignment's CSV.
    """
    if form not in FORMATS:
        raise CourseError(f"unknown grades format {form!r}: expected one of {', '.join(FORMATS)}")
    course = Course(root)
    exercises, rows, tests = collect(root, assignment, with_tests=True)
    out = Path(out) if out is not None else Path(f"grades-{assignment}.csv")
    if not out.is_absolute():
        out = course.root / out
    write_assignment_csv(out, assignment, exercises, rows)

    scored = [r for r in rows if r["status"] in SCORED]
    lines = [f"{assignment}: {sum(r['status'] == GRADED for r in rows)} graded, "
             f"{len(scored) - sum(r['status'] == GRADED for r in rows)} waiting for manual grading, "
             f"{len(rows) - len(scored)} not graded, of {len(rows)} submission(s)", ""]
    lines += statistics(exercises, tests, rows)
    late = [r for r in scored if r["late_seconds"]]
    if late:
        lines += ["", "Late submissions (score after the course's late penalty):"]
        lines += [f"  {r['student']}: {r['late_seconds'] / 3600:.1f} h late, penalty {fmt(r['penalty'])}, "
                  f"{fmt(r['raw_score'])} -> {fmt(r['score'])}" for r in late]
    review = [r for r in rows if r.get("review")]
    if review:
        lines += ["", "Changed since a manual grade or comment was given (kept; look at them again in the Formgrader):"]
        lines += [f"  {r['student']}: {', '.join(r['review'])}" for r in review]
    manual = [r for r in rows if r["status"] != GRADED]
    lines.append("")
    if manual:
        lines.append("Submissions without a final score (empty in the CSV; grade them by hand):")
        lines += [f"  {r['student']}: {r['reason'] or r['status']}" for r in manual]
    else:
        lines.append("Every submission was graded.")
    summary = out.with_name(out.stem + "-summary.txt")
    summary.write_text("\n".join(lines) + "\n")
    png = histogram(out.with_name(out.stem + "-histogram.png"), rows, sum(exercises.values()), title=assignment)
    written = [out, summary, png] + _course_files(course, out.parent, form)
    for line in lines:
        echo(line)
    echo("\nwrote " + ", ".join(str(p.relative_to(course.root)) if p.is_relative_to(course.root) else str(p)
                                for p in written))
    return out
