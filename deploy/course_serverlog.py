"""The log of one user's server, kept within a bound: the latest output, never more than ``max_bytes``.

The hub (jupyterhub_config.py, ``LimitedSpawner.start``) gives each user's server a pipe as its
stdout and stderr, and starts this keeper, as root, to read the other end::

    python -I -S course_serverlog.py PREFIX/log/users/NAME.log MAX_BYTES

It appends what it reads to ``NAME.log``. When that file would pass half the bound, it becomes
``NAME.log.1`` (the previous ``NAME.log.1`` is dropped) and a new ``NAME.log`` begins with a line
that says so: the two files together never hold more than ``MAX_BYTES``, and they hold the latest
output, at least its last half-bound. Files found larger than that when the keeper starts (an
older deployment's, or a smaller bound) are cut to their last part first, so the bound holds
across restarts of the server and of the hub.

The keeper always reads: the server and its kernels never get an error from their output and
never wait for it longer than a write to a file takes. That matters: ipykernel copies what a
kernel writes to its file descriptors 1 and 2 (``os.write(2, ...)``, a C library's messages, a
subprocess's output) to the server's stderr from a thread that stops at the first error, and the
kernel then hangs at its next output larger than a pipe's buffer. So a bound that fails writes
(``RLIMIT_FSIZE``: EFBIG; a file system of fixed size: ENOSPC) or a reader that dies (EPIPE)
would hang the kernels of a student who printed too much. What the keeper cannot write (a full
disk, the folder removed) it drops and counts, and says so in the log when it can write again.

It runs in a session of its own, outside the user's control group (her memory limit cannot make
it the victim of an out-of-memory kill; the machine's OOM killer is told to spare it), ignores
the signals a restart or a terminal sends (HUP, INT, TERM, QUIT), so it outlives a restart of
the hub as the server does; it ends when every writer has closed the pipe: the server, its
kernels and whatever inherited their output. Only root can stop it sooner (KILL).

It imports nothing but the interpreter's built-in modules (``-I -S``): a few MiB per server.
"""
import os
import signal
import sys
import time

READ_SIZE = 1 << 20      # the pipe's buffer, as the hub sets it
NOTE_MAX = 256           # room kept for the keeper's own line at the top of a new file


def _now():
    return time.strftime("%Y-%m-%d %H:%M:%S")


class BoundedLog:
    """``path`` and ``path.1`` together at most ``max_bytes``, the latest output kept.

    ``write(data)`` never raises: what cannot be written is dropped, counted, and said in the log.
    """

    def __init__(self, path, max_bytes):
        if max_bytes < 8 * NOTE_MAX:
            raise ValueError(f"max_bytes: expected at least {8 * NOTE_MAX} bytes, got {max_bytes}")
        self.path, self.old = path, path + ".1"
        self.half = max_bytes // 2          # each file at most this
        self.fd, self.size = None, 0
        self.dropped, self.why = 0, ""
        for p in (self.old, self.path):
            self._cut(p)

    def write(self, data):
        """Append ``data`` (bytes), after a new file is begun if the current one would pass half the bound."""
        room = self.half - 2 * NOTE_MAX       # for what was written, after the keeper's own lines
        if len(data) > room:                 # more than a file holds: its last part
            self._drop(len(data) - room, "one write larger than half the bound")
            data = data[-room:]
        try:
            self._open()
            if self.dropped:
                data = (f"[{_now()} log keeper: {self.dropped} bytes dropped ({self.why})]\n".encode()[:NOTE_MAX]
                        + data)
            if self.size + len(data) > self.half:
                self._rotate()
            self._append(data)
            self.dropped, self.why = 0, ""
        except OSError as e:                 # a full disk, the folder gone: drop it, try again next time
            self._drop(len(data), e.strerror or type(e).__name__)
            self.close()

    def close(self):
        if self.fd is not None:
            try:
                os.close(self.fd)
            except OSError:
                pass
            self.fd = None

    def _drop(self, count, why):
        self.dropped += count
        self.why = why

    def _open(self):
        if self.fd is None:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            self.fd, self.size = fd, os.fstat(fd).st_size

    def _append(self, data):
        _write_all(self.fd, data)
        self.size += len(data)

    def _rotate(self):
        """``path`` becomes ``path.1`` (replacing it); a new ``path`` begins with a line saying so."""
        self.close()
        try:
            os.rename(self.path, self.old)
        except FileNotFoundError:
            pass
        self._open()
        name = os.path.basename(self.path)
        self._append(f"[{_now()} log keeper: earlier output in {name}.1; older output is dropped "
                     f"({2 * self.half} bytes at most are kept)]\n".encode()[:NOTE_MAX])

    def _cut(self, path):
        """Leave only the last part of ``path`` (from a line's start) if it is over half the bound."""
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return
        try:
            size = os.fstat(fd).st_size
            if size <= self.half:
                return
            keep = self.half - NOTE_MAX
            tail = os.pread(fd, keep, size - keep)
        finally:
            os.close(fd)
        start = tail.find(b"\n") + 1            # from a line's start, unless there is none
        tail = tail[start:] if 0 < start < len(tail) else tail
        note = f"[{_now()} log keeper: {size - len(tail)} earlier bytes cut, to keep the log within its bound]\n"
        cut = self.path + ".cut"
        try:
            out = os.open(cut, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                _write_all(out, note.encode()[:NOTE_MAX] + tail)
            finally:
                os.close(out)
            os.rename(cut, path)
        except OSError:
            for p in (cut, path):            # better no old output than a log over its bound
                try:
                    os.unlink(p)
                except OSError:
                    pass


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _spare_me():
    """Signals that a restart or a terminal sends are ignored; the OOM killer spares this process."""
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGQUIT, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("-1000")
    except OSError:
        pass


def keep(source_fd, path, max_bytes):
    """Copy ``source_fd`` into the bounded log at ``path`` until its end (every writer gone)."""
    log = BoundedLog(path, max_bytes)
    while True:
        try:
            data = os.read(source_fd, READ_SIZE)
        except OSError:
            break
        if not data:
            break
        log.write(data)
    log.close()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or not argv[1].isdigit():
        print("usage: course_serverlog.py PATH MAX_BYTES  (reads standard input)", file=sys.stderr)
        return 2
    _spare_me()
    keep(0, argv[0], int(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
