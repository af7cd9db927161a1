"""JupyterHub for the course: each person's own Linux login, graders apart, loopback only.

deploy/setup.sh installs this file as PREFIX/etc/jupyterhub_config.py; the hub runs as
root under a supervisor (systemd, or supervisord where systemd does not run the machine),
because the local spawner starts each user's server as that user. The deployment's
settings come from PREFIX/etc/deploy.json.

* Login: PAM, each Linux user with their own password (no shared password). Who may log
  in: the instructor, the members of the graders' group (``formgrade-<course>``) and of
  the students' group, so ``setup.sh --add-student`` / ``--add-grader`` need no restart.
  Nobody is a hub admin: no one can act as, or open the server of, another user.
* Graders: the Formgrader runs once, as a hub service, as the course account (``<course>-course``,
  never the instructor's login) on the shared course folder, with no terminals and no kernels,
  logging each grader's actions by name (course_formgrader.py); only members of the graders'
  group may open it (their hub group is synchronised from the Linux group at each login).
* Origins: with a domain (``setup.sh --domain``) each user's server is served on a host of its own
  (``<user>.<domain>``) and the Formgrader on ``formgrader--service.<domain>``, so a page that one
  user's server serves cannot act in another's (JupyterHub's advice for untrusted users); with
  HTTPS the login cookie is host-only (``__Host-``). Behind a reverse proxy (``setup.sh
  --behind-proxy``: nginx speaks HTTPS, deploy/nginx-course.conf.example) the hub speaks plain
  HTTP on the loopback, names the hosts as the browser sees them and keeps the ``__Host-`` cookie.
* Logins: after ``login_failures`` wrong passwords for one name within ``lockout_s`` seconds,
  that name is refused (even with the right password) until ``lockout_s`` seconds have passed.
  A right password that breaks the course's rule (course_password.py: ``min_password_length``
  characters and more) is refused too, with the way to ``/hub/course-password``, where a course
  user chooses one that keeps it.
* Each user's server runs as that user, in their home, with a memory and a task limit
  (a control group per user where the kernel lets the hub make one, otherwise
  per-process rlimits) and umask 007 (graders share the course folder through its group);
  its output goes to PREFIX/log/users/<name>.log through a keeper of its own (course_serverlog.py:
  never a pipe to a hub that may restart), which keeps the latest ``user_log_mib`` MiB of it, and
  what it left in /dev/shm is removed when it stops.
* Idle servers are stopped by jupyterhub-idle-culler, a hub service; servers report activity
  often enough (a quarter of the idle time, at most 300 s) that no active server is culled.
* The exchange's clerk (course_exchange.py) records each submission at submit, a hub service.
"""
import collections
import fcntl
import grp
import json
import os
import pwd
import resource
import subprocess
import time

import course_password
import course_serverlog
from jupyterhub.auth import PAMAuthenticator
from jupyterhub.spawner import LocalProcessSpawner
from tornado import web

c = get_config()  # noqa: F821  (provided by JupyterHub)

with open(os.environ.get("COURSE_DEPLOY_JSON", "@DEPLOY_JSON@")) as f:
    deploy = json.load(f)

INSTRUCTOR = deploy["instructor"]
COURSE_USER = deploy["course_user"]
GRADERS = deploy["grader_group"]
STUDENTS = deploy["student_group"]
VENV_BIN = os.path.join(deploy["venv"], "bin")
# each server's output: the latest USER_LOG_BYTES of it kept by its keeper, started with no site packages
USER_LOG_BYTES = int(deploy.get("user_log_mib", 20)) << 20
LOG_KEEPER = [os.path.join(VENV_BIN, "python"), "-I", "-S", course_serverlog.__file__]
_keepers = []      # the keepers this hub started (each is reaped when the hub starts another)


def _members(group):
    try:
        return set(grp.getgrnam(group).gr_mem)
    except KeyError:
        return set()


def _read(path):
    with open(path) as f:
        return f.read().strip()


class CourseAuthenticator(PAMAuthenticator):
    """PAM login for the instructor, the graders and the students; nobody else.

    The hub group ``formgrade-<course>`` (which opens the Formgrader) is set at each login
    from the Linux group of the same name: a student is never in it.
    """

    _failures = collections.defaultdict(collections.deque)   # name -> times of its recent wrong passwords
    min_password_length = int(deploy.get("min_password_length", 12))

    def check_allowed(self, username, authentication=None):
        try:
            pwd.getpwnam(username)
        except KeyError:
            return False
        if username == COURSE_USER:
            return False
        return username == INSTRUCTOR or username in _members(GRADERS) | _members(STUDENTS)

    async def check_password(self, handler, username, password):
        """PAM, behind the lockout: the name if ``password`` is right, None if wrong or locked out."""
        if not self.check_allowed(username):     # nobody outside the course: no password is tried for them
            return None
        window, most = float(deploy.get("lockout_s", 900)), int(deploy.get("login_failures", 5))
        failures = self._failures[username]
        now = time.monotonic()
        while failures and now - failures[0] > window:
            failures.popleft()
        if len(failures) >= most:
            self.log.warning("login of %r refused: %d wrong passwords within %d s", username, len(failures), window)
            return None
        name = await super().authenticate(handler, {"username": username, "password": password})
        if name is None:
            failures.append(now)
            return None
        failures.clear()
        return name["name"] if isinstance(name, dict) else name

    async def authenticate(self, handler, data):
        username, password = str((data or {}).get("username", "")), (data or {}).get("password", "")
        name = await self.check_password(handler, username, password)
        if name is None:
            return None
        # the course's password rule (course_password.py): the right password that breaks it opens nothing
        found = course_password.problems(password, username=name, min_length=self.min_password_length)
        if found:
            self.log.warning("login of %s refused: the password breaks the course's rule", name)
            raise web.HTTPError(403, "Your password is right, but the course's hub asks for "
                                f"{course_password.rule(self.min_password_length)} ({'; '.join(found)}). Choose a new "
                                f"one at {handler.hub.base_url}course-password, then sign in with it.")
        graders = _members(GRADERS) | {INSTRUCTOR}
        return {"name": name, "groups": [GRADERS] if name in graders else []}

    def get_handlers(self, app):
        return super().get_handlers(app) + [(course_password.ROUTE, course_password.handler_class())]


class LimitedSpawner(LocalProcessSpawner):
    """The local spawner, with each user's server (and its kernels) in a control group of its own.

    Where the kernel lets root create control groups (v1 ``memory`` and ``pids`` hierarchies, or
    the unified v2 one) the user's whole tree of processes shares ``mem_limit`` bytes and at most
    ``tasks_limit`` tasks; otherwise each process gets them as rlimits (RLIMIT_AS per process,
    RLIMIT_NPROC per user), which is weaker, and the hub's log says so.
    """

    def _cgroup_dirs(self):
        name = f"{deploy['course_id']}-hub"
        user = self.user.name
        mem, tasks = int(deploy["mem_limit_mib"]) << 20, int(deploy["tasks_limit"])
        dirs = []
        try:
            if os.path.isfile("/sys/fs/cgroup/cgroup.controllers"):         # cgroup v2
                base = os.path.join("/sys/fs/cgroup", name)
                os.makedirs(base, exist_ok=True)
                with open(os.path.join(base, "cgroup.subtree_control"), "w") as f:
                    f.write("+memory +pids")
                d = os.path.join(base, user)
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, "memory.max"), "w") as f:
                    f.write(str(mem))
                with open(os.path.join(d, "pids.max"), "w") as f:
                    f.write(str(tasks))
                return [d]
            for ctl, setting, value in (("memory", "memory.limit_in_bytes", mem), ("pids", "pids.max", tasks)):
                d = os.path.join("/sys/fs/cgroup", ctl, name, user)
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, setting), "w") as f:
                    f.write(str(value))
                dirs.append(d)
            return dirs
        except OSError as e:
            self.log.warning("no control group for %s (%s): per-process rlimits only", user, e)
            return []

    async def start(self):
        # The server's output (and its kernels') goes through a pipe to a keeper of its own, which
        # writes the latest USER_LOG_BYTES of it to PREFIX/log/users/<name>.log (course_serverlog.py).
        # Never a pipe to the hub: it would break when the hub restarts, and the surviving server's
        # kernels would hang at their next output. The keeper runs as root in a session of its own,
        # outside the user's control group, and outlives a hub restart as the server does; it ends
        # when the server and its kernels have closed the pipe.
        os.makedirs(os.path.join(deploy["log_dir"], "users"), mode=0o700, exist_ok=True)
        path = os.path.join(deploy["log_dir"], "users", f"{self.user.name}.log")
        _keepers[:] = [k for k in _keepers if k.poll() is None]
        read, write = os.pipe()
        try:
            try:       # room for a burst while the keeper waits for the CPU
                fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, course_serverlog.READ_SIZE)
            except OSError:
                pass
            _keepers.append(subprocess.Popen(LOG_KEEPER + [path, str(USER_LOG_BYTES)], stdin=read,
                                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                             start_new_session=True))
            os.close(read)
            read = None
            self.popen_kwargs = {"stdout": write, "stderr": write}
            return await super().start()
        finally:
            for fd in (read, write):   # the hub holds neither end: the keeper's input ends with the server
                if fd is not None:
                    os.close(fd)

    def make_preexec_fn(self, name):
        become_user = super().make_preexec_fn(name)
        cgroups = self._cgroup_dirs()
        mem, tasks = int(deploy["mem_limit_mib"]) << 20, int(deploy["tasks_limit"])
        if cgroups:
            self.log.info("server of %s in %s", name, ", ".join(cgroups))

        def preexec():
            for d in cgroups:   # before dropping root: from here on every child is in the group
                with open(os.path.join(d, "cgroup.procs"), "w") as f:
                    f.write(str(os.getpid()))
            resource.setrlimit(resource.RLIMIT_NPROC, (tasks, tasks))
            if not cgroups:
                resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            os.umask(0o007)
            become_user()

        return preexec


def _free_shared_memory(spawner):
    """After a server stops: remove what its user left in /dev/shm (the memory limit does not count it)."""
    try:
        uid = pwd.getpwnam(spawner.user.name).pw_uid
    except KeyError:
        return
    for name in os.listdir("/dev/shm"):
        path = os.path.join("/dev/shm", name)
        try:
            if os.lstat(path).st_uid == uid:
                subprocess.run(["rm", "-rf", "--one-file-system", "--", path], check=False)
        except OSError:
            pass


hub_port = int(deploy["hub_port"])
_behind_proxy = bool(deploy.get("behind_proxy"))     # a reverse proxy (nginx) in front speaks HTTPS
_scheme = "https" if deploy.get("tls_cert") and not _behind_proxy else "http"
c.JupyterHub.bind_url = f"{_scheme}://127.0.0.1:{hub_port}"
if _scheme == "https":               # the proxy terminates TLS
    c.JupyterHub.ssl_cert = deploy["tls_cert"]
    c.JupyterHub.ssl_key = deploy["tls_key"]
if deploy.get("domain") and _behind_proxy:
    # Each user's server on its own origin, as the browser sees it: https://<user>.NAME[:port] through
    # the reverse proxy, whose X-Scheme header tells the hub (and the servers: jupyterhub-singleuser
    # trusts the proxy's headers) that the browser spoke HTTPS; the login cookie is host-only
    # (__Host-, hence Secure).
    _public = int(deploy.get("public_port", 443))
    c.JupyterHub.subdomain_host = f"https://{deploy['domain']}" + ("" if _public == 443 else f":{_public}")
    c.JupyterHub.cookie_host_prefix_enabled = True
elif deploy.get("domain"):
    # Each user's server on its own origin (JupyterHub's protection of users from each other);
    # over HTTPS the login cookie is also locked to the hub's host.
    c.JupyterHub.subdomain_host = f"{_scheme}://{deploy['domain']}:{hub_port}"
    c.JupyterHub.cookie_host_prefix_enabled = _scheme == "https"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{hub_port + 2}"
c.JupyterHub.db_url = "sqlite:///" + os.path.join(deploy["hub_dir"], "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(deploy["hub_dir"], "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = os.path.join(deploy["run_dir"], "jupyterhub.pid")
# A restarted hub (after a crash, or a new configuration) takes over the running servers;
# deploy/teardown.sh stops them.
c.JupyterHub.cleanup_servers = False
c.JupyterHub.cleanup_proxy = True

c.JupyterHub.proxy_class = "configurable-http-proxy"
c.ConfigurableHTTPProxy.command = [deploy["proxy"]]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{hub_port + 1}"
c.ConfigurableHTTPProxy.auth_token = _read(os.path.join(deploy["hub_dir"], "proxy-token"))
c.ConfigurableHTTPProxy.pid_file = os.path.join(deploy["run_dir"], "proxy.pid")
c.ConfigurableHTTPProxy.should_start = True        # the hub restarts it within 5 s if it dies
c.ConfigurableHTTPProxy.check_running_interval = 5

c.JupyterHub.authenticator_class = CourseAuthenticator
c.PAMAuthenticator.open_sessions = False      # no login sessions (no systemd-logind here)
c.PAMAuthenticator.check_account = True       # a locked or expired account may not log in
c.Authenticator.manage_groups = True
c.Authenticator.any_allow_config = True       # check_allowed above is the allow list
c.Authenticator.admin_users = set()
# the login page links the page that changes a password to one that keeps the course's rule
c.JupyterHub.template_vars = {"announcement_login": (
    'A new password, or one the hub refuses? <a id="course-password-link" href="/hub/course-password">'
    "Choose a new password</a>.")}

c.JupyterHub.spawner_class = LimitedSpawner
c.Spawner.ip = "127.0.0.1"
c.Spawner.cmd = [os.path.join(VENV_BIN, "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.env_keep = ["LANG", "LC_ALL"]   # not root's PATH: the course's tools come first
_activity = max(10, min(300, int(deploy["cull_idle_s"]) // 4))
c.Spawner.environment = {"PATH": VENV_BIN + ":/usr/local/bin:/usr/bin:/bin",
                         "JUPYTER_CONFIG_PATH": deploy["jupyter_etc"],   # this deployment's settings
                         # a server reports activity to the hub this often (JupyterHub's default is 300 s):
                         # well within the culler's idle time, so a working student is never culled
                         "JUPYTERHUB_ACTIVITY_INTERVAL": str(_activity)}
c.Spawner.post_stop_hook = _free_shared_memory
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
c.Spawner.mem_limit = int(deploy["mem_limit_mib"]) << 20   # shown to the user; enforced above
c.LocalProcessSpawner.shell_cmd = []

# -- services: the shared Formgrader, the exchange's clerk and the idle culler -------------
# Each is started by the hub and dies with it (parent-death signal), so a restarted hub
# starts them afresh instead of finding their port taken. The Formgrader and the clerk run as
# the course account with umask 007: what they write, the graders' group can read and change.
_die_with_hub = ["setpriv", "--pdeathsig", "TERM", "--"]
_umask_007 = ["/bin/sh", "-c", 'umask 007 && exec "$0" "$@"']
c.JupyterHub.services = [
    {
        "name": "formgrader",
        "display": True,
        "url": f"http://127.0.0.1:{hub_port + 3}",
        "user": COURSE_USER,
        "cwd": deploy["course_dir"],
        "command": _die_with_hub + _umask_007 + [
            os.path.join(VENV_BIN, "jupyterhub-singleuser"),
            f"--ServerApp.root_dir={deploy['course_dir']}",
            "--ServerApp.jpserver_extensions=nbgrader.server_extensions.formgrader=True",
            # the submission pages' Content-Security-Policy as a header, and the
            # student's files sandboxed (grading/formgrader_csp.py); the course's
            # nbgrader_config.py makes the student's HTML inert (grading/safe_html.py)
            "--ServerApp.jpserver_extensions=grading.formgrader_csp=True",
            # graders grade here; they get no terminal and no kernel of the course account,
            # and what each does is logged by name (course_formgrader.py)
            "--ServerApp.jpserver_extensions=course_formgrader=True",
            # no Validate here (the toolbar's or the Assignment List's): it would run a
            # submission's code as the course account
            "--ServerApp.jpserver_extensions=grading.validate_service=False",
            "--ServerApp.jpserver_extensions=grading.validate_button=False",
            "--ServerApp.jpserver_extensions=nbgrader.server_extensions.validate_assignment=False",
            "--ServerApp.terminals_enabled=False",
            "--ServerApp.kernel_manager_class=course_formgrader.NoKernels"],
        "environment": {"PATH": VENV_BIN + ":/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
                        "JUPYTER_CONFIG_PATH": deploy["jupyter_etc"], "JUPYTERHUB_DEFAULT_URL": "/formgrader",
                        "COURSE_FORMGRADER_LOG": os.path.join(deploy["course_dir"], "formgrader-actions.log")},
        "oauth_no_confirm": True,
    },
    {
        "name": "exchange-clerk",
        "user": COURSE_USER,
        "command": _die_with_hub + _umask_007 + [os.path.join(VENV_BIN, "python"), "-m", "course_exchange",
                                                 "clerk", os.environ.get("COURSE_DEPLOY_JSON", "@DEPLOY_JSON@")],
        "environment": {"PATH": VENV_BIN + ":/usr/bin:/bin", "LANG": "C.UTF-8",
                        "JUPYTER_CONFIG_PATH": deploy["jupyter_etc"]},
    },
    {
        "name": "idle-culler",
        "command": _die_with_hub + [os.path.join(VENV_BIN, "python"), "-m", "jupyterhub_idle_culler",
                                    f"--timeout={int(deploy['cull_idle_s'])}",
                                    f"--cull-every={min(60, _activity)}"],
    },
]
c.JupyterHub.load_roles = [
    {"name": "formgrader-users", "groups": [GRADERS],
     "scopes": ["access:services!service=formgrader"]},
    {"name": "idle-culler", "services": ["idle-culler"],
     "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"]},
]
