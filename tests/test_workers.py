"""A grading worker in one command, on another clone of the course, checked against the scheduler's.

Three clones of this repository at its commit stand for three machines: the instructor's (the
course, a ``dask scheduler`` started as ``make grading-scheduler`` starts it), a grading machine
(``make grading-worker SCHEDULER=...``, which installs its own environment from ``uv.lock``), and
a machine whose clone is one commit ahead (refused, in one line). A small class is graded
through the worker. The clones hold what is committed: run this test on a committed tree.
"""
import os
import signal
import socket
import subprocess

import nbformat
import pytest
from grading_helpers import ASSIGNMENT, ROOT, fill, reference_bodies, submit

pytestmark = [pytest.mark.slow]
BIN = ROOT / ".venv" / "bin"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _clone(dest):
    run = subprocess.run(["git", "clone", "-q", str(ROOT), str(dest)], capture_output=True, text=True)
    if run.returncode != 0:
        pytest.skip(f"the course is not a git checkout here ({run.stderr.strip()[:200]})")
    return dest


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "VIRTUAL_ENV", "UV_PROJECT"))}
    env.update(extra)
    return env


def _name(name):
    import re
    return re.sub(r"[-_.]+", "-", name.strip()).lower()


def _applies(line):
    """Whether a requirement line of ``uv export`` applies to this interpreter (its marker, if any)."""
    from packaging.markers import Marker
    _, _, marker = line.partition(";")
    return not marker.strip() or Marker(marker.strip()).evaluate()


def _stop(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_grading_worker_in_one_command_grades_and_a_different_clone_is_refused(tmp_path):
    from distributed import Client

    instructor = _clone(tmp_path / "instructor")
    worker = _clone(tmp_path / "worker")
    ahead = _clone(tmp_path / "ahead")
    subprocess.run(["git", "-C", str(ahead), "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q",
                    "--allow-empty", "-m", "a later commit"], check=True)
    # the instructor's side: this environment, importing the instructor's clone
    env = _env(PYTHONPATH=str(instructor), PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    log = open(tmp_path / "dask.log", "w")
    scheduler = subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                  "--no-dashboard", "--preload", "grading.workers"], cwd=instructor, env=env,
                                 stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    procs = [scheduler]
    try:
        with Client(address, timeout="120s"):
            pass                                                       # the scheduler answers
        venv = tmp_path / "venv-grading"
        # a machine one commit ahead: refused before a worker starts, in one line
        refused = subprocess.run(["make", "-s", "grading-worker", f"SCHEDULER={address}"], cwd=ahead, text=True,
                                 capture_output=True, env=_env(GRADING_VENV=str(venv)), timeout=1200)
        assert refused.returncode == 2, refused.stdout[-2000:] + refused.stderr[-2000:]
        said = [line for line in refused.stderr.splitlines() if line.startswith("grading-worker:")]
        assert len(said) == 1 and "not the course the scheduler serves (commit" in said[0], refused.stderr
        # the grading machine: one command
        worker_log = open(tmp_path / "worker.log", "w")
        procs.append(subprocess.Popen(["make", "-s", "grading-worker", f"SCHEDULER={address}", "WORKERS=1",
                                       "WORKER_ARGS=--no-dashboard --host 127.0.0.1"],
                                      cwd=worker, env=_env(GRADING_VENV=str(venv)), stdout=worker_log,
                                      stderr=subprocess.STDOUT, start_new_session=True))
        with Client(address, timeout="120s") as client:
            client.wait_for_workers(1, timeout=900)
            where = client.run(lambda: __import__("grading").__file__)
        assert [str(worker) in path for path in where.values()] == [True], where
        # exactly what grading needs: the packages uv.lock pins for the dask extra, nothing else
        export = subprocess.run(["sh", "scripts/uv.sh", "export", "--quiet", "--frozen", "--no-hashes", "--extra",
                                 "dask", "--no-emit-project", "--no-header", "--no-annotate"], cwd=worker,
                                capture_output=True, text=True, env=_env())
        assert export.returncode == 0, export.stderr
        wanted = {_name(line.split("==")[0]) for line in export.stdout.splitlines()
                  if "==" in line and not line.startswith("#") and _applies(line)}
        installed = subprocess.run([str(venv / "bin" / "python"), "-c", "import importlib.metadata as m; "
                                    "print('\\n'.join(d.metadata['Name'] for d in m.distributions()))"],
                                   capture_output=True, text=True).stdout.split()
        assert {_name(n) for n in installed} - {"course-lib"} == wanted
        # the instructor grades a small class through it
        released = nbformat.read(ROOT / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
        submit(instructor, "ada", fill(released, reference_bodies()))
        submit(instructor, "bob", raw="{ not a notebook")
        run = subprocess.run([str(BIN / "python"), "-m", "grading", "autograde", ASSIGNMENT, "--dask-scheduler",
                              address], cwd=instructor, env=env, capture_output=True, text=True, timeout=1800)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        assert f"on the Dask cluster at {address}" in run.stdout and "graded 1 of 2" in run.stdout, run.stdout
        assert "bob: the notebook file is not valid JSON" in run.stdout
    finally:
        for p in reversed(procs):
            _stop(p)
        log.close()
