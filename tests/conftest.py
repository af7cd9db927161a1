"""Test-session hooks shared by tests/."""
import os
import sys

import pytest

# One BLAS/OpenMP thread per process, in the test processes and every process they start
# (kernels, nbgrader, graders inherit the environment): pytest-xdist already runs one test per
# core, and the idle threads of a numerical library spin on a busy machine. Measured on two busy
# cores: tests/test_svm.py took 16 s of CPU with two threads per process, 4 s with one. The
# results do not depend on it; speed is measured in benchmarks/, with the threads said there.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
if "numpy" in sys.modules:  # loaded before this file (by a plugin): set its pools too
    from threadpoolctl import threadpool_limits
    threadpool_limits(limits=1)

# Property tests draw the same examples on every run (Hypothesis' derandomize): a maintainer's
# run and CI's run of one commit test the same cases, so a red CI is about the change, not the
# draw. Set HYPOTHESIS_PROFILE=explore to let it search fresh examples (as a release check).
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("course", derandomize=True)
_hypothesis_settings.register_profile("explore", derandomize=False)
_hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "course"))

# Fixtures that start whole processes for seconds or more: a test that uses one is slow
# (`make test-fast` leaves it out). Modules that are slow throughout carry the mark themselves.
SLOW_FIXTURES = {"graded", "hostile", "student_lab", "instructor_lab", "lab", "deployment"}


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(config, items):
    """Mark slow: every notebook check of nbval (each runs a kernel through a whole notebook)
    and every test that uses one of SLOW_FIXTURES."""
    slow = pytest.mark.slow
    for item in items:
        if item.path.suffix == ".ipynb" or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(slow)


def pytest_terminal_summary(terminalreporter):
    """Show what a test recorded for the reader: ``report`` lines, then its ``checks_summary`` line last.

    The deployment test counts its own checks and records ``N passed, N failed``; recorded
    properties also reach this hook from pytest-xdist's workers.
    """
    notes, summaries = [], []
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", "call") != "call":
                continue
            for key, value in getattr(report, "user_properties", ()):
                if key == "report":
                    notes.append(value)
                elif key == "checks_summary":
                    summaries.append(value)
    for line in notes + summaries:
        terminalreporter.write_line(line)
