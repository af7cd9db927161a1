"""The limits under which one submission is graded: one frozen object, resolved once.

:class:`GradingLimits` is what ``make autograde``, ``nbgrader autograde``, ``make check``,
the in-notebook check and ``make regrade-check`` pass to the engine, resolved from the
course's configuration by :meth:`grading.preprocessors.CourseExecute.limits`, and what the
autograder hashes to notice that a limit changed (every submission is then graded again).

Time limits of cells count the **CPU time** of the student's process (all its threads and
the processes it starts), so that an honest answer gets the same verdict on an idle machine
and on a busy one; a wall-clock backstop ``wall_factor`` times larger stops code that
sleeps, waits or blocks without using the processor.

Examples
--------
>>> limits = GradingLimits(timeout=3)
>>> limits.timeout, limits.wall(limits.timeout)
(3.0, 15.0)
>>> GradingLimits(timeout=0)
Traceback (most recent call last):
...
ValueError: GradingLimits.timeout must be a positive number of seconds, got 0
"""
import dataclasses
from dataclasses import dataclass

__all__ = ["GradingLimits"]


@dataclass(frozen=True)
class GradingLimits:
    """Limits of one submission's grading (seconds, characters).

    Parameters
    ----------
    timeout : float
        CPU seconds of the student's process for one cell (a test cell's calls together).
    setup_timeout : float
        CPU seconds for one of the instructor's read-only cells (imports, loading data).
    replay_timeout : float
        CPU seconds to run again, in a fresh process, the cells above a stopped cell.
    submission_timeout : float
        Wall-clock seconds for the whole submission, restarts and replays included; when they
        are spent, the cells left score 0 without running.
    startup_timeout : float
        Wall-clock seconds for the student's process to start.
    wall_factor : float
        A cell's wall-clock backstop is ``wall_factor`` times its CPU limit.
    output_budget : int
        Characters of output (printed text and error messages) kept for the whole notebook;
        beyond it outputs are left out with a note (a failing test still fails).
    """

    timeout: float = 10.0
    setup_timeout: float = 120.0
    replay_timeout: float = 60.0
    submission_timeout: float = 600.0
    startup_timeout: float = 60.0
    wall_factor: float = 5.0
    output_budget: int = 2_000_000

    def __post_init__(self):
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                what = "characters" if f.name == "output_budget" else "seconds"
                raise ValueError(f"GradingLimits.{f.name} must be a positive number of {what}, got {value!r}")
            if f.name != "output_budget":
                object.__setattr__(self, f.name, float(value))
        if self.wall_factor < 1:
            raise ValueError(f"GradingLimits.wall_factor must be at least 1, got {self.wall_factor!r}")
        object.__setattr__(self, "output_budget", int(self.output_budget))

    def wall(self, cpu_seconds):
        """The wall-clock backstop of a limit of ``cpu_seconds`` CPU seconds."""
        return self.wall_factor * cpu_seconds

    def replace(self, **changes):
        """A copy with some limits changed."""
        return dataclasses.replace(self, **changes)

    def as_dict(self):
        """Plain data (what the autograder hashes)."""
        return dataclasses.asdict(self)
