"""What importing costs: ``python -X importtime`` in fresh processes.

Every nbconvert, nbgrader, grading and nbval process imports nbformat, and every notebook
imports course_lib; their import time is paid again in each. The figure is the cumulative
import time Python itself reports for the module (median of several fresh processes,
alternating with the baseline): for course_lib against NumPy alone, which it cannot avoid;
nbformat has no baseline. course_lib must not import SciPy (a second of
import for a few functions) and nbformat must not pull in jsonschema's rfc3987-syntax.
"""
import re
import subprocess
import sys

from benchmarks import paired

RUNS = 7


def import_time(statement, module):
    """A callable: seconds Python reports for importing ``module`` while running ``statement``."""
    def run():
        out = subprocess.run([sys.executable, "-X", "importtime", "-c", statement],
                             capture_output=True, text=True, check=True)
        total = None
        for line in out.stderr.splitlines():
            m = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S+)$", line)
            if m and m.group(2) == module:
                total = int(m.group(1)) / 1e6
        if total is None:
            raise RuntimeError(f"no import of {module} in:\n{out.stderr[-2000:]}")
        return total
    return run


def loaded(statement, module):
    out = subprocess.run([sys.executable, "-c", f"{statement}; import sys; print({module!r} in sys.modules)"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip() == "True"


def main():
    nbformat = paired.alternate(import_time("import nbformat", "nbformat"), runs=RUNS)
    paired.row("import nbformat (python -X importtime)", nbformat,
               note="rfc3987_syntax loaded" if loaded("import nbformat", "rfc3987_syntax") else "")
    course = paired.alternate(import_time("import course_lib", "course_lib"), import_time("import numpy", "numpy"),
                              runs=RUNS)
    scipy = loaded("import course_lib", "scipy")
    paired.row("import course_lib (baseline: import numpy)", course, goal="no SciPy", met=not scipy,
               note="SciPy imported" if scipy else "")


if __name__ == "__main__":
    main()
    paired.print_table()
