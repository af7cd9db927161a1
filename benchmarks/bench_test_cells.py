"""How long the test cells of each assignment take on the reference solution.

A student presses Validate and waits for every test cell; the autograder runs each under the
cell timeout of nbgrader_config.py. Goal: every test cell of every assignment under 2 s on the
reference solution. Each instructor notebook in source/ is executed in a fresh kernel (nbclient,
as nbgrader does) a few times; the figure is, per assignment, the median over the runs of its
slowest test cell (named). Times are the kernel's own (execute_input to execute_reply).
"""
import statistics
from datetime import datetime
from pathlib import Path

import nbformat

from benchmarks import paired

ROOT = Path(__file__).resolve().parents[1]
GOAL_S = 2.0
RUNS = 3


def cell_times(path):
    """{grade_id: seconds} of the test cells of one execution of the notebook at ``path``."""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=True,
                   resources={"metadata": {"path": str(ROOT)}}).execute()
    times = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            t = cell.metadata["execution"]
            times[meta["grade_id"]] = (datetime.fromisoformat(t["shell.execute_reply"].rstrip("Z"))
                                       - datetime.fromisoformat(t["iopub.execute_input"].rstrip("Z"))).total_seconds()
    return times


def main():
    for path in sorted((ROOT / "source").glob("*/*.ipynb")):
        runs = [cell_times(path) for _ in range(RUNS)]
        median = {gid: statistics.median(r[gid] for r in runs) for gid in runs[0]}
        slowest = max(median, key=median.get)
        paired.row(f"slowest test cell, {path.parent.name}", project=median[slowest],
                   goal=f"<= {GOAL_S:g} s", met=median[slowest] <= GOAL_S, note=slowest)


if __name__ == "__main__":
    main()
    paired.print_table()
