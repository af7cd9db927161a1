"""Grading a class: serial against parallel, against plain nbgrader, and one student's regrade.

A synthetic class of ps1 built from the course's own notebooks: 10 % of the submissions
have an endless loop in the PLA, the rest are the reference solution or partly wrong
(radius without x0, pocket returning the last weights, a hard-coded predict). Measured
in one run on this machine:

* ``make autograde`` with ``JOBS=1`` (serial) and with the default (one per core), wall
  time and CPU utilisation (CPU seconds of the grading process tree / wall seconds / cores);
* plain ``nbgrader autograde`` (nbgrader's own Execute, no sandbox) on a subset, for the
  ratio per submission;
* a run with nothing changed, the whole class's feedback, and the TA's round trip for one
  resubmission: regrade that student, make that student's feedback, export the class's grades
  (each a ``python -m grading`` command, as ``make`` runs it).

Goals: 300 submissions in at most 150 s on a 2-core machine (the CPU they need is printed too:
its half is the least wall time two idle cores could take), a one-student regrade in under 5 s.

    python -m benchmarks.bench_class [N] [PLAIN_N]      # default N=300, PLAIN_N=30
    BENCH_CLASS_SIZE=40 python -m benchmarks            # smaller class in the whole suite
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

ASSIGNMENT = "ps1_perceptron"


def cell_limit(course):
    """Seconds a cell of ps1 may run in ``course``, as nbgrader_config.py sets it."""
    from grading.course import Course
    from grading.preprocessors import CourseExecute
    return CourseExecute(config=Course(course).config).cell_timeout(ASSIGNMENT)


def build_class(course, n):
    """``n`` submissions of ps1 in ``course``: every tenth loops forever, the rest right or partly wrong."""
    from answer_bodies import ENDLESS, POCKET_RETURNS_LAST, PREDICT_HARD_CODED, RADIUS_WITHOUT_X0
    from grading_helpers import (
        fill,
        reference_bodies,
        released_notebook,
        submit,
        with_answers,
    )

    released = released_notebook(course)
    ref = reference_bodies()
    variants = [fill(released, ref),
                fill(released, with_answers(ref, radius_solution=RADIUS_WITHOUT_X0)),
                fill(released, with_answers(ref, pocket_solution=POCKET_RETURNS_LAST)),
                fill(released, with_answers(ref, predict_solution=PREDICT_HARD_CODED))]
    endless = fill(released, with_answers(ref, pla_solution=ENDLESS))
    for i in range(n):
        submit(course, f"s{i:04d}", endless if i % 10 == 9 else variants[i % len(variants)])


def _cgroup_base():
    """``(folder, kind)`` where a cgroup that counts CPU time can be made (cgroup v1 cpuacct, or v2), else None."""
    try:
        mounts = [line.split()[:4] for line in open("/proc/self/mounts")]
        own = dict(line.strip().split(":", 2)[1:] for line in open("/proc/self/cgroup"))
    except (OSError, ValueError):
        return None
    for _, where, fstype, opts in mounts:
        if fstype == "cgroup" and "cpuacct" in opts.split(","):
            key = next((k for k in own if "cpuacct" in k.split(",")), None)
            if key is not None:
                return os.path.join(where, own[key].lstrip("/")), "v1"
    for _, where, fstype, _ in mounts:
        if fstype == "cgroup2" and "" in own:
            return os.path.join(where, own[""].lstrip("/")), "v2"
    return None


def _run_counted(args, **kwargs):
    """``subprocess.run(args)`` and the CPU seconds of its whole process tree.

    The tree is put in a cgroup of its own, which counts every process started in it: the
    sandboxes' kernels too, which are killed with their PID namespace and never reaped by
    the grader, so ``os.times()`` does not see them. Without a writable cgroup hierarchy,
    ``os.times()`` of the reaped children is used (and says less than was spent).
    """
    base = _cgroup_base()
    group = None
    if base is not None:
        group = os.path.join(base[0], f"course-bench-{os.getpid()}-{time.monotonic_ns()}")
        try:
            os.mkdir(group)
        except OSError:
            group = None

    def enter():                                     # in the child, before it runs anything
        with open(os.path.join(group, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))

    t = os.times()
    before = t.children_user + t.children_system
    try:
        out = subprocess.run(args, preexec_fn=enter if group else None, **kwargs)
    finally:
        t = os.times()
        cpu = t.children_user + t.children_system - before
        if group:
            try:
                if base[1] == "v1":
                    cpu = int(open(os.path.join(group, "cpuacct.usage")).read()) / 1e9
                else:
                    stat = dict(line.split() for line in open(os.path.join(group, "cpu.stat")))
                    cpu = int(stat["usage_usec"]) / 1e6
            except (OSError, ValueError, KeyError):
                pass
            try:
                os.rmdir(group)
            except OSError:
                pass                                 # a process still in it: left for the system
    return out, cpu


def _grade(course, **kwargs):
    """One autograde in a child process (so its CPU time, pool and sandboxes included, is measured)."""
    args = [sys.executable, "-m", "grading", "--course", str(course), "autograde", ASSIGNMENT]
    for k, v in kwargs.items():
        args += [f"--{k.replace('_', '-')}"] + ([] if v is True else [str(v)])
    t0 = time.perf_counter()
    out, cpu = _run_counted(args, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(f"autograde failed: {out.stderr[-2000:]}")
    return wall, cpu, out.stdout


def _command(course, *args):
    """Wall seconds of one ``python -m grading`` command on ``course``, as a TA types it."""
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "grading", "--course", str(course), *args], capture_output=True,
                         text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {out.stderr[-2000:]}")
    return time.perf_counter() - t0


def _plain_nbgrader(course, n):
    """Plain nbgrader autograde (its own Execute, no sandbox, the same cell limit) of the first ``n`` submissions."""
    plain = course.parent / "plain"
    shutil.rmtree(plain, ignore_errors=True)
    plain.mkdir()
    shutil.copytree(course / "source", plain / "source")
    for s in sorted(p.name for p in (course / "submitted").iterdir())[:n]:
        shutil.copytree(course / "submitted" / s, plain / "submitted" / s)
    (plain / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        "c.CourseDirectory.course_id = 'ml-foundations'\n"
        f"c.CourseDirectory.root = {str(plain)!r}\n"
        f"c.Execute.timeout = {cell_limit(course)}\n")
    nbgrader = str(Path(sys.executable).with_name("nbgrader"))
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    subprocess.run([nbgrader, "generate_assignment", ASSIGNMENT, "--force"], cwd=plain, env=env, check=True,
                   capture_output=True)
    t0 = time.perf_counter()
    _, cpu = _run_counted([nbgrader, "autograde", ASSIGNMENT, "--force"], cwd=plain, env=env, capture_output=True)
    return time.perf_counter() - t0, cpu


def main(n=None, plain_n=None):
    import warnings
    warnings.filterwarnings("ignore")
    from grading_helpers import fill, make_course, reference_bodies, submit

    from grading.executors import default_jobs

    n = int(n or os.environ.get("BENCH_CLASS_SIZE", 300))
    plain_n = int(plain_n or os.environ.get("BENCH_PLAIN_SIZE", min(30, n)))
    cores = default_jobs()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "serial").mkdir()
        serial = make_course(Path(tmp) / "serial")
        build_class(serial, n)
        parallel = Path(tmp) / "parallel" / "course"
        shutil.copytree(serial, parallel, symlinks=True)

        print(f"class of {n} submissions of {ASSIGNMENT} ({n // 10} with an endless loop), {cores} core(s), "
              f"{cell_limit(serial)} s per cell (nbgrader_config.py); load average before: {os.getloadavg()[0]:.1f}")
        w1, c1, _ = _grade(serial, jobs=1)
        print(f"  serial   (JOBS=1):     {w1:7.1f} s wall, {w1 / n:5.2f} s/submission, "
              f"CPU {100 * c1 / w1 / cores:5.1f} % of {cores} core(s)")
        wp, cp, _ = _grade(parallel)
        print(f"  parallel (JOBS={cores}):     {wp:7.1f} s wall, {wp / n:5.2f} s/submission, "
              f"CPU {100 * cp / wp / cores:5.1f} % of {cores} core(s); speed-up {w1 / wp:.2f}x")
        wpl, cpl = _plain_nbgrader(serial, plain_n)
        print(f"  plain nbgrader ({plain_n}): {wpl:7.1f} s wall, {wpl / plain_n:5.2f} s/submission, "
              f"CPU {100 * cpl / wpl / cores:5.1f} %; course parallel per submission / plain = "
              f"{(wp / n) / (wpl / plain_n):.2f}")
        if n >= 300:
            print(f"  goal: 300 in at most 150 s: {'met' if wp * 300 / n <= 150 else 'NOT met'} "
                  f"(the CPU it used allows {cp / cores:.0f} s on {cores} idle core(s))")

        wn, _, _ = _grade(parallel)
        print(f"  nothing changed, rerun: {wn:7.1f} s")
        wf = _command(parallel, "feedback", ASSIGNMENT)
        print(f"  feedback for the whole class (first time): {wf:5.1f} s")
        # a TA's round trip: one student resubmits; regrade them, make their feedback, export the class
        released = nbformat.read(parallel / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
        submit(parallel, "s0001", fill(released, reference_bodies()))
        wr, _, _ = _grade(parallel, student="s0001")
        wfs = _command(parallel, "feedback", ASSIGNMENT, "--student", "s0001")
        wg = _command(parallel, "grades", ASSIGNMENT)
        print(f"  one-student regrade (STUDENT=s0001): {wr:5.1f} s (goal < 5 s)")
        print(f"  TA round trip: regrade {wr:.1f} s + feedback (STUDENT=s0001) {wfs:.1f} s + "
              f"grades export {wg:.1f} s = {wr + wfs + wg:.1f} s")


if __name__ == "__main__":
    main(*sys.argv[1:3])
