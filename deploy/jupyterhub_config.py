"""JupyterHub for the course: each person's own Linux login, graders apart, loopback only.

deploy/setup.sh installs this file as PREFIX/etc/jupyterhub_config.py; the hub runs as
root under a supervisor (systemd, or supervisord where systemd does not run the machine),
because the local spawner starts each user's server as that user. The deployment's
settings come from PREFIX/etc/deploy.json.

* Login: PAM, each Linux user with their own password (no shared password). Who may log
  in: the instructor, the members of the graders' group (``formgrade-<course>``) and of
  the students' group, so ``setup.sh --add-student`` / ``--add-grader`` need no restart.
  Nobody is a hub admin: no one can act as, or open the server of, another user.
* Graders: the Formgrader runs once, as a hub service (``/services/formgrader/``) as the
  instructor's user on the shared course folder; only members of the graders' group may
  open it (their hub group is synchronised from the Linux group at each login).
* Each user's server runs as that user, in their home, with a memory and a task limit
  (a control group per user where the kernel lets the hub make one, otherwise
  per-process rlimits) and umask 007 (graders share the course folder through its group).
* Idle servers are stopped by jupyterhub-idle-culler, a hub service.
"""
import grp
import json
import os
import pwd
import resource

from jupyterhub.auth import PAMAuthenticator
from jupyterhub.spawner import LocalProcessSpawner

c = get_config()  # noqa: F821  (provided by JupyterHub)

with open(os.environ.get("COURSE_DEPLOY_JSON", "@DEPLOY_JSON@")) as f:
    deploy = json.load(f)

INSTRUCTOR = deploy["instructor"]
GRADERS = deploy["grader_group"]
STUDENTS = deploy["student_group"]
VENV_BIN = os.path.join(deploy["venv"], "bin")


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

    def check_allowed(self, username, authentication=None):
        try:
            pwd.getpwnam(username)
        except KeyError:
            return False
        return username == INSTRUCTOR or username in _members(GRADERS) | _members(STUDENTS)

    async def authenticate(self, handler, data):
        name = await super().authenticate(handler, data)
        if name is None:
            return None
        if isinstance(name, dict):
            name = name["name"]
        graders = _members(GRADERS) | {INSTRUCTOR}
        return {"name": name, "groups": [GRADERS] if name in graders else []}


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


hub_port = int(deploy["hub_port"])
c.JupyterHub.bind_url = f"http://127.0.0.1:{hub_port}"
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

c.JupyterHub.spawner_class = LimitedSpawner
c.Spawner.ip = "127.0.0.1"
c.Spawner.cmd = [os.path.join(VENV_BIN, "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.env_keep = ["LANG", "LC_ALL"]   # not root's PATH: the course's tools come first
c.Spawner.environment = {"PATH": VENV_BIN + ":/usr/local/bin:/usr/bin:/bin"}
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
c.Spawner.mem_limit = int(deploy["mem_limit_mib"]) << 20   # shown to the user; enforced above
c.LocalProcessSpawner.shell_cmd = []

# -- services: the shared Formgrader and the idle culler -------------------------------
# Each is started by the hub and dies with it (parent-death signal), so a restarted hub
# starts them afresh instead of finding their port taken.
_die_with_hub = ["setpriv", "--pdeathsig", "TERM", "--"]
c.JupyterHub.services = [
    {
        "name": "formgrader",
        "display": True,
        "url": f"http://127.0.0.1:{hub_port + 3}",
        "user": INSTRUCTOR,
        "cwd": deploy["course_dir"],
        "command": _die_with_hub + [os.path.join(VENV_BIN, "jupyterhub-singleuser"),
                                    f"--ServerApp.root_dir={deploy['course_dir']}",
                                    "--ServerApp.jpserver_extensions=nbgrader.server_extensions.formgrader=True",
                                    # the submission pages' Content-Security-Policy as a header, and the
                                    # student's files sandboxed (grading/formgrader_csp.py); the course's
                                    # nbgrader_config.py makes the student's HTML inert (grading/safe_html.py)
                                    "--ServerApp.jpserver_extensions=grading.formgrader_csp=True"],
        "environment": {"PATH": VENV_BIN + ":/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
                        "JUPYTERHUB_DEFAULT_URL": "/formgrader"},
        "oauth_no_confirm": True,
    },
    {
        "name": "idle-culler",
        "command": _die_with_hub + [os.path.join(VENV_BIN, "python"), "-m", "jupyterhub_idle_culler",
                                    f"--timeout={int(deploy['cull_idle_s'])}", "--cull-every=60"],
    },
]
c.JupyterHub.load_roles = [
    {"name": "formgrader-users", "groups": [GRADERS],
     "scopes": ["access:services!service=formgrader"]},
    {"name": "idle-culler", "services": ["idle-culler"],
     "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"]},
]
