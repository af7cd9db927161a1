"""The course on a shared JupyterHub: one assignment from release to grades, by several Linux users.

deploy/setup.sh builds a throwaway deployment (its own prefix, users, ports and PostgreSQL
cluster, all on 127.0.0.1); then, as the people would:

* the instructor releases ps1_perceptron to nbgrader's exchange;
* three students log in to the hub with the shared password, start their servers through
  the hub's REST API and, through their own server's nbgrader API, fetch the assignment,
  fill it in (one with the reference solution, one partly, one hostile whose code tries to
  read a classmate's home, the course folder and the gradebook password, and to hand in a
  notebook under a classmate's name) and submit it, each as their own Linux user;
* the instructor collects, runs the course's own ``python -m grading autograde``,
  ``feedback`` and ``grades`` against the PostgreSQL gradebook and releases the feedback,
  which the students fetch;
* the grades are checked against the points each answer must earn, the isolation between
  users is checked (files, tokens, the Formgrader, the database), no password may appear
  in any log or output, and deploy/teardown.sh must leave no process behind.

Needs root (it creates users and starts the hub as root), as in CI; without root it is
skipped, unless COURSE_REQUIRE_DEPLOY=1 (set by .ci/run), when it fails.
"""
import csv
import json
import os
import pwd
import re
import shutil
import socket
import stat
import subprocess
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from grading_helpers import ASSIGNMENT, ROOT, fill, reference_bodies

pytestmark = [pytest.mark.deploy, pytest.mark.slow]

PREFIX = Path(os.environ.get("COURSE_DEPLOY_PREFIX", "/opt/ml-foundations-ci"))
INSTRUCTOR = "mlfci-teacher"
CORRECT, PARTIAL, HOSTILE = "mlfci-ada", "mlfci-bea", "mlfci-eve"
STUDENTS = (CORRECT, PARTIAL, HOSTILE)
LATECOMER = "mlfci-dan"          # added to the running deployment with setup.sh --add-student
GROUP = "mlfci-students"
COURSE_ID = "ml-foundations"
POINTS = {"predict": 3, "pla": 4, "radius": 1, "margin": 1, "bound": 1, "pocket": 3,
          "funtime1": 1, "funtime2": 1, "funtime3": 1, "funtime4": 1}
TOTAL = sum(POINTS.values())
# what each must earn: the partial submission leaves the PLA and pocket stubs untouched
EXPECTED = {CORRECT: TOTAL, PARTIAL: TOTAL - POINTS["pla"] - POINTS["pocket"], HOSTILE: TOTAL}
FORGED_TIMESTAMP = "2099-01-01 00:00:00.000000 UTC"


def _require_root():
    if os.geteuid() == 0:
        return
    reason = "the deployment test needs root: it creates Linux users and runs JupyterHub's local spawner"
    if os.environ.get("COURSE_REQUIRE_DEPLOY") == "1":
        pytest.fail(f"{reason}, and COURSE_REQUIRE_DEPLOY=1 requires this test")
    print(f"skipped: {reason}")
    pytest.skip(reason)


# -- the test's own checks -------------------------------------------------------------

class Checks:
    """Named checks that all run; the test fails at the end if any failed."""

    def __init__(self):
        self.results = []

    def __call__(self, name, ok, detail=""):
        self.results.append((name, bool(ok), detail))
        print(f"  [{'ok' if ok else 'FAILED'}] {name}" + ("" if ok or not detail else f": {detail}"), flush=True)
        return bool(ok)

    @property
    def failed(self):
        return [(n, d) for n, ok, d in self.results if not ok]

    def summary(self):
        return f"{len(self.results) - len(self.failed)} passed, {len(self.failed)} failed"


# -- helpers ---------------------------------------------------------------------------

def _free_ports(count):
    """``count`` consecutive free loopback ports (the hub uses its port, +1 and +2)."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + count >= 65000:
            continue
        try:
            socks = []
            for p in range(base, base + count):
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", p))
            return base
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError("no free loopback ports")


class Shell:
    """Runs commands (as root or as a user) and keeps everything they printed, for the password check."""

    def __init__(self, venv):
        self.venv = venv
        self.printed = []

    def run(self, cmd, *, user=None, cwd=None, timeout=300, check=True):
        if user is not None:
            home = pwd.getpwnam(user).pw_dir
            cmd = ["runuser", "-u", user, "--", "env", "-i", f"HOME={home}", f"USER={user}", f"LOGNAME={user}",
                   "LANG=C.UTF-8", f"PATH={self.venv}/bin:/usr/local/bin:/usr/bin:/bin"] + list(cmd)
            cwd = cwd or home
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        self.printed.append(f"$ {' '.join(map(str, cmd))}\n{proc.stdout}\n{proc.stderr}")
        if check and proc.returncode != 0:
            raise AssertionError(f"{cmd} exited with {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        return proc


class HubUser:
    """One person in a browser: logs in with the shared password, then uses a token of their own."""

    def __init__(self, base, name):
        import requests
        self.base, self.name = base, name
        self.session = requests.Session()
        self.token = None

    def login(self, password):
        r = self.session.get(f"{self.base}/hub/login", timeout=30)
        xsrf = self.session.cookies.get("_xsrf")
        return self.session.post(f"{self.base}/hub/login?next=", timeout=30, allow_redirects=False,
                                 data={"username": self.name, "password": password, "_xsrf": xsrf}), r

    def hub_api(self, method, path, **kw):
        headers = {"X-XSRFToken": self.session.cookies.get("_xsrf", "")}
        return self.session.request(method, f"{self.base}/hub/api{path}", headers=headers, timeout=60, **kw)

    def start_server(self):
        return self.hub_api("POST", f"/users/{self.name}/server")

    def wait_ready(self, timeout=90):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            model = self.hub_api("GET", f"/users/{self.name}").json()
            server = model.get("servers", {}).get("", {})
            if server.get("ready"):
                return True
            time.sleep(0.5)
        return False

    def make_token(self):
        r = self.hub_api("POST", f"/users/{self.name}/tokens", json={"note": "course test", "expires_in": 900})
        r.raise_for_status()
        self.token = r.json()["token"]
        return self.token

    def server(self, method, path, *, as_token=None, owner=None, **kw):
        """A request to a user's server (default: one's own) with a token (default: one's own), no cookies."""
        import requests
        owner = owner or self.name
        headers = {"Authorization": f"token {as_token or self.token}"}
        return requests.request(method, f"{self.base}/user/{owner}{path}", headers=headers, timeout=120,
                                allow_redirects=False, **kw)

    def nbgrader(self, action):
        r = self.server("POST", f"/assignments/{action}", data={"course_id": COURSE_ID, "assignment_id": ASSIGNMENT})
        r.raise_for_status()
        return r.json()

    def run_code(self, code, timeout=60):
        """Run ``code`` in a new kernel of one's own server; return (status, stdout)."""
        import websocket
        r = self.server("POST", "/api/kernels", json={"name": "python3"})
        r.raise_for_status()
        kernel = r.json()["id"]
        ws_url = f"{self.base.replace('http', 'ws')}/user/{self.name}/api/kernels/{kernel}/channels"
        ws = websocket.create_connection(ws_url, header=[f"Authorization: token {self.token}"], timeout=timeout)
        try:
            msg_id = uuid.uuid4().hex
            ws.send(json.dumps({
                "header": {"msg_id": msg_id, "username": self.name, "session": uuid.uuid4().hex,
                           "msg_type": "execute_request", "version": "5.3"},
                "parent_header": {}, "metadata": {}, "channel": "shell",
                "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                            "allow_stdin": False}}))
            out, status, idle = [], None, False
            deadline = time.monotonic() + timeout
            while status is None or not idle:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no reply from {self.name}'s kernel: {out}")
                msg = json.loads(ws.recv())
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                if msg["msg_type"] == "stream":
                    out.append(msg["content"]["text"])
                elif msg["msg_type"] == "error":
                    out.append(f"ERROR {msg['content']['ename']}: {msg['content']['evalue']}")
                elif msg["msg_type"] == "execute_reply":
                    status = msg["content"]["status"]
                elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                    idle = True
            return status, "".join(out)
        finally:
            ws.close()
            self.server("DELETE", f"/api/kernels/{kernel}")


def _hostile_cell(victim, course_dir, secret, inbound, outbound_nb):
    """Fun Time 1's answer, preceded by attempts at what a student must not be able to do."""
    return f'''
import os, shutil
for _what, _try in [
        ("list-classmate-home", lambda: os.listdir({str(pwd.getpwnam(victim).pw_dir)!r})),
        ("read-classmate-notebook", lambda: open({str(Path(pwd.getpwnam(victim).pw_dir) / ASSIGNMENT / (ASSIGNMENT + ".ipynb"))!r}).read()),
        ("list-course-folder", lambda: os.listdir({str(course_dir)!r})),
        ("read-gradebook-password", lambda: open({str(secret)!r}).read()),
        ("list-inbound", lambda: os.listdir({str(inbound)!r}))]:
    try:
        _try()
        print("PROBE", _what, "allowed")
    except OSError as _e:
        print("PROBE", _what, "denied", type(_e).__name__)
_forged = os.path.join({str(inbound)!r}, "{victim}+{ASSIGNMENT}+{FORGED_TIMESTAMP}+forged")
try:
    os.makedirs(_forged)
    shutil.copy({str(outbound_nb)!r}, os.path.join(_forged, "{ASSIGNMENT}.ipynb"))
    with open(os.path.join(_forged, "timestamp.txt"), "w") as _f:
        _f.write("{FORGED_TIMESTAMP}")
    print("PROBE forge-submission created")
except OSError as _e:
    print("PROBE forge-submission denied", type(_e).__name__)
''' + reference_bodies()["funtime1-answer"]


def _processes_of(users):
    found = {}
    for user in users:
        try:
            pwd.getpwnam(user)
        except KeyError:
            continue
        out = subprocess.run(["pgrep", "-u", user], capture_output=True, text=True).stdout.split()
        if out:
            found[user] = out
    return found


def _alive(pid):
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{int(pid)}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, ValueError, IndexError):
        return False
    return state != "Z"


def _gone(pids, timeout=10):
    """Wait up to ``timeout`` s for every pid to end; return those still running."""
    deadline = time.monotonic() + timeout
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [p for p in pids if _alive(p)]


# -- the deployment ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def deployment(request):
    _require_root()
    for tool in ("runuser", "useradd", "pgrep"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is not installed; the deployment needs it")
    hub_port = _free_ports(3)
    pg_port = _free_ports(1)
    while hub_port <= pg_port <= hub_port + 2:
        pg_port = _free_ports(1)
    teardown = [str(ROOT / "deploy" / "teardown.sh"), "--prefix", str(PREFIX)]
    # a deployment left by an interrupted run is removed first
    subprocess.run(teardown + ["--purge"], capture_output=True, text=True)

    def finish():
        subprocess.run(teardown + ["--purge"], capture_output=True, text=True, timeout=120)
        # users made before a failed setup wrote its settings are not known to teardown.sh
        for user in (INSTRUCTOR, LATECOMER) + STUDENTS:
            if subprocess.run(["id", "-u", user], capture_output=True).returncode == 0:
                subprocess.run(["userdel", "--remove", user], capture_output=True)
        subprocess.run(["groupdel", GROUP], capture_output=True)

    request.addfinalizer(finish)
    shell = Shell(PREFIX / "venv")
    start = time.monotonic()
    shell.run([str(ROOT / "deploy" / "setup.sh"), "--prefix", str(PREFIX), "--instructor", INSTRUCTOR,
               "--students", " ".join(STUDENTS), "--group", GROUP, "--hub-port", str(hub_port),
               "--pg-port", str(pg_port)], timeout=900)
    settings = json.loads((PREFIX / "etc" / "deploy.json").read_text())
    return {"shell": shell, "settings": settings, "base": f"http://127.0.0.1:{hub_port}", "setup_s": time.monotonic() - start,
            "teardown": teardown}


def test_course_on_jupyterhub(deployment, request):
    check = Checks()
    times = {"setup": deployment["setup_s"]}
    sh, cfg, base = deployment["shell"], deployment["settings"], deployment["base"]
    venv = Path(cfg["venv"])
    course = Path(cfg["course_dir"])
    exchange = Path(cfg["exchange"])
    secret_file = Path(cfg["gradebook_secret"])
    gradebook_password = secret_file.read_text().strip()
    shared_password = (PREFIX / "hub" / "shared-password").read_text().strip()
    inbound = exchange / COURSE_ID / "inbound"
    outbound_nb = exchange / COURSE_ID / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    homes = {u: Path(pwd.getpwnam(u).pw_dir) for u in (INSTRUCTOR,) + STUDENTS}
    t0 = time.monotonic()
    print(f"\ndeployment in {PREFIX}: hub {base}, setup took {times['setup']:.1f} s")
    try:
        # -- what setup made ------------------------------------------------------------
        for user, home in homes.items():
            check(f"home of {user} is 0700", stat.S_IMODE(home.stat().st_mode) == 0o700, oct(home.stat().st_mode))
        mode = exchange.stat().st_mode
        check("exchange is world-writable with the sticky bit (1777)", stat.S_IMODE(mode) == 0o1777, oct(mode))
        st = secret_file.stat()
        check("gradebook password file is 0600 and the instructor's",
              stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == pwd.getpwnam(INSTRUCTOR).pw_uid, oct(st.st_mode))
        check("course folder is inside the instructor's home", course.parent == homes[INSTRUCTOR])
        check("venv built from the system Python, not one under /root",
              not os.path.realpath(venv / "bin" / "python").startswith("/root"), os.path.realpath(venv / "bin" / "python"))
        for name in ("jupyterhub", "proxy", "postgresql"):
            pidfile = PREFIX / "run" / f"{name}.pid"
            check(f"{name} is running (pid file)", pidfile.is_file() and _alive(pidfile.read_text().strip()))

        # -- everyone logs in and starts a server ---------------------------------------
        t = time.monotonic()
        people = {u: HubUser(base, u) for u in (INSTRUCTOR,) + STUDENTS}
        intruder = HubUser(base, CORRECT)
        r, _ = intruder.login("not-the-password")
        check("a wrong password is refused", r.status_code in (200, 403) and not r.headers.get("location"),
              f"{r.status_code} {r.headers.get('location')}")
        stranger = HubUser(base, "root")
        r, _ = stranger.login(shared_password)
        check("a Linux user outside the course (root) cannot log in", r.status_code == 403 or not r.headers.get("location"),
              f"{r.status_code} {r.headers.get('location')}")
        for user, person in people.items():
            r, _ = person.login(shared_password)
            check(f"{user} logs in with the shared password", r.status_code == 302, f"{r.status_code} {r.text[:200]}")
        # everyone at once, as a class does (the hub's API answers when a server is up, or after 10 s)
        spawning = ThreadPoolExecutor(len(people))
        requested = {user: spawning.submit(person.start_server) for user, person in people.items()}
        # -- while the servers start, the instructor releases the assignment ----------------
        t_rel = time.monotonic()
        with ThreadPoolExecutor(2) as pool:      # and a student joins late
            jobs = [pool.submit(sh.run, ["nbgrader", "release_assignment", ASSIGNMENT], user=INSTRUCTOR, cwd=course),
                    pool.submit(sh.run, [str(ROOT / "deploy" / "setup.sh"), "--prefix", str(PREFIX),
                                         "--add-student", LATECOMER])]
            for job in jobs:
                job.result()
        times["release (and --add-student)"] = time.monotonic() - t_rel
        late = HubUser(base, LATECOMER)
        r, _ = late.login(shared_password)
        check("a student added to the running hub logs in (no restart)", r.status_code == 302, r.status_code)
        home = Path(pwd.getpwnam(LATECOMER).pw_dir)
        check("the added student's home is 0700", stat.S_IMODE(home.stat().st_mode) == 0o700, oct(home.stat().st_mode))
        check("assignment is in the exchange's outbound folder", outbound_nb.is_file())
        for user, future in requested.items():
            r = future.result()
            check(f"{user}'s server is requested through the hub API", r.status_code in (201, 202), f"{r.status_code} {r.text[:200]}")
        spawning.shutdown()
        for user, person in people.items():
            check(f"{user}'s server is ready", person.wait_ready())
            person.make_token()
        times["login and spawn of 4 servers (release meanwhile)"] = time.monotonic() - t
        for user in people:
            procs = subprocess.run(["pgrep", "-u", user, "-f", "jupyterhub-singleuser"], capture_output=True, text=True)
            check(f"{user}'s server runs as {user}", procs.stdout.strip() != "")

        # -- students fetch, fill in, submit ----------------------------------------------
        t = time.monotonic()
        ref = reference_bodies()
        answers = {
            CORRECT: dict(ref),
            PARTIAL: {k: v for k, v in ref.items() if k not in ("pla-solution", "pocket-solution")},
            HOSTILE: dict(ref, **{"funtime1-answer": _hostile_cell(CORRECT, course, secret_file, inbound, outbound_nb)}),
        }
        handed_in = {}
        for student in STUDENTS:
            person = people[student]
            listing = person.nbgrader("fetch")
            listing = listing.get("value", listing) if isinstance(listing, dict) else listing
            fetched = [a for a in listing if a.get("assignment_id") == ASSIGNMENT and a.get("status") == "fetched"]
            check(f"{student} fetched {ASSIGNMENT} through their server", fetched, str(listing)[:300])
            path = f"/api/contents/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
            r = person.server("GET", path)
            check(f"{student}'s copy is in their home", r.status_code == 200, r.status_code)
            nb = nbformat.from_dict(r.json()["content"])
            filled = fill(nb, answers[student])
            r = person.server("PUT", path, json={"type": "notebook", "format": "json", "content": filled})
            check(f"{student} saves the filled-in notebook", r.status_code == 200, f"{r.status_code} {r.text[:200]}")
            owner = pwd.getpwuid((homes[student] / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").stat().st_uid).pw_name
            check(f"{student}'s notebook belongs to {student}", owner == student, owner)
            handed_in[student] = filled

        # the hostile student runs the cell in a kernel of their own server
        status, out = people[HOSTILE].run_code(answers[HOSTILE]["funtime1-answer"])
        probes = dict(re.findall(r"^PROBE (\S+) (\S+)", out, re.M))
        print(f"  hostile code, as {HOSTILE}: {probes}")
        for what in ("list-classmate-home", "read-classmate-notebook", "list-course-folder",
                     "read-gradebook-password", "list-inbound"):
            check(f"hostile code cannot {what.replace('-', ' ')}", probes.get(what) == "denied", out[-500:])
        forged = list(inbound.glob(f"{CORRECT}+{ASSIGNMENT}+{FORGED_TIMESTAMP}+forged"))
        check("hostile code planted a submission under a classmate's name (the exchange allows it)",
              probes.get("forge-submission") == "created" and forged, out[-300:])

        for student in STUDENTS:
            result = people[student].nbgrader("submit")
            result = result.get("value", result) if isinstance(result, dict) else result
            ok = isinstance(result, list) and any(a.get("status") == "submitted" for a in result)
            check(f"{student} submits through their server", ok, str(result)[:300])
        mine = [p for p in inbound.iterdir() if p.name.startswith(f"{HOSTILE}+")]
        check("the submission in the exchange belongs to its student",
              mine and all(pwd.getpwuid(p.stat().st_uid).pw_name == HOSTILE for p in mine))
        times["fetch, fill, run, submit"] = time.monotonic() - t

        # -- isolation --------------------------------------------------------------------
        eve, ada = people[HOSTILE], people[CORRECT]
        r = eve.server("GET", "/api/contents", owner=CORRECT)
        check("a student's token is refused on another student's server", r.status_code in (403, 404), r.status_code)
        r = eve.server("GET", "/formgrader", owner=INSTRUCTOR)
        check("a student's token is refused on the Formgrader", r.status_code in (403, 404), r.status_code)
        r = eve.server("GET", "/api/contents", owner=INSTRUCTOR)
        check("a student's token is refused on the instructor's server", r.status_code in (403, 404), r.status_code)
        r = eve.server("GET", "/formgrader/api/assignments", owner=INSTRUCTOR)
        check("a student's token is refused on the Formgrader's API", r.status_code in (403, 404), r.status_code)
        r = eve.server("GET", "/formgrader/api/assignments")
        check("a student's own server has no Formgrader", r.status_code == 404, r.status_code)
        r = people[INSTRUCTOR].server("GET", "/formgrader/api/assignments")
        check("the instructor's own token opens the Formgrader's API", r.status_code == 200 and ASSIGNMENT in r.text,
              f"{r.status_code} {r.text[:200]}")
        import requests
        r = requests.get(f"{base}/hub/api/users/{CORRECT}", headers={"Authorization": f"token {eve.token}"}, timeout=30)
        check("a student's token cannot read another student's hub record", r.status_code in (403, 404), r.status_code)
        r = requests.get(f"{base}/user/{CORRECT}/api/contents", cookies=eve.session.cookies, timeout=30, allow_redirects=False)
        check("a student's browser session does not open another student's server", r.status_code != 200, r.status_code)
        for what, cmd in [("another student's home", ["ls", str(homes[CORRECT])]),
                          ("the course folder", ["ls", str(course)]),
                          ("the gradebook password", ["cat", str(secret_file)]),
                          ("the hub's shared password", ["cat", str(PREFIX / "hub" / "shared-password")]),
                          ("the hub's log", ["cat", str(PREFIX / "log" / "jupyterhub.log")]),
                          ("PostgreSQL's log", ["cat", str(PREFIX / "log" / "postgresql.log")]),
                          ("the instructor's nbgrader configuration", ["cat", str(homes[INSTRUCTOR] / ".jupyter" / "nbgrader_config.py")])]:
            p = sh.run(cmd, user=PARTIAL, check=False)
            check(f"a student cannot read {what}", p.returncode != 0 and "ermission denied" in p.stderr, p.stderr.strip())
        p = sh.run(["python", "-c", "import psycopg, sys; psycopg.connect(host='127.0.0.1', port=int(sys.argv[1]), "
                    "dbname=sys.argv[2], user=sys.argv[3], password='guess', connect_timeout=5)",
                    str(cfg["pg_port"]), cfg["db_name"], cfg["db_role"]], user=PARTIAL, check=False)
        check("a student cannot log in to the gradebook database", p.returncode != 0 and "password authentication failed" in p.stderr,
              p.stderr.strip()[-200:])

        # -- the instructor grades with the course's own pipeline ---------------------------
        t = time.monotonic()
        p = sh.run(["nbgrader", "collect", ASSIGNMENT], user=INSTRUCTOR, cwd=course)
        check("collect refuses the submission planted under a classmate's name",
              f"claims to be from {CORRECT} but belongs to {HOSTILE}" in p.stdout + p.stderr, (p.stdout + p.stderr)[-500:])
        collected = sorted(d.name for d in (course / "submitted").iterdir())
        check("collect took one submission from each student", collected == sorted(STUDENTS), collected)
        got = nbformat.read(course / "submitted" / CORRECT / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
        check(f"{CORRECT}'s collected notebook is the one {CORRECT} handed in",
              [c.source for c in got.cells] == [c.source for c in handed_in[CORRECT].cells])
        # the same inbound folder collected by nbgrader's own collector: it only warns, and takes the forgery
        plain = sh.run(["nbgrader", "collect", ASSIGNMENT, "--CourseDirectory.submitted_directory=plain-collect",
                        "--ExchangeFactory.collect=nbgrader.exchange.default.collect.ExchangeCollect"],
                       user=INSTRUCTOR, cwd=course)
        taken = course / "plain-collect" / CORRECT / ASSIGNMENT / "timestamp.txt"
        check("(nbgrader's own collect would have taken the forgery as the classmate's submission)",
              taken.is_file() and taken.read_text().strip() == FORGED_TIMESTAMP, (plain.stdout + plain.stderr)[-300:])
        shutil.rmtree(course / "plain-collect", ignore_errors=True)
        times["collect"] = time.monotonic() - t
        t = time.monotonic()
        p = sh.run(["python", "-m", "grading", "autograde", ASSIGNMENT], user=INSTRUCTOR, cwd=course)
        check("autograde graded the three submissions", f"graded 3 of 3" in p.stdout, p.stdout[-500:])
        times["autograde (3 submissions)"] = time.monotonic() - t
        t = time.monotonic()
        sh.run(["python", "-m", "grading", "feedback", ASSIGNMENT], user=INSTRUCTOR, cwd=course)
        with ThreadPoolExecutor(2) as pool:      # two independent commands
            jobs = [pool.submit(sh.run, ["nbgrader", "release_feedback", ASSIGNMENT], user=INSTRUCTOR, cwd=course),
                    pool.submit(sh.run, ["python", "-m", "grading", "grades", ASSIGNMENT], user=INSTRUCTOR, cwd=course)]
            for job in jobs:
                job.result()
        times["feedback, release, grades"] = time.monotonic() - t
        check("no SQLite gradebook was made: the grades are in PostgreSQL", not (course / "gradebook.db").exists())
        with open(course / "grades.csv") as f:
            rows = {r["student_id"]: r for r in csv.DictReader(f)}
        got_scores = {s: rows.get(s, {}).get("score") for s in STUDENTS}
        print(f"  grades from PostgreSQL: {got_scores} (expected {EXPECTED})")
        request.node.user_properties.append(("report", f"deploy: grades exported from PostgreSQL {got_scores}, expected {EXPECTED}"))
        for student, want in EXPECTED.items():
            row = rows.get(student, {})
            check(f"{student} scores {want}/{TOTAL}", row.get("status") == "graded" and row.get("score") == f"{want:g}",
                  str(row))
        partial = rows.get(PARTIAL, {})
        check(f"{PARTIAL} loses exactly the PLA and pocket points",
              partial.get("pla (/4)") == "0" and partial.get("pocket (/3)") == "0" and partial.get("predict (/3)") == "3",
              str(partial))
        def sql(query):  # the gradebook itself, read by PostgreSQL's superuser over the cluster's socket
            return subprocess.run(["runuser", "-u", "postgres", "--", "psql", "-h", str(PREFIX / "run" / "postgresql"),
                                   "-p", str(cfg["pg_port"]), "-d", cfg["db_name"], "-At", "-c", query],
                                  capture_output=True, text=True).stdout.split()

        in_db = {row.split("|")[0]: float(row.split("|")[1]) for row in sql(
            "SELECT s.student_id, SUM(COALESCE(g.manual_score, g.auto_score)) FROM grade g "
            "JOIN submitted_notebook n ON g.notebook_id = n.id "
            "JOIN submitted_assignment s ON n.assignment_id = s.id GROUP BY s.student_id ORDER BY 1")}
        check("the PostgreSQL gradebook holds the same scores", in_db == {s: float(v) for s, v in EXPECTED.items()}, in_db)
        roster = sql("SELECT id FROM student ORDER BY 1")
        check("the gradebook's roster has every student, the added one too",
              roster == sorted(STUDENTS + (LATECOMER,)), roster)

        # -- students fetch their feedback -------------------------------------------------
        t = time.monotonic()
        for student in STUDENTS:
            people[student].nbgrader("fetch_feedback")
            pages = list((homes[student] / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))
            check(f"{student} fetched their feedback", len(pages) == 1, pages)
            if pages:
                text = pages[0].read_text()
                score = re.search(r"Score:\s*([\d.]+)\s*/\s*([\d.]+)", re.sub(r"<[^>]+>", " ", text))
                check(f"{student}'s feedback shows {EXPECTED[student]}/{TOTAL}",
                      score and float(score.group(1)) == EXPECTED[student], score and score.group(0))
                check(f"{student}'s feedback has no hidden test", "BEGIN HIDDEN TESTS" not in text)
        times["fetch feedback"] = time.monotonic() - t

        # at grading time the submission's code runs in the grader's sandbox: it reaches nothing
        graded = nbformat.read(course / "autograded" / HOSTILE / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
        seen = "".join(o.get("text", "") for c in graded.cells for o in c.get("outputs", []))
        at_grading = dict(re.findall(r"^PROBE (\S+) (\S+)", seen, re.M))
        print(f"  hostile code, at autograde (sandboxed, as {INSTRUCTOR}'s grader): {at_grading}")
        request.node.user_properties.append(("report", f"deploy: hostile code at autograde: {at_grading}"))
        for what in ("list-classmate-home", "read-classmate-notebook", "list-course-folder",
                     "read-gradebook-password", "list-inbound"):
            check(f"at autograde, hostile code cannot {what.replace('-', ' ')}", at_grading.get(what) == "denied",
                  at_grading)
        forged_at_grading = [p for p in inbound.iterdir() if FORGED_TIMESTAMP in p.name
                             and pwd.getpwuid(p.stat().st_uid).pw_name != HOSTILE]
        check("at autograde, hostile code planted nothing in the exchange", not forged_at_grading, forged_at_grading)

        # -- no password in any log or output ------------------------------------------------
        texts = list(sh.printed)
        for folder in (PREFIX / "log", course / "autograded", course / "feedback", exchange):
            texts += [p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file()]
        texts += [p.read_text(errors="replace") for p in course.glob("grades*")]
        texts += [p.read_text(errors="replace") for s in STUDENTS for p in (homes[s] / ASSIGNMENT).rglob("*") if p.is_file()]
        cmdlines = []
        for proc in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                cmdlines.append(proc.read_bytes().replace(b"\0", b" ").decode(errors="replace"))
            except OSError:
                pass
        for name, secret in (("gradebook", gradebook_password), ("shared login", shared_password)):
            leaks = sum(secret in text for text in texts)
            check(f"the {name} password is in no log, output or file of the run ({len(texts)} searched)", leaks == 0,
                  f"found in {leaks}")
            check(f"the {name} password is on no process's command line", not any(secret in c for c in cmdlines))
    finally:
        # -- teardown: everything stops -------------------------------------------------------
        t = time.monotonic()
        pids = {n: (PREFIX / "run" / f"{n}.pid").read_text().strip() for n in ("jupyterhub", "proxy", "postgresql")
                if (PREFIX / "run" / f"{n}.pid").is_file()}
        p = subprocess.run(deployment["teardown"], capture_output=True, text=True, timeout=120)
        times["teardown"] = time.monotonic() - t
        check("teardown.sh stops everything", p.returncode == 0, p.stderr[-500:])
        check("hub, proxy and PostgreSQL are gone", pids and not _gone(list(pids.values())), pids)
        left = _processes_of((INSTRUCTOR, LATECOMER) + STUDENTS)
        check("no process of the course's users is left (servers, kernels)", not left, left)
        times["total (after setup)"] = time.monotonic() - t0
        print("  timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()))
        line = f"deploy: {check.summary()}"
        print(line)
        request.node.user_properties.append(("checks_summary", line))
        request.node.user_properties.append(("report", "deploy: timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items())))
    assert not check.failed, "failed checks:\n" + "\n".join(f"  {n}: {d}" for n, d in check.failed)
