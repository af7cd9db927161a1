"""The course's password rule, and the hub's page on which a course user chooses a password that keeps it.

The hub logs people in with their Linux password (PAM). The machine's own rule for a new
password (``passwd``: Debian's ``pam_unix`` asks for 6 characters) belongs to its
administrator, and ``deploy/setup.sh`` leaves the machine's PAM settings alone; the course
sets its own rule where it controls the way in, the hub:

* a login whose password is right but breaks the rule is refused, and the login page says
  what is wrong and where to choose a new password (deploy/jupyterhub_config.py);
* ``/hub/course-password`` (linked from the login page) changes the password of a course
  user (the instructor, a grader, a student; nobody else) given the current one, and only to
  one that keeps the rule. Wrong current passwords count towards the login lockout.

The rule (:func:`problems`): at least ``min_length`` characters (``setup.sh
--min-password-length``, 12 by default), at least 5 different characters, not the user's name
inside, no control characters. ``python -m course_password first NAME MIN_LENGTH`` prints a
random first password that keeps it (``setup.sh --password``).
"""
import asyncio
import re
import secrets
import subprocess
import sys

__all__ = ["DISTINCT", "ROUTE", "problems", "rule", "first_password", "handler_class"]

DISTINCT = 5
"""The fewest different characters a password may have ("aaaaaaaaaaaa" and "abababababab" may not)."""

ROUTE = "/course-password"
"""Where the page is, under the hub's prefix: ``/hub/course-password``."""


def rule(min_length):
    """The rule in words, for the pages that refuse a password."""
    return (f"at least {min_length} characters, at least {DISTINCT} different ones, without your user name "
            "and without control characters")


def problems(password, *, username, min_length):
    """What keeps ``password`` from the course's rule for ``username``: a list of reasons, empty if none.

    Examples
    --------
    >>> problems("correct horse battery", username="ada", min_length=12)
    []
    >>> problems("ada-1234", username="ada", min_length=12)
    ['it has 8 characters; the course asks for at least 12', 'it contains your user name']
    """
    if not isinstance(password, str):
        return ["it is not text"]
    found = []
    if len(password) < min_length:
        found.append(f"it has {len(password)} characters; the course asks for at least {min_length}")
    if len(set(password)) < DISTINCT:
        found.append(f"it has {len(set(password))} different characters; the course asks for at least {DISTINCT}")
    if username and len(username) >= 3 and username.lower() in password.lower():
        found.append("it contains your user name")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in password):
        found.append("it contains a control character (a line break, a tab)")
    return found


def first_password(username, min_length):
    """A random password of ``max(16, min_length)`` characters that keeps the rule (``setup.sh --password``)."""
    length = max(16, int(min_length))
    while True:
        candidate = secrets.token_urlsafe(length)[:length]
        if not problems(candidate, username=username, min_length=min_length):
            return candidate


# -- the hub's page ---------------------------------------------------------------------------
PAGE = """{% extends "page.html" %}
{% block login_widget %}{% endblock login_widget %}
{% block main %}
<div id="course-password" class="container" style="max-width: 32em">
  <h1>Choose a new password</h1>
  <p>For this course's hub a password has {{ rule }}. A long phrase of a few words is easy to
     remember and hard to guess.</p>
  {% if message %}<p class="{{ 'alert alert-success' if changed else 'alert alert-danger' }}"
     id="course-password-message">{{ message }}</p>{% endif %}
  {% if changed %}
  <p><a class="btn btn-jupyter" href="{{ login_url }}">Sign in with the new password</a></p>
  {% else %}
  <form method="post" action="{{ action }}">
    <input type="hidden" name="_xsrf" value="{{ xsrf }}">
    <label for="username">User name</label>
    <input id="username" class="form-control" name="username" value="{{ username }}" autocapitalize="off"
           autocorrect="off" autocomplete="username">
    <label for="current">Current password</label>
    <input id="current" class="form-control" type="password" name="current" autocomplete="current-password">
    <label for="new">New password</label>
    <input id="new" class="form-control" type="password" name="new" autocomplete="new-password">
    <label for="again">New password, again</label>
    <input id="again" class="form-control" type="password" name="again" autocomplete="new-password">
    <p></p><input type="submit" class="btn btn-jupyter form-control" value="Change the password">
  </form>
  {% endif %}
</div>
{% endblock main %}
"""

_NAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")


def handler_class():
    """The page's handler (JupyterHub is imported here: setup.sh runs this module for first passwords)."""
    from jupyterhub._xsrf_utils import _set_xsrf_cookie
    from jupyterhub.handlers import BaseHandler

    class CoursePasswordHandler(BaseHandler):
        """``/hub/course-password``: a course user changes their Linux password, given the current one.

        The authenticator (deploy/jupyterhub_config.py) provides ``min_password_length``,
        ``check_allowed`` (course users only) and ``check_password`` (PAM, with the lockout);
        the new password is set with ``chpasswd`` (the hub runs as root).
        """

        async def _page(self, *, status=200, message="", changed=False, username=""):
            self.set_status(status)
            template = self.settings["jinja2_env"].from_string(PAGE)
            ns = dict(self.template_namespace, rule=rule(self.authenticator.min_password_length), message=message,
                      changed=changed, username=username, xsrf=self.xsrf_token.decode("ascii"),
                      action=self.request.path, login_url=self.settings["login_url"])
            self.finish(await template.render_async(**ns))

        async def get(self):
            _set_xsrf_cookie(self, self._xsrf_token_id, cookie_path=self.hub.base_url, xsrf_token=self.xsrf_token)
            await self._page(username=self.get_argument("username", "", strip=True)[:32])

        async def post(self):
            name = self.get_body_argument("username", "", strip=True)
            current = self.get_body_argument("current", "", strip=False)
            new = self.get_body_argument("new", "", strip=False)
            again = self.get_body_argument("again", "", strip=False)
            auth = self.authenticator
            shown = name[:32]
            if not _NAME.match(name) or not auth.check_allowed(name) or \
                    await auth.check_password(self, name, current) is None:
                self.log.warning("course password: change for %r refused (wrong name or password, or locked out)",
                                 shown)
                return await self._page(status=403, username=shown, message=(
                    "Wrong user name or current password (or too many wrong ones lately: wait, then try again). "
                    "Nothing was changed."))
            found = problems(new, username=name, min_length=auth.min_password_length)
            if new != again:
                found.append("the two new passwords differ")
            if new == current:
                found.append("it is the current password")
            if found:
                return await self._page(status=400, username=shown, message=(
                    f"The new password was refused: {'; '.join(found)}. Nothing was changed."))
            done = await asyncio.to_thread(subprocess.run, ["chpasswd"], input=f"{name}:{new}\n", text=True,
                                           capture_output=True, timeout=60)
            if done.returncode != 0:
                self.log.error("course password: chpasswd for %s failed: %s", name, done.stderr.strip()[-300:])
                return await self._page(status=500, username=shown, message=(
                    "The machine refused the new password (its own rule); nothing was changed. Try a longer one, "
                    "or ask the course's administrator."))
            self.log.info("course password: %s changed their password", name)
            await self._page(message="Your password is changed.", changed=True, username=shown)

    return CoursePasswordHandler


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "first":
        sys.exit("usage: python -m course_password first NAME MIN_LENGTH")
    print(first_password(sys.argv[2], int(sys.argv[3])))
