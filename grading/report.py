"""``make grades``: the grades CSV and a per-exercise summary, from nbgrader's gradebook.

Each row of the CSV is one student who submitted: ``status`` is ``graded`` or
``ungraded`` (with the reason); an ungraded submission has an empty score, never 0.
Grade cells are grouped into exercises by the part of their ``grade_id`` before the
first ``-`` (``pla-halts-with-no-training-mistake`` belongs to exercise ``pla``).
"""
import csv
import warnings
from pathlib import Path

from .course import Course, CourseError

__all__ = ["exercise_of", "collect", "grades"]


def exercise_of(grade_id):
    """The exercise a grade cell belongs to.

    Examples
    --------
    >>> exercise_of("pla-stops-after-max-updates")
    'pla'
    """
    return grade_id.split("-", 1)[0]


def _fmt(x):
    return f"{x:g}"


def collect(root, assignment):
    """Grades of the last autograde run of ``assignment``.

    Returns
    -------
    exercises : dict
        ``{exercise: max_points}`` in notebook order.
    rows : list of dict
        One per submission: ``student``, ``status``, ``reason``, ``score`` (None when
        ungraded), ``max_score`` and ``{exercise: score}`` under ``parts``.
    """
    from nbgrader.api import Gradebook, MissingEntry

    course = Course(root)
    course.check_assignment(assignment)
    status = course.read_status(assignment)
    if not status:
        raise CourseError(f"{assignment!r} has not been autograded yet: run `make autograde ASSIGNMENT={assignment}` first")
    rows = []
    exercises = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with Gradebook(course.db_url, course.course_id) as gb:
            a = gb.find_assignment(assignment)
            for nb in a.notebooks:
                for cell in sorted(nb.grade_cells, key=lambda c: [s.name for s in nb.source_cells].index(c.name)
                                   if c.name in [s.name for s in nb.source_cells] else 0):
                    ex = exercise_of(cell.name)
                    exercises[ex] = exercises.get(ex, 0.0) + float(cell.max_score)
            total = sum(exercises.values())
            for student in sorted(status):
                info = status[student]
                row = {"student": student, "status": info["status"], "reason": info.get("reason", ""),
                       "score": None, "max_score": total, "parts": {}}
                if info["status"] == "graded":
                    try:
                        sub = gb.find_submission(assignment, student)
                    except MissingEntry:
                        row.update(status="ungraded", reason="no grades in the gradebook (re-run make autograde)")
                    else:
                        parts = {ex: 0.0 for ex in exercises}
                        for snb in sub.notebooks:
                            for g in snb.grades:
                                parts[exercise_of(g.name)] += float(g.score or 0.0)
                        row["parts"] = parts
                        row["score"] = sum(parts.values())
                rows.append(row)
    return exercises, rows


def grades(root, assignment, *, out="grades.csv", echo=print):
    """Write the grades CSV and print the per-exercise summary.

    The summary (also written next to the CSV, as ``<out stem>-summary.txt``) gives for
    each exercise its points, the mean score over graded submissions and how many
    students earned all / some of its points, then lists the submissions that could
    not be graded, with the reason.

    Returns
    -------
    Path
        The CSV written.
    """
    exercises, rows = collect(root, assignment)
    out = Path(out)
    if not out.is_absolute():
        out = Path(root).resolve() / out
    with out.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student_id", "assignment", "status", "score", "max_score"]
                   + [f"{ex} (/{_fmt(p)})" for ex, p in exercises.items()] + ["reason"])
        for r in rows:
            graded = r["status"] == "graded"
            w.writerow([r["student"], assignment, r["status"], _fmt(r["score"]) if graded else "", _fmt(r["max_score"])]
                       + [_fmt(r["parts"][ex]) if graded else "" for ex in exercises] + [r["reason"]])

    graded = [r for r in rows if r["status"] == "graded"]
    lines = [f"{assignment}: {len(graded)} graded, {len(rows) - len(graded)} not graded, of {len(rows)} submission(s)",
             "", f"{'exercise':<12}{'points':>8}{'mean':>8}{'full':>8}{'some':>8}{'none':>8}"]
    for ex, pts in exercises.items():
        scores = [r["parts"][ex] for r in graded]
        mean = sum(scores) / len(scores) if scores else float("nan")
        full = sum(s >= pts for s in scores)
        some = sum(0 < s < pts for s in scores)
        lines.append(f"{ex:<12}{_fmt(pts):>8}{mean:>8.2f}{full:>8}{some:>8}{len(scores) - full - some:>8}")
    if graded:
        lines.append(f"{'total':<12}{_fmt(sum(exercises.values())):>8}{sum(r['score'] for r in graded) / len(graded):>8.2f}")
    ungraded = [r for r in rows if r["status"] != "graded"]
    lines.append("")
    if ungraded:
        lines.append("Submissions that could not be graded (no score; grade them by hand):")
        lines += [f"  {r['student']}: {r['reason']}" for r in ungraded]
    else:
        lines.append("Every submission was graded.")
    summary = out.with_name(out.stem + "-summary.txt")
    summary.write_text("\n".join(lines) + "\n")
    for line in lines:
        echo(line)
    echo(f"\nwrote {out} and {summary}")
    return out
