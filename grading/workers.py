"""Grading on a Dask cluster: a worker in one command, and the same course on every machine.

A submission graded on another machine must be graded by the same code: the same
``grading`` and ``course_lib``, the same locked environment. Each machine says what it runs
(:func:`identity`: the course's git commit, a digest of ``uv.lock`` and one of the code that
grades), and nothing runs where they differ:

* ``make grading-scheduler`` (the instructor's machine) starts ``dask scheduler`` with this
  module as a preload: the scheduler keeps the instructor's identity;
* ``make grading-worker SCHEDULER=tcp://host:8786`` (each grading machine, in a clone of the
  course) installs exactly what grading needs (``uv sync --frozen --extra dask``: the course's
  dependencies, Dask and nbgrader, as ``uv.lock`` pins them), checks bubblewrap, compares its
  identity with the scheduler's and refuses with one line when they differ, then starts
  single-threaded workers, one per core;
* ``make autograde DASK_SCHEDULER=...`` asks every worker for its identity first
  (:func:`check_cluster`) and grades nothing while one differs.

``python -m grading.workers check tcp://host:8786`` is the worker's check on its own.
"""
import hashlib
import json
import subprocess
import sys
from pathlib import Path

__all__ = ["check_cluster", "dask_setup", "differences", "identity"]

ROOT = Path(__file__).resolve().parents[1]
CODE = ("grading", "course_lib")


def identity(root=None):
    """What this process grades with: ``{"commit", "lock", "code"}`` (strings; "unknown" when it cannot be told).

    ``root`` is the checkout whose ``grading`` runs (default: the one this module was imported
    from). ``code`` is a digest of the ``.py`` files of ``grading/`` and ``course_lib/`` as they
    are on disk, so an edit not yet committed shows too.
    """
    root = Path(root) if root is not None else ROOT
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=30).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    try:
        lock = hashlib.sha256((root / "uv.lock").read_bytes()).hexdigest()
    except OSError:
        lock = "unknown"
    h = hashlib.sha256()
    for folder in CODE:
        for path in sorted((root / folder).rglob("*.py")):
            h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return {"commit": commit, "lock": lock, "code": h.hexdigest()}


def differences(mine, theirs):
    """What differs between two identities, in words (empty when they match).

    Examples
    --------
    >>> differences({"commit": "a" * 40, "lock": "1", "code": "x"}, {"commit": "b" * 40, "lock": "1", "code": "y"})
    'commit aaaaaaaaaaaa here, bbbbbbbbbbbb there; the grading code differs'
    """
    out = []
    if mine.get("commit") != theirs.get("commit"):
        out.append(f"commit {str(mine.get('commit'))[:12]} here, {str(theirs.get('commit'))[:12]} there")
    if mine.get("lock") != theirs.get("lock"):
        out.append("uv.lock differs")
    if mine.get("code") != theirs.get("code") and mine.get("commit") == theirs.get("commit"):
        out.append("the grading code differs (an edit not committed)")
    elif mine.get("code") != theirs.get("code"):
        out.append("the grading code differs")
    return "; ".join(out)


def dask_setup(server):
    """Dask's preload hook (``dask scheduler --preload grading.workers``): keep this course's identity."""
    server.course_identity = identity()


def _scheduler_identity(dask_scheduler=None):
    return getattr(dask_scheduler, "course_identity", None)


def _client(address):
    from distributed import Client
    try:
        return Client(address, timeout="20s")
    except (OSError, TimeoutError) as exc:
        raise RuntimeError(f"cannot reach the Dask scheduler at {address!r}: {exc}") from None


def check_cluster(address):
    """Refuse (a :class:`grading.course.CourseError` of one line) when a worker of ``address`` grades with other code."""
    from .course import CourseError

    mine = identity()
    try:
        client = _client(address)
    except RuntimeError as exc:
        raise CourseError(str(exc)) from None
    try:
        theirs = client.run(identity)
    except Exception as exc:  # a worker without the course cannot answer: that is the reason
        raise CourseError(f"the Dask workers at {address} cannot say which course they grade with ({exc}); start "
                          "them with `make grading-worker SCHEDULER=...` in a clone of this course") from None
    finally:
        client.close()
    if not theirs:
        raise CourseError(f"no Dask worker is connected to {address}: start one with `make grading-worker "
                          f"SCHEDULER={address}` on a grading machine")
    bad = {w: d for w, i in theirs.items() if (d := differences(mine, i))}
    if bad:
        raise CourseError(f"not grading: {len(bad)} Dask worker(s) at {address} run other code than this course "
                          f"({'; '.join(f'{w}: {d}' for w, d in sorted(bad.items()))}); run `make grading-worker` "
                          "there from a clone at this commit")


def check_scheduler(address):
    """The worker's check before it starts: its identity against the scheduler's. Returns a process exit code."""
    try:
        client = _client(address)
    except RuntimeError as exc:
        print(f"grading-worker: {exc}", file=sys.stderr)
        return 2
    try:
        theirs = client.run_on_scheduler(_scheduler_identity)
    finally:
        client.close()
    if not theirs:
        print(f"grading-worker: the scheduler at {address} does not say which course it serves: start it with "
              "`make grading-scheduler` in the instructor's course folder", file=sys.stderr)
        return 2
    diff = differences(identity(), theirs)
    if diff:
        print(f"grading-worker: not starting: this clone is not the course the scheduler serves ({diff}); "
              f"check out commit {theirs.get('commit')} and run `make grading-worker` again", file=sys.stderr)
        return 2
    print(f"grading-worker: same course as the scheduler at {address} (commit {str(theirs.get('commit'))[:12]})")
    return 0


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) == 2 and argv[0] == "check":
        return check_scheduler(argv[1])
    if argv == ["identity"]:
        print(json.dumps(identity(), indent=1))
        return 0
    print("usage: python -m grading.workers check tcp://HOST:PORT | identity", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
