"""Paired timing, shared by every benchmark, and the one table that ``make benchmark`` prints.

On a shared machine the speed of one run is luck; the ratio of two runs made side by side is
not. :func:`alternate` therefore times the project (A) and its baseline (B) in alternation,
A B, B A, A B, ..., after one warm-up of each, and :class:`Paired` reports the medians and the
*paired* ratio: the median of A_i / B_i over the pairs. Where users run whole processes
(``make autograde`` against ``nbgrader autograde``), time whole processes with :func:`process`.

Each benchmark module adds its figures with :func:`row`; ``python -m benchmarks`` prints them
all in one table (figure, project, baseline, ratio, goal, met) and ``python -m
benchmarks.bench_x`` prints its own.

>>> p = Paired([1.0, 2.0, 3.0], [2.0, 2.0, 2.0])
>>> p.project, p.baseline, p.ratio
(2.0, 2.0, 1.0)
"""
import statistics
import subprocess
import time
from dataclasses import dataclass, field

ROWS = []


@dataclass
class Paired:
    """Times of the project (A) and the baseline (B) taken in alternation, in seconds."""

    project_times: list
    baseline_times: list = field(default_factory=list)

    @property
    def project(self):
        """Median time of the project."""
        return statistics.median(self.project_times)

    @property
    def baseline(self):
        """Median time of the baseline (None without one)."""
        return statistics.median(self.baseline_times) if self.baseline_times else None

    @property
    def ratio(self):
        """Median over the pairs of project / baseline (below 1: the project is faster)."""
        if not self.baseline_times:
            return None
        return statistics.median(a / b for a, b in zip(self.project_times, self.baseline_times, strict=True))


def _timed(fn):
    t0 = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - t0
    # a callable may time itself (leaving out its own preparation) and return the seconds
    return result if isinstance(result, float) else elapsed


def alternate(project, baseline=None, *, runs=5, warmup=True):
    """Time ``project()`` and ``baseline()`` alternately ``runs`` times each; return :class:`Paired`.

    The order within a pair flips every round (A B, B A, ...), so neither side always runs
    second on a warmer (or busier) machine. A callable that returns a float is taken to
    have timed itself (its preparation left out); otherwise the whole call is timed.
    """
    if warmup:
        project()
        if baseline is not None:
            baseline()
    a, b = [], []
    for i in range(runs):
        if baseline is None:
            a.append(_timed(project))
        elif i % 2 == 0:
            a.append(_timed(project))
            b.append(_timed(baseline))
        else:
            b.append(_timed(baseline))
            a.append(_timed(project))
    return Paired(a, b)


def process(cmd, **kwargs):
    """A callable that runs ``cmd`` as a whole process (checked) and returns its wall time."""
    def run():
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
        elapsed = time.perf_counter() - t0
        if out.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, cmd))} exited with {out.returncode}:\n{out.stderr[-3000:]}")
        return elapsed
    return run


def row(figure, paired=None, *, project=None, baseline=None, goal="", met=None, unit="s", note=""):
    """Add one line to the table (and print it at once, so a long run shows progress).

    Give either ``paired`` (a :class:`Paired`) or ``project`` (and ``baseline``) values; ``goal``
    is the goal as text ("<= 0.3 s", "<= 1.5x") and ``met`` whether the figure meets it.
    """
    ratio = None
    if paired is not None:
        project, baseline, ratio = paired.project, paired.baseline, paired.ratio
    elif project is not None and baseline:
        ratio = project / baseline
    entry = (figure, project, baseline, ratio, goal, met, unit, note)
    ROWS.append(entry)
    print("  " + _line(entry), flush=True)
    return entry


def _fmt(value, unit):
    if value is None:
        return "—"
    return f"{value:.3g} {unit}".strip() if unit else f"{value:.3g}"


def _line(entry):
    figure, project, baseline, ratio, goal, met, unit, note = entry
    ok = "" if met is None else ("yes" if met else "NO")
    text = (f"{figure:<60.60s} {_fmt(project, unit):>10s} {_fmt(baseline, unit):>10s} "
            f"{(f'{ratio:.2f}x' if ratio is not None else '—'):>7s} {goal:>12s} {ok:>4s}")
    return text + (f"  {note}" if note else "")


def print_table(rows=None):
    """Print every row added so far as one table."""
    rows = ROWS if rows is None else rows
    print()
    print(f"{'figure':<60s} {'project':>10s} {'baseline':>10s} {'ratio':>7s} {'goal':>12s} {'met':>4s}")
    print("-" * 108)
    for entry in rows:
        print(_line(entry))
