"""``make audit`` of a class of 300: its time, and what it finds of planted copies.

A class of the class benchmark's assignment (ps1) written independently (tests/honest_class.py:
each student answers each exercise with one of the versions the course knows, in a style of their
own), with five copiers who disguised a classmate's answers (other names, layout, comments). Measured
in one run on this machine:

* the whole ``make audit`` (``python -m grading audit``: every notebook read, every cell's syntax
  tree walked, the class compared pair by pair), against a plain pass that only reads every notebook
  and parses every code cell (the least any audit of the class does). Goal: a class of 300 in under
  a minute;
* the copied pairs it reports (found, missed) and the independent pairs it reports (false alarms).

    python -m benchmarks.bench_audit [N]        # default N=300
"""
import ast
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import paired

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

ASSIGNMENT = "ps1_perceptron"
COPIED = (3, 41, 97, 150, 222)        # the classmates whose answers a copier disguised


def build(course, n):
    """``n`` independent submissions of ps1 and one disguised copy of each student in COPIED."""
    from grading_helpers import fill, released_notebook, submit
    from honest_class import honest_class

    released = released_notebook(course, ASSIGNMENT)
    for student, answers in honest_class(ASSIGNMENT, n, seed=2024, copies=[i for i in COPIED if i < n]).items():
        submit(course, student, fill(released, answers))


def plain_pass(course):
    """Read every submitted notebook and parse every code cell: the least any audit does."""
    for path in sorted((course / "submitted").glob(f"*/{ASSIGNMENT}/*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "code":
                try:
                    ast.parse("".join(cell["source"]))
                except SyntaxError:
                    pass


def main(n=None):
    import warnings
    warnings.filterwarnings("ignore")
    from grading_helpers import make_course

    n = int(n or os.environ.get("BENCH_AUDIT_SIZE", 300))
    with tempfile.TemporaryDirectory() as tmp:
        course = make_course(Path(tmp))
        build(course, n)
        report = course / "autograded" / f"audit-{ASSIGNMENT}.txt"

        def whole_audit():
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "grading", "--course", str(course), "audit", ASSIGNMENT],
                           check=True, capture_output=True)
            return time.perf_counter() - t0

        def baseline():
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import sys; sys.path[:0] = [sys.argv[1]]; "
                            "from benchmarks.bench_audit import plain_pass; from pathlib import Path; "
                            "plain_pass(Path(sys.argv[2]))", str(ROOT), str(course)], check=True)
            return time.perf_counter() - t0

        timing = paired.alternate(whole_audit, baseline, runs=3)
        total = n + len(COPIED)
        paired.row(f"make audit, a class of {total} (ps1)", timing, goal="< 60 s", met=timing.project < 60)
        lines = report.read_text().splitlines()
        reported = {tuple(sorted(line.split(":")[0].split(" and "))) for line in lines
                    if " and " in line and "cell(s), similarity" in line}
        planted = {tuple(sorted((f"copy_of_s{i:04d}", f"s{i:04d}"))) for i in COPIED if i < n}
        found, false = reported & planted, reported - planted
        print(f"  planted copies: {len(planted)}; found {len(found)}, missed {len(planted - found)} "
              f"({', '.join(' & '.join(p) for p in sorted(planted - found)) or 'none'}); "
              f"independent pairs reported (false alarms): {len(false)} of {total * (total - 1) // 2}")
        paired.row("copied pairs found", project=len(found), unit="", goal=f"{len(planted)}",
                   met=found == planted)
        paired.row("false alarms (independent pairs reported)", project=len(false), unit="", goal="0",
                   met=not false)


if __name__ == "__main__":
    main(*sys.argv[1:2])
    paired.print_table()
