"""A busy machine on demand: CPU-bound processes that run while a benchmark measures.

The course's speed goals hold "on a busy machine" (a laptop compiling something, a
shared server during a deadline). A benchmark cannot wait for the machine to happen to be
busy, so it makes it busy itself: :func:`busy_cores` starts CPU-bound processes for the
duration of a ``with`` block and stops them when the block ends, however it ends (an
error, Ctrl-C). Each process is a plain Python busy loop that also watches its parent and
exits of its own accord if the benchmark dies without cleaning up (``kill -9``), so no
loop outlives the measurement.

How many: by default one process per core *but one*. The goals read "with the other
cores busy": the measured code keeps one core's worth of time to itself and every other
core is saturated, as on a machine where a few other programs run flat out. Loading every
core as well would measure how the operating system shares one core between the
benchmark and a busy loop (about half of it each) rather than the course code.
``BENCH_LOAD_PROCS=<n>`` overrides the number (``0``: no load, for a quiet comparison).
On a one-core machine the default is one process, so the machine is still busy.

The same load runs a whole command for ``make test-under-load`` (every core busy there:
the test suite must stay green, only slower, when the machine has no core to spare)::

    python -m benchmarks.load [--procs N] COMMAND [ARGS...]

>>> with busy_cores(1) as load:
...     len(load.pids)
1
"""
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

# Spin; every few million steps check that the parent is still there (orphans are
# re-parented, so getppid() changes) and exit if not.
_SPIN = """\
import os, sys
parent = int(sys.argv[1])
while os.getppid() == parent:
    for _ in range(2_000_000):
        pass
"""


@dataclass
class Load:
    """The running load: its process ids and a description for the benchmark's header."""

    pids: list = field(default_factory=list)
    cores: int = 1
    loadavg_before: tuple = (0.0, 0.0, 0.0)
    loadavg_after: tuple = None
    busy_fraction: float = None  # of all cores' time during the block (loaders included), from /proc/stat
    how: str = None              # why this many processes, when not the benchmarks' default
    _stat_before: tuple = None

    def describe(self):
        """One line: how many busy processes on how many cores, and the load average before."""
        how = self.how or ("one per core but one" if len(self.pids) == max(self.cores - 1, 1) else "BENCH_LOAD_PROCS")
        return (f"{len(self.pids)} CPU-bound process(es) on {self.cores} core(s) ({how}); "
                f"load average before: {_fmt(self.loadavg_before)}")

    def summary(self):
        """One line after the block: the load average then, and how busy the cores were during it."""
        busy = "" if self.busy_fraction is None else f"; cores {100 * self.busy_fraction:.0f} % busy during it"
        after = "—" if self.loadavg_after is None else _fmt(self.loadavg_after)
        return (f"under load ({len(self.pids)} busy process(es)): load average before {_fmt(self.loadavg_before)}, "
                f"after {after}{busy}")


def _fmt(avg):
    return ", ".join(f"{v:.2f}" for v in avg)


def _cpu_times():
    """(busy, total) jiffies of all cores from /proc/stat, or None where there is none."""
    try:
        with open("/proc/stat") as f:
            values = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
    return sum(values) - idle, sum(values)


def default_procs(cores=None):
    """Number of busy processes: ``BENCH_LOAD_PROCS`` if set, else one per core but one (at least one)."""
    value = os.environ.get("BENCH_LOAD_PROCS")
    if value is not None:
        try:
            n = int(value)
        except ValueError:
            raise ValueError(f"BENCH_LOAD_PROCS: expected a whole number of processes, got {value!r}") from None
        if n < 0:
            raise ValueError(f"BENCH_LOAD_PROCS: expected 0 or more processes, got {n}")
        return n
    cores = cores or os.cpu_count() or 1
    return max(cores - 1, 1)


def loadavg():
    """The 1, 5 and 15-minute load averages (zeros where the system does not report them)."""
    try:
        return os.getloadavg()
    except OSError:
        return (0.0, 0.0, 0.0)


@contextmanager
def busy_cores(n=None):
    """Keep ``n`` CPU-bound processes running for the ``with`` block; yield a :class:`Load`.

    Parameters
    ----------
    n : int, optional
        Number of busy processes; default :func:`default_procs` (one per core but one).

    Examples
    --------
    >>> with busy_cores(2) as load:
    ...     pass  # measure here
    >>> all(not _alive(pid) for pid in load.pids)
    True
    """
    if n is None:
        n = default_procs()
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"n: expected a whole number of processes >= 0, got {n!r}")
    load = Load(cores=os.cpu_count() or 1, loadavg_before=loadavg(), _stat_before=_cpu_times())
    procs = []
    try:
        for _ in range(n):
            procs.append(subprocess.Popen([sys.executable, "-c", _SPIN, str(os.getpid())],
                                          stdin=subprocess.DEVNULL))
            load.pids.append(procs[-1].pid)
        yield load
    finally:
        stat = _cpu_times()
        if stat and load._stat_before and stat[1] > load._stat_before[1]:
            load.busy_fraction = (stat[0] - load._stat_before[0]) / (stat[1] - load._stat_before[1])
        load.loadavg_after = loadavg()
        _stop(procs)


def _stop(procs):
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 5
    for p in procs:
        try:
            p.wait(timeout=max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def _alive(pid):
    """Whether a process with this id exists (and is not a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def main(argv=None):
    """``python -m benchmarks.load [--procs N] COMMAND ...``: run COMMAND under load, say how long it took.

    N defaults to ``LOAD_PROCS`` or one busy process per core. The exit status is the command's.
    """
    import argparse
    import shlex

    parser = argparse.ArgumentParser(prog="python -m benchmarks.load",
                                     description="Run a command while CPU-bound processes keep the cores busy.")
    parser.add_argument("--procs", type=int, default=None,
                        help="busy processes (default: LOAD_PROCS, else one per core)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command and its arguments")
    args = parser.parse_args(argv)
    if not args.command:
        parser.error("give the command to run, e.g. python -m benchmarks.load make test")
    n = args.procs
    how = "--procs"
    if n is None:
        how = "LOAD_PROCS" if "LOAD_PROCS" in os.environ else "one per core"
        value = os.environ.get("LOAD_PROCS", str(os.cpu_count() or 1))
        try:
            n = int(value)
        except ValueError:
            parser.error(f"LOAD_PROCS: expected a whole number of processes, got {value!r}")
    if n < 0:
        parser.error(f"--procs: expected 0 or more processes, got {n}")
    text = shlex.join(args.command)
    start = time.monotonic()
    with busy_cores(n) as load:
        load.how = how
        print(f">>> {load.describe()}; now: {text}", flush=True)
        try:
            status = subprocess.call(args.command)
        except KeyboardInterrupt:
            status = 130
        except OSError as exc:
            print(f">>> could not run {text}: {exc}", file=sys.stderr)
            status = 127
    minutes, seconds = divmod(int(time.monotonic() - start), 60)
    print(f">>> {load.summary()}; '{text}' exited with {status} after {minutes} min {seconds} s", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
