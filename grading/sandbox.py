"""The sandbox in which every piece of student code runs while it is graded.

Autograding runs code written by students, as the instructor, next to the instructor's
files. Each submission therefore runs inside `bubblewrap <https://github.com/containers/bubblewrap>`_
(``bwrap``), the unprivileged sandboxing tool that Flatpak is built on: maintained,
packaged by every Linux distribution (``apt-get install bubblewrap``), needing no daemon
and no image, and starting in milliseconds. The student process gets

* its own mount namespace holding only what Python needs, read-only, at **fixed paths that do
  not depend on where the course lives** (:class:`Layout`): the system's ``/usr``, the Python
  installation at ``/sandbox/python``, a virtual environment at ``/sandbox/venv`` whose
  packages are the course environment's (``/sandbox/packages``), ``course_lib`` and
  ``grading`` at ``/sandbox/course`` (first on ``sys.path``) and the reference data directory
  at ``/sandbox/data`` when ``COURSE_DATA_DIR`` is set — not ``source/``, not the gradebook,
  not ``submitted/`` or ``autograded/``, not the instructor's home, and no folder of the
  host's layout (a course checked out under ``/tmp`` does not show in the sandbox's ``/tmp``);
* the submission's files read-only at ``/submission``, and two writable file systems only:
  ``/scratch``, a private tmpfs of ``Limits.scratch_bytes`` into which the worker copies them
  (a fresh, empty one at every start), and a private ``/tmp`` of the same size; the root and
  ``/dev`` are read-only (whether grading runs as root or not), so nothing else can fill
  memory, and the grader counts the files of those two (:mod:`grading.channel`); nothing
  written reaches the instructor's disk;
* no network (an empty network namespace), its own PID and IPC namespaces, a new session
  (no access to the instructor's terminal), no capabilities, and — when grading runs as
  root — an unprivileged user id (``nobody``), so that the process limit applies;
* resource limits: address space (memory), number of processes, CPU time, size of the
  files it may write and number of open files.

When the sandbox cannot start, grading refuses with the reason instead of running the code
unprotected. The one explicit opt-out is the environment variable
``GRADING_SANDBOX=off``, for code you trust (e.g. your own reference solution on a
machine without user namespaces).
"""
import atexit
import functools
import os
import pwd
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["SandboxError", "Limits", "Sandbox", "sandbox_mode", "ENV_VAR", "UID_BASE", "fresh_uid",
           "kill_user_processes", "SUBMISSION", "SCRATCH"]

SUBMISSION = "/submission"
"""Inside the sandbox: the submission's files, read-only (the worker copies them into :data:`SCRATCH`)."""

SCRATCH = "/scratch"
"""Inside the sandbox: the student's working directory, a private size-bounded tmpfs."""

ENV_VAR = "GRADING_SANDBOX"
"""Environment variable: ``bwrap`` (the default) or ``off`` (run student code unsandboxed)."""


class SandboxError(RuntimeError):
    """The sandbox could not be started; the message says why and what to do."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed process tree."""

    memory_bytes: int = 3 * 1024**3
    """Address space of each process (RLIMIT_AS)."""
    processes: int = 64
    """Processes and threads of the sandbox user (RLIMIT_NPROC)."""
    cpu_seconds: int = 300
    """CPU time of each process (RLIMIT_CPU); wall-clock limits are enforced by the grader."""
    file_bytes: int = 64 * 1024**2
    """Largest file a process may write (RLIMIT_FSIZE)."""
    open_files: int = 256
    """Open file descriptors (RLIMIT_NOFILE)."""
    scratch_bytes: int = 256 * 1024**2
    """Size of the working directory and of the private ``/tmp`` (each a tmpfs of its own)."""
    scratch_files: int = 10_000
    """Files and folders the working directory and ``/tmp`` may hold together, counted by the grader
    (:meth:`grading.channel.Worker.check_scratch`) during and after every request; a cell that exceeds it fails."""


UID_BASE = 1_000_000
"""As root, each sandbox runs as its own unprivileged user id at or above this number (no passwd entry):
the process limit then counts that sandbox alone, and whatever it leaves behind can be found and killed."""

_uid_counter = [0]


def fresh_uid():
    """A user id no other sandbox of this machine is using (as root only)."""
    _uid_counter[0] += 1
    return UID_BASE + (os.getpid() % 100_000) * 100 + _uid_counter[0] % 100


def kill_user_processes(uid, *, wait=5.0):
    """SIGKILL every process of ``uid`` and wait until they are gone; return how many remained."""
    import signal
    import time

    deadline = time.monotonic() + wait
    while True:
        pids = [int(e) for e in os.listdir("/proc") if e.isdigit() and _uid_of(e) == uid]
        if not pids:
            return 0
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if time.monotonic() > deadline:
            return len(pids)
        time.sleep(0.02)


def _uid_of(pid):
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def sandbox_mode():
    """``"bwrap"`` or ``"off"``, from the ``GRADING_SANDBOX`` environment variable."""
    value = os.environ.get(ENV_VAR, "bwrap").strip().lower()
    if value in ("", "bwrap", "on", "1", "yes"):
        return "bwrap"
    if value in ("off", "0", "no", "none"):
        return "off"
    raise SandboxError(f"{ENV_VAR}={value!r} is not understood: use 'bwrap' (the default) or 'off'")


INSIDE = "/sandbox"
"""Inside the sandbox: where the interpreter, the environment, the course's code and its data are shown."""


@dataclass(frozen=True)
class Layout:
    """Where this interpreter, its environment and the course's packages are shown inside the sandbox.

    ``binds`` are ``(outside, inside)`` folders (and single files) shown read-only, ``links``
    ``(inside, target)`` symbolic links made inside, ``python`` the interpreter's path inside,
    ``env`` variables set inside. Built by :func:`layout` from this process's interpreter.
    """

    binds: tuple
    links: tuple
    python: str
    env: tuple


def _venv_config():
    """``include-system-site-packages`` of this interpreter's virtual environment (True when there is none)."""
    if sys.prefix == sys.base_prefix:
        return True
    try:
        text = (Path(sys.prefix) / "pyvenv.cfg").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip().lower() == "include-system-site-packages":
            return value.strip().lower() == "true"
    return False


@functools.cache
def layout():
    """The :class:`Layout` of this interpreter (computed once per process).

    The interpreter's installation is shown at ``/sandbox/python`` (or where it is, when it
    lives in ``/usr``); a virtual environment of our own at ``/sandbox/venv``, made of a
    ``pyvenv.cfg`` naming that installation and a ``site-packages`` whose one ``.pth`` file
    puts ``/sandbox/course`` first on ``sys.path`` and adds the course environment's
    packages (``/sandbox/packages``, their ``.pth`` files included); ``course_lib`` and
    ``grading`` at ``/sandbox/course``. The files of our environment are written once into a
    private temporary folder of this process.
    """
    base = Path(os.path.realpath(sys.base_prefix))
    exe = Path(os.path.realpath(sys.executable))
    if base not in exe.parents:
        raise SandboxError(f"the interpreter {exe} does not live in its installation {base}; the sandbox cannot "
                           f"show it at a fixed path (set {ENV_VAR}=off to grade without a sandbox)")
    in_usr = base == Path("/usr") or Path("/usr") in base.parents
    home = base if in_usr else Path(INSIDE, "python")
    binds = [] if in_usr else [(base, home)]
    env = [] if in_usr else [("LD_LIBRARY_PATH", str(home / "lib"))]
    venv = Path(INSIDE, "venv")
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    site_inside = {Path(sysconfig.get_path(k, vars={"base": str(venv), "platbase": str(venv),
                                                      "installed_base": str(venv), "installed_platbase": str(venv)}))
                   for k in ("purelib", "platlib")}
    own = Path(tempfile.mkdtemp(prefix="grading-sandbox-"))
    atexit.register(shutil.rmtree, own, ignore_errors=True)
    (own / "site-packages").mkdir()
    (own / "pyvenv.cfg").write_text(f"home = {home / exe.relative_to(base).parent}\n"
                                    f"include-system-site-packages = {str(_venv_config()).lower()}\n"
                                    f"version = {version}\n")
    packages = []
    if sys.prefix != sys.base_prefix:          # the course's virtual environment: its packages
        for key in ("purelib", "platlib"):
            path = Path(os.path.realpath(sysconfig.get_paths()[key]))
            if path.is_dir() and path not in packages:
                packages.append(path)
    inside_packages = [Path(INSIDE, "packages" if i == 0 else f"packages-{i}") for i in range(len(packages))]
    course = Path(INSIDE, "course")
    first, rest = str(course), [str(p) for p in inside_packages]
    (own / "site-packages" / "_grading_sandbox.pth").write_text(
        f"import sys, site; sys.path.insert(0, {first!r}) if {first!r} not in sys.path else None; "
        f"list(map(site.addsitedir, {rest!r}))\n")
    for path in [own, own / "site-packages"]:
        os.chmod(path, 0o755)
    for path in (own / "pyvenv.cfg", own / "site-packages" / "_grading_sandbox.pth"):
        os.chmod(path, 0o644)
    binds.append((own / "pyvenv.cfg", venv / "pyvenv.cfg"))
    binds += [(own / "site-packages", path) for path in sorted(site_inside)]
    binds += list(zip(packages, inside_packages, strict=True))
    for name, folder in sorted(package_dirs(("course_lib", "grading")).items()):
        binds.append((folder, course / name))
    python = venv / "bin" / f"python{version}"
    links = [(python, home / exe.relative_to(base))]
    data = os.environ.get("COURSE_DATA_DIR")
    if data and Path(data).is_dir():
        binds.append((Path(os.path.realpath(data)), Path(INSIDE, "data")))
        env.append(("COURSE_DATA_DIR", str(Path(INSIDE, "data"))))
    return Layout(binds=tuple((Path(a), Path(b)) for a, b in binds), links=tuple(links), python=str(python),
                  env=tuple(env))


@functools.cache
def package_dirs(names=("course_lib",)):
    """``{name: folder}`` of the course's own packages, as a fresh interpreter of this environment finds them.

    Asked of a fresh ``python -I`` (as the worker is started), not of this process: here the
    current folder may shadow the installed package (``python -m`` from a course copy).
    """
    code = ("import importlib.util as u, sys\n"
            "for n in sys.argv[1:]:\n"
            "    s = u.find_spec(n)\n"
            "    locations = (s.submodule_search_locations or []) if s else []\n"
            "    print(n, locations[0] if locations else '', sep='\\t')")
    try:
        out = subprocess.run([sys.executable, "-I", "-c", code, *names], capture_output=True, text=True,
                             timeout=60, cwd="/").stdout
    except (OSError, subprocess.TimeoutExpired):
        out = ""
    found = {}
    for line in out.splitlines():
        name, _, folder = line.partition("\t")
        if folder.strip():
            found[name] = Path(os.path.realpath(folder.strip()))
    return found


@dataclass
class Sandbox:
    """How student code is started: the ``bwrap`` command line around a Python process.

    Parameters
    ----------
    limits : Limits
        Resource limits.
    mode : {"bwrap", "off"}, optional
        Default: :func:`sandbox_mode`.
    course_lib : path, optional
        A folder shown in place of the ``course_lib`` package (e.g. a copy with an
        assignment's exercises withheld, :mod:`grading.withhold`).

    Examples
    --------
    >>> box = Sandbox(mode="off")
    >>> box.command(["python", "-c", "pass"], workdir="/tmp")[:2]
    ['python', '-c']
    """

    limits: Limits = field(default_factory=Limits)
    mode: str = field(default_factory=sandbox_mode)
    course_lib: Path | None = None

    def __post_init__(self):
        if self.mode not in ("bwrap", "off"):
            raise SandboxError(f"mode must be 'bwrap' or 'off'; got {self.mode!r}")
        self._checked = False

    # -- the command line ------------------------------------------------------------
    def readonly_paths(self):
        """Every ``(outside, inside)`` folder or file shown read-only in the sandbox."""
        system = [(Path(p), Path(p)) for p in ("/usr", "/etc/alternatives", "/etc/ssl", "/etc/localtime")
                  if Path(p).exists()]
        paths = system + list(layout().binds)
        if self.course_lib is not None:          # last: it covers the real package wherever it shows
            paths += [(Path(self.course_lib), inside) for inside in self._course_lib_places(paths)]
        return paths

    @staticmethod
    def _course_lib_places(paths):
        """Every place inside where the real ``course_lib`` shows through ``paths``: ``/sandbox/course/course_lib``,
        and its folder inside a bound environment (``/sandbox/packages/course_lib`` when it is installed as the
        hub installs it, not as an editable checkout; ``/usr/...`` when installed system-wide)."""
        places = [Path(INSIDE, "course", "course_lib")]
        real = package_dirs(("course_lib",)).get("course_lib")
        if real is not None:
            for outside, inside in paths:
                try:
                    rel = Path(os.path.realpath(real)).relative_to(os.path.realpath(outside))
                except ValueError:
                    continue
                if rel.parts:
                    places.append(Path(inside, rel))
        return list(dict.fromkeys(places))

    def _unprivileged_user(self, uid=None):
        if uid is not None:
            return uid, uid
        try:
            entry = pwd.getpwnam("nobody")
            return entry.pw_uid, entry.pw_gid
        except KeyError:
            return 65534, 65534

    def command(self, argv, *, workdir=None, submission=None, uid=None):
        """The command that runs ``argv`` in the sandbox (``argv[0] == sys.executable``: this interpreter).

        With ``submission`` (a folder), that folder is shown read-only at :data:`SUBMISSION` and the
        process works in :data:`SCRATCH`, a private tmpfs of ``limits.scratch_bytes``: nothing it
        writes reaches the instructor's disk, and a fresh start finds it empty. With ``workdir``,
        that folder is bound writable at :data:`SCRATCH` as the working directory instead.

        As root the process drops to ``uid`` (default: ``nobody``); see :func:`fresh_uid`.
        """
        if (workdir is None) == (submission is None):
            raise TypeError("command() takes exactly one of workdir= and submission=")
        if self.mode == "off":
            return list(argv)
        argv = list(argv)
        if argv and argv[0] == sys.executable:
            argv[0] = layout().python
        size = str(self.limits.scratch_bytes)
        cmd = ["bwrap", "--die-with-parent", "--new-session",
               "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
               "--hostname", "grading",
               "--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev",
               "--perms", "1777", "--size", size, "--tmpfs", "/tmp",
               "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
               "--symlink", "usr/sbin", "/sbin"]
        if Path("/usr/lib64").exists():
            cmd += ["--symlink", "usr/lib64", "/lib64"]
        made = {"/", "/tmp", "/proc", "/dev", "/bin", "/lib", "/lib64", "/sbin", "/usr"}

        def parents(path):
            out = []
            for parent in reversed(path.parents):
                if str(parent) not in made and not str(parent).startswith("/usr/"):
                    out += ["--perms", "0755", "--dir", str(parent)]
                    made.add(str(parent))
            return out

        for outside, inside in self.readonly_paths():
            cmd += parents(inside) + ["--ro-bind", str(outside), str(inside)]
            made.add(str(inside))
        for inside, target in layout().links:
            cmd += parents(inside) + ["--symlink", str(target), str(inside)]
            made.add(str(inside))
        if submission is not None:
            cmd += ["--ro-bind", str(Path(submission).resolve()), SUBMISSION,
                    "--perms", "1777", "--size", size, "--tmpfs", SCRATCH]
        else:
            cmd += ["--bind", str(Path(workdir).resolve()), SCRATCH]
        cmd += ["--remount-ro", "/",        # nothing but /tmp and the scratch folder is writable
                "--chdir", SCRATCH, "--setenv", "HOME", SCRATCH, "--setenv", "TMPDIR", "/tmp",
                "--setenv", "MPLCONFIGDIR", "/tmp", "--setenv", "MPLBACKEND", "Agg",
                "--setenv", "OPENBLAS_NUM_THREADS", "1", "--setenv", "OMP_NUM_THREADS", "1",
                "--setenv", "MKL_NUM_THREADS", "1"]
        for key, value in layout().env:
            cmd += ["--setenv", key, value]
        if os.geteuid() == 0:
            uid, gid = self._unprivileged_user(uid)
            cmd += ["--", "/usr/bin/setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
                    "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"]
        else:
            cmd += ["--unshare-user", "--cap-drop", "ALL", "--"]
        return cmd + argv

    def prepare_workdir(self, workdir, uid=None):
        """Make ``workdir`` writable by the sandbox user."""
        if self.mode == "bwrap" and os.geteuid() == 0:
            uid, gid = self._unprivileged_user(uid)
            for root, _dirs, files in os.walk(workdir):
                os.chown(root, uid, gid)
                for name in files:
                    os.chown(os.path.join(root, name), uid, gid, follow_symlinks=False)

    def preexec(self):
        """Apply the resource limits in the child before ``bwrap`` starts (inherited by all)."""
        lim = self.limits

        def apply():
            os.setsid()
            resource.setrlimit(resource.RLIMIT_AS, (lim.memory_bytes, lim.memory_bytes))
            resource.setrlimit(resource.RLIMIT_CPU, (lim.cpu_seconds, lim.cpu_seconds))
            resource.setrlimit(resource.RLIMIT_FSIZE, (lim.file_bytes, lim.file_bytes))
            resource.setrlimit(resource.RLIMIT_NOFILE, (lim.open_files, lim.open_files))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if self.mode == "bwrap":
                nproc = lim.processes
                if os.geteuid() != 0:
                    # the limit counts every process of this user: leave room for the ones running
                    nproc += _count_processes(os.getuid())
                resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))

        return apply

    # -- is it usable? --------------------------------------------------------------
    def check(self):
        """Start a trivial sandboxed Python; raise :class:`SandboxError` naming the cause when it cannot run.

        Done once per process for a given configuration (a run of the grader checks once, not
        once per submission). The causes told apart: ``bwrap`` missing, ``setpriv`` missing (as
        root), the kernel refusing the namespaces (user namespaces off), the interpreter or
        ``course_lib`` not visible inside the sandbox, and Python failing there.
        """
        if self.mode == "off" or self._checked:
            return
        off = f"set {ENV_VAR}=off to grade WITHOUT a sandbox (only for code you trust)"
        bwrap = shutil.which("bwrap")
        try:
            key = (bwrap, tuple(self.readonly_paths()), layout().links, os.geteuid())
        except SandboxError as exc:
            raise SandboxError(f"{exc}") from None
        if key in _CHECKED:
            self._checked = True
            return
        if bwrap is None:
            raise SandboxError(
                "student code is run in a bubblewrap sandbox, but `bwrap` is not installed. Install it "
                f"(Debian/Ubuntu: `sudo apt-get install bubblewrap`; Fedora: `sudo dnf install bubblewrap`), or {off}.")
        if os.geteuid() == 0 and not Path("/usr/bin/setpriv").exists():
            raise SandboxError("grading as root needs /usr/bin/setpriv (package util-linux) to drop to an "
                               f"unprivileged user inside the sandbox; or {off}")
        with tempfile.TemporaryDirectory(prefix="grading-check-") as tmp:
            os.chmod(tmp, 0o755)
            # 1. the namespaces alone, around /bin/true: fails when the kernel refuses them
            bare = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--ro-bind", "/usr", "/usr",
                    "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
                    "--proc", "/proc", "--dev", "/dev"]
            if os.geteuid() != 0:
                bare += ["--unshare-user"]
            run = self._run(bare + ["/usr/bin/true"], off)
            if run.returncode != 0:
                why = (run.stderr.strip().splitlines() or ["no message"])[-1]
                raise SandboxError(
                    f"bubblewrap cannot create its namespaces here ({why}): user namespaces are disabled on this "
                    "machine (sysctl kernel.unprivileged_userns_clone=1, or user.max_user_namespaces > 0) or the "
                    f"container forbids them (e.g. Docker's default seccomp profile); {off}.")
            # 2. this interpreter, numpy and course_lib inside the real sandbox
            argv = self.command([sys.executable, "-I", "-c", "import numpy, course_lib; print('ok')"], submission=tmp)
            run = self._run(argv, off)
            if run.returncode != 0 or run.stdout.strip() != "ok":
                lines = run.stderr.strip().splitlines() or ["no output"]
                why = lines[-1]
                if "execvp" in run.stderr or "No such file or directory" in why:
                    raise SandboxError(
                        f"the interpreter {sys.executable} is not visible inside the sandbox ({why}); the sandbox "
                        f"shows it at {layout().python} and shows "
                        f"{', '.join(f'{a} at {b}' for a, b in self.readonly_paths())} read-only. Is the "
                        f"interpreter's installation incomplete or on a mount the sandbox cannot show? Or {off}.")
                if "ModuleNotFoundError" in run.stderr or "ImportError" in run.stderr:
                    raise SandboxError(f"Python starts in the sandbox but cannot import what grading needs ({why}): "
                                       f"is course_lib installed in {sys.prefix} (`make setup`)? Or {off}.")
                raise SandboxError(f"the bubblewrap sandbox could not start Python ({why}); {off}.")
        self._checked = True
        _CHECKED.add(key)

    def _run(self, argv, off):
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=120, preexec_fn=self.preexec(),
                                  cwd="/")
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SandboxError(f"the bubblewrap sandbox could not start: {exc}; {off}") from None


_CHECKED = set()


def _count_processes(uid):
    n = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    n += 1
            except OSError:
                pass
    return n
