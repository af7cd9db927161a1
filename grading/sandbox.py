"""The sandbox in which every piece of student code runs while it is graded.

Autograding runs code written by students, as the instructor, next to the instructor's
files. Each submission therefore runs inside `bubblewrap <https://github.com/containers/bubblewrap>`_
(``bwrap``), the unprivileged sandboxing tool that Flatpak is built on: maintained,
packaged by every Linux distribution (``apt-get install bubblewrap``), needing no daemon
and no image, and starting in milliseconds. The student process gets

* its own mount namespace holding only what Python needs, read-only: the system's
  ``/usr``, the Python installation, the course's virtual environment and ``course_lib``
  (plus the reference data directory when ``COURSE_DATA_DIR`` is set) — not ``source/``,
  not the gradebook, not ``submitted/`` or ``autograded/``, not the instructor's home;
* the submission's files read-only at ``/submission``, and one writable folder, ``/scratch``:
  a private tmpfs of ``Limits.scratch_bytes`` into which the worker copies them (a fresh,
  empty one at every start), and a private ``/tmp`` of the same size; nothing written there
  reaches the instructor's disk;
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


def _python_paths():
    """Folders the interpreter of this virtual environment needs, read-only."""
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix), Path(sys.base_exec_prefix)}
    exe = Path(sys.executable)
    paths.add(exe.resolve().parent.parent)
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            paths.add(Path(sysconfig.get_paths()[key]))
        except KeyError:
            pass
    return paths


@functools.cache
def _package_dirs(names=("course_lib",)):
    """Where the course's own packages live for the sandboxed interpreter.

    Asked of a fresh ``python -I`` (as the worker is started), not of this process: here the
    current folder may shadow the installed package (``python -m`` from a course copy).
    """
    code = ("import importlib.util as u, sys\n"
            "for n in sys.argv[1:]:\n"
            "    s = u.find_spec(n)\n"
            "    print('\\n'.join((s.submodule_search_locations or []) if s else []))")
    try:
        out = subprocess.run([sys.executable, "-I", "-c", code, *names], capture_output=True, text=True,
                             timeout=60, cwd="/").stdout
    except (OSError, subprocess.TimeoutExpired):
        out = ""
    return {Path(line) for line in out.splitlines() if line.strip()}


def _minimal(paths):
    """Drop paths that lie inside another path of the set."""
    out = []
    for p in sorted({Path(os.path.realpath(p)) for p in paths if Path(p).exists()}, key=lambda p: len(p.parts)):
        if not any(p == q or q in p.parents for q in out):
            out.append(p)
    return out


@dataclass
class Sandbox:
    """How student code is started: the ``bwrap`` command line around a Python process.

    Parameters
    ----------
    limits : Limits
        Resource limits.
    extra_ro : list of Path
        More folders to show read-only (e.g. the reference data directory).
    mode : {"bwrap", "off"}, optional
        Default: :func:`sandbox_mode`.

    Examples
    --------
    >>> box = Sandbox(mode="off")
    >>> box.command(["python", "-c", "pass"], workdir="/tmp")[:2]
    ['python', '-c']
    """

    limits: Limits = field(default_factory=Limits)
    extra_ro: list = field(default_factory=list)
    mode: str = field(default_factory=sandbox_mode)
    overlays: dict = field(default_factory=dict)
    """``{path inside: folder outside}``: folders shown read-only in place of others (e.g. a withheld course_lib)."""

    def __post_init__(self):
        if self.mode not in ("bwrap", "off"):
            raise SandboxError(f"mode must be 'bwrap' or 'off'; got {self.mode!r}")
        data = os.environ.get("COURSE_DATA_DIR")
        if data and Path(data).is_dir():
            self.extra_ro = list(self.extra_ro) + [Path(data)]
        self._checked = False

    # -- the command line ------------------------------------------------------------
    def readonly_paths(self):
        """Every folder bound read-only into the sandbox."""
        if getattr(self, "_readonly", None) is None:
            system = [Path(p) for p in ("/usr", "/etc/alternatives", "/etc/ssl", "/etc/localtime") if Path(p).exists()]
            packages = _package_dirs(("course_lib", "grading"))
            self._readonly = _minimal(system + list(_python_paths()) + list(packages) + list(self.extra_ro))
        return self._readonly

    def links(self):
        """``{path: target}``: the interpreter's paths that are symbolic links, recreated as links inside."""
        out = {}
        for p in (Path(sys.prefix), Path(sys.executable).parent):
            p = Path(os.path.abspath(p))
            for q in [p] + list(p.parents):
                if q.is_symlink():
                    out[q] = Path(os.path.realpath(q))
        return out

    def _unprivileged_user(self, uid=None):
        if uid is not None:
            return uid, uid
        try:
            entry = pwd.getpwnam("nobody")
            return entry.pw_uid, entry.pw_gid
        except KeyError:
            return 65534, 65534

    def command(self, argv, *, workdir=None, submission=None, uid=None):
        """The command that runs ``argv`` in the sandbox.

        With ``submission`` (a folder), that folder is shown read-only at :data:`SUBMISSION` and the
        process works in :data:`SCRATCH`, a private tmpfs of ``limits.scratch_bytes``: nothing it
        writes reaches the instructor's disk, and a fresh start finds it empty. With ``workdir``,
        that folder is bound writable as the working directory instead.

        As root the process drops to ``uid`` (default: ``nobody``); see :func:`fresh_uid`.
        """
        if (workdir is None) == (submission is None):
            raise TypeError("command() takes exactly one of workdir= and submission=")
        if self.mode == "off":
            return list(argv)
        size = str(self.limits.scratch_bytes)
        cmd = ["bwrap", "--die-with-parent", "--new-session",
               "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
               "--hostname", "grading",
               "--proc", "/proc", "--dev", "/dev",
               "--perms", "1777", "--size", size, "--tmpfs", "/tmp",
               "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
               "--symlink", "usr/sbin", "/sbin"]
        if Path("/usr/lib64").exists():
            cmd += ["--symlink", "usr/lib64", "/lib64"]
        made = {"/", "/tmp", "/proc", "/dev", "/bin", "/lib", "/lib64", "/sbin"}
        binds = [(p, p, "--ro-bind") for p in self.readonly_paths()]
        if workdir is not None:
            workdir = str(Path(workdir).resolve())
            binds.append((Path(workdir), Path(workdir), "--bind"))
        else:
            binds.append((Path(submission).resolve(), Path(SUBMISSION), "--ro-bind"))
            workdir = SCRATCH

        def parents(path):
            out = []
            for parent in reversed(path.parents):
                if str(parent) not in made and not str(parent).startswith("/usr"):
                    out += ["--perms", "0755", "--dir", str(parent)]
                    made.add(str(parent))
            return out

        for source, dest, how in binds:
            cmd += parents(dest) + [how, str(source), str(dest)]
            made.add(str(dest))
        for link, target in self.links().items():      # e.g. a .venv that is a symbolic link
            cmd += parents(link) + ["--symlink", str(target), str(link)]
            made.add(str(link))
        for inside, outside in self.overlays.items():   # last, so that they cover what was bound above
            cmd += parents(Path(inside)) + ["--ro-bind", str(outside), str(inside)]
        if workdir == SCRATCH:
            cmd += ["--perms", "1777", "--size", size, "--tmpfs", SCRATCH]
        cmd += ["--chdir", workdir, "--setenv", "HOME", workdir, "--setenv", "TMPDIR", "/tmp",
                "--setenv", "MPLCONFIGDIR", "/tmp", "--setenv", "MPLBACKEND", "Agg",
                "--setenv", "OPENBLAS_NUM_THREADS", "1", "--setenv", "OMP_NUM_THREADS", "1",
                "--setenv", "MKL_NUM_THREADS", "1", "--unsetenv", "COURSE_DATA_DIR_SECRET"]
        if os.geteuid() == 0:
            uid, gid = self._unprivileged_user(uid)
            cmd += ["--", "/usr/bin/setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
                    "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"]
        else:
            cmd += ["--unshare-user", "--cap-drop", "ALL", "--"]
        return cmd + list(argv)

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
        key = (bwrap, tuple(self.readonly_paths()), tuple(sorted(self.links().items())), os.geteuid())
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
                        f"shows {', '.join(map(str, self.readonly_paths()))} read-only. Is a parent folder of the "
                        f"environment a symbolic link or a mount the sandbox does not show? Or {off}.")
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
