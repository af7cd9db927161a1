"""The course on a shared JupyterHub, stage by stage, by several Linux users and a hostile student.

deploy/setup.sh builds a throwaway deployment from a world-readable git clone of the course, as
a clone made with the default umask is. Every name it has is made from a random id of this run:
its course id, prefix, users, groups and the course account, and its ports are free ones, so the
test can never touch a real deployment on the same machine (nor another run). It reuses the
software that ``setup.sh --install-only`` put in /opt/ml-foundations-ci (``--software``). The hub
serves each user on a host of its own under ``<course id>.localhost`` (Chromium resolves
``*.localhost`` to the loopback; this process does the same for itself) over HTTPS, with a
certificate made for the run. Then, one test per stage, in order (each names the stage that
failed, and its checks):

1. what setup made: modes and owners of homes, course folder, exchange, secrets, solutions,
   the clone's git history; a second deployment of the same course id is refused;
2. logins: each person with their own Linux password (PAM); a hostile student tries every
   credential she holds on a classmate, the instructor and a TA, and guesses until locked out;
   a student sets a short password with passwd in her terminal: the hub refuses it and its
   page /hub/course-password makes her choose one that keeps the course's rule;
3. the class starts its servers at once while the instructor releases the assignment and
   a latecomer and a TA are added to the running hub;
4. students fetch, fill in and submit; the hostile student, from her kernel, tries to read
   and write what is not hers, squat the exchange, plant a submission under a classmate's
   name and a forged future-dated one under her own, and searches the disk for the solutions;
   the Validate button runs with the course's grading settings, the course's own button and
   its check in her JupyterLab, none in the shared Formgrader;
5. isolation over HTTP (tokens, servers, the Formgrader service), from a shell, and of the
   kernels' channels; a page her server serves, opened by the logged-in TA, tries his terminal,
   kernel and files;
6. limits: memory and tasks of a student's server, other users' processes hidden; the hostile
   student floods her server's stderr from her kernel: its log stays within its bound, her
   kernel keeps answering, a classmate's log is untouched;
7. the TA collects while she flips her notebook between her work and a link to the solution,
   with a FIFO, a device file and an oversized file in another entry, quarantines an entry,
   and autogrades without the instructor's password; the Formgrader (the course account) grades
   and the TA exports what it wrote; an administrator's chmod -R and a restore keep every
   submission's time; the instructor releases feedback and exports grades; the scores are
   checked against the points each answer must earn;
8. PostgreSQL, the hub and the proxy are killed and come back by themselves, nothing lost, and a
   server that survived the hub starts a new kernel (the keeper of its log outlived the hub);
9. a re-run of setup.sh with no option keeps the deployment as it is;
10. no password in any log, output or command line; the hostile student's report;
11. her server stops and what she left in /dev/shm goes, and her log's keeper ends;
    deploy/teardown.sh --purge leaves no process behind and removes the accounts it made, never
    one that existed before;
12. a second deployment, made with --behind-proxy, behind a real nginx that speaks TLS with the
    site configuration setup.sh wrote: a student logs in, her server on her own host name runs a
    kernel over a WebSocket through nginx, and a classmate's page still cannot drive her server.

Needs root (it creates users and starts the hub as root), as in CI; without root it is
skipped, unless COURSE_REQUIRE_DEPLOY=1 (set by .ci/run), when it fails.
"""
import csv
import datetime
import functools
import grp
import json
import os
import pwd
import re
import secrets
import select
import shutil
import signal
import socket
import stat
import subprocess
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
import pytest
from grading_helpers import ASSIGNMENT, ROOT, fill, reference_bodies

pytestmark = [pytest.mark.deploy, pytest.mark.slow]
pytest_plugins = ["labdriver"]      # the session's Chromium (the `browser` fixture)

# where `make test` (scripts/system-deps.sh) installed the deployment's software
SOFTWARE = Path(os.environ.get("COURSE_DEPLOY_PREFIX", "/opt/ml-foundations-ci"))
RUN = secrets.token_hex(3)       # every name of this run's deployment is made from it
COURSE_ID = f"mlfci-{RUN}"
PREFIX = Path(f"/opt/{COURSE_ID}")
CLONE = Path(f"/var/tmp/{COURSE_ID}-clone")
DOMAIN = f"{COURSE_ID}.localhost"
INSTRUCTOR = f"mlf{RUN}-teacher"
TA = f"mlf{RUN}-ta"              # added to the running deployment with setup.sh --add-grader
OLD_TA = f"mlf{RUN}-old"         # an account that existed before the deployment, made a grader by it
CORRECT, PARTIAL, HOSTILE = f"mlf{RUN}-ada", f"mlf{RUN}-bea", f"mlf{RUN}-eve"
STUDENTS = (CORRECT, PARTIAL, HOSTILE)
LATECOMER = f"mlf{RUN}-dan"      # added to the running deployment with setup.sh --add-student
GROUP = f"mlf{RUN}-students"
GRADERS = f"formgrade-{COURSE_ID}"
COURSE_USER = f"{COURSE_ID}-course"
EVERYONE = (INSTRUCTOR, TA, LATECOMER, OLD_TA, COURSE_USER) + STUDENTS
CULL_IDLE = 1800                 # servers must then report activity at least every 450 s (they do every 300 s)
MEM_LIMIT_MIB = 1024
TASKS_LIMIT = 256
USER_LOG_MIB = 1                 # each server's log (setup.sh --user-log-mib): small, so that 3x it floods fast
POINTS = {"predict": 3, "pla": 4, "radius": 1, "margin": 1, "bound": 1, "pocket": 3,
          "funtime1": 1, "funtime2": 1, "funtime3": 1, "funtime4": 1}
BY_HAND = {"explain": 2}         # the derivation, left as released by everyone here: 0 at once
AUTOMATIC = sum(POINTS.values())
TOTAL = AUTOMATIC + sum(BY_HAND.values())
# what each must earn: the partial submission leaves the PLA and pocket stubs untouched
EXPECTED = {CORRECT: AUTOMATIC, PARTIAL: AUTOMATIC - POINTS["pla"] - POINTS["pocket"], HOSTILE: AUTOMATIC}
FORGED_TIMESTAMP = "2099-01-01 00:00:00.000000 UTC"
# what the hostile student writes in a Markdown cell of her submission, for the grader's browser
PAYLOAD = ('Notes. <img src="missing-eve.png" onerror="window.__eve_ran = \'img onerror\'">'
           '<svg onload="window.__eve_ran = \'svg onload\'"></svg>')


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

    def run(self, cmd, *, user=None, cwd=None, timeout=300, check=True, input=None):
        if user is not None:   # as on the hub: the user's groups, umask 007
            home = pwd.getpwnam(user).pw_dir
            cmd = ["runuser", "-u", user, "--", "env", "-i", f"HOME={home}", f"USER={user}", f"LOGNAME={user}",
                   "LANG=C.UTF-8", f"PATH={self.venv}/bin:/usr/local/bin:/usr/bin:/bin",
                   f"JUPYTER_CONFIG_PATH={PREFIX / 'etc' / 'jupyter'}",
                   "bash", "-c", 'umask 007 && exec "$0" "$@"'] + list(cmd)
            cwd = cwd or home
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, input=input)
        self.printed.append(f"$ {' '.join(map(str, cmd))}\n{proc.stdout}\n{proc.stderr}")
        if check and proc.returncode != 0:
            raise AssertionError(f"{cmd} exited with {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        return proc


TLS = {"verify": True}     # the run's certificate, once the deployment has one


def origin(base, *, user=None, service=None):
    """The origin that serves ``user``'s server or a ``service`` (JupyterHub's subdomain names), or the hub's."""
    parts = urlsplit(base)
    if parts.hostname in ("127.0.0.1", "localhost") or not (user or service):
        return base
    host = f"{user}.{parts.hostname}" if user else f"{service}--service.{parts.hostname}"
    return f"{parts.scheme}://{host}:{parts.port}"


def _resolve_localhost_names():
    """This process resolves ``*.localhost`` to the loopback, as Chromium does (RFC 6761); returns the undo."""
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        if isinstance(host, str) and host.endswith(".localhost"):
            host = "127.0.0.1"
        return real(host, *args, **kwargs)

    socket.getaddrinfo = getaddrinfo
    return lambda: setattr(socket, "getaddrinfo", real)


class HubUser:
    """One person in a browser: logs in with their own password, then uses a token of their own."""

    def __init__(self, base, name):
        import requests
        self.base, self.name = base, name
        self.session = requests.Session()
        self.session.verify = TLS["verify"]
        self.session.trust_env = False     # REQUESTS_CA_BUNDLE would replace the run's certificate
        self.token = None

    def url(self, path="", *, owner=None, prefix=None):
        """The URL of ``path`` on a user's server (default: one's own) or under a service's ``prefix``."""
        if prefix and prefix.startswith("/services/"):
            return origin(self.base, service=prefix.split("/")[2]) + prefix + path
        owner = owner or self.name
        return origin(self.base, user=owner) + (prefix or f"/user/{owner}") + path

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

    def wait_ready(self, timeout=600):
        """Follow the hub's progress stream of one's server until it ends; return (ready, its last event).

        The hub sends each event of the spawn as it happens and ends with "ready" or "failed" (a
        keep-alive every 8 s between them); ``timeout`` only bounds a hang.
        """
        deadline = time.monotonic() + timeout
        headers = {"X-XSRFToken": self.session.cookies.get("_xsrf", "")}
        last = None
        with self.session.get(f"{self.base}/hub/api/users/{self.name}/server/progress", headers=headers,
                              stream=True, timeout=60) as r:
            if r.status_code != 200:
                return False, f"no progress stream: {r.status_code} {r.text[:200]}"
            for line in r.iter_lines(decode_unicode=True):
                if line and line.startswith("data:"):
                    last = json.loads(line[5:])
                    if last.get("ready") or last.get("failed"):
                        return bool(last.get("ready")), last.get("message")
                if time.monotonic() > deadline:
                    return False, f"the hub never said the server was ready or failed within {timeout} s: {last}"
        return False, f"the progress stream ended without saying ready: {last}"

    def make_token(self):
        r = self.hub_api("POST", f"/users/{self.name}/tokens", json={"note": "course test", "expires_in": 900})
        r.raise_for_status()
        self.token = r.json()["token"]
        return self.token

    def server(self, method, path, *, as_token=None, owner=None, prefix=None, **kw):
        """A request to a user's server (default: one's own) with a token (default: one's own), no cookies."""
        import requests
        headers = {"Authorization": f"token {as_token or self.token}"}
        return requests.request(method, self.url(path, owner=owner, prefix=prefix), headers=headers, timeout=120,
                                allow_redirects=False, verify=TLS["verify"], **kw)

    def nbgrader(self, action):
        r = self.server("POST", f"/assignments/{action}", data={"course_id": COURSE_ID, "assignment_id": ASSIGNMENT})
        r.raise_for_status()
        return r.json()

    def run_code(self, code, timeout=300):
        """Run ``code`` in a new kernel of one's own server; return (status, stdout)."""
        r = self.server("POST", "/api/kernels", json={"name": "python3"})
        r.raise_for_status()
        kernel = r.json()["id"]
        try:
            return self.execute(kernel, code, timeout)
        finally:
            self.server("DELETE", f"/api/kernels/{kernel}")

    def start_kernel(self, timeout=300):
        """A new kernel of one's own server that has run a first cell (its channels listen); its id."""
        r = self.server("POST", "/api/kernels", json={"name": "python3"})
        r.raise_for_status()
        kernel = r.json()["id"]
        self.execute(kernel, "pass", timeout)
        return kernel

    def execute(self, kernel, code, timeout=300):
        """Run ``code`` in one's kernel ``kernel`` over its websocket; return (status, stdout)."""
        import websocket
        ws_url = self.url(f"/api/kernels/{kernel}/channels").replace("http", "ws", 1)
        sslopt = {"ca_certs": TLS["verify"]} if isinstance(TLS["verify"], str) else {}
        ws = websocket.create_connection(ws_url, header=[f"Authorization: token {self.token}"], timeout=timeout,
                                         sslopt=sslopt)
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
                # each receive blocks until the kernel sends something, for what is left of the bound
                ws.settimeout(max(deadline - time.monotonic(), 0.001))
                try:
                    msg = json.loads(ws.recv())
                except websocket.WebSocketTimeoutException:
                    raise TimeoutError(f"{self.name}'s kernel never replied and went idle within {timeout} s: {out}"
                                       ) from None
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


def _gone(pids, timeout=300):
    """Wait for every pid to end; return those still running after ``timeout`` s (which only bounds a hang).

    A process's pidfd becomes readable when it exits: the wait is on that, not on a clock.
    """
    deadline = time.monotonic() + timeout
    for pid in pids:
        try:
            fd = os.pidfd_open(int(pid))
        except (ProcessLookupError, ValueError):
            continue
        try:
            select.select([fd], [], [], max(deadline - time.monotonic(), 0))
        finally:
            os.close(fd)
    return [p for p in pids if _alive(p)]


def _hostile_cell(d):
    """Fun Time 1's answer, preceded by attempts at what a student must not be able to do.

    Each attempt prints ``PROBE <name> allowed|denied``. The same cell runs twice: in the
    student's own kernel (as her Linux user) and at autograde, in the grader's sandbox.
    """
    ada_home = Path(pwd.getpwnam(CORRECT).pw_dir)
    course, exchange = Path(d["cfg"]["course_dir"]), Path(d["cfg"]["exchange"])
    inbound = exchange / COURSE_ID / "inbound"
    ada_entry = inbound / d["entries"][CORRECT]          # as if its secret name had leaked
    solution = CLONE / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    outbound_nb = exchange / COURSE_ID / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    return f'''
import os, shutil
def _probe(_what, _try):
    try:
        _try()
        print("PROBE", _what, "allowed")
    except OSError as _e:
        print("PROBE", _what, "denied", type(_e).__name__)
def _write(_path, _text="x"):
    with open(_path, "w") as _f:
        _f.write(_text)
def _others_processes():
    _seen = 0
    for _p in os.listdir("/proc"):
        try:
            _seen += _p.isdigit() and os.stat("/proc/" + _p).st_uid != os.getuid()
        except OSError:
            pass
    if not _seen:
        raise PermissionError("no other user's process is visible")
_probe("list-classmate-home", lambda: os.listdir({str(ada_home)!r}))
_probe("read-classmate-notebook", lambda: open({str(ada_home / ASSIGNMENT / (ASSIGNMENT + ".ipynb"))!r}).read())
_probe("list-course-folder", lambda: os.listdir({str(course)!r}))
_probe("read-gradebook-password", lambda: open({d["cfg"]["gradebook_secret"]!r}).read())
_probe("read-solution-in-clone", lambda: open({str(solution)!r}).read())
_probe("list-inbound", lambda: os.listdir({str(inbound)!r}))
_probe("squat-course-in-exchange", lambda: os.mkdir({str(exchange / "another-course")!r}))
_probe("write-exchange-course-folder", lambda: _write({str(exchange / COURSE_ID / "planted.txt")!r}))
_probe("write-outbound", lambda: _write({str(outbound_nb)!r}, "{{}}"))
_probe("read-classmate-submission", lambda: open({str(ada_entry / (ASSIGNMENT + ".ipynb"))!r}).read())
_probe("write-classmate-submission", lambda: _write({str(ada_entry / "timestamp.txt")!r}, "{FORGED_TIMESTAMP}"))
_probe("rename-classmate-submission", lambda: os.rename({str(ada_entry)!r}, {str(ada_entry) + "-moved"!r}))
_probe("see-other-users-processes", _others_processes)
def _plant(_who, _stamp):
    _entry = os.path.join({str(inbound)!r}, _who + "+{ASSIGNMENT}+" + _stamp + "+planted")
    os.makedirs(_entry)
    shutil.copy({str(outbound_nb)!r}, os.path.join(_entry, "{ASSIGNMENT}.ipynb"))
    _write(os.path.join(_entry, "timestamp.txt"), _stamp)
_probe("plant-submission-as-classmate", lambda: _plant({CORRECT!r}, "{FORGED_TIMESTAMP}"))
_probe("plant-future-dated-submission", lambda: _plant({HOSTILE!r}, "{FORGED_TIMESTAMP}"))
''' + reference_bodies()["funtime1-answer"]


def _pid_of(path):
    try:
        return Path(path).read_text().split()[0]
    except (OSError, IndexError):
        return None


def _wait(condition, timeout=300):
    """Ask ``condition()`` until it is true, sooner first (no fixed interval); its last value.

    For a service that the supervisor (or the hub) restarts after a crash: nothing announces that
    it listens again, so the request the test needs is the question. A condition that raises
    (a connection refused while the service restarts) counts as false; ``timeout`` only bounds a
    hang, and the caller's check names the state that never came.
    """
    deadline, pause = time.monotonic() + timeout, 0.05
    while True:
        try:
            value = condition()
        except Exception:  # whatever a service that is not back yet makes requests raise
            value = None
        if value or time.monotonic() > deadline:
            return value
        time.sleep(pause)
        pause = min(2 * pause, 2.0)


def _hub_up(base):
    import requests
    try:
        return requests.get(f"{base}/hub/api", timeout=5, verify=TLS["verify"]).status_code == 200
    except requests.RequestException:
        return False


# -- the deployment, shared by the stages below ---------------------------------------------

def _stale_test_deployments():
    """Deployments of earlier runs of this test whose supervisor no longer runs (an interrupted run)."""
    for conf in Path("/opt").glob("mlfci-*/etc/deploy.json"):
        prefix = conf.parents[1]
        if not _alive(_pid_of(prefix / "run" / "supervisord.pid") or 0):
            yield prefix


def _make_certificate(folder, domain=DOMAIN):
    """A self-signed certificate for ``domain`` and its subdomains (root only)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    cert, key = folder / "hub.crt", folder / "hub.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-keyout", str(key),
                    "-out", str(cert), "-subj", f"/CN={domain}",
                    "-addext", f"subjectAltName=DNS:{domain},DNS:*.{domain}"], check=True, capture_output=True)
    return cert, key


def _clone_course(dest):
    """The course as a fresh clone with the default umask leaves it (readable by every user, its git
    history included), the working tree's uncommitted changes on top, as the test runs them."""
    shutil.rmtree(dest, ignore_errors=True)
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(dest)], check=True,
                   capture_output=True)
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["xargs", "-0", "cp", "--parents", "-t", str(dest)], input=files, cwd=ROOT, check=True)
    subprocess.run(["chmod", "-R", "u+rwX,go+rX", str(dest)], check=True)
    return bool(os.stat(dest / "source").st_mode & stat.S_IROTH)


@pytest.fixture(scope="module")
def d(request):
    """The deployment: set up once from a world-readable clone of the course; torn down at the end."""
    _require_root()
    for tool in ("runuser", "useradd", "pgrep", "chpasswd", "setpriv", "openssl", "git"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is not installed; the deployment needs it")
    hub_port = _free_ports(4)
    pg_port = _free_ports(1)
    while hub_port <= pg_port <= hub_port + 3:
        pg_port = _free_ports(1)
    teardown = [str(ROOT / "deploy" / "teardown.sh"), "--prefix", str(PREFIX)]
    for stale in _stale_test_deployments():
        subprocess.run([str(ROOT / "deploy" / "teardown.sh"), "--prefix", str(stale), "--uninstall"],
                       capture_output=True, text=True)
    undo_names = _resolve_localhost_names()
    tls_dir = Path(f"/var/tmp/{COURSE_ID}-tls")
    groups_before = {g.gr_name for g in grp.getgrall()}

    def finish():
        undo_names()
        if os.environ.get("COURSE_DEPLOY_KEEP") == "1":   # to look at a failed run: teardown.sh --uninstall later
            print(f"  kept: {PREFIX} (COURSE_DEPLOY_KEEP=1)")
            return
        subprocess.run(teardown + ["--uninstall"], capture_output=True, text=True, timeout=180)
        # users made before a failed setup wrote its settings are not known to teardown.sh
        for user in EVERYONE:
            if subprocess.run(["id", "-u", user], capture_output=True).returncode == 0:
                subprocess.run(["userdel", "--remove", user], capture_output=True)
        for group in (GROUP, GRADERS, COURSE_USER):
            subprocess.run(["groupdel", group], capture_output=True)
        shutil.rmtree(CLONE, ignore_errors=True)
        shutil.rmtree(tls_dir, ignore_errors=True)
        shutil.rmtree(PREFIX, ignore_errors=True)

    request.addfinalizer(finish)
    clone_readable = _clone_course(CLONE)
    cert, key = _make_certificate(tls_dir)
    TLS["verify"] = str(cert)
    subprocess.run(["useradd", "--create-home", OLD_TA], check=True)   # an account older than the course
    shell = Shell(SOFTWARE / "venv")
    start = time.monotonic()
    setup = [str(CLONE / "deploy" / "setup.sh"), "--prefix", str(PREFIX)]
    shell.run(setup + ["--software", str(SOFTWARE), "--course-id", COURSE_ID, "--instructor", INSTRUCTOR,
                       "--students", " ".join(STUDENTS), "--graders", OLD_TA, "--group", GROUP,
                       "--hub-port", str(hub_port), "--pg-port", str(pg_port), "--mem-limit", str(MEM_LIMIT_MIB),
                       "--tasks-limit", str(TASKS_LIMIT), "--user-log-mib", str(USER_LOG_MIB),
                       "--cull-idle", str(CULL_IDLE), "--domain", DOMAIN,
                       "--tls-cert", str(cert), "--tls-key", str(key), "--lockout", "600"], timeout=1200)
    cfg = json.loads((PREFIX / "etc" / "deploy.json").read_text())
    _plant_eve_extension()
    state = {"shell": shell, "cfg": cfg, "base": f"https://{DOMAIN}:{hub_port}", "setup": setup,
             "teardown": teardown, "times": {"setup": time.monotonic() - start}, "clone_readable": clone_readable,
             "passwords": {}, "people": {}, "entries": {}, "attempts": [], "handed_in": {},
             "groups_before": groups_before, "hub_port": hub_port}
    yield state
    print("  timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in state["times"].items()))


@pytest.fixture
def check(request):
    checks = Checks()
    checks.node = request.node
    return checks


def stage(test):
    """A stage of the deployment: its named checks all run, then the stage fails if any failed."""
    @functools.wraps(test)
    def run(d, check, *args, **kwargs):
        try:
            test(d, check, *args, **kwargs)
        finally:
            check.node.user_properties.append(("checks_summary", f"deploy, {test.__name__[5:]}: {check.summary()}"))
        assert not check.failed, "failed checks:\n" + "\n".join(f"  {n}: {x}" for n, x in check.failed)
    return run


def attempt(d, check, name, refused, detail="", known=None):
    """One thing the hostile student tries: recorded for the report, and a check that it was refused.

    ``known``: why it is expected to succeed for now (the stage is marked expected-fail for it).
    """
    d["attempts"].append((name, bool(refused), str(detail)[:200], known))
    return check(f"hostile student: {name} is refused", refused, detail)


def _set_password(d, user):
    d["passwords"][user] = secrets.token_urlsafe(16)
    subprocess.run(["chpasswd"], input=f"{user}:{d['passwords'][user]}\n", text=True, check=True)


# -- 1. what setup made ------------------------------------------------------------------------

@stage
def test_setup_made_folders_with_their_modes(d, check):
    cfg = d["cfg"]
    course, exchange, secret = Path(cfg["course_dir"]), Path(cfg["exchange"]), Path(cfg["gradebook_secret"])
    uid = lambda u: pwd.getpwnam(u).pw_uid  # noqa: E731
    gid = grp.getgrnam(GRADERS).gr_gid
    for user in (INSTRUCTOR,) + STUDENTS:
        home = Path(pwd.getpwnam(user).pw_dir)
        check(f"home of {user} is 0700", stat.S_IMODE(home.stat().st_mode) == 0o700, oct(home.stat().st_mode))
    check(f"the instructor is in {GRADERS}, no student is",
          INSTRUCTOR in grp.getgrnam(GRADERS).gr_mem and not set(STUDENTS) & set(grp.getgrnam(GRADERS).gr_mem))

    def mode_owner(path, mode, owner, group_id):
        st = os.stat(path)
        return (stat.S_IMODE(st.st_mode) == mode and st.st_uid == owner and st.st_gid == group_id,
                f"{oct(stat.S_IMODE(st.st_mode))} uid {st.st_uid} gid {st.st_gid}")

    check("course folder: the course account's and the graders' group's, 2770",
          *mode_owner(course, 0o2770, uid(COURSE_USER), gid))
    check("course folder is in no one's home", not str(course).startswith("/home"), course)
    check("gradebook password: root's, readable by the graders' group only (0640)", *mode_owner(secret, 0o640, 0, gid))
    check("exchange root: root's, 0755 (no one else creates a course in it)", *mode_owner(exchange, 0o755, 0, 0))
    for sub, mode in (("", 0o2775), ("outbound", 0o2775), ("inbound", 0o3773), ("feedback", 0o2771)):
        check(f"exchange/{COURSE_ID}/{sub}: the course account's, {oct(mode)}",
              *mode_owner(exchange / COURSE_ID / sub, mode, uid(COURSE_USER), gid))
    check("the copy setup ran from was readable by every user (as a fresh clone)", d["clone_readable"])
    st = (CLONE / "source").stat()
    check("setup removed other users' access to the clone's solutions", not st.st_mode & 0o007, oct(st.st_mode))
    p = d["shell"].run(["git", "--git-dir", str(CLONE / ".git"), "show", f"HEAD:source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"],
                       user=HOSTILE, check=False)
    attempt(d, check, "read the solutions from the clone's git history (git show HEAD:source/...)",
            p.returncode != 0 and "BEGIN SOLUTION" not in p.stdout, (p.stdout[:200] + p.stderr[-200:]))
    made = {g.gr_name for g in grp.getgrall()} - d["groups_before"]
    check("every group the deployment made is named after this run's course id",
          made and all(RUN in g for g in made), sorted(made))
    check("the real course's graders' group was not made", "formgrade-ml-foundations" not in made)
    created = (PREFIX / "etc" / "created-users").read_text().split()
    check("setup lists the accounts it made, not the one that existed before",
          set(created) == {INSTRUCTOR, COURSE_USER} | set(STUDENTS), created)
    second = PREFIX.with_name(PREFIX.name + "-second")
    p = d["shell"].run([str(CLONE / "deploy" / "setup.sh"), "--prefix", str(second), "--software", str(SOFTWARE),
                        "--course-id", COURSE_ID, "--instructor", f"mlf{RUN}-t2", "--students", f"mlf{RUN}-s2",
                        "--hub-port", str(_free_ports(4)), "--pg-port", str(_free_ports(1))], check=False, timeout=600)
    check("a second deployment of the same course id is refused", p.returncode != 0 and "already used" in p.stderr,
          (p.stdout + p.stderr)[-400:])
    check("... before it made anyone", subprocess.run(["id", f"mlf{RUN}-t2"], capture_output=True).returncode != 0)
    shutil.rmtree(second, ignore_errors=True)
    fg = subprocess.run(["pgrep", "-u", COURSE_USER, "-f", "formgrader"], capture_output=True, text=True).stdout
    check("the Formgrader runs as the course account, not the instructor", fg.strip(), fg)
    check("venv built from the system Python, not one under /root",
          not os.path.realpath(Path(cfg["venv"]) / "bin" / "python").startswith("/root"))
    for name, pidfile in (("supervisord", PREFIX / "run" / "supervisord.pid"),
                          ("jupyterhub", PREFIX / "run" / "jupyterhub.pid"),
                          ("proxy", PREFIX / "run" / "proxy.pid"),
                          ("postgresql", PREFIX / "pgdata" / "postmaster.pid")):
        check(f"{name} is running", _alive(_pid_of(pidfile) or 0), pidfile)
    def supervised():
        return subprocess.run([str(SOFTWARE / "venv" / "bin" / "supervisorctl"), "-c",
                               str(PREFIX / "etc" / "supervisord.conf"), "status"], capture_output=True, text=True).stdout

    # supervisord says STARTING until a program has run for its startsecs: wait for RUNNING
    _wait(lambda: re.search(r"postgresql\s+RUNNING", supervised()) and re.search(r"jupyterhub\s+RUNNING", supervised()),
          timeout=120)
    ps = supervised()
    check("supervisord runs PostgreSQL and JupyterHub", re.search(r"postgresql\s+RUNNING", ps)
          and re.search(r"jupyterhub\s+RUNNING", ps), ps)
    mounts = Path("/proc/mounts").read_text()
    hidden = re.search(r"^proc /proc proc \S*hidepid=(2|invisible)", mounts, re.M)
    check("/proc is mounted with hidepid=2", hidden, [m for m in mounts.splitlines() if m.startswith("proc /proc ")])
    d["hidepid"] = bool(hidden)


# -- 2. logins -----------------------------------------------------------------------------------

@stage
def test_each_person_logs_in_with_their_own_password(d, check):
    base, sh = d["base"], d["shell"]
    r = requests_login(base, CORRECT, "anything")
    check("an account without a password yet cannot log in", r.status_code != 302, r.status_code)
    for user in (INSTRUCTOR,) + STUDENTS:
        _set_password(d, user)
    p = sh.run(d["setup"] + ["--password", CORRECT], check=False)
    first = re.search(r"First password of \S+ .*: (\S+)", p.stdout)
    check("setup.sh --password prints a first password", p.returncode == 0 and first, p.stdout[-300:])
    if first:
        check("that first password logs in", requests_login(base, CORRECT, first.group(1)).status_code == 302)
    _set_password(d, CORRECT)
    check("the first password no longer logs in once changed",
          not first or requests_login(base, CORRECT, first.group(1)).status_code != 302)
    people = {u: HubUser(base, u) for u in (INSTRUCTOR,) + STUDENTS}
    for user, person in people.items():
        r, _ = person.login(d["passwords"][user])
        check(f"{user} logs in with their own password", r.status_code == 302, f"{r.status_code} {r.text[:200]}")
    d["people"] = people
    check("a wrong password is refused", requests_login(base, CORRECT, "not-the-password").status_code != 302)
    check("a Linux user outside the course (root) cannot log in",
          requests_login(base, "root", d["passwords"][HOSTILE]).status_code != 302)
    eve = d["passwords"][HOSTILE]
    for victim in (CORRECT, INSTRUCTOR):
        for what, password in (("her own password", eve), ("an empty password", ""),
                               ("the victim's name as password", victim)):
            r = requests_login(base, victim, password)
            attempt(d, check, f"log in as {victim} with {what}", r.status_code != 302, r.status_code)


def requests_login(base, user, password):
    person = HubUser(base, user)
    r, _ = person.login(password)
    return r


def _passwd_in_a_terminal(user, current, new, timeout=120):
    """``passwd`` as ``user`` on a terminal (as in a JupyterLab terminal of the hub); (exit code, what it printed)."""
    import pty
    pid, fd = pty.fork()
    if pid == 0:                                   # the child: passwd, as the user, on the terminal
        os.execvp("runuser", ["runuser", "-u", user, "--", "env", "-i", "LANG=C.UTF-8", "/usr/bin/passwd"])
    answers, out, deadline = [current, new, new], b"", time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0))
            try:
                chunk = os.read(fd, 4096) if ready else b""
            except OSError:                        # the terminal closed: passwd ended
                break
            if not chunk:
                break
            out += chunk
            if out.rstrip().endswith(b":"):
                if not answers:                    # it asks again: the answer was refused
                    break
                os.write(fd, (answers.pop(0) + "\n").encode())
                out += b" <typed>\n"
    finally:
        if not _gone([pid], timeout=0):
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")


def _course_password_page(base, user, current, new, again=None):
    """The hub's /hub/course-password, as a browser fills it in; the response."""
    import requests
    session = requests.Session()
    session.verify, session.trust_env = TLS["verify"], False
    session.get(f"{base}/hub/course-password", timeout=30)
    return session.post(f"{base}/hub/course-password", timeout=60, allow_redirects=False, data={
        "_xsrf": session.cookies.get("_xsrf", ""), "username": user, "current": current, "new": new,
        "again": new if again is None else again})


def _shadow(user):
    return subprocess.run(["getent", "shadow", user], capture_output=True, text=True).stdout.split(":")[1]


@stage
def test_passwords_keep_the_courses_rule(d, check):
    """A student sets a short password in her terminal; the hub refuses it and its page makes her choose another."""
    import html
    base, user, minimum = d["base"], PARTIAL, int(d["cfg"]["min_password_length"])
    login_page = HubUser(base, user).session.get(f"{base}/hub/login", timeout=30).text
    check("the login page links the page that changes a password", 'href="/hub/course-password"' in login_page,
          login_page[-800:])
    short = "abcdefg1"                           # 8 characters: the machine's own rule (6) lets it through
    code, said = _passwd_in_a_terminal(user, d["passwords"][user], short)
    print(f"  passwd in her terminal, to {len(short)} characters: exit {code}: {said.splitlines()[-1:]}")
    check("passwd in her terminal sets a short password (the machine's rule, which the course leaves alone)",
          code == 0, said[-300:])
    d["passwords"][user] = short
    r = requests_login(base, user, short)
    text = html.unescape(r.text)
    check(f"the hub refuses her right but {len(short)}-character password",
          r.status_code == 403 and f"at least {minimum} characters" in text, f"{r.status_code} {text[-600:]}")
    check("... and says where to choose a new one", "/hub/course-password" in text, text[-600:])
    before = _shadow(user)
    for what, new, again, reason in (
            ("a short one", "Short-pw-9", None, f"at least {minimum}"),
            ("one with her name in it", f"{user}-is-my-password", None, "user name"),
            ("one of two letters", "ab" * 10, None, "different characters"),
            ("two that differ", "correct horse battery staple", "correct horse battery stapel", "differ")):
        r = _course_password_page(base, user, short, new, again)
        text = html.unescape(r.text)
        check(f"the page refuses {what}, saying why", r.status_code == 400 and reason in text
              and "Nothing was changed" in text, f"{r.status_code} {text[-500:]}")
    r = _course_password_page(base, user, "not-her-password", "correct horse battery staple")
    attempt(d, check, "change a classmate's password without knowing it (the course's page)", r.status_code == 403,
            r.status_code)
    root_before = _shadow("root")
    r = _course_password_page(base, "root", "", "correct horse battery staple")
    attempt(d, check, "change root's password through the course's page", r.status_code == 403
            and _shadow("root") == root_before, r.status_code)
    check("nothing refused changed her password", _shadow(user) == before)
    strong = "paper lantern under " + secrets.token_urlsafe(6)
    r = _course_password_page(base, user, short, strong)
    check("the page takes a password that keeps the rule", r.status_code == 200 and "password is changed" in r.text,
          f"{r.status_code} {r.text[-400:]}")
    d["passwords"][user] = strong
    check("she signs in with it", requests_login(base, user, strong).status_code == 302)
    check("the short one no longer opens anything", requests_login(base, user, short).status_code != 302)


# -- 3. the class starts at once; a latecomer and a TA join the running hub -------------------

@stage
def test_servers_start_while_the_course_grows(d, check):
    sh, base, people = d["shell"], d["base"], d["people"]
    course = Path(d["cfg"]["course_dir"])
    t = time.monotonic()
    spawning = ThreadPoolExecutor(len(people))
    requested = {user: spawning.submit(person.start_server) for user, person in people.items()}
    with ThreadPoolExecutor(3) as pool:
        jobs = [pool.submit(sh.run, ["nbgrader", "release_assignment", ASSIGNMENT], user=INSTRUCTOR, cwd=course),
                pool.submit(sh.run, d["setup"] + ["--add-student", LATECOMER]),
                pool.submit(sh.run, d["setup"] + ["--add-grader", TA])]
        for job in jobs:
            job.result()
    for user in (LATECOMER, TA):
        _set_password(d, user)
    for user in (LATECOMER, TA):
        person = HubUser(base, user)
        r, _ = person.login(d["passwords"][user])
        check(f"{user}, added to the running hub, logs in (no restart)", r.status_code == 302, r.status_code)
        people[user] = person
    for what, password in (("her own password", d["passwords"][HOSTILE]), ("an empty password", ""),
                           ("the TA's name as password", TA)):
        r = requests_login(base, TA, password)
        attempt(d, check, f"log in as the TA {TA} with {what}", r.status_code != 302, r.status_code)
    for guess in range(int(d["cfg"]["login_failures"])):
        requests_login(base, LATECOMER, f"guess-{guess}")
    r = requests_login(base, LATECOMER, d["passwords"][LATECOMER])
    attempt(d, check, f"guess {LATECOMER}'s password without end (after {d['cfg']['login_failures']} wrong ones "
            "even the right one is refused for a while)", r.status_code != 302, r.status_code)
    check(f"the TA is in {GRADERS}", TA in grp.getgrnam(GRADERS).gr_mem)
    check("the added student's home is 0700",
          stat.S_IMODE(os.stat(pwd.getpwnam(LATECOMER).pw_dir).st_mode) == 0o700)
    outbound_nb = Path(d["cfg"]["exchange"]) / COURSE_ID / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    check("assignment is in the exchange's outbound folder", outbound_nb.is_file())
    for user, future in requested.items():
        r = future.result()
        check(f"{user}'s server is requested through the hub API", r.status_code in (201, 202),
              f"{r.status_code} {r.text[:200]}")
    spawning.shutdown()
    people[TA].start_server()
    for user, person in people.items():
        if user == LATECOMER:
            continue
        check(f"{user}'s server is ready", *person.wait_ready())
        person.make_token()
    d["times"]["login and spawn of 4 servers (release meanwhile)"] = time.monotonic() - t
    for user in (INSTRUCTOR, TA) + STUDENTS:
        procs = subprocess.run(["pgrep", "-u", user, "-f", "jupyterhub-singleuser"], capture_output=True, text=True)
        check(f"{user}'s server runs as {user}", procs.stdout.strip() != "")


# -- 4. students fetch, fill in, submit; the hostile student tries her luck -------------------

def _fetch_fill_save(d, check, student, answers, extra_markdown=None):
    person = d["people"][student]
    listing = person.nbgrader("fetch")
    listing = listing.get("value", listing) if isinstance(listing, dict) else listing
    fetched = [a for a in listing if a.get("assignment_id") == ASSIGNMENT and a.get("status") == "fetched"]
    check(f"{student} fetched {ASSIGNMENT} through their server", fetched, str(listing)[:300])
    path = f"/api/contents/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    r = person.server("GET", path)
    check(f"{student}'s copy is in their home", r.status_code == 200, r.status_code)
    nb = nbformat.from_dict(r.json()["content"])
    filled = fill(nb, answers)
    if extra_markdown:
        filled.cells.append(nbformat.v4.new_markdown_cell(extra_markdown))
    r = person.server("PUT", path, json={"type": "notebook", "format": "json", "content": filled})
    check(f"{student} saves the filled-in notebook", r.status_code == 200, f"{r.status_code} {r.text[:200]}")
    d["handed_in"][student] = filled


def _submit(d, check, student):
    result = d["people"][student].nbgrader("submit")
    result = result.get("value", result) if isinstance(result, dict) else result
    ok = isinstance(result, list) and any(a.get("status") == "submitted" for a in result)
    check(f"{student} submits through their server", ok, str(result)[:300])


@stage
def test_students_submit_and_the_hostile_student_tries_the_exchange(d, check):
    inbound = Path(d["cfg"]["exchange"]) / COURSE_ID / "inbound"
    ref = reference_bodies()
    t = time.monotonic()
    _fetch_fill_save(d, check, CORRECT, dict(ref))
    _fetch_fill_save(d, check, PARTIAL, {k: v for k, v in ref.items() if k not in ("pla-solution", "pocket-solution")})
    for student in (CORRECT, PARTIAL):
        _submit(d, check, student)
    mine = {s: [p for p in inbound.iterdir() if p.name.startswith(f"{s}+")] for s in (CORRECT, PARTIAL)}
    d["entries"][CORRECT] = mine[CORRECT][0].name if mine[CORRECT] else "missing"
    for s, entries in mine.items():
        st = entries[0].stat() if entries else None
        check(f"{s}'s submission is {s}'s, 0750, in the graders' group",
              st and pwd.getpwuid(st.st_uid).pw_name == s and stat.S_IMODE(st.st_mode) & 0o777 == 0o750, st)
    # eve: her cell tries what a student must not do, in her own kernel, then she submits
    cell = _hostile_cell(d)
    _fetch_fill_save(d, check, HOSTILE, dict(ref, **{"funtime1-answer": cell}), extra_markdown=PAYLOAD)
    status, out = d["people"][HOSTILE].run_code(cell)
    probes = dict(re.findall(r"^PROBE (\S+) (\S+)", out, re.M))
    print(f"  hostile code, as {HOSTILE}: {probes}")
    d["probes"] = probes
    for what in ("list-classmate-home", "read-classmate-notebook", "list-course-folder", "read-gradebook-password",
                 "read-solution-in-clone", "list-inbound", "squat-course-in-exchange", "write-exchange-course-folder",
                 "write-outbound", "read-classmate-submission", "write-classmate-submission",
                 "rename-classmate-submission"):
        attempt(d, check, f"from her kernel: {what.replace('-', ' ')}", probes.get(what) == "denied", out[-400:])
    if d.get("hidepid"):
        attempt(d, check, "from her kernel: see other users' processes",
                probes.get("see-other-users-processes") == "denied")
    # planting entries in inbound is possible (inbound is -wx for students); collect must refuse them
    check("(she can create entries in inbound: collect has to refuse them)",
          probes.get("plant-submission-as-classmate") == "allowed"
          and probes.get("plant-future-dated-submission") == "allowed", probes)
    _submit(d, check, HOSTILE)
    d["times"]["fetch, fill, run, submit"] = time.monotonic() - t
    t = time.monotonic()
    hits = _search_disk_as(d, HOSTILE)
    attempt(d, check, "find hidden-test text anywhere on disk (files and git histories she can read)", not hits,
            hits[:5])
    d["times"]["her search of the disk"] = time.monotonic() - t
    status, out = d["people"][HOSTILE].run_code(f"open('/dev/shm/{COURSE_ID}-eve', 'wb').write(b'x' * 4096)")
    check("she leaves a file in /dev/shm (stage 11 checks it goes with her server)", status == "ok", out)


def _hidden_test_lines():
    """Lines of the instructor's hidden tests that appear nowhere a student may look (not in the release)."""
    released = (ROOT / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text()
    nb = nbformat.read(ROOT / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    lines = []
    for cell in nb.cells:
        m = re.search(r"BEGIN HIDDEN TESTS(.*?)END HIDDEN TESTS", cell.source, re.S)
        if m:
            lines += [ln.strip() for ln in m.group(1).splitlines()
                      if len(ln.strip()) >= 30 and ln.strip() not in released and "import" not in ln]
    return sorted(set(lines))[:8]


SEARCH = r"""
import json, os, subprocess, sys
needles, roots = json.loads(sys.argv[1]), json.loads(sys.argv[2])
shared, ours = json.loads(sys.argv[3]), set(json.loads(sys.argv[4]))   # in shared folders: the deployment's files
found, seen = [], set()
def look(data, where):
    for n in needles:
        if n.encode() in data:
            found.append([where, n[:50]])
            return
for root in roots + shared:
    for folder, dirs, files in os.walk(root, onerror=lambda e: None):
        mine = root not in shared or os.lstat(folder).st_uid in ours
        if "HEAD" in files and "objects" in dirs and mine:      # a git folder: every version it holds
            p = subprocess.run(["git", "--git-dir", folder, "log", "--all", "-p", "--format="],
                               capture_output=True)
            look(p.stdout, folder + " (git history)")
        for name in files:
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
                if not os.path.isfile(path) or os.path.islink(path) or st.st_size > 20_000_000:
                    continue
                if root in shared and st.st_uid not in ours:
                    continue
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                continue
            if path not in seen:
                seen.add(path)
                look(data, path)
print(json.dumps({"found": found, "files": len(seen)}))
"""


def _search_disk_as(d, user):
    """As ``user``: every file and git history she can read in the deployment's places, searched for hidden tests."""
    needles = _hidden_test_lines()
    assert needles, "no hidden-test line to search for"
    homes = sorted({pwd.getpwnam(u).pw_dir for u in EVERYONE if _exists(u)})
    roots = [str(CLONE), str(PREFIX), str(SOFTWARE)] + homes
    # the machine's shared temporary folders: what the deployment's users left there
    # (other people's files on a shared machine are not the deployment's)
    uids = [pwd.getpwnam(u).pw_uid for u in EVERYONE if _exists(u)]
    p = d["shell"].run(["python", "-c", SEARCH, json.dumps(needles), json.dumps(roots),
                        json.dumps(["/tmp", "/var/tmp", "/dev/shm"]), json.dumps(uids)], user=user, timeout=900)
    result = json.loads(p.stdout.strip().splitlines()[-1])
    print(f"  {user} searched {result['files']} readable files for {len(needles)} hidden-test lines: "
          f"{len(result['found'])} found")
    return result["found"]


def _exists(user):
    try:
        pwd.getpwnam(user)
        return True
    except KeyError:
        return False


@stage
def test_validate_on_the_hub_uses_the_courses_grading_settings(d, check):
    """The Validate button (nbgrader's handler in a student's server) runs as make check does."""
    bea = d["people"][PARTIAL]
    meta = lambda gid: {"nbgrader": {"grade": True, "grade_id": gid, "points": 1, "solution": False,  # noqa: E731
                                     "locked": True, "schema_version": 3}}
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import sys\nprint('a harmless warning', file=sys.stderr)\nassert 1 + 1 == 2",
                                  metadata=meta("stderr-is-no-failure")),
        nbformat.v4.new_code_cell("import numpy as np\nimport course_lib as cl\n"
                                  "cl.pla(np.array([[1.0, 1.0], [1.0, -1.0]]), np.array([1, -1]))",
                                  metadata=meta("pla-is-withheld")),
        nbformat.v4.new_code_cell("while True:\n    pass", metadata=meta("loops-for-ever")),
    ])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = f"{ASSIGNMENT}/validate-on-the-hub.ipynb"
    r = bea.server("PUT", f"/api/contents/{path}", json={"type": "notebook", "format": "json", "content": nb})
    check("the notebook is saved in her assignment folder", r.status_code in (200, 201), r.status_code)
    t = time.monotonic()
    r = bea.server("POST", "/assignments/validate", data={"path": path})
    d["times"]["Validate on the hub"] = time.monotonic() - t
    result = r.json() if r.status_code == 200 else {}
    value = result.get("value") if isinstance(result.get("value"), dict) else {}
    failed = {f.get("grade_id", ""): f.get("error", "") for f in value.get("failed", [])} if value else {}
    text = json.dumps(result)
    print(f"  Validate on the hub: failed {sorted(failed)}")
    check("Validate answers", r.status_code == 200 and value, f"{r.status_code} {text[:600]}")
    check("text on stderr is no failure (the course's kernel sends it to the output)",
          "stderr-is-no-failure" not in failed and "harmless warning" not in json.dumps(failed), text[:800])
    check("course_lib.pla is withheld while ps1 is checked", "not available while" in text, text[:800])
    check("a cell that never ends is stopped", "CellTimeoutError" in failed.get("loops-for-ever", text), text[-300:])
    led = {f.get("grade_id", ""): f.get("source", "") for f in value.get("failed", [])} if value else {}
    check("the Assignment List's Validate leads each failure with its message (the course's handler)",
          led and all(m.startswith("CellTimeoutError") for m in led.values()), str(led)[:600])
    # the limit it was stopped at: the configuration the Validate handler loads, in her assignment folder
    home = Path(pwd.getpwnam(PARTIAL).pw_dir)
    p = d["shell"].run(["python", "-c", VALIDATE_LIMIT], user=PARTIAL, cwd=home / ASSIGNMENT, check=False)
    check(f"Validate's cell limit for {ASSIGNMENT} is the course's 3 s, not nbgrader's 30 s",
          p.stdout.strip() == "3", (p.stdout + p.stderr)[-400:])
    # the course's Validate button (jupyter/labextensions/, grading/validate_service.py) in her JupyterLab
    page = bea.server("GET", "/lab").text
    try:
        config = json.loads(page.split('id="jupyter-config-data"', 1)[1].split(">", 1)[1].split("</script>", 1)[0])
    except (IndexError, ValueError):
        config = {}
    check("her JupyterLab serves the course's Validate button and turns nbgrader's off",
          "ml-foundations-validate" in {e.get("name") for e in config.get("federated_extensions", [])}
          and "@jupyter/nbgrader:validate-assignment" in config.get("disabledExtensions", []), page[-600:])
    t = time.monotonic()
    r = bea.server("POST", "/course/validate", json={"path": f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"})
    d["times"]["the course's Validate on the hub"] = time.monotonic() - t
    report = r.json() if r.status_code == 200 else {}
    print(f"  the course's Validate on the hub: {report.get('headline', r.text[:300])}")
    check("the course's Validate says how many visible tests passed and what is graded later",
          report.get("status") in ("passed", "failed") and "visible test cells passed" in report.get("headline", "")
          and "graded later" in report.get("headline", "") and "all the tests" not in r.text, r.text[:800])
    # (a GET: 405 where the service is, 404 where it is not)
    mine, shared = bea.server("GET", "/course/validate"), d["people"][TA].server(
        "GET", "/course/validate", prefix="/services/formgrader")
    check("the shared Formgrader (the course account) has no Validate service",
          mine.status_code == 405 and shared.status_code == 404, f"{mine.status_code} {shared.status_code}")
    r = d["people"][TA].server("POST", "/assignments/validate", prefix="/services/formgrader", data={"path": path})
    check("... nor the Assignment List's Validate (it would run a submission as the course account)",
          r.status_code == 404, f"{r.status_code} {r.text[:300]}")
    _validate_an_untouched_copy(d, check)


def _released_test_cells():
    """How many visible test cells the released notebook has (nbgrader's metadata, read here)."""
    nb = nbformat.read(ROOT / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    return sum(1 for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")
               and not c.metadata.get("nbgrader", {}).get("solution"))


def _validate_an_untouched_copy(d, check):
    """The toolbar's Validate on the notebook as released: every visible test fails, in the sandbox, in her limits."""
    bea = d["people"][PARTIAL]
    released = Path(d["cfg"]["exchange"]) / COURSE_ID / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    folder = f"untouched/{ASSIGNMENT}"
    for sub in ("untouched", folder):
        bea.server("PUT", f"/api/contents/{sub}", json={"type": "directory"})
    r = bea.server("PUT", f"/api/contents/{folder}/{ASSIGNMENT}.ipynb",
                   json={"type": "notebook", "format": "json", "content": json.loads(released.read_text())})
    check("an untouched copy of the released notebook is saved", r.status_code in (200, 201), r.status_code)

    def the_check():      # her server's process that runs python -m grading ... check, while it runs
        out = subprocess.run(["pgrep", "-u", PARTIAL, "-f", "grading --course .* check --json"],
                             capture_output=True, text=True).stdout.split()
        return out and Path(f"/proc/{out[0]}/cgroup").read_text()

    with ThreadPoolExecutor(1) as pool:
        t = time.monotonic()
        asked = pool.submit(bea.server, "POST", "/course/validate", json={"path": f"{folder}/{ASSIGNMENT}.ipynb"})
        cgroups = _wait(lambda: the_check() or (asked.done() and "over"), timeout=600)
        r = asked.result()
    d["times"]["the course's Validate of an untouched copy"] = time.monotonic() - t
    report = r.json() if r.status_code == 200 else {}
    headline, cells = report.get("headline", r.text[:300]), _released_test_cells()
    print(f"  Validate of the untouched copy: {headline}")
    check(f"Validate of an untouched copy: 0 of the {cells} visible test cells passed, the rest graded later",
          report.get("status") == "failed" and headline.startswith(f"0 of {cells} visible test cells passed")
          and "graded later" in headline, r.text[:800])
    messages = [f.get("message", "") for f in report.get("failures", [])]
    check("... each failure leads with its message, the stubs' saying they are not done yet",
          len(messages) == cells and all(messages) and any("not done yet" in m for m in messages),
          sorted(set(messages)))
    check("... her code ran in the grading sandbox", not any("without the grading sandbox" in n
                                                             for n in report.get("notes", [])), report.get("notes"))
    check("... in her server's control group (her memory and task limits)",
          isinstance(cgroups, str) and f"{COURSE_ID}-hub/{PARTIAL}" in cgroups, cgroups)


VALIDATE_LIMIT = """
import os
from jupyter_core.paths import jupyter_config_path
from nbgrader.apps import NbGrader
from nbgrader.preprocessors import Execute
app = NbGrader()                         # as nbgrader's ValidateAssignmentHandler.load_config
app.config_file_paths.append([os.getcwd()] + jupyter_config_path())
app.load_config_file()
execute = Execute(config=app.config)
print(execute.timeout_func(None) if execute.timeout_func else execute.timeout)
"""


# -- 5. isolation over HTTP and from a shell ---------------------------------------------------

@stage
def test_isolation_between_users(d, check):
    import requests
    base, sh, cfg, people = d["base"], d["shell"], d["cfg"], d["people"]
    eve = people[HOSTILE]
    auth = {"Authorization": f"token {eve.token}"}
    for what, r in [
            ("use her token on a classmate's server", eve.server("GET", "/api/contents", owner=CORRECT)),
            ("use her token on the instructor's server", eve.server("GET", "/api/contents", owner=INSTRUCTOR)),
            ("use her token on the instructor's Formgrader",
             eve.server("GET", "/formgrader/api/assignments", owner=INSTRUCTOR)),
            ("use her token on the TA's server", eve.server("GET", "/api/contents", owner=TA)),
            ("use her token on the Formgrader service",
             eve.server("GET", "/formgrader/api/assignments", prefix="/services/formgrader")),
            ("read a classmate's hub record",
             requests.get(f"{base}/hub/api/users/{CORRECT}", headers=auth, timeout=30, verify=TLS["verify"])),
            ("mint a token for a classmate",
             requests.post(f"{base}/hub/api/users/{CORRECT}/tokens", json={}, headers=auth, timeout=30, verify=TLS["verify"])),
            ("mint a token for the instructor",
             requests.post(f"{base}/hub/api/users/{INSTRUCTOR}/tokens", json={}, headers=auth, timeout=30, verify=TLS["verify"])),
            ("start the instructor's server",
             requests.post(f"{base}/hub/api/users/{INSTRUCTOR}/server", headers=auth, timeout=30, verify=TLS["verify"])),
    ]:
        attempt(d, check, what, r.status_code in (403, 404), r.status_code)
    r = requests.get(eve.url("/api/contents", owner=CORRECT), cookies=eve.session.cookies, timeout=30,
                     allow_redirects=False, verify=TLS["verify"])
    attempt(d, check, "open a classmate's server with her browser session", r.status_code != 200, r.status_code)
    r = eve.session.get(eve.url("/formgrader", prefix="/services/formgrader"), timeout=60)
    attempt(d, check, "open the Formgrader service with her browser session",
            r.status_code in (403, 404) or "formgrader" not in r.url or "Manage Assignments" not in r.text,
            f"{r.status_code} {r.url}")
    r = eve.server("GET", "/formgrader/api/assignments")
    check("a student's own server has no Formgrader", r.status_code == 404, r.status_code)
    for who in (TA, INSTRUCTOR):
        r = people[who].server("GET", "/formgrader/api/assignments", prefix="/services/formgrader")
        check(f"{who}'s token opens the Formgrader service", r.status_code == 200 and ASSIGNMENT in r.text,
              f"{r.status_code} {r.text[:200]}")
    r = people[TA].session.get(people[TA].url("/formgrader", prefix="/services/formgrader"), timeout=60)
    check("the TA's browser session opens the Formgrader service", r.status_code == 200 and "formgrader" in r.url,
          f"{r.status_code} {r.url}")
    homes = {u: Path(pwd.getpwnam(u).pw_dir) for u in (INSTRUCTOR, CORRECT)}
    for what, cmd in [("list a classmate's home", ["ls", str(homes[CORRECT])]),
                      ("list the course folder", ["ls", cfg["course_dir"]]),
                      ("read the gradebook password", ["cat", cfg["gradebook_secret"]]),
                      ("read the hub's log", ["cat", str(PREFIX / "log" / "jupyterhub.log")]),
                      ("read PostgreSQL's log", ["cat", str(PREFIX / "log" / "postgresql.log")]),
                      ("read supervisord's configuration", ["cat", str(PREFIX / "etc" / "supervisord.conf")]),
                      ("read the instructor's nbgrader configuration",
                       ["cat", str(homes[INSTRUCTOR] / ".jupyter" / "nbgrader_config.py")])]:
        p = sh.run(cmd, user=HOSTILE, check=False)
        attempt(d, check, f"from a shell: {what}", p.returncode != 0 and "ermission denied" in p.stderr,
                p.stderr.strip())
    p = sh.run(["python", "-c", "import psycopg, sys; psycopg.connect(host='127.0.0.1', port=int(sys.argv[1]), "
                "dbname=sys.argv[2], user=sys.argv[3], password='guess', connect_timeout=5)",
                str(cfg["pg_port"]), cfg["db_name"], cfg["db_role"]], user=HOSTILE, check=False)
    attempt(d, check, "log in to the gradebook database",
            p.returncode != 0 and "password authentication failed" in p.stderr, p.stderr.strip()[-200:])
    p = sh.run(["ls", cfg["course_dir"]], user=TA, check=False)
    check("the TA can list the course folder", p.returncode == 0 and "source" in p.stdout, p.stderr)
    formgrader = "/services/formgrader"
    r = people[TA].server("POST", "/api/kernels", prefix=formgrader, json={"name": "python3"})
    attempt(d, check, "(as a TA) start a kernel in the Formgrader, as the course account", r.status_code >= 400,
            f"{r.status_code} {r.text[:200]}")
    r = people[TA].server("POST", "/api/terminals", prefix=formgrader)
    attempt(d, check, "(as a TA) open a terminal in the Formgrader, as the course account", r.status_code >= 400,
            f"{r.status_code} {r.text[:200]}")


KERNEL_PROBE = r"""
import json, os, pwd, socket, sys
victims = {pwd.getpwnam(u).pw_uid: u for u in json.loads(sys.argv[1])}
reached, tried, pipes = [], [], []
GREETING = b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x00" + b"NULL" + b"\x00" * 16 + b"\x00" + b"\x00" * 31
READY = b"\x05READY" + b"\x0bSocket-Type" + (3).to_bytes(4, "big") + b"SUB"
def zmq_type(s):
    s.sendall(GREETING + bytes([0x04, len(READY)]) + READY)   # ZMTP 3.0: greeting, then READY as a subscriber
    data = b""
    while b"Socket-Type" not in data or len(data) < data.index(b"Socket-Type") + 20:
        try:
            chunk = s.recv(256)
        except OSError:     # reset by a socket that will not talk to a subscriber
            break
        if not chunk:
            break
        data += chunk
    if not data.startswith(b"\xff"):
        return None
    if b"Socket-Type" not in data:   # a ZeroMQ socket that will not talk to a subscriber
        return "no subscriber"
    at = data.index(b"Socket-Type") + 11
    return data[at + 4:at + 4 + int.from_bytes(data[at:at + 4], "big")].decode()
for line in open("/proc/net/tcp").read().splitlines()[1:]:      # who listens on which TCP port
    f = line.split()
    port, state, uid = int(f[1].split(":")[1], 16), f[3], int(f[7])
    if state != "0A" or uid not in victims:
        continue
    tried.append(f"tcp {port} ({victims[uid]})")
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
            kind = zmq_type(s)
    except OSError:
        kind = None
    if kind in ("PULL", "no subscriber"):   # ipykernel's pipe for its children's output: write-only, signed
        pipes.append(f"tcp {port} of {victims[uid]}")
    elif kind:            # a kernel channel that answers a subscriber: what it sends can be read
        reached.append(f"tcp {port} of {victims[uid]} ({kind})")
for line in open("/proc/net/unix").read().splitlines()[1:]:      # every listening Unix socket's path
    f = line.split()
    if len(f) < 8 or "ipc" not in f[7] or not f[7].startswith("/"):
        continue
    tried.append("unix " + f[7])
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(3)
            s.connect(f[7])
        reached.append("unix " + f[7])
    except OSError:
        pass
print(json.dumps({"reached": reached, "tried": tried, "pipes": pipes}))
"""


@stage
def test_kernels_cannot_be_overheard(d, check):
    """Her classmate's and the instructor's kernels run; she tries to connect to every channel of theirs."""
    people, kernels = d["people"], []
    for who in (CORRECT, INSTRUCTOR):
        kernels.append((who, people[who].start_kernel()))
    try:
        p = d["shell"].run(["python", "-c", KERNEL_PROBE, json.dumps([CORRECT, INSTRUCTOR, TA])], user=HOSTILE)
        result = json.loads(p.stdout.strip().splitlines()[-1])
    finally:
        for who, kernel in kernels:
            people[who].server("DELETE", f"/api/kernels/{kernel}")
    print(f"  kernel channels she tried: {len(result['tried'])}, reached: {result['reached']}")
    tcp = [t for t in result["tried"] if t.startswith("tcp")]
    unix = [t for t in result["tried"] if t.startswith("unix")]
    print(f"  their TCP listeners: {tcp} (each server's HTTP port, and per kernel ipykernel's write-only pipe for "
          "its children's output, which answers no subscriber)")
    check("she found their kernels' channels (Unix sockets: 5 a kernel)", len(unix) >= 10, unix)
    attempt(d, check, "connect to a classmate's or the instructor's kernel channels (to overhear them)",
            not result["reached"], result["reached"])
    status, out = people[CORRECT].run_code("import os; print(os.environ.get('JUPYTERHUB_ACTIVITY_INTERVAL'))")
    interval = min(300, CULL_IDLE // 4)
    check(f"servers report activity every {interval} s, well within the culler's {CULL_IDLE} s",
          out.strip() == str(interval), out)


EVE_PAGE = """<!doctype html><html><body><p>Notes on PLA</p><script>
const R = {}, ta = "TA_SERVER", wsTa = ta.replace("https", "wss");
async function attempt() {
  try {
    const r = await fetch(ta + "/api/contents/pwned-by-fetch.txt", {method: "PUT", credentials: "include",
      headers: {"Content-Type": "application/json"}, body: JSON.stringify({type: "file", format: "text", content: "x"})});
    R.contents = r.status;
  } catch (e) { R.contents = "blocked"; }
  await new Promise(done => {
    let ws;
    try { ws = new WebSocket(wsTa + "/terminals/websocket/TERMINAL"); } catch (e) { R.terminal = "blocked"; return done(); }
    ws.onopen = () => { R.terminal = "open"; ws.send(JSON.stringify(["stdin", "echo x > ~/pwned-by-terminal.txt\\r"]));
                        ws.onmessage = () => { ws.close(); }; };
    ws.onerror = () => { R.terminal = R.terminal || "refused"; };
    ws.onclose = () => done();
  });
  await new Promise(done => {
    let ws;
    try { ws = new WebSocket(wsTa + "/api/kernels/KERNEL/channels"); } catch (e) { R.kernel = "blocked"; return done(); }
    ws.onopen = () => { R.kernel = "open"; ws.send(JSON.stringify({header: {msg_id: "eve1", username: "eve",
      session: "eve", msg_type: "execute_request", version: "5.3"}, parent_header: {}, metadata: {}, channel: "shell",
      content: {code: "open('pwned-by-kernel.txt', 'w').write('x')", silent: false}}));
      ws.onmessage = (m) => { if (String(m.data).includes("execute_reply")) ws.close(); }; };
    ws.onerror = () => { R.kernel = R.kernel || "refused"; };
    ws.onclose = () => done();
  });
  window.__eve_done = R;
}
attempt();
</script></body></html>"""


def _browser_login(tab, base, user, password, server):
    """Log ``user`` in on the hub's page in ``tab``, then visit ``server`` (a HubUser) so its cookie is set."""
    tab.goto(f"{base}/hub/login")
    tab.fill("input[name=username]", user)
    tab.fill("input[name=password]", password)
    tab.click("input[type=submit], button[type=submit]")
    tab.wait_for_url(re.compile(r".*/(user|hub)/.*"))
    tab.goto(server.url("/api/status"))


def _eve_outcome(tab, page):
    """Open the hostile student's ``page`` in ``tab`` and return what its script reached (``window.__eve_done``)."""
    tab.goto(page)
    tab.wait_for_function("window.__eve_done !== undefined")
    return tab.evaluate("window.__eve_done")


def _close_eve(server, terminal, kernel, home):
    """Close the terminal and kernel the script aimed at; the names of the files it wrote in ``home``."""
    server.server("DELETE", f"/api/terminals/{terminal}")
    server.server("DELETE", f"/api/kernels/{kernel}")
    return sorted(x.name for x in home.glob("pwned-*"))

EVE_EXTENSION = """
import json, os
from tornado import web
from jupyter_server.utils import url_path_join


class Page(web.RequestHandler):   # no authentication: anyone who opens the link gets the page
    def get(self):
        with open(os.path.expanduser("~/.eve/page.html")) as f:
            self.finish(f.read())


def _jupyter_server_extension_points():
    return [{"module": "eve_notes"}]


def _load_jupyter_server_extension(app):
    app.web_app.add_handlers(".*$", [(url_path_join(app.base_url, "eve-notes"), Page)])
"""


def _plant_eve_extension(user=HOSTILE):
    """What she does before her server starts: her own server extension, loaded by her ~/.jupyter."""
    home = Path(pwd.getpwnam(user).pw_dir)
    (home / ".eve").mkdir(exist_ok=True)
    (home / ".eve" / "eve_notes.py").write_text(EVE_EXTENSION)
    (home / ".jupyter" / "jupyter_server_config.py").write_text(f"import sys\nsys.path.insert(0, {str(home / '.eve')!r})\n")
    (home / ".jupyter" / "jupyter_server_config.json").write_text(json.dumps(
        {"ServerApp": {"jpserver_extensions": {"eve_notes": True, "nbgrader.server_extensions.formgrader": False}}}))
    subprocess.run(["chown", "-R", f"{user}:{user}", str(home / ".eve"), str(home / ".jupyter")], check=True)


@stage
def test_a_page_of_her_server_cannot_drive_the_tas_terminal_or_kernel(d, check, browser):
    """Her own server serves an unauthenticated page (her extension, loaded by her ~/.jupyter); the TA opens it.

    The TA is logged in, with a terminal and a kernel open in his server; her page's script tries
    to write into his home through his contents API, his terminal and his kernel.
    """
    import requests
    ta, eve = d["people"][TA], d["people"][HOSTILE]
    r = ta.server("POST", "/api/terminals")
    terminal = r.json().get("name") if r.status_code == 200 else None
    r = ta.server("POST", "/api/kernels", json={"name": "python3"})
    kernel = r.json().get("id") if r.status_code == 201 else None
    check("the TA has a terminal and a kernel open", terminal and kernel, f"{terminal} {kernel}")
    home = Path(pwd.getpwnam(HOSTILE).pw_dir)
    (home / ".eve" / "page.html").write_text(EVE_PAGE.replace("TA_SERVER", ta.url()).replace(
        "TERMINAL", str(terminal)).replace("KERNEL", str(kernel)))
    page = eve.url("/eve-notes")
    r = requests.get(page, verify=TLS["verify"], timeout=30, allow_redirects=False)
    check("her server serves her page without asking who reads it", r.status_code == 200, f"{page} {r.status_code}")
    ta_home = Path(pwd.getpwnam(TA).pw_dir)
    context = browser.new_context(ignore_https_errors=True)
    try:
        tab = context.new_page()
        _browser_login(tab, d["base"], TA, d["passwords"][TA], ta)    # his server's cookie, as after working in it
        outcome = _eve_outcome(tab, page)
    finally:
        context.close()
    written = _close_eve(ta, terminal, kernel, ta_home)
    print(f"  her page in the TA's browser: {outcome}; written in his home: {written}")
    attempt(d, check, "drive the TA's terminal, kernel or files from a page her server serves",
            not written and outcome.get("terminal") != "open" and outcome.get("kernel") != "open"
            and outcome.get("contents") not in (200, 201), f"{outcome} {written}")




# -- 6. limits ----------------------------------------------------------------------------------

@stage
def test_each_server_has_memory_and_task_limits(d, check):
    code = f'''
import subprocess, sys, resource
print("NPROC", resource.getrlimit(resource.RLIMIT_NPROC)[0])
print("CGROUP", open("/proc/self/cgroup").read().replace("\\n", ";"))
big = subprocess.run([sys.executable, "-c", "b = b'x' * ({MEM_LIMIT_MIB + 512} << 20); print('allocated')"],
                     capture_output=True, text=True)
print("BIG", big.returncode, "allocated" in big.stdout)
many = subprocess.run([sys.executable, "-c", """
import threading, time
ev = threading.Event(); n = 0
try:
    for n in range(1, 5000):
        threading.Thread(target=ev.wait, daemon=True).start()
except RuntimeError:
    print("stopped at", n)
ev.set()
"""], capture_output=True, text=True)
print("MANY", many.stdout.strip().replace("\\n", " "))
'''
    status, out = d["people"][HOSTILE].run_code(code, timeout=120)
    print(f"  limits seen by {HOSTILE}: {out.strip()}")
    nproc = re.search(r"NPROC (\d+)", out)
    check(f"tasks limit {TASKS_LIMIT} on a student's server", nproc and int(nproc.group(1)) == TASKS_LIMIT, out)
    in_group = f"{COURSE_ID}-hub/{HOSTILE}" in out
    check("the student's server runs in a control group of her own", in_group, out)
    big = re.search(r"BIG (-?\d+) (True|False)", out)
    attempt(d, check, f"allocate more than the {MEM_LIMIT_MIB} MiB limit", big and big.group(2) == "False", out)
    many = re.search(r"MANY stopped at (\d+)", out)
    attempt(d, check, "start 5000 threads (a fork bomb's first step)", many and int(many.group(1)) <= TASKS_LIMIT, out)
    d["limits"] = out.strip()


def _server_log(user):
    """What user's server has printed, as its keeper keeps it: (the older file, the current one) in bytes."""
    folder = PREFIX / "log" / "users"
    return tuple(p.read_bytes() if p.exists() else b"" for p in (folder / f"{user}.log.1", folder / f"{user}.log"))


def _log_keeper(user):
    """The keeper of ``user``'s server's log (deploy/course_serverlog.py): (pid, owner uid, its control groups
    and OOM score adjustment)."""
    found = subprocess.run(["pgrep", "-f", f"course_serverlog\\.py {PREFIX / 'log' / 'users' / user}\\.log "],
                           capture_output=True, text=True).stdout.split()
    if len(found) != 1:
        return None, None, f"{len(found)} keepers"
    pid = found[0]
    try:
        return (pid, os.stat(f"/proc/{pid}").st_uid,
                Path(f"/proc/{pid}/cgroup").read_text() + "oom_score_adj " + Path(f"/proc/{pid}/oom_score_adj").read_text())
    except OSError as e:
        return pid, None, str(e)


@stage
def test_her_servers_log_stays_within_its_bound(d, check):
    """She writes 3 times the bound to her server's stderr from her kernel (at the file descriptor, so
    through ipykernel's thread that copies it to the server's log): her log keeps within the bound, her
    kernel answers afterwards (that thread still runs: more than a pipe's buffer is written again), and
    a classmate's log is untouched."""
    eve, bound = d["people"][HOSTILE], USER_LOG_MIB << 20
    check("setup.sh stored the bound of each server's log", d["cfg"].get("user_log_mib") == USER_LOG_MIB,
          d["cfg"].get("user_log_mib"))
    pid, uid, cgroups = _log_keeper(HOSTILE)
    check("her server's log has a keeper of its own, run by root outside her control group",
          pid and uid == 0 and f"{COURSE_ID}-hub/{HOSTILE}" not in cgroups, f"{pid} {uid} {cgroups}")
    # (some kernels, such as a sandbox's, let nobody change an OOM score: the keeper then keeps the default)
    adjustable = subprocess.run(["sh", "-c", "echo -1000 > /proc/self/oom_score_adj && cat /proc/self/oom_score_adj"],
                                capture_output=True, text=True).stdout.strip() == "-1000"
    check("the OOM killer spares it" + ("" if adjustable else " (not checked: this kernel keeps OOM scores fixed)"),
          "oom_score_adj -1000" in cgroups or not adjustable, cgroups)
    ada_before = _server_log(CORRECT)
    done = f"eve-flood-done-{secrets.token_hex(4)}"
    kernel = eve.start_kernel()
    try:
        flood = f"""
import os
chunk = (b"x" * 1023 + b"\\n") * 1024          # 1 MiB of lines
for _ in range({3 * USER_LOG_MIB}):
    os.write(2, chunk)
os.write(2, b"{done}\\n")
"""
        # (what reaches her browser is cut by her server's own IOPub rate limit; the reply says it ran)
        status, out = eve.execute(kernel, flood, timeout=300)
        check(f"she wrote {3 * USER_LOG_MIB} MiB to her server's stderr", status == "ok", f"{status} {out[-300:]}")
        # her last line is in the log once the keeper has read everything before it
        check("what she wrote last is in her log (the latest output is kept)",
              _wait(lambda: done.encode() in b"".join(_server_log(HOSTILE)), timeout=120))
        older, current = _server_log(HOSTILE)
        size = len(older) + len(current)
        print(f"  her log after the flood: {len(current)} + {len(older)} (.1) bytes, bound {bound}")
        check("the flood reached the log (it was cut: the older file holds its middle)", b"x" * 1023 in older)
        attempt(d, check, f"fill the log partition through her server's stderr ({3 * USER_LOG_MIB} MiB, "
                f"the bound {USER_LOG_MIB} MiB)", 0 < size <= bound, f"{size} bytes")
        try:
            status, out = eve.execute(kernel, "os.write(2, b'y' * (1 << 17)); print(6 * 7)", timeout=120)
        except TimeoutError as e:
            status, out = "hung", str(e)[-300:]
        check("her kernel still answers, and writes to its stderr again", status == "ok" and "42" in out,
              f"{status} {out[-300:]}")
    finally:
        eve.server("DELETE", f"/api/kernels/{kernel}")
    ada_after = _server_log(CORRECT)
    check("a classmate's log is untouched (what it held is still there; nothing of hers is in it)",
          ada_after[0] == ada_before[0] and ada_after[1].startswith(ada_before[1])
          and not any(done.encode() in x or b"x" * 1023 in x for x in ada_after),
          f"{[len(x) for x in ada_before]} -> {[len(x) for x in ada_after]}")
    check("her log's keeper is still the same", _log_keeper(HOSTILE)[0] == pid, pid)


# -- 7. the TA grades; the instructor releases feedback --------------------------------------

COLLECT_RACE = r"""
import json, sys
from jupyter_core.paths import jupyter_config_path
from nbgrader.apps import NbGrader
from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
import course_exchange
assignment, student, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
app = NbGrader()                       # the configuration nbgrader collect would load here
app.config_file_paths.append(["."] + jupyter_config_path())
app.load_config_file()
got = {}
for _ in range(rounds):
    coursedir = CourseDirectory(config=app.config, assignment_id=assignment, student_id=student)
    course_exchange.OwnerCheckedCollect(coursedir=coursedir, authenticator=Authenticator(config=app.config),
                                        config=app.config, update=True).start()
    try:
        text = open(f"submitted/{student}/{assignment}/{assignment}.ipynb").read()
        kind = "the instructor's solution" if "BEGIN SOLUTION" in text else "her own work"
    except OSError:
        kind = "no notebook"
    got[kind] = got.get(kind, 0) + 1
print(json.dumps(got))
"""

FLIPPER = r"""
import os, sys
entry, target, stop = sys.argv[1:4]
nb, own, tmp = os.path.join(entry, sys.argv[4]), os.path.join(entry, "own.tmp"), os.path.join(entry, "flip.tmp")
os.link(nb, own)
flips = 0
while not os.path.exists(stop):
    os.symlink(target, tmp); os.rename(tmp, nb)     # her notebook is now a link to the solution
    os.link(own, tmp); os.rename(tmp, nb)           # and now her own work again
    flips += 2
print(flips)
"""


def _entries_of(inbound, student):
    return sorted((p for p in inbound.iterdir() if p.name.startswith(f"{student}+{ASSIGNMENT}+")),
                  key=lambda p: p.stat().st_mtime)


@stage
def test_a_ta_grades_without_the_instructors_password(d, check, request):
    sh, cfg = d["shell"], d["cfg"]
    course = Path(cfg["course_dir"])
    inbound = Path(cfg["exchange"]) / COURSE_ID / "inbound"
    t = time.monotonic()
    # the latecomer submits from a terminal; then his entry gets a FIFO, a 150 MB file (sparse: it
    # costs no disk) and a device file (as from a restore: only root makes one)
    for cmd in (["nbgrader", "fetch_assignment", ASSIGNMENT], ["nbgrader", "submit", ASSIGNMENT]):
        p = sh.run(cmd, user=LATECOMER, check=False)
        check(f"{LATECOMER} runs {' '.join(cmd[:2])} in a terminal", p.returncode == 0, (p.stdout + p.stderr)[-500:])
    dan_entry = (_entries_of(inbound, LATECOMER) or [inbound / "missing"])[-1]
    sh.run(["bash", "-c", f"mkfifo '{dan_entry}/pipe' && truncate -s 150M '{dan_entry}/data.csv'"], user=LATECOMER)
    os.mknod(dan_entry / "tty", 0o600 | stat.S_IFCHR, os.makedev(5, 0))
    os.chown(dan_entry / "tty", pwd.getpwnam(LATECOMER).pw_uid, -1)
    # her second submission, whose notebook she flips between her work and a link to the solution
    _submit(d, check, HOSTILE)
    race_entry = _entries_of(inbound, HOSTILE)[-1]
    stop = Path(f"/var/tmp/{COURSE_ID}-stop-flipping")
    solution = course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    flipper = subprocess.Popen(["runuser", "-u", HOSTILE, "--", str(SOFTWARE / "venv" / "bin" / "python"), "-c",
                                FLIPPER, str(race_entry), str(solution), str(stop), f"{ASSIGNMENT}.ipynb"],
                               stdout=subprocess.PIPE, text=True)
    try:
        rounds = 25     # tests/test_course_exchange.py runs the same race for 150 collections
        p = sh.run(["python", "-c", COLLECT_RACE, ASSIGNMENT, HOSTILE, str(rounds)], user=TA, cwd=course, check=False)
    finally:
        stop.touch()
        flips = int((flipper.communicate(timeout=120)[0] or "0").strip() or 0)
        stop.unlink()
    race = json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else {}
    print(f"  the race at collect: {flips} flips during {rounds} collections by the TA: {race}")
    d["race"] = f"{flips} flips, {rounds} collections: {race}"
    check("the TA collected while she flipped", p.returncode == 0 and flips > 100, (p.stdout + p.stderr)[-800:])
    attempt(d, check, f"get the solution collected as hers by flipping a link during collection ({flips} flips, "
            f"{rounds} collections)", race and "the instructor's solution" not in race, race)
    # that entry is set aside by a grader (it would be dated by its collection: its contents changed after submit)
    quarantine = {race_entry.name}

    def set_aside(*entries):
        quarantine.update(e.name for e in entries)
        (course / "quarantined-submissions.txt").write_text("".join(n + "\n" for n in sorted(quarantine)))

    set_aside()
    # what the race collected came from that entry: the grader removes it, as the hosting guide says
    shutil.rmtree(course / "submitted" / HOSTILE, ignore_errors=True)
    # the whole class
    p = sh.run(["nbgrader", "collect", ASSIGNMENT], user=TA, cwd=course, check=False)
    log = p.stdout + p.stderr
    check("the TA collects", p.returncode == 0, log[-800:])
    attempt(d, check, "hand in under a classmate's name (collect refuses it)",
            "refused: it belongs to " + HOSTILE in log, log[-800:])
    collected = sorted(x.name for x in (course / "submitted").iterdir()) if (course / "submitted").is_dir() else []
    check("collect took one submission from each student, the latecomer too",
          collected == sorted(STUDENTS + (LATECOMER,)), collected)
    dan = course / "submitted" / LATECOMER / ASSIGNMENT
    check(f"{LATECOMER}'s notebook is collected despite his FIFO, device file and 150 MB file",
          (dan / f"{ASSIGNMENT}.ipynb").is_file() and not any((dan / n).exists() for n in ("pipe", "tty", "data.csv")),
          sorted(x.name for x in dan.iterdir()) if dan.is_dir() else "none")
    for what, words in (("the FIFO", "pipe left out: a FIFO"), ("the device file", "tty left out: a device file"),
                        ("the 150 MB file", "data.csv left out: 157286400 bytes")):
        attempt(d, check, f"block or break the class's collection with {what} (left out, and said so by name)",
                words in log and LATECOMER in log, log[-1500:])
    # a grader quarantines his entries: collect skips them; the clerk moves them out of the way at its next call
    entries = _entries_of(inbound, LATECOMER)
    set_aside(*entries)
    # a submission left half made by a server killed during submit (ten minutes old) is removed by the clerk
    half = inbound / f"{HOSTILE}+{ASSIGNMENT}+2026-01-01 00:00:00.000000 UTC+half.part"
    sh.run(["bash", "-c", f"mkdir '{half}' && echo x > '{half}/{ASSIGNMENT}.ipynb' && touch -d '-20 min' '{half}'"],
           user=HOSTILE)
    p = sh.run(["nbgrader", "submit", ASSIGNMENT], user=LATECOMER, check=False)       # a call to the clerk
    check("the clerk set the quarantined entries aside (a grader needs no root for it)",
          p.returncode == 0 and all(not e.exists() for e in entries)
          and all((inbound / f".quarantined+{e.name}").exists() for e in entries), [e.name for e in entries])
    check("a half-made entry is removed by the clerk", not half.exists(), half)
    set_aside(*_entries_of(inbound, LATECOMER))
    shutil.rmtree(dan)
    p = sh.run(["nbgrader", "collect", "--update", ASSIGNMENT], user=TA, cwd=course, check=False)
    check("collect skips quarantined entries, naming them", p.returncode == 0 and "quarantined" in p.stdout + p.stderr,
          (p.stdout + p.stderr)[-600:])
    got = nbformat.read(course / "submitted" / HOSTILE / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    attempt(d, check, "hide her real submission behind a future-dated one (collect takes the server's time)",
            [c.source for c in got.cells] == [c.source for c in d["handed_in"][HOSTILE].cells])
    stamp = (course / "submitted" / HOSTILE / ASSIGNMENT / "timestamp.txt").read_text()
    check("the collected timestamp is the server's, not the one she wrote", "2099" not in stamp, stamp)
    # administrators' work: a no-op chmod -R and a restore of the exchange from a copy (cp -a)
    stamps = {s: (course / "submitted" / s / ASSIGNMENT / "timestamp.txt").read_text() for s in STUDENTS}
    due = (max(datetime.datetime.strptime(v, "%Y-%m-%d %H:%M:%S.%f UTC") for v in stamps.values())
           + datetime.timedelta(seconds=1))
    sh.run(["nbgrader", "db", "assignment", "add", ASSIGNMENT, f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC"],
           user=TA, cwd=course)
    folder = Path(cfg["exchange"]) / COURSE_ID
    sh.run(["chmod", "-R", "g+r", str(inbound)])
    sh.run(["cp", "-a", str(folder), f"{folder}.restored"])
    shutil.rmtree(folder)
    os.rename(f"{folder}.restored", folder)
    p = sh.run(["nbgrader", "collect", "--update", ASSIGNMENT], user=TA, cwd=course, check=False)
    after = {s: (course / "submitted" / s / ASSIGNMENT / "timestamp.txt").read_text() for s in STUDENTS}
    check("after chmod -R and a restore with cp -a, every submission keeps its time (on time stays on time)",
          after == stamps, f"before {stamps}, after {after}")
    p = sh.run(["python", "-m", "grading", "autograde", ASSIGNMENT], user=TA, cwd=course, check=False)
    check("the TA autogrades the class", p.returncode == 0 and "graded" in p.stdout, (p.stdout + p.stderr)[-800:])
    # the Formgrader (the course account) grades her submission; the TA then works on what it wrote
    fg = d["people"][TA]
    r = fg.server("POST", f"/formgrader/api/submission/{ASSIGNMENT}/{HOSTILE}/autograde", prefix="/services/formgrader")
    check("the Formgrader autogrades her submission again (the TA pressed its button)",
          r.status_code == 200 and r.json().get("success"), f"{r.status_code} {r.text[:400]}")
    private = [str(x) for x in (course / "autograded").rglob("*") if x.stat().st_mode & 0o060 != 0o060]
    check("what the Formgrader wrote, the graders' group can read and write", not private, private[:5])
    log_file = course / "formgrader-actions.log"
    # the server logs a request after its response is sent: wait for the line
    _wait(lambda: log_file.is_file() and re.search(rf" {TA} POST .*/autograde", log_file.read_text()), timeout=60)
    check("the Formgrader's log names the grader who pressed Autograde",
          log_file.is_file() and re.search(rf" {TA} POST .*/autograde", log_file.read_text()),
          log_file.read_text()[-400:] if log_file.is_file() else "no log")
    p = sh.run(["python", "-m", "grading", "grades", ASSIGNMENT], user=TA, cwd=course, check=False)
    check("the TA exports the grades after the Formgrader wrote (python -m grading grades)", p.returncode == 0,
          (p.stdout + p.stderr)[-600:])
    p = sh.run(["nbgrader", "export", "--to", f"/var/tmp/{COURSE_ID}-export.csv"], user=TA, cwd=course, check=False)
    exported = Path(f"/var/tmp/{COURSE_ID}-export.csv")
    rows = exported.read_text().splitlines() if exported.is_file() else []
    check("... and with nbgrader export: a row per student, not a header alone",
          p.returncode == 0 and len(rows) > len(STUDENTS), (p.stdout + p.stderr)[-400:] + str(rows[:2]))
    exported.unlink(missing_ok=True)
    d["times"]["collect (the race: 25 collections), autograde"] = time.monotonic() - t
    p = sh.run(["nbgrader", "db", "upgrade"], user=TA, cwd=course, check=False)
    password = Path(cfg["gradebook_secret"]).read_text().strip()
    check("nbgrader db upgrade (the advice after a database error) prints no password",
          password not in p.stdout + p.stderr, "printed")
    t = time.monotonic()
    p = sh.run(["python", "-m", "grading", "feedback", ASSIGNMENT], user=INSTRUCTOR, cwd=course, check=False)
    check("the instructor generates feedback on the TA's grading", p.returncode == 0, (p.stdout + p.stderr)[-800:])
    for cmd in (["nbgrader", "release_feedback", ASSIGNMENT], ["python", "-m", "grading", "grades", ASSIGNMENT]):
        p = sh.run(cmd, user=INSTRUCTOR, cwd=course, check=False)
        check(f"the instructor runs {' '.join(cmd[:3])}", p.returncode == 0, (p.stdout + p.stderr)[-800:])
    d["times"]["feedback, release, grades"] = time.monotonic() - t
    check("no SQLite gradebook was made: the grades are in PostgreSQL", not (course / "gradebook.db").exists())
    with open(course / f"grades-{ASSIGNMENT}.csv") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    check("her grade is dated by the server, not by her forged timestamp",
          not rows.get(HOSTILE, {}).get("timestamp", "2099").startswith("2099"), rows.get(HOSTILE))
    got_scores = {s: rows.get(s, {}).get("score") for s in STUDENTS}
    print(f"  grades from PostgreSQL: {got_scores} (expected {EXPECTED})")
    request.node.user_properties.append(
        ("report", f"deploy: grades exported from PostgreSQL {got_scores}, expected {EXPECTED}"))
    for student, want in EXPECTED.items():
        row = rows.get(student, {})
        check(f"{student} scores {want}/{TOTAL}",
              row.get("status") == "final" and row.get("score") == f"{want:g}", str(row))
    partial = rows.get(PARTIAL, {})
    check(f"{PARTIAL} loses exactly the PLA and pocket points",
          partial.get("pla (/4)") == "0" and partial.get("pocket (/3)") == "0" and partial.get("predict (/3)") == "3",
          str(partial))
    in_db = _scores_in_db(cfg)
    d["scores_in_db"] = in_db
    check("the PostgreSQL gradebook holds the same scores", in_db == {s: float(v) for s, v in EXPECTED.items()}, in_db)
    roster = _sql(cfg, "SELECT id FROM student ORDER BY 1")
    check("the gradebook's roster has every student, the added one too",
          roster == sorted(STUDENTS + (LATECOMER,)), roster)
    for student in STUDENTS:
        d["people"][student].nbgrader("fetch_feedback")
        home = Path(pwd.getpwnam(student).pw_dir)
        pages = list((home / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))
        check(f"{student} fetched their feedback", len(pages) == 1, pages)
        if pages:
            text = pages[0].read_text()
            score = re.search(r"Score:\s*([\d.]+)\s*/\s*([\d.]+)", re.sub(r"<[^>]+>", " ", text))
            check(f"{student}'s feedback shows {EXPECTED[student]}/{TOTAL}",
                  score and float(score.group(1)) == EXPECTED[student], score and score.group(0))
            check(f"{student}'s feedback has no hidden test", "BEGIN HIDDEN TESTS" not in text)
    graded = nbformat.read(course / "autograded" / HOSTILE / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    seen = "".join(o.get("text", "") for c in graded.cells for o in c.get("outputs", []))
    at_grading = dict(re.findall(r"^PROBE (\S+) (\S+)", seen, re.M))
    print(f"  hostile code, at autograde (sandboxed, the TA's grader): {at_grading}")
    for what in ("list-classmate-home", "read-classmate-notebook", "list-course-folder", "read-gradebook-password",
                 "list-inbound", "plant-submission-as-classmate", "write-classmate-submission"):
        attempt(d, check, f"at autograde: {what.replace('-', ' ')}", at_grading.get(what) == "denied", at_grading)


def _sql(cfg, query):  # the gradebook itself, read by PostgreSQL's superuser over the cluster's socket
    return subprocess.run(["runuser", "-u", "postgres", "--", "psql", "-h", str(PREFIX / "run" / "postgresql"),
                           "-p", str(cfg["pg_port"]), "-d", cfg["db_name"], "-At", "-c", query],
                          capture_output=True, text=True).stdout.split()


def _scores_in_db(cfg):
    return {row.split("|")[0]: float(row.split("|")[1]) for row in _sql(cfg,
            "SELECT s.student_id, SUM(COALESCE(g.manual_score, g.auto_score)) FROM grade g "
            "JOIN submitted_notebook n ON g.notebook_id = n.id "
            "JOIN submitted_assignment s ON n.assignment_id = s.id GROUP BY s.student_id ORDER BY 1")}


# -- 7b. the hostile student's HTML in the grader's browser ----------------------------------

@stage
def test_her_script_does_not_run_in_the_graders_browser(d, check, browser):
    """Chromium, logged in to the hub as the TA, opens her submission in the Formgrader service.

    ``browser`` is the session's Chromium (tests/labdriver.py): one Playwright per process, as
    Playwright's synchronous API allows no second one while the first is open.
    """
    ta = d["people"][TA]
    r = ta.server("GET", f"/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{ASSIGNMENT}",
                  prefix="/services/formgrader")
    ids = {row["student"]: row["id"] for row in r.json()} if r.status_code == 200 else {}
    check("the Formgrader lists her submission", HOSTILE in ids, f"{r.status_code} {r.text[:300]}")
    if HOSTILE not in ids:
        return
    context = browser.new_context(ignore_https_errors=True)
    try:
        page = context.new_page()
        page.goto(f"{d['base']}/hub/login")
        page.fill("input[name=username]", TA)
        page.fill("input[name=password]", d["passwords"][TA])
        page.click("input[type=submit], button[type=submit]")
        page.wait_for_url(re.compile(r".*/(user|hub)/.*"))
        resp = page.goto(ta.url(f"/formgrader/submissions/{ids[HOSTILE]}/", prefix="/services/formgrader"),
                         wait_until="load")
        policy = (resp.headers.get("content-security-policy") or "") if resp else ""
        check("the submission page sends the course's Content-Security-Policy", "script-src" in policy, policy)
        shown = page.locator("text=Notes.").count()
        check("the TA sees her submission (with her Markdown) in the Formgrader", shown > 0, page.url)
        page.wait_for_load_state("networkidle")
        ran = page.evaluate("window.__eve_ran || null")
    finally:
        context.close()
    attempt(d, check, "run her script in the grader's browser (Formgrader, Chromium)", ran is None, ran)


# -- 8. crashes: everything comes back by itself -------------------------------------------

@stage
def test_postgresql_the_hub_and_the_proxy_come_back_after_a_crash(d, check):
    cfg, base = d["cfg"], d["base"]
    t = time.monotonic()
    pidfiles = {"postgresql": PREFIX / "pgdata" / "postmaster.pid", "jupyterhub": PREFIX / "run" / "jupyterhub.pid"}
    before = {name: _pid_of(path) for name, path in pidfiles.items()}
    keeper = _log_keeper(CORRECT)[0]
    for name, pid in before.items():
        check(f"{name} runs before the crash", pid and _alive(pid), pid)
        if pid:
            os.kill(int(pid), signal.SIGKILL)
    check("both are gone", not _gone([p for p in before.values() if p]))
    for name, path in pidfiles.items():
        pid = _wait(lambda path=path, old=before[name]: (p := _pid_of(path)) and p != old and _alive(p) and p)
        check(f"{name} is restarted by the supervisor", pid, pid)
    check("the hub answers again", _wait(lambda: _hub_up(base)))
    check("the gradebook answers with every score",
          _wait(lambda: _scores_in_db(cfg) == d.get("scores_in_db")), _scores_in_db(cfg))
    proxy = _pid_of(PREFIX / "run" / "proxy.pid")
    if proxy and _alive(proxy):
        os.kill(int(proxy), signal.SIGKILL)
        _gone([proxy])
    new_proxy = _wait(lambda: (p := _pid_of(PREFIX / "run" / "proxy.pid")) and p != proxy and _alive(p) and p)
    check("the proxy is restarted by the hub", new_proxy, new_proxy)
    ada = d["people"][CORRECT]
    r = _wait(lambda: ada.server("GET", "/api/contents").status_code == 200)
    check(f"{CORRECT}'s server survived and is reachable again with her token", r)
    try:
        status, out = ada.run_code("print(6 * 7)", timeout=120)
    except Exception as e:  # a kernel that never starts is this check's failure
        status, out = "failed", f"{type(e).__name__}: {e}"
    check(f"{CORRECT}'s surviving server starts a new kernel (its output is not tied to the dead hub)",
          status == "ok" and out.strip() == "42", f"{status} {out[-300:]}")
    check(f"the keeper of {CORRECT}'s server's log outlived the hub", keeper and _log_keeper(CORRECT)[0] == keeper,
          f"{keeper} -> {_log_keeper(CORRECT)[0]}")
    r, _ = HubUser(base, PARTIAL).login(d["passwords"][PARTIAL])
    check("logins work again", r.status_code == 302, r.status_code)
    r = _wait(lambda: d["people"][TA].server("GET", "/formgrader/api/assignments",
                                             prefix="/services/formgrader").status_code == 200)
    check("the Formgrader service is back", r)
    d["times"]["crash recovery"] = time.monotonic() - t


# -- 9. a re-run keeps the deployment ------------------------------------------------------------

@stage
def test_setup_rerun_with_no_options_keeps_the_configuration(d, check):
    before = (PREFIX / "etc" / "deploy.json").read_text()
    p = d["shell"].run([str(CLONE / "deploy" / "setup.sh"), "--prefix", str(PREFIX)], check=False, timeout=600)
    check("setup.sh re-runs", p.returncode == 0, (p.stdout + p.stderr)[-800:])
    check("deploy.json is unchanged", (PREFIX / "etc" / "deploy.json").read_text() == before)
    check("no default user was created", subprocess.run(["id", "-u", "student01"], capture_output=True).returncode != 0)
    check("the hub answers", _wait(lambda: _hub_up(d["base"])))
    r = _wait(lambda: d["people"][CORRECT].server("GET", "/api/contents").status_code == 200)
    check("a student's running server is still there", r)
    check("the grades are still there", _scores_in_db(d["cfg"]) == d.get("scores_in_db"))


# -- 10. no password anywhere; the hostile student's report ----------------------------------

@stage
def test_no_password_in_logs_outputs_or_command_lines(d, check):
    cfg = d["cfg"]
    course = Path(cfg["course_dir"])
    texts = list(d["shell"].printed)
    for folder in (PREFIX / "log", course / "autograded", course / "feedback", Path(cfg["exchange"]), PREFIX / "etc"):
        texts += [p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file()]
    texts += [p.read_text(errors="replace") for p in course.glob("grades*")]
    cmdlines = []
    for proc in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            cmdlines.append(proc.read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            pass
    secrets_ = {"gradebook": Path(cfg["gradebook_secret"]).read_text().strip()}
    secrets_.update({f"{u}'s login": pw for u, pw in d["passwords"].items()})
    for name, secret in secrets_.items():
        leaks = sum(secret in text for text in texts)
        check(f"the {name} password is in no log, output or file of the run ({len(texts)} searched)", leaks == 0,
              f"found in {leaks}")
        check(f"the {name} password is on no process's command line", not any(secret in c for c in cmdlines))


def test_hostile_student_report(d, request):
    lines = [f"  [{'refused' if ok else 'ALLOWED'}] {name}" + ("" if ok else f": {detail}")
             + (f" (expected for now: {known})" if known and not ok else "")
             for name, ok, detail, known in d["attempts"]]
    print(f"\nhostile student {HOSTILE}: {len(d['attempts'])} attempts")
    print("\n".join(lines))
    allowed = [ln for (_, ok, _, known), ln in zip(d["attempts"], lines, strict=True) if not ok and not known]
    request.node.user_properties.append(("report", f"deploy: hostile student: {len(d['attempts'])} attempts, "
                                                   f"{sum(not a[1] for a in d['attempts'])} allowed"))
    assert d["attempts"], "no attempt was recorded"
    assert not allowed, "attempts that were not refused:\n" + "\n".join(allowed)


# -- 11. her server stops; teardown ---------------------------------------------------------------

@stage
def test_her_shared_memory_goes_with_her_server(d, check):
    eve = d["people"][HOSTILE]
    shm = Path(f"/dev/shm/{COURSE_ID}-eve")
    check("her file is in /dev/shm while her server runs", shm.exists())
    pids = _processes_of([HOSTILE]).get(HOSTILE, [])
    r = eve.hub_api("DELETE", f"/users/{HOSTILE}/server")
    check("she stops her server", r.status_code in (202, 204), r.status_code)
    check("her server and kernels are gone", not _gone(pids, timeout=120), pids)
    check("the keeper of her server's log ends with them", _wait(lambda: _log_keeper(HOSTILE)[0] is None, timeout=60))
    check("what she left in /dev/shm is gone with it", _wait(lambda: not shm.exists(), timeout=60), shm)


@stage
def test_teardown_stops_everything(d, check):
    t = time.monotonic()
    pids = {n: _pid_of(p) for n, p in (("supervisord", PREFIX / "run" / "supervisord.pid"),
                                        ("jupyterhub", PREFIX / "run" / "jupyterhub.pid"),
                                        ("proxy", PREFIX / "run" / "proxy.pid"),
                                        ("postgresql", PREFIX / "pgdata" / "postmaster.pid"))}
    p = subprocess.run(d["teardown"] + ["--purge"], capture_output=True, text=True, timeout=180)
    d["times"]["teardown"] = time.monotonic() - t
    check("teardown.sh --purge stops everything", p.returncode == 0, p.stderr[-500:])
    running = [p for p in pids.values() if p]
    check("supervisord, hub, proxy and PostgreSQL are gone", running and not _gone(running), pids)
    left = _processes_of(set(EVERYONE) - {OLD_TA})
    check("no process of the course's users is left (servers, kernels, Formgrader, clerk)", not left, left)
    keepers = subprocess.run(["pgrep", "-f", f"course_serverlog\\.py {PREFIX}/log/users/"], capture_output=True,
                             text=True).stdout.split()
    check("no keeper of a server's log is left", not keepers, keepers)
    gone = [u for u in (INSTRUCTOR, COURSE_USER, TA, LATECOMER) + STUDENTS if _exists(u)]
    check("the accounts it made are removed", not gone, gone)
    check("an account that existed before the deployment is kept", _exists(OLD_TA))
    left_groups = [g for g in (GROUP, GRADERS) if g in {x.gr_name for x in grp.getgrall()}]
    check("its groups are removed", not left_groups, left_groups)


# -- 12. behind a reverse proxy: nginx speaks HTTPS, the hub plain HTTP on the loopback ---------

BEHIND = f"mlfcp-{RUN}"                   # a second, small deployment of this run, made with --behind-proxy
BEHIND_PREFIX = Path(f"/opt/{BEHIND}")
BEHIND_DOMAIN = f"{BEHIND}.localhost"
BEHIND_STUDENT, BEHIND_HOSTILE = f"mlp{RUN}-ada", f"mlp{RUN}-eve"
BEHIND_USERS = (f"mlp{RUN}-teacher", BEHIND_STUDENT, BEHIND_HOSTILE, f"{BEHIND}-course")


def _nginx_conf(folder, site):
    """A whole nginx configuration of the test's own (its pid, logs and temporary files in ``folder``) around
    the site that setup.sh wrote."""
    temp = " ".join(f"{kind}_temp_path {folder / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi",
                                                                        "scgi"))
    conf = folder / "nginx.conf"
    conf.write_text(f"user nobody nogroup;\nworker_processes 1;\npid {folder / 'nginx.pid'};\nerror_log {folder / 'error.log'};\n"
                    f"daemon off;\nevents {{ worker_connections 256; }}\n"
                    f"http {{\n  access_log {folder / 'access.log'};\n  {temp}\n  include {site};\n}}\n")
    return conf


@pytest.fixture(scope="module")
def behind_nginx():
    """A deployment made with ``setup.sh --domain NAME --behind-proxy``, and a real nginx in front of it.

    nginx runs the site configuration that setup.sh wrote (PREFIX/etc/nginx-course.conf, from
    deploy/nginx-course.conf.example) with a certificate made for the run; the one change is its
    listen line, bound to 127.0.0.1 here (the example listens on every address of the machine).
    """
    _require_root()
    if shutil.which("nginx") is None:
        reason = "nginx is not installed (scripts/system-deps.sh installs it as root): apt-get install nginx"
        if os.environ.get("COURSE_REQUIRE_DEPLOY") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    hub_port, pg_port, public_port = _free_ports(4), _free_ports(1), _free_ports(1)
    while hub_port <= pg_port <= hub_port + 3 or hub_port <= public_port <= hub_port + 3 or pg_port == public_port:
        pg_port, public_port = _free_ports(1), _free_ports(1)
    clone, folder = Path(f"/var/tmp/{BEHIND}-clone"), Path(f"/var/tmp/{BEHIND}-nginx")
    undo_names, verify_before = _resolve_localhost_names(), TLS["verify"]
    teardown = [str(ROOT / "deploy" / "teardown.sh"), "--prefix", str(BEHIND_PREFIX)]
    nginx = None
    try:
        _clone_course(clone)
        cert, key = _make_certificate(folder / "tls", BEHIND_DOMAIN)
        TLS["verify"] = str(cert)
        shell = Shell(SOFTWARE / "venv")
        shell.run([str(clone / "deploy" / "setup.sh"), "--prefix", str(BEHIND_PREFIX), "--software", str(SOFTWARE),
                   "--course-id", BEHIND, "--instructor", BEHIND_USERS[0], "--students",
                   f"{BEHIND_STUDENT} {BEHIND_HOSTILE}", "--group", f"mlp{RUN}-students", "--hub-port", str(hub_port),
                   "--pg-port", str(pg_port), "--domain", BEHIND_DOMAIN, "--behind-proxy", "--public-port",
                   str(public_port), "--tls-cert", str(cert), "--tls-key", str(key)], timeout=1200)
        site = BEHIND_PREFIX / "etc" / "nginx-course.conf"
        text = site.read_text()
        local = folder / "nginx-course.conf"
        local.write_text(text.replace(f"listen {public_port} ssl;", f"listen 127.0.0.1:{public_port} ssl;"))
        nginx = subprocess.Popen(["nginx", "-c", str(_nginx_conf(folder, local)), "-p", str(folder)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

        def listening():
            with socket.create_connection(("127.0.0.1", public_port), timeout=5):
                return True
        if not _wait(lambda: nginx.poll() is None and listening(), timeout=60):
            pytest.fail(f"nginx did not start: {nginx.stderr.read().decode()[-600:] if nginx.poll() is not None else ''}"
                        f"{(folder / 'error.log').read_text()[-600:] if (folder / 'error.log').exists() else ''}")
        _plant_eve_extension(BEHIND_HOSTILE)
        yield {"base": f"https://{BEHIND_DOMAIN}:{public_port}", "hub_port": hub_port, "site": text,
               "folder": folder, "shell": shell, "passwords": {}, "people": {}}
    finally:
        if nginx is not None:
            nginx.terminate()
            nginx.wait(timeout=60)
        subprocess.run(teardown + ["--uninstall"], capture_output=True, text=True, timeout=180)
        for user in BEHIND_USERS:
            if _exists(user):
                subprocess.run(["userdel", "--remove", user], capture_output=True)
        for group in (f"mlp{RUN}-students", f"formgrade-{BEHIND}", f"{BEHIND}-course"):
            subprocess.run(["groupdel", group], capture_output=True)
        for path in (clone, folder, BEHIND_PREFIX):
            shutil.rmtree(path, ignore_errors=True)
        TLS["verify"] = verify_before
        undo_names()


_OWN_ORIGIN = """async () => { %s }"""   # EVE_PAGE's script in a page of the student's own server: what it got


def test_behind_nginx_with_tls_a_student_works_and_origins_stay_apart(behind_nginx, check, browser):
    """nginx terminates TLS; a student logs in, starts her server on her own host name, runs a kernel over a
    WebSocket through nginx; the same script that drives her server from her own page fails from a
    classmate's page, through the proxy too."""
    import requests
    p = behind_nginx
    try:
        _behind_nginx(p, check, browser, requests)
    finally:
        check.node.user_properties.append(("checks_summary", f"deploy, behind nginx: {check.summary()}"))
    assert not check.failed, "failed checks:\n" + "\n".join(f"  {n}: {x}" for n, x in check.failed)


def _behind_nginx(p, check, browser, requests):
    base, site = p["base"], p["site"]
    check("setup wrote nginx's site for the domain and each user's host, with WebSockets",
          f"server_name {BEHIND_DOMAIN} *.{BEHIND_DOMAIN};" in site and "proxy_set_header Upgrade" in site
          and f"proxy_pass http://127.0.0.1:{p['hub_port']};" in site, site[-600:])
    r = requests.get(f"http://127.0.0.1:{p['hub_port']}/hub/api", timeout=30)
    check("the hub itself speaks plain HTTP, on the loopback only", r.status_code == 200, r.status_code)
    listening = subprocess.run(["ss", "-Hltn", f"sport = :{p['hub_port']}"], capture_output=True, text=True).stdout
    check("... bound to 127.0.0.1", listening and all("127.0.0.1:" in ln for ln in listening.splitlines()), listening)
    for user in (BEHIND_STUDENT, BEHIND_HOSTILE):
        _set_password(p, user)
        person = HubUser(base, user)
        r, _ = person.login(p["passwords"][user])
        check(f"{user} logs in through nginx", r.status_code == 302, f"{r.status_code} {r.text[-300:]}")
        p["people"][user] = person
    ada, eve = p["people"][BEHIND_STUDENT], p["people"][BEHIND_HOSTILE]
    hub_cookies = [c for c in ada.session.cookies if c.name.startswith("__Host-")]
    check("the hub's login cookie is host-only and Secure (__Host-), though the hub sees plain HTTP",
          hub_cookies and all(c.secure for c in hub_cookies), [(c.name, c.domain, c.secure) for c in
                                                               ada.session.cookies])
    for person in (ada, eve):
        person.start_server()
    for person in (ada, eve):
        check(f"{person.name}'s server is ready (the hub's progress events through nginx)", *person.wait_ready())
        person.make_token()
    check("her server has a host name of its own", urlsplit(ada.url()).hostname == f"{BEHIND_STUDENT}.{BEHIND_DOMAIN}",
          ada.url())
    status, out = ada.run_code("print(6 * 7)")
    check("her kernel runs code over a WebSocket through nginx (wss://<her host>)", status == "ok"
          and out.strip() == "42", f"{status} {out}")
    log = (p["folder"] / "access.log").read_text()
    check("nginx carried the WebSocket (101 Switching Protocols on her kernel's channels)",
          re.search(r'"GET /user/[^ ]+/api/kernels/[^ ]+/channels[^"]*" 101 ', log), log[-600:])
    # her browser: the same script, from a page of her own server, then from a page of her classmate's
    r = ada.server("POST", "/api/terminals")
    terminal = r.json().get("name") if r.status_code == 200 else None
    r = ada.server("POST", "/api/kernels", json={"name": "python3"})
    kernel = r.json().get("id") if r.status_code == 201 else None
    check("she has a terminal and a kernel open", terminal and kernel, f"{terminal} {kernel}")
    script = EVE_PAGE.replace("TA_SERVER", ada.url()).replace("TERMINAL", str(terminal)).replace("KERNEL", str(kernel))
    home = Path(pwd.getpwnam(BEHIND_STUDENT).pw_dir)
    (Path(pwd.getpwnam(BEHIND_HOSTILE).pw_dir) / ".eve" / "page.html").write_text(script)
    context = browser.new_context(ignore_https_errors=True)
    try:
        tab = context.new_page()
        _browser_login(tab, base, BEHIND_STUDENT, p["passwords"][BEHIND_STUDENT], ada)   # her cookie, through nginx
        # a page of her server's own origin whose policy lets a script connect (the API's does not)
        tab.goto(ada.url("/no-such-page"))
        body = script.split("<script>", 1)[1].split("</script>", 1)[0]
        own = tab.evaluate(_OWN_ORIGIN % body.replace("\nattempt();", "\nawait attempt();\nreturn R;"))
        made = _wait(lambda: {p_.name for p_ in home.glob("pwned-*")} >= {"pwned-by-kernel.txt", "pwned-by-terminal.txt"},
                     timeout=60)
        print(f"  the script from her own page, through nginx: {own}")
        # (its PUT reaches her server with her cookie and is answered; without the XSRF token, which
        # JupyterLab sends and the script does not, the answer is 403)
        check("from her own page the script drives her terminal and kernel (her cookie and WebSockets through "
              "nginx), and her server answers its request for her files", own.get("terminal") == "open"
              and own.get("kernel") == "open" and made and isinstance(own.get("contents"), int),
              f"{own} {sorted(x.name for x in home.glob('pwned-*'))}")
        for f in home.glob("pwned-*"):
            f.unlink()
        theirs = _eve_outcome(tab, eve.url("/eve-notes"))
    finally:
        context.close()
    written = _close_eve(ada, terminal, kernel, home)
    print(f"  the script from her classmate's page, through nginx: {theirs}; written in her home: {written}")
    check("from her classmate's page (another host) it reaches nothing of hers, through nginx too",
          not written and theirs.get("terminal") != "open" and theirs.get("kernel") != "open"
          and theirs.get("contents") not in (200, 201), f"{theirs} {written}")
