"""``make grades``: grade files and the statistics a course team reads, from nbgrader's gradebook.

For ``ASSIGNMENT`` it writes, in the course directory:

* ``grades-<assignment>.csv`` — one row per student: ``status`` (final, provisional,
  ungraded with the reason, ...), ``late_seconds``, ``raw_score``, ``penalty`` (the course's
  late policy, :mod:`grading.late`, computed from the score now), ``score`` after the
  penalty, one column per exercise; a submission that was not graded has empty scores,
  never 0;
* ``grades-<assignment>-summary.txt`` — per exercise: points, mean, how many earned
  full/some/no points and the distribution of scores; per graded cell the share of
  submissions that pass it with a small bar of its scores, and the most common failure
  messages, grouped; late submissions and extensions; answers changed since a grader's
  work; who awaits manual grading (their totals are provisional); the submissions that
  could not be graded, with the reason; what the LMS files hold and leave out;
* ``grades-<assignment>-histogram.png`` — the distribution of total scores, final and
  provisional apart; ``grades-<assignment>-questions.png`` — one small distribution per
  graded cell;
* ``grades.csv`` — the whole course: one row per student, a score and a status per assignment;
* with ``FORMAT=canvas`` / ``FORMAT=moodle`` also ``grades-canvas.csv`` / ``grades-moodle.csv``
  for this assignment, which those platforms import as they are, final totals only (see
  :mod:`grading.exporters`; ``PROVISIONAL=1`` adds ``grades-<lms>-provisional.csv``). LMS files
  of an earlier run that this run did not write are removed, so none is left stale.

Grade cells are grouped into exercises by the part of their ``grade_id`` before the
first ``-`` (``pla-halts-with-no-training-mistake`` belongs to exercise ``pla``).
"""
import json
import re
from collections import Counter
from pathlib import Path

from . import gradebook as gbk
from .course import Course, CourseError
from .exporters import (
    FINAL,
    FORMATS,
    NOT_SUBMITTED,
    PROVISIONAL,
    assignment_grades,
    course_table,
    exercise_of,
    fmt,
    lms_export,
    write_assignment_csv,
    write_course_csv,
)

__all__ = ["collect", "exercise_of", "failures", "grades", "histogram", "statistics"]

BARS = " ▁▂▃▄▅▆▇█"


def collect(root, assignment, *, with_tests=False):
    """Grades of ``assignment`` as recorded in the gradebook (and the course's grading records).

    Returns
    -------
    exercises : dict
        ``{exercise: max_points}`` in notebook order.
    rows : list of grading.exporters.GradeRow
        One per student who submitted.
    tests : dict
        Only with ``with_tests=True``: ``{grade_id: max points}`` of the autograded test cells.
    """
    from nbgrader.api import MissingEntry

    course = Course(root)
    course.check_assignment(assignment)
    try:
        grades = assignment_grades(course, assignment)
    except MissingEntry:
        grades = None
    rows = _submitted_rows(grades, assignment)
    return (grades.exercises, rows, grades.tests) if with_tests else (grades.exercises, rows)


def _submitted_rows(grades, assignment):
    """The rows of the students who submitted (``grades`` None: the gradebook lacks the assignment); none: an error."""
    rows = [r for r in grades.rows if r.status != NOT_SUBMITTED] if grades is not None else []
    if not rows:
        raise CourseError(f"{assignment!r} has not been autograded yet: "
                          f"run `make autograde ASSIGNMENT={assignment}` first")
    return rows


def _bar(counts, values):
    """A one-line picture of how many submissions had each value (``values`` in order)."""
    top = max(counts.values()) if counts else 0
    return "".join(BARS[round(8 * counts.get(v, 0) / top)] if top else " " for v in values)


def statistics(exercises, tests, rows, *, messages=None, manual=None):
    """Summary lines: per exercise mean and distribution, per graded cell pass rate and failures.

    Examples
    --------
    >>> from grading.exporters import GradeRow
    >>> rows = [GradeRow("a", "x", 2.0, status="final", parts={"a": 2.0}, cells={"a-x": 2.0}, score=2.0),
    ...         GradeRow("b", "x", 2.0, status="final", parts={"a": 0.0}, cells={"a-x": 0.0}, score=0.0)]
    >>> print("\\n".join(statistics({"a": 2.0}, {"a-x": 2.0}, rows)))  # doctest: +NORMALIZE_WHITESPACE
    exercise      points    mean    full    some    none  distribution (points x students)
    a                  2    1.00       1       0       1  0x1 2x1
    total              2    1.00
    <BLANKLINE>
    test cell                                       points   passed  scores (0 .. points)
    a-x                                                  2    50.0%  █ █
    """
    scored = [r for r in rows if r.scored]
    return _exercise_lines(exercises, scored) + [""] + _cell_lines({**tests, **(manual or {})}, scored,
                                                                   messages=messages or {}, manual=manual or {})


def _exercise_lines(exercises, scored):
    """Per exercise: points, mean, how many got full, some and no points, the distribution; then the mean total."""
    lines = [f"{'exercise':<12}{'points':>8}{'mean':>8}{'full':>8}{'some':>8}{'none':>8}"
             "  distribution (points x students)"]
    for ex, pts in exercises.items():
        scores = [r.parts.get(ex, 0.0) for r in scored]
        mean = sum(scores) / len(scores) if scores else float("nan")
        full = sum(s >= pts for s in scores)
        some = sum(0 < s < pts for s in scores)
        dist = " ".join(f"{fmt(v)}x{n}" for v, n in sorted(Counter(scores).items()))
        lines.append(f"{ex:<12}{fmt(pts):>8}{mean:>8.2f}{full:>8}{some:>8}{len(scores) - full - some:>8}  {dist}")
    if scored:
        lines.append(f"{'total':<12}{fmt(sum(exercises.values())):>8}"
                     f"{sum(r.score for r in scored) / len(scored):>8.2f}")
    return lines


def _cell_lines(cells, scored, *, messages, manual):
    """Per graded cell: the share that passes, a bar of its scores, a warning when few pass, its commonest failures."""
    lines = [f"{'test cell':<48}{'points':>6}{'passed':>9}  scores (0 .. points)"]
    for gid, pts in cells.items():
        results = [r.cells.get(gid) for r in scored if gid in r.cells]
        if not results:
            lines.append(f"{gid:<48}{fmt(pts):>6}{'-':>9}")
            continue
        rate = sum(s >= pts for s in results) / len(results)
        by_hand = "   (graded by hand)" if gid in manual else ""
        lines.append(f"{gid:<48}{fmt(pts):>6}{100 * rate:>8.1f}%  {_bar(Counter(results), _score_values(results, pts))}"
                     f"{_few_pass(rate)}{by_hand}")
        lines += [f"{'':<6}{n:>4} x {text}" for text, n in messages.get(gid, [])[:3]]
    return lines


def _score_values(results, pts):
    """The values a cell's bar shows: those scored, 0 and full points, and every whole point up to 12."""
    steps = {float(v) for v in range(int(pts) + 1)} if float(pts).is_integer() and pts <= 12 else set()
    return sorted(set(results) | {0.0, float(pts)} | steps)


def _few_pass(rate):
    """The warning beside a cell that nobody, or fewer than one in four, passes."""
    if rate == 0:
        return "   <- nobody passes this test"
    return "   <- fewer than 1 in 4 pass" if rate < 0.25 else ""


_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def _message(output):
    """A failing test cell's error as one comparable line (numbers as #)."""
    ename = str(output.get("ename", "") or "Error")
    evalue = str(output.get("evalue", "") or "").strip().splitlines()
    text = f"{ename}: {evalue[0]}" if evalue else ename
    text = _NUMBER.sub("#", text)
    return text[:117] + "..." if len(text) > 120 else text


def failures(course, assignment, rows, tests):
    """``{grade_id: [(message, count), ...]}``: the failure messages of each test cell, most common first.

    Read from the autograded notebooks of the scored submissions; numbers in a message are
    written ``#`` so that the same failure on different data counts once.
    """
    found = {gid: Counter() for gid in tests}
    for r in rows:
        if not r.scored:
            continue
        for path in sorted((course.autograded_dir / r.student / assignment).glob("*.ipynb")):
            try:
                nb = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            for cell in nb.get("cells", []):
                gid = ((cell.get("metadata") or {}).get("nbgrader") or {}).get("grade_id")
                if gid not in found or r.cells.get(gid, 0.0) >= tests[gid]:
                    continue
                errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
                if errors:
                    found[gid][_message(errors[-1])] += 1
    return {gid: c.most_common() for gid, c in found.items() if c}


def histogram(path, rows, max_score, *, title):
    """Draw the distribution of total scores into a PNG at ``path``: final and provisional totals apart."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    final = [r.score for r in rows if r.status == FINAL]
    waiting = [r.score for r in rows if r.status == PROVISIONAL]
    fig = Figure(figsize=(6, 3.5))
    ax = fig.subplots()
    top = max(1, int(-(-max_score // 1)))
    bins = [b - 0.5 for b in range(top + 2)]
    ax.hist([final, waiting], bins=bins, stacked=True, color=["tab:blue", "tab:orange"], edgecolor="white",
            label=[f"final ({len(final)})", f"provisional ({len(waiting)})"])
    ax.set_xlim(-0.5, top + 0.5)
    ax.set_xlabel(f"total score (of {fmt(max_score)})")
    ax.set_ylabel("submissions")
    ax.set_title(f"{title} — {len(final) + len(waiting)} scored")
    ax.legend(loc="upper left", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return Path(path)


def question_plots(path, rows, cells, *, title):
    """One small bar chart per graded cell (``{grade_id: points}``) of the scores the scored submissions got."""
    import math

    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    scored = [r for r in rows if r.scored]
    n = max(1, len(cells))
    cols = min(4, n)
    rows_ = math.ceil(n / cols)
    fig = Figure(figsize=(2.6 * cols, 1.9 * rows_))
    axes = fig.subplots(rows_, cols, squeeze=False)
    for ax, (gid, pts) in zip(axes.flat, cells.items(), strict=False):
        counts = Counter(r.cells.get(gid, 0.0) for r in scored if gid in r.cells)
        values = sorted(set(counts) | {0.0, float(pts)})
        ax.bar([fmt(v) for v in values], [counts.get(v, 0) for v in values], color="tab:blue")
        ax.set_title(gid if len(gid) <= 30 else gid[:28] + "…", fontsize=7)
        ax.tick_params(labelsize=6)
    for ax in list(axes.flat)[len(cells):]:
        ax.set_visible(False)
    fig.suptitle(f"{title}: scores per graded cell ({len(scored)} scored)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return Path(path)


def _remove_stale(out_dir, keep):
    """LMS files of an earlier run that this run did not write: removed (a stale file would be imported as current)."""
    removed = []
    for form in FORMATS[1:]:
        for path in (out_dir / f"grades-{form}.csv", out_dir / f"grades-{form}-provisional.csv"):
            if path.exists() and path not in keep:
                path.unlink()
                removed.append(path.name)
    return removed


def _lms_lines(report, form, roster):
    """The summary's lines about the LMS file of ``report`` (an :func:`lms_export`), the roster at ``roster``."""
    lines = ["", f"{report.path.name}: {len(report.exported)} final total(s) for {form.title()} (roster {roster})"]
    if report.provisional_path is not None:
        lines.append(f"{report.provisional_path.name}: {len(report.provisional)} provisional total(s), under the "
                     f"column marked (provisional)")
    elif report.provisional:
        lines.append(f"  left out, provisional ({len(report.provisional)}): "
                     + ", ".join(s for s, _ in report.provisional))
    if report.not_final:
        lines.append(f"  left out, no total ({len(report.not_final)}): "
                     + ", ".join(f"{s} ({st})" for s, st in report.not_final))
    if report.unidentifiable:
        lines.append(f"  left out, LMS IDENTITY NOT WRITABLE ({len(report.unidentifiable)}): "
                     f"{', '.join(report.unidentifiable)} (it begins like a spreadsheet formula and is written "
                     f"quoted, which the LMS would not recognise; enter their grades by hand)")
    if report.unknown:
        lines.append(f"  left out, NOT IN THE ROSTER ({len(report.unknown)}): {', '.join(report.unknown)} "
                     f"(the LMS would refuse or misplace them; add them to {roster})")
    return lines


def grades(root, assignment, *, out=None, form="csv", provisional=False, roster=None, echo=print):
    """Write the grade files of ``assignment`` and the course, and print the summary.

    Parameters
    ----------
    root : str or Path
        The course directory.
    assignment : str
    out : str or Path, optional
        The assignment's CSV (default ``grades-<assignment>.csv`` in the course directory);
        the summary, pictures and course-wide files go next to it.
    form : {"csv", "canvas", "moodle"}
        Also write the assignment's final totals as the LMS imports them.
    provisional : bool
        Also write the provisional totals for the LMS, in a file of their own under a column
        marked "(provisional)".
    roster : str or Path, optional
        The roster for the LMS file (default ``roster.csv`` in the course directory).
    echo : callable
        Where the summary lines go.

    Returns
    -------
    Path
        The assignment's CSV.
    """
    from .lms import read_roster, roster_path

    if form not in FORMATS:
        raise CourseError(f"unknown grades format {form!r}: expected one of {', '.join(FORMATS)}")
    course = Course(root)
    course.check_assignment(assignment)
    lms_roster = read_roster(roster_path(course, roster)) if form != "csv" else None
    out = _output_path(course, assignment, out)
    grades_, table = _read_gradebook(course, assignment)
    rows = _submitted_rows(grades_, assignment)
    write_assignment_csv(out, grades_)
    lines = _summary(course, grades_, rows)
    written = [out]
    if form != "csv":
        report = lms_export(course, grades_, form, lms_roster, out.parent, provisional=provisional)
        written += [p for p in (report.path, report.provisional_path) if p is not None]
        lines += _lms_lines(report, form, _shown(course, lms_roster.path))
    removed = _remove_stale(out.parent, set(written))
    if removed:
        lines += ["", f"removed {', '.join(removed)} of an earlier run (FORMAT={form} writes no such file)"]
    pages = _write_summary_and_pictures(out, lines, grades_, rows)
    course_csv = write_course_csv(out.parent / "grades.csv", table)
    for line in lines:
        echo(line)
    echo("\nwrote " + ", ".join(_shown(course, p) for p in [out, *pages, course_csv, *written[1:]]))
    return out


def _shown(course, path):
    """``path`` as the summary names it: relative to the course directory when inside it."""
    path = Path(path)
    return str(path.relative_to(course.root)) if path.is_relative_to(course.root) else str(path)


def _output_path(course, assignment, out):
    """The assignment's CSV: ``out`` (relative to the course directory), default ``grades-<assignment>.csv``."""
    out = Path(out) if out is not None else Path(f"grades-{assignment}.csv")
    return out if out.is_absolute() else course.root / out


def _read_gradebook(course, assignment):
    """``(AssignmentGrades or None, {assignment: AssignmentGrades})``: the assignment's rows and the course's table."""
    from nbgrader.api import MissingEntry

    with gbk.open_gradebook(course) as gb:
        try:
            grades_ = assignment_grades(course, assignment, gb=gb)
        except MissingEntry:
            grades_ = None
        return grades_, course_table(course, gb=gb)


def _summary(course, grades_, rows):
    """The summary's lines: the counts, the statistics, what needs a look, what is not final and why."""
    assignment = grades_.assignment
    final = [r for r in rows if r.status == FINAL]
    waiting = [r for r in rows if r.status == PROVISIONAL]
    other = [r for r in rows if not r.scored]
    lines = [f"{assignment}: {len(final)} final, {len(waiting)} provisional, {len(other)} not graded, "
             f"of {len(rows)} submission(s)", ""]
    lines += statistics(grades_.exercises, grades_.tests, rows,
                        messages=failures(course, assignment, rows, grades_.tests), manual=grades_.manual)
    lines += _late_lines(rows) + _extension_lines(rows) + _review_lines(rows)
    lines.append("")
    return lines + _not_final_lines(waiting, other)


def _late_lines(rows):
    late = [r for r in rows if r.scored and r.late_seconds]
    if not late:
        return []
    return ["", "Late submissions (score after the course's late penalty, computed from the score now):"] + [
        f"  {r.student}: {r.late_seconds / 3600:.1f} h late, penalty {fmt(r.penalty)}, "
        f"{fmt(r.raw_score)} -> {fmt(r.score)}" for r in late]


def _extension_lines(rows):
    extended = [r for r in rows if r.extension]
    if not extended:
        return []
    return ["", "Extensions (extensions.csv):"] + [f"  {r.student}: {r.extension}" for r in extended]


def _review_lines(rows):
    review = [r for r in rows if r.review]
    if not review:
        return []
    return ["", "Changed since a manual grade or comment was given (kept; look at them again in the "
                "Formgrader, or `make reviewed`):"] + [f"  {r.student}: {', '.join(r.review)}" for r in review]


def _not_final_lines(waiting, other):
    """The provisional totals and the submissions not graded, each with its reason (or that every total is final)."""
    if not waiting and not other:
        return ["Every submission has a final total."]
    lines = []
    if waiting:
        lines.append(f"Provisional totals ({len(waiting)}; in the course's CSVs marked provisional, left out of the "
                     "LMS files unless PROVISIONAL=1) — awaiting a grader:")
        lines += [f"  {r.student}: {r.reason}" for r in waiting]
    if other:
        lines.append(f"Not graded ({len(other)}; empty in every file, never 0):")
        lines += [f"  {r.student}: {r.status}: {r.reason}" for r in other]
    return lines


def _write_summary_and_pictures(out, lines, grades_, rows):
    """``-summary.txt``, ``-histogram.png`` and ``-questions.png`` beside the assignment's CSV ``out``."""
    assignment = grades_.assignment
    summary = out.with_name(out.stem + "-summary.txt")
    summary.write_text("\n".join(lines) + "\n")
    png = histogram(out.with_name(out.stem + "-histogram.png"), rows, grades_.max_score, title=assignment)
    questions = question_plots(out.with_name(out.stem + "-questions.png"), rows, {**grades_.tests, **grades_.manual},
                               title=assignment)
    return [summary, png, questions]
