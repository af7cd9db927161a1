"""The sandbox really confines a process: files, network, memory, processes, user.

These tests start real sandboxed Python processes (bubblewrap). Where the sandbox cannot
start they fail with the reason: grading depends on it.
"""
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from grading.sandbox import Limits, Sandbox, SandboxError, sandbox_mode

pytestmark = pytest.mark.skipif(sandbox_mode() == "off", reason="GRADING_SANDBOX=off")


@pytest.fixture(scope="module")
def box():
    sandbox = Sandbox(limits=Limits(memory_bytes=2 * 1024**3, processes=32))
    sandbox.check()            # fails the tests with the reason when bubblewrap cannot run
    return sandbox


def run(box, workdir, code, timeout=60):
    workdir.mkdir(exist_ok=True)
    box.prepare_workdir(workdir)
    argv = box.command([sys.executable, "-I", "-c", textwrap.dedent(code)], workdir=workdir)
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, preexec_fn=box.preexec())


def test_sees_python_and_course_lib_but_not_the_course(box, tmp_path):
    secret = tmp_path / "course" / "source"
    secret.mkdir(parents=True)
    (secret / "solution.ipynb").write_text("the reference solution")
    out = run(box, tmp_path / "work", f"""
        import os, course_lib, numpy
        print(os.path.exists({str(secret)!r}), os.path.exists({str(tmp_path / 'course')!r}))
        print(os.path.exists(os.path.expanduser('~root/.bashrc')), os.path.exists('/etc/shadow'))
        print(os.path.isdir('/home'))
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False", "False", "False", "False"]


def test_writes_only_its_own_folder(box, tmp_path):
    outside = tmp_path / "outside.txt"
    out = run(box, tmp_path / "work", f"""
        import os
        open('mine.txt', 'w').write('ok')
        open('/tmp/scratch.txt', 'w').write('ok')
        import sys
        for target in ({str(outside)!r}, os.path.dirname(sys.executable) + '/evil', '/usr/evil'):
            try:
                open(target, 'w').write('x')
                print('wrote', target)
            except OSError as exc:
                print('refused', type(exc).__name__)
    """)
    assert out.returncode == 0, out.stderr
    assert "wrote" not in out.stdout and out.stdout.count("refused") == 3
    assert (tmp_path / "work" / "mine.txt").read_text() == "ok"
    assert not outside.exists()


def test_has_no_network(box, tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    try:
        out = run(box, tmp_path / "work", f"""
            import socket
            try:
                socket.create_connection(('127.0.0.1', {port}), timeout=2)
                print('connected')
            except OSError as exc:
                print('refused', exc.errno)
            print(sorted(n for _, n in socket.if_nameindex()))
        """)
    finally:
        server.close()
    assert out.returncode == 0, out.stderr
    assert "connected" not in out.stdout
    assert "['lo']" in out.stdout


def test_memory_is_bounded(box, tmp_path):
    out = run(box, tmp_path / "work", """
        try:
            hog = bytearray(8 * 1024**3)
            print('allocated')
        except MemoryError:
            print('MemoryError')
    """)
    assert out.stdout.strip() == "MemoryError", out.stderr


def test_processes_are_bounded_and_all_killed(box, tmp_path):
    out = run(box, tmp_path / "work", """
        import os, time
        children, refused = 0, 0
        for _ in range(200):
            try:
                pid = os.fork()
            except OSError:
                refused += 1
                break
            if pid == 0:
                time.sleep(600)
                os._exit(0)
            children += 1
        print(children, refused)
    """)
    children, refused = map(int, out.stdout.split())
    assert refused == 1 and children < 64
    assert not any("time.sleep(600)" in line for line in
                   subprocess.run(["ps", "-eo", "args="], capture_output=True, text=True).stdout.splitlines())


@pytest.mark.skipif(os.geteuid() != 0, reason="only a grader running as root drops to the user 'nobody'")
def test_runs_as_an_unprivileged_user_without_capabilities(box, tmp_path):
    out = run(box, tmp_path / "work", """
        import os
        print(os.getuid(), os.geteuid())
        print(open('/proc/self/status').read().split('CapEff:')[1].split()[0])
    """)
    uid, euid, caps = out.stdout.split()
    assert uid == euid != "0"
    assert int(caps, 16) == 0


def test_a_missing_bwrap_is_refused_with_instructions(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(SandboxError, match=r"apt-get install bubblewrap.*GRADING_SANDBOX=off"):
        Sandbox().check()


def test_unknown_mode_is_refused(monkeypatch):
    monkeypatch.setenv("GRADING_SANDBOX", "maybe")
    with pytest.raises(SandboxError, match="GRADING_SANDBOX='maybe'"):
        sandbox_mode()


def test_an_interpreter_the_sandbox_does_not_show_is_named_as_the_cause(monkeypatch):
    box = Sandbox()
    monkeypatch.setattr(Sandbox, "readonly_paths", lambda self: [(Path("/usr"), Path("/usr"))])
    if sys.base_prefix.startswith("/usr"):
        pytest.skip("this interpreter lives in /usr, which the sandbox always shows")
    with pytest.raises(SandboxError, match=r"is not visible inside the sandbox"):
        box.check()


def test_the_sandbox_is_checked_once_per_run_not_once_per_submission(monkeypatch):
    """Each submission of a run gets a Sandbox() of its own (as nbgrader's preprocessor makes one); one check serves all."""
    import nbformat

    import grading.sandbox as sandbox_module
    from grading.engine import execute_submission

    monkeypatch.setattr(sandbox_module, "_CHECKED", set())
    started = []
    real_run = Sandbox._run

    def counted(self, argv, off):
        started.append(argv)
        return real_run(self, argv, off)

    monkeypatch.setattr(Sandbox, "_run", counted)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    for _ in range(3):
        _, report = execute_submission(nb, tests={})
        assert report.status == "graded"
    assert len(started) == 2        # the namespaces alone, then Python in the real sandbox: once


def test_the_sandbox_shows_the_interpreter_and_the_course_at_fixed_paths_whatever_the_host_s_layout(box, tmp_path):
    from grading_helpers import ROOT

    out = run(box, tmp_path / "work", f"""
        import os, sys, course_lib, grading, numpy
        print(sys.executable, sys.prefix, course_lib.__file__, grading.__file__, sep="\\n")
        print(sorted(os.listdir("/")), sorted(os.listdir("/tmp")), os.getcwd(), sep="\\n")
        print(os.path.exists({str(ROOT)!r}), os.path.exists({sys.prefix!r}), os.path.exists({sys.base_prefix!r}))
    """)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert all(line.startswith("/sandbox/") for line in lines[:4]), lines
    assert lines[2] == "/sandbox/course/course_lib/__init__.py"
    assert eval(lines[4]) == sorted(["bin", "dev", "etc", "lib", "proc", "sandbox", "sbin", "scratch", "tmp", "usr"]
                                    + (["lib64"] if Path("/usr/lib64").exists() else []))
    assert lines[5] == "[]" and lines[6] == "/scratch"          # nothing of the host's folders in /tmp
    assert lines[7].split() == ["False", "False", "False"] or sys.base_prefix.startswith("/usr")


_FILL = """
import os
report = {}
for top in ("/", "/dev", "/dev/shm", "/sandbox", "/tmp", "."):
    written = 0
    try:
        for i in range(8):                 # 8 files of 64 MiB (the largest a process may write): 512 MiB
            with open(os.path.join(top, f"fill{i}"), "wb") as fh:
                for _ in range(4):
                    fh.write(b"x" * (16 * 1024**2))
                    written += 16
    except OSError as exc:
        report[top] = (exc.errno, written)
    else:
        report[top] = (0, written)
print(report)
"""


def _fill_report(text):
    import ast
    return ast.literal_eval(text.strip().splitlines()[-1])


@pytest.mark.parametrize("as_root", [True, False], ids=["grader-as-root", "grader-unprivileged"])
def test_only_the_two_bounded_file_systems_can_be_written_whoever_grades(tmp_path, as_root):
    """The root, /dev and /sandbox are read-only and /tmp and the scratch folder hold at most Limits.scratch_bytes,
    whether the grader runs as root (the sandbox drops to a user of its own) or as an unprivileged account."""
    import errno
    import shutil

    code = ("import subprocess, sys, tempfile\nfrom grading.sandbox import Sandbox\n"
            "box = Sandbox()\nbox.check()\nwork = tempfile.mkdtemp()\nbox.prepare_workdir(work)\n"
            f"cmd = box.command([sys.executable, '-I', '-c', {_FILL!r}], submission=work)\n"
            "out = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=box.preexec(), timeout=600)\n"
            "print(out.stdout, out.stderr[-2000:])\n")
    argv = [sys.executable, "-c", code]
    if as_root != (os.geteuid() == 0):
        if os.geteuid() != 0 or shutil.which("unshare") is None:
            pytest.skip("needs root, to run the grader as an unprivileged user in a user namespace of its own")
        argv = ["unshare", "--user", "--map-user=1000", "--map-group=1000"] + argv
    out = subprocess.run(argv, capture_output=True, text=True, timeout=900, cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr[-3000:]
    report = _fill_report(out.stdout)
    for top in ("/", "/dev", "/dev/shm", "/sandbox"):
        assert report[top] == (errno.EROFS, 0), (top, report)
    for top in ("/tmp", "."):
        code, written = report[top]
        assert code == errno.ENOSPC and written <= Limits().scratch_bytes // 1024**2, (top, report)
