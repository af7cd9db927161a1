"""JupyterHub for the course: shared-password login, one Linux user per student, loopback only.

deploy/setup.sh installs this file as PREFIX/etc/jupyterhub_config.py and starts
``jupyterhub -f`` on it as root (the local spawner needs root to start each user's
server as that user). The deployment's settings come from PREFIX/etc/deploy.json.

* Login: one password shared by the class (PREFIX/hub/shared-password, root only);
  the members of the students' Linux group and the instructor may log in, so adding
  a student (``setup.sh --add-student``) needs no restart of the hub.
* Each user's Jupyter server runs as that user, from the course's environment, in the
  user's home (mode 700); students see nbgrader's assignment list, the instructor
  also the Formgrader, which works on the course folder ~instructor/<course id>.
"""
import grp
import json
import os
import pwd

from jupyterhub.authenticators.shared import SharedPasswordAuthenticator

c = get_config()  # noqa: F821  (provided by JupyterHub)

with open(os.environ.get("COURSE_DEPLOY_JSON", "@DEPLOY_JSON@")) as f:
    deploy = json.load(f)


def _read(path):
    with open(path) as f:
        return f.read().strip()


class CourseAuthenticator(SharedPasswordAuthenticator):
    """The shared password, for the instructor and the members of the students' group."""

    def check_allowed(self, username, authentication=None):
        if username == deploy["instructor"]:
            return True
        try:
            pwd.getpwnam(username)
            return username in grp.getgrnam(deploy["student_group"]).gr_mem
        except KeyError:
            return False


hub_port = int(deploy["hub_port"])
c.JupyterHub.bind_url = f"http://127.0.0.1:{hub_port}"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{hub_port + 2}"
c.JupyterHub.db_url = "sqlite:///" + os.path.join(deploy["hub_dir"], "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(deploy["hub_dir"], "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = os.path.join(deploy["run_dir"], "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True      # stopping the hub stops every user's server
c.JupyterHub.cleanup_proxy = True

c.JupyterHub.proxy_class = "configurable-http-proxy"
c.ConfigurableHTTPProxy.command = [deploy["proxy"]]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{hub_port + 1}"
c.ConfigurableHTTPProxy.auth_token = _read(os.path.join(deploy["hub_dir"], "proxy-token"))
c.ConfigurableHTTPProxy.pid_file = os.path.join(deploy["run_dir"], "proxy.pid")
c.ConfigurableHTTPProxy.should_start = True

c.JupyterHub.authenticator_class = CourseAuthenticator
c.CourseAuthenticator.user_password = _read(os.path.join(deploy["hub_dir"], "shared-password"))
c.Authenticator.any_allow_config = True   # check_allowed above is the allow list
c.Authenticator.admin_users = set()       # nobody may act for another user

c.JupyterHub.spawner_class = "localprocess"
c.Spawner.ip = "127.0.0.1"
c.Spawner.cmd = [os.path.join(deploy["venv"], "bin", "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.env_keep = ["LANG", "LC_ALL"]   # not root's PATH: the course's tools come first
c.Spawner.environment = {"PATH": os.path.join(deploy["venv"], "bin") + ":/usr/local/bin:/usr/bin:/bin"}
c.Spawner.start_timeout = 60
c.Spawner.http_timeout = 60
c.LocalProcessSpawner.shell_cmd = []
