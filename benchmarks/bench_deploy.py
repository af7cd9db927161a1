"""Capacity of the JupyterHub deployment: a class starting its servers at once.

Builds a throwaway deployment with ``deploy/setup.sh`` (20 students, a course id and prefix
of its own, /opt/mlfb-<id>, reusing the software installed in /opt/ml-foundations-ci), then,
in one run:

* the plain case: one student's server started alone, timed from the request to "ready";
* the class: the 20 students log in and start their servers at the same moment; each
  server's spawn time (request to "ready") is reported as median and maximum, and as a
  ratio to the single server's;
* memory per server: the proportional set size (PSS, shared pages divided among the
  processes sharing them) and the resident size (RSS) of each student's processes, with
  the server idle, then with one kernel that has imported NumPy and ``course_lib``.

Needs root (it creates Linux users, as the deployment does); without root it says so and
does nothing. It loads the machine for a few minutes; run it alone:
``sudo .venv/bin/python -m benchmarks.bench_deploy``.
"""
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

SOFTWARE = Path(os.environ.get("COURSE_BENCH_SOFTWARE", "/opt/ml-foundations-ci"))
RUN = secrets.token_hex(3)
COURSE_ID = f"mlfb-{RUN}"
PREFIX = Path(f"/opt/{COURSE_ID}")
N = int(os.environ.get("COURSE_BENCH_STUDENTS", "20"))
INSTRUCTOR = f"mlfb{RUN}-teacher"
GROUP = f"mlfb{RUN}-students"
STUDENTS = [f"mlfb{RUN}-s{i:02d}" for i in range(1, N + 1)]


def _memory_of(user):
    """(PSS, RSS) in MiB of every process of ``user``."""
    pids = subprocess.run(["pgrep", "-u", user], capture_output=True, text=True).stdout.split()
    pss = rss = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    pss += int(line.split()[1])
                elif line.startswith("Rss:"):
                    rss += int(line.split()[1])
        except OSError:
            pass
    return pss / 1024, rss / 1024


def _spawn_time(person, timeout=600):
    t0 = time.monotonic()
    r = person.start_server()
    if r.status_code not in (201, 202):
        raise RuntimeError(f"{person.name}: {r.status_code} {r.text[:200]}")
    if not person.wait_ready(timeout=timeout):
        raise RuntimeError(f"{person.name}'s server was not ready after {timeout} s")
    return time.monotonic() - t0


def main():
    if os.geteuid() != 0:
        print("bench_deploy: skipped (needs root: it builds a deployment with Linux users)")
        return
    from test_deploy import HubUser, _free_ports

    hub_port, pg_port = _free_ports(4), _free_ports(1)
    teardown = [str(ROOT / "deploy" / "teardown.sh"), "--prefix", str(PREFIX), "--uninstall"]
    clone = Path(f"/var/tmp/{COURSE_ID}-clone")   # setup closes the clone it runs from to other users
    try:
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        subprocess.run([str(clone / "deploy" / "setup.sh"), "--prefix", str(PREFIX), "--software", str(SOFTWARE),
                        "--course-id", COURSE_ID, "--instructor", INSTRUCTOR,
                        "--students", " ".join(STUDENTS), "--group", GROUP, "--hub-port", str(hub_port),
                        "--pg-port", str(pg_port), "--no-hidepid"], check=True, capture_output=True, timeout=1800)
        base = f"http://127.0.0.1:{hub_port}"
        people = {}
        for user in STUDENTS:
            password = secrets.token_urlsafe(16)
            subprocess.run(["chpasswd"], input=f"{user}:{password}\n", text=True, check=True)
            people[user] = HubUser(base, user)
            r, _ = people[user].login(password)
            assert r.status_code == 302, f"{user} could not log in: {r.status_code}"

        alone = _spawn_time(people[STUDENTS[0]])
        people[STUDENTS[0]].hub_api("DELETE", f"/users/{STUDENTS[0]}/server")
        deadline = time.monotonic() + 120
        while subprocess.run(["pgrep", "-u", STUDENTS[0]], capture_output=True).returncode == 0:
            if time.monotonic() > deadline:
                raise RuntimeError("the first server did not stop")
            time.sleep(0.5)

        t0 = time.monotonic()
        with ThreadPoolExecutor(N) as pool:
            times = list(pool.map(_spawn_time, people.values()))
        wall = time.monotonic() - t0
        time.sleep(5)  # let the servers settle before measuring (not a test: a measurement)
        idle = [_memory_of(u) for u in STUDENTS]

        code = "import numpy, course_lib; x = numpy.ones((500, 500)) @ numpy.ones((500, 500)); print('ok')"
        for person in people.values():
            person.make_token()
        kernels = []   # one running kernel per student (HubUser.run_code would delete its kernel)
        for person in people.values():
            r = person.server("POST", "/api/kernels", json={"name": "python3"})
            kernels.append(r.json()["id"])
        import websocket
        for person, kernel in zip(people.values(), kernels, strict=True):
            ws = websocket.create_connection(
                f"{base.replace('http', 'ws')}/user/{person.name}/api/kernels/{kernel}/channels",
                header=[f"Authorization: token {person.token}"], timeout=300)
            ws.send(json.dumps({"header": {"msg_id": secrets.token_hex(8), "username": person.name,
                                           "session": secrets.token_hex(8), "msg_type": "execute_request",
                                           "version": "5.3"}, "parent_header": {}, "metadata": {},
                                "channel": "shell", "content": {"code": code, "silent": False}}))
            while True:
                msg = json.loads(ws.recv())
                if msg["msg_type"] == "execute_reply":
                    break
            ws.close()
        busy = [_memory_of(u) for u in STUDENTS]

        med = statistics.median(times)
        print(f"bench_deploy: {N} student servers started at once on {os.cpu_count()} cores")
        print(f"  one server alone:        {alone:.1f} s")
        print(f"  {N} at once: median {med:.1f} s, max {max(times):.1f} s per server "
              f"({med / alone:.1f}x the single server), all ready after {wall:.1f} s")
        print(f"  memory per idle server:  PSS median {statistics.median(m[0] for m in idle):.0f} MiB "
              f"(RSS {statistics.median(m[1] for m in idle):.0f} MiB)")
        print("  with one kernel (NumPy, course_lib imported): "
              f"PSS median {statistics.median(m[0] for m in busy):.0f} MiB "
              f"(RSS {statistics.median(m[1] for m in busy):.0f} MiB) per student")
    finally:
        subprocess.run(teardown, capture_output=True, timeout=600)
        for user in STUDENTS + [INSTRUCTOR]:
            if subprocess.run(["id", "-u", user], capture_output=True).returncode == 0:
                subprocess.run(["userdel", "--remove", user], capture_output=True)
        subprocess.run(["groupdel", GROUP], capture_output=True)
        shutil.rmtree(PREFIX, ignore_errors=True)
        shutil.rmtree(clone, ignore_errors=True)


if __name__ == "__main__":
    main()
