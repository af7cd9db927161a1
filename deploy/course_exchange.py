"""nbgrader's file-system exchange for a class that includes hostile students.

Students submit by creating ``inbound/<student>+<assignment>+<timestamp>+<random>`` in the
course's exchange. Everything in such an entry is the student's to shape: its files, its
links, its modes, its timestamps, and what it holds at any instant. The deployment installs
this module next to nbgrader and selects its classes in the nbgrader configuration files.

**Collect** (:class:`OwnerCheckedCollect`, ``nbgrader collect`` and the Formgrader's button).

* An entry is taken only from the student it names: its owner must be that student (nbgrader
  itself only warns), and so must every file in it.
* Only regular files are copied, each opened relative to its folder's descriptor without
  following a link (``O_NOFOLLOW``) and checked on the opened descriptor (``fstat``): what is
  copied is what was checked, however fast the student swaps a file for a link (no
  time-of-check/time-of-use gap). Links, FIFOs, sockets and device files are left out, and
  never opened (a FIFO would block the collector, a device file could do anything).
* Bounded per student: at most ``max_files`` files, each at most ``CourseDirectory.max_file_size``
  kB and in all at most ``CourseDirectory.max_dir_size`` kB (nbgrader's own limits, 100 MB each).
  A file over a bound is left out, the rest is collected.
* Each entry is copied into a fresh folder first and only then put in place of the student's
  previous copy: a bad entry never deletes what was collected before, and never stops the
  collection of the others. Every problem is reported per student, by name
  (:attr:`OwnerCheckedCollect.problems`).
* Graders quarantine an entry by adding its name to ``quarantined-submissions.txt`` in the
  course folder: collect skips it, and the clerk (below) renames it out of the way.

**Time of a submission.** Not the timestamp in the entry's name or its ``timestamp.txt`` (the
student writes both), nor the files' change times (any ``chmod -R`` or restore by an
administrator changes them). At submit, the exchange's clerk (:func:`serve_clerk`, a hub
service running as the course's account) records the entry's name, its owner, the time and a
digest of its contents in a journal that students cannot write. Collect computes the digest of
what it copied and dates the submission by the earliest record of the same contents; an entry
whose contents match no record (changed after submit, or not made by ``nbgrader submit``) is
dated by its collection, and reported. The collected ``timestamp.txt`` is rewritten with that
time.

**Submit** (:class:`CourseSubmit`). The entry is readable by its student and the graders' group
only (nbgrader makes it ``0777``), built in ``<entry>.part`` and renamed into place, then
recorded by the clerk; when the clerk cannot record it, the entry is removed and the student
is told to submit again. The clerk identifies the student by the kernel's credentials of the
connection (``SO_PEERCRED``), not by anything she sends. It also removes entries left half
made by a server that died during a submit.

The students' commands accept an exchange root that only root may write to (nbgrader's own
refuse to work unless everyone may create folders in it).
"""
import datetime
import glob
import grp
import hashlib
import json
import os
import pwd
import shutil
import socket
import socketserver
import stat
import struct
import sys
import tempfile
import threading
import time

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect, groupby
from nbgrader.exchange.default.fetch_assignment import ExchangeFetchAssignment
from nbgrader.exchange.default.fetch_feedback import ExchangeFetchFeedback
from nbgrader.exchange.default.list import ExchangeList
from nbgrader.exchange.default.submit import ExchangeSubmit
from nbgrader.utils import check_mode
from traitlets import Integer, Unicode

__all__ = ["OwnerCheckedCollect", "CourseSubmit", "CourseFetchAssignment", "CourseFetchFeedback", "CourseList",
           "EntryRefused", "read_entry", "owner_of", "Journal", "serve_clerk", "record_submission",
           "QUARANTINE_FILE"]

QUARANTINE_FILE = "quarantined-submissions.txt"
_TIME_FORMAT = "%Y-%m-%d %H:%M:%S.%f UTC"
_MAX_DEPTH = 16
_CHUNK = 1 << 20


class EntryRefused(Exception):
    """An entry that cannot be taken at all; the message says why, for the student's line of the report."""


def owner_of(path):
    """The name of the Linux user that owns ``path`` (``uid <n>`` when it has no name)."""
    return _user_name(os.lstat(path).st_uid)


def _user_name(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


class _Contents:
    def __init__(self):
        self.digest = hashlib.sha256()
        self.files = 0
        self.total = 0
        self.skipped = []     # (relative path, why)

    def hexdigest(self):
        return self.digest.hexdigest()


def read_entry(parent_fd, name, *, uid, max_file_bytes, max_total_bytes, max_files, dest=None):
    """Walk the entry ``name`` of the folder open as ``parent_fd``, through descriptors only.

    Every folder and file is opened relative to its folder's descriptor with ``O_NOFOLLOW`` and
    checked with ``fstat`` on what was opened: the entry must be a folder owned by ``uid``, each
    file a regular file owned by ``uid``. Links, FIFOs, sockets and devices are never opened and
    are listed in ``skipped``, and so are files over ``max_file_bytes``, files beyond ``max_files``
    and those that would take the total over ``max_total_bytes``. With ``dest`` (a folder that
    does not exist yet) the regular files are copied there as they are read.

    Returns the contents' summary: ``hexdigest()`` of the names and bytes of what was read (the
    same for the same contents, whoever reads them), ``files``, ``total`` and ``skipped``.
    Raises :class:`EntryRefused` when the entry itself is not a folder of ``uid``.
    """
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(name, flags, dir_fd=parent_fd)
    except OSError as e:
        raise EntryRefused(f"it cannot be opened as a folder without following a link ({e.strerror})") from None
    contents = _Contents()
    try:
        st = os.fstat(fd)
        if st.st_uid != uid:
            raise EntryRefused(f"it belongs to {_user_name(st.st_uid)}")
        if dest is not None:
            os.mkdir(dest, 0o770)
        _read_folder(fd, "", dest, uid, contents, max_file_bytes, max_total_bytes, max_files, 0)
    finally:
        os.close(fd)
    return contents


def _order(name, st, depth):
    """nbgrader's own files first, then notebooks, other files, folders: the bounds cut the least useful."""
    if depth == 0 and name in ("timestamp.txt", "submission_secret.txt"):
        return (0, name)
    if stat.S_ISDIR(st.st_mode):
        return (3, name)
    return (1 if name.endswith(".ipynb") else 2, name)


def _read_folder(fd, rel, dest, uid, contents, max_file, max_total, max_files, depth):
    listing = []
    for name in os.listdir(fd):
        try:
            listing.append((name, os.stat(name, dir_fd=fd, follow_symlinks=False)))
        except OSError:
            contents.skipped.append((f"{rel}{name}", "it vanished while being read"))
    for name, st in sorted(listing, key=lambda item: _order(item[0], item[1], depth)):
        path = f"{rel}{name}"
        if stat.S_ISDIR(st.st_mode):
            _read_subfolder(fd, name, rel, dest, uid, contents, max_file, max_total, max_files, depth)
            continue
        if not stat.S_ISREG(st.st_mode):
            contents.skipped.append((path, f"{_kind(st.st_mode)}: only regular files are collected"))
            continue
        if st.st_size > max_file:
            contents.skipped.append((path, f"{st.st_size} bytes, over the limit of {max_file} per file"))
            continue
        if contents.files >= max_files:
            contents.skipped.append((path, f"beyond the limit of {max_files} files"))
            continue
        if contents.total + st.st_size > max_total:
            contents.skipped.append((path, f"{st.st_size} bytes would take the entry over {max_total} in all"))
            continue
        try:   # O_NONBLOCK: a FIFO swapped in after the stat above opens at once instead of blocking
            ffd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, dir_fd=fd)
        except OSError as e:
            contents.skipped.append((path, f"not opened without following a link ({e.strerror})"))
            continue
        try:
            fst = os.fstat(ffd)
            if not stat.S_ISREG(fst.st_mode) or fst.st_uid != uid:
                contents.skipped.append((path, "changed while being collected (not a regular file of hers)"))
                continue
            budget = min(max_file, max_total - contents.total)
            data = bytearray()
            while len(data) <= budget:
                chunk = os.read(ffd, min(_CHUNK, budget + 1 - len(data)))
                if not chunk:
                    break
                data += chunk
            if len(data) > budget:
                contents.skipped.append((path, "it grew over the limit while being read"))
                continue
        finally:
            os.close(ffd)
        contents.files += 1
        contents.total += len(data)
        contents.digest.update(b"F" + path.encode("utf-8", "surrogateescape") + b"\0"
                               + hashlib.sha256(data).digest())
        if dest is not None:
            _write_new(os.path.join(dest, name), data)


def _read_subfolder(fd, name, rel, dest, uid, contents, max_file, max_total, max_files, depth):
    """Read the folder ``name`` of the open folder ``fd`` (as :func:`_read_folder`, one level deeper)."""
    path = f"{rel}{name}"
    if depth >= _MAX_DEPTH:
        contents.skipped.append((path + "/", f"folders nested deeper than {_MAX_DEPTH}"))
        return
    try:
        sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
    except OSError as e:
        contents.skipped.append((path + "/", f"not opened as a folder ({e.strerror})"))
        return
    try:
        sst = os.fstat(sub)
        if not stat.S_ISDIR(sst.st_mode) or sst.st_uid != uid:
            contents.skipped.append((path + "/", "not a folder of hers"))
            return
        contents.digest.update(b"D" + path.encode("utf-8", "surrogateescape") + b"\0")
        sub_dest = None
        if dest is not None:
            sub_dest = os.path.join(dest, name)
            os.mkdir(sub_dest, 0o770)
        _read_folder(sub, path + "/", sub_dest, uid, contents, max_file, max_total, max_files, depth + 1)
    finally:
        os.close(sub)


def _kind(mode):
    """What a file that is not a regular file is, in words."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device file"
    return "not a regular file"


def _write_new(path, data):
    """Write ``data`` to ``path``, a file that must not exist yet (and is never a link followed)."""
    out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o660)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(out, view):]
    finally:
        os.close(out)


class Journal:
    """The clerk's record of submissions: one JSON line per submit (entry, user, time, digest)."""

    def __init__(self, path):
        self.path = path

    def append(self, entry, user, when, digest):
        line = json.dumps({"entry": entry, "user": user, "time": when.strftime(_TIME_FORMAT), "sha256": digest})
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o640)
        try:
            os.write(fd, (line + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)

    def records(self):
        """Every record, by entry name: a list of (time, digest)."""
        found = {}
        try:
            with open(self.path, encoding="utf-8") as f:
                for line in f:
                    try:
                        r = json.loads(line)
                        when = datetime.datetime.strptime(r["time"], _TIME_FORMAT)
                    except (ValueError, KeyError, TypeError):
                        continue
                    found.setdefault(r["entry"], []).append((when, r["sha256"]))
        except FileNotFoundError:
            pass
        return found


def _utcnow():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def _quarantined(course_root):
    path = os.path.join(course_root, QUARANTINE_FILE)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return set()
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return set()
        text = f.read(1 << 20).decode("utf-8", "replace")
    return {line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")}


class OwnerCheckedCollect(ExchangeCollect):
    """``nbgrader collect`` for hostile entries: see the module's description.

    Its choice of the submission per student is nbgrader's (the newest, or with
    ``--before-duedate`` the newest on time), made on the recorded times of what was copied.
    """

    max_files = Integer(1000, help="At most this many files are collected from one entry.").tag(config=True)
    records_path = Unicode("", help="The clerk's journal of submissions (empty: no record, every "
                                    "submission is dated by its collection).").tag(config=True)

    def _limits(self):
        return dict(max_file_bytes=1000 * int(self.coursedir.max_file_size),
                    max_total_bytes=1000 * int(self.coursedir.max_dir_size), max_files=int(self.max_files))

    def _problem(self, student, text):
        self.problems.append((student, text))
        self.log.warning("%s: %s", student, text)

    def init_src(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        if not check_mode(self.inbound_path, read=True, execute=True):
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        self.problems, self.refused = [], []
        self.collected_at = _utcnow()
        journal = Journal(self.records_path).records() if self.records_path else {}
        quarantined = _quarantined(self.coursedir.root)
        self.staging = tempfile.mkdtemp(prefix=".collect-", dir=self.coursedir.root)
        os.chmod(self.staging, 0o2770 if self.coursedir.groupshared else 0o700)
        student_id = self.coursedir.student_id if self.coursedir.student_id else "*"
        pattern = os.path.join(self.inbound_path, f"{student_id}+{self.coursedir.assignment_id}+*")
        inbound_fd = os.open(self.inbound_path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        records = []
        try:
            for number, path in enumerate(sorted(glob.glob(pattern))):
                name = os.path.basename(path)
                if name.endswith(".part"):
                    continue
                record = self._path_to_record(path)
                student = record["username"]
                if name in quarantined:
                    self._problem(student, f"entry {name} is quarantined ({QUARANTINE_FILE}): left out")
                    continue
                try:
                    uid = pwd.getpwnam(student).pw_uid
                except KeyError:
                    self._refuse(record, "no such user", f"entry {name} names no user of this machine: left out")
                    continue
                staged = os.path.join(self.staging, str(number))
                try:
                    got = read_entry(inbound_fd, name, uid=uid, dest=staged, **self._limits())
                except EntryRefused as e:
                    self._refuse(record, str(e), f"entry {name} refused: {e}")
                    continue
                for rel, why in got.skipped:
                    self._problem(student, f"{name}: {rel} left out: {why}")
                missing = [n for n in ("timestamp.txt", "submission_secret.txt")
                           if not os.path.isfile(os.path.join(staged, n))]
                if missing:   # not made by nbgrader submit; its feedback could not be released
                    self._refuse(record, "not made by nbgrader submit",
                                 f"entry {name} refused: it has no {' or '.join(missing)} (not made by nbgrader submit)")
                    continue
                matching = sorted(when for when, digest in journal.get(name, []) if digest == got.hexdigest())
                if matching:
                    record["timestamp"] = matching[0]
                else:
                    record["timestamp"] = self.collected_at
                    self._problem(student, f"entry {name} matches no record made at submit (changed since, or not "
                                           "made by nbgrader submit): dated by its collection, "
                                           f"{self.collected_at.strftime(_TIME_FORMAT)}")
                record["staged"] = staged
                records.append(record)
        finally:
            os.close(inbound_fd)
        usergroups = groupby(records, lambda item: item["username"])
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                self.duedate = gb.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                self.duedate = None
        self.src_records = []
        for group in usergroups.values():
            group = self._sort_by_timestamp(group)
            if self.duedate is not None and self.before_duedate:
                on_time = [r for r in group if r["timestamp"] <= self.duedate]
                group = on_time or group
            self.src_records.append(group[0])

    def _refuse(self, record, owner, text):
        self.refused.append({"entry": record["filename"], "claimed": record["username"], "owner": owner})
        self._problem(record["username"], text)

    def copy_files(self):
        try:
            self._put_in_place()
        finally:
            shutil.rmtree(self.staging, ignore_errors=True)
        if self.problems:
            self.log.warning("collect %s: %d problem(s), by student:\n%s", self.coursedir.assignment_id,
                             len(self.problems), "\n".join(f"  {s}: {t}" for s, t in self.problems))

    def _put_in_place(self):
        if not self.src_records:
            self.log.warning("No submissions of '%s' for course '%s' to collect",
                             self.coursedir.assignment_id, self.coursedir.course_id)
            return
        self.log.info("Processing %d submissions of '%s' for course '%s'", len(self.src_records),
                      self.coursedir.assignment_id, self.coursedir.course_id)
        for rec in self.src_records:
            student = rec["username"]
            try:
                self._put_one(rec)
            except Exception as e:  # one student's entry never stops the others
                self._problem(student, f"entry {rec['filename']} not collected: {type(e).__name__}: {e}")

    def _put_one(self, rec):
        student = rec["username"]
        dest = self.coursedir.format_path(self.coursedir.submitted_directory, student, self.coursedir.assignment_id)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if os.path.isdir(dest):
            existing = self.coursedir.get_existing_timestamp(dest)
            newer = existing is None or rec["timestamp"] > existing
            if not ((self.update and newer) or (self.before_duedate and existing != rec["timestamp"])):
                self.log.info("No newer submission to collect: %s %s" if self.update else
                              "Submission already exists, use --update to update: %s %s",
                              student, self.coursedir.assignment_id)
                return
            self.log.info("Updating submission: %s %s", student, self.coursedir.assignment_id)
        else:
            self.log.info("Collecting submission: %s %s", student, self.coursedir.assignment_id)
        staged = rec["staged"]
        stamp = os.path.join(staged, "timestamp.txt")
        os.remove(stamp)
        with open(stamp, "w") as f:
            f.write(rec["timestamp"].strftime(_TIME_FORMAT))
        if self.coursedir.groupshared:
            for folder, _dirs, files in os.walk(staged):
                os.chmod(folder, 0o2770)
                for n in files:
                    os.chmod(os.path.join(folder, n), 0o660)
        old = None
        if os.path.lexists(dest):   # the previous copy goes only once the new one is complete
            old = tempfile.mkdtemp(prefix=".replaced-", dir=self.staging)
            os.rename(dest, os.path.join(old, "copy"))
        os.rename(staged, dest)
        if old:
            shutil.rmtree(old, ignore_errors=True)


class _RootOwnedExchange:
    """nbgrader insists that the exchange's root be writable by everyone (``1777``), so that any
    user may create any course's folder in it; here only root may write it (``0755``) and
    ``setup.sh`` creates the course's folder, so a student can squat no course's name."""

    def ensure_root(self):
        if not os.path.isdir(self.root):
            self.fail(f"The exchange {self.root} does not exist: ask the course's administrator to run deploy/setup.sh")


class CourseFetchAssignment(_RootOwnedExchange, ExchangeFetchAssignment):
    """``nbgrader fetch_assignment`` from the root-owned exchange."""


class CourseFetchFeedback(_RootOwnedExchange, ExchangeFetchFeedback):
    """``nbgrader fetch_feedback`` from the root-owned exchange."""


class CourseList(_RootOwnedExchange, ExchangeList):
    """``nbgrader list`` (the Assignments tab) of the root-owned exchange."""


def record_submission(socket_path, entry, timeout=60):
    """Ask the clerk at ``socket_path`` to record ``entry``; its answer (a dict), or an OSError/ValueError."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(socket_path)
        s.sendall(json.dumps({"entry": entry}).encode() + b"\n")
        answer = b""
        while not answer.endswith(b"\n"):
            chunk = s.recv(4096)
            if not chunk:
                break
            answer += chunk
    reply = json.loads(answer or b"{}")
    if not reply.get("ok"):
        raise ValueError(reply.get("error", "no answer"))
    return reply


class CourseSubmit(_RootOwnedExchange, ExchangeSubmit):
    """``nbgrader submit`` whose entry only its student and the graders' group can read, recorded by the clerk.

    nbgrader makes the entry ``0777`` (its name being the only secret); here it is ``0750``
    with files ``0640``, in the graders' group. A student cannot give a file that group
    herself (she is not in it); a file gets it by being created in a folder that inherits it
    from the set-group-ID inbound folder. nbgrader's copy ends by copying her folder's mode
    onto the entry, which drops that inheritance before it writes ``timestamp.txt``, so the
    entry is rebuilt here in a fresh folder, given its modes, renamed into place and recorded.
    """

    clerk_socket = Unicode("", help="The clerk's socket (empty: the submission is not recorded).").tag(config=True)

    def copy_files(self):
        super().copy_files()
        entry = os.path.join(self.inbound_path, self.assignment_filename)
        fresh = entry + ".part"
        os.mkdir(fresh)                          # inherits the inbound folder's group
        for folder, dirs, files in os.walk(entry):
            target = os.path.join(fresh, os.path.relpath(folder, entry))
            for name in dirs:
                os.mkdir(os.path.join(target, name))
            for name in files:
                path = os.path.join(folder, name)
                if os.path.islink(path):
                    os.symlink(os.readlink(path), os.path.join(target, name))
                else:
                    shutil.copyfile(path, os.path.join(target, name))
        shutil.rmtree(entry)
        for folder, dirs, files in os.walk(fresh):
            for name in files:
                if not os.path.islink(os.path.join(folder, name)):
                    os.chmod(os.path.join(folder, name), 0o640)
            for name in dirs:
                os.chmod(os.path.join(folder, name), 0o750)
        os.chmod(fresh, 0o750)
        os.rename(fresh, entry)
        if self.clerk_socket:
            try:
                reply = record_submission(self.clerk_socket, self.assignment_filename)
            except (OSError, ValueError) as e:
                shutil.rmtree(entry, ignore_errors=True)
                self.fail(f"Your submission could not be recorded by the course's exchange ({e}), so it was not "
                          "handed in: please submit again in a minute, and tell your instructor if this persists.")
            self.log.info("Recorded by the exchange at %s", reply["time"])


# -- the clerk: records each submission at submit, sweeps leftovers ---------------------------

class _Clerk(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def serve_clerk(deploy_json):  # noqa: C901 - one server: its sweep and request handler are closures over one configuration and lock
    """Run the exchange's clerk of the deployment described by ``deploy_json`` (never returns).

    Listens on ``clerk_socket``; each request names one inbound entry, and the peer's user id
    (from the kernel) must own it and be the student the entry names. The entry is read as
    collect reads it (:func:`read_entry`) and its digest recorded with the time. Every minute,
    and at each request, half-made entries (``*.part``, and entries with neither record nor
    ``submission_secret.txt``) older than ten minutes are removed, and quarantined entries are
    renamed ``.quarantined+<name>`` (collect never sees them).
    """
    with open(deploy_json) as f:
        cfg = json.load(f)
    inbound = os.path.join(cfg["exchange"], cfg["course_id"], "inbound")
    journal = Journal(cfg["submission_records"])
    students = cfg["student_group"]
    limits = dict(max_file_bytes=100_000_000, max_total_bytes=100_000_000, max_files=1000)
    lock = threading.Lock()
    log = lambda *a: print(time.strftime("%F %T"), "clerk:", *a, file=sys.stderr, flush=True)  # noqa: E731

    def sweep():
        with lock:
            recorded = journal.records()
            quarantined = _quarantined(cfg["course_dir"])
            now = time.time()
            try:
                names = os.listdir(inbound)
            except OSError:
                return
            for name in names:
                path = os.path.join(inbound, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                if name in quarantined:
                    os.rename(path, os.path.join(inbound, ".quarantined+" + name))
                    log("quarantined", name)
                    continue
                half_made = name.endswith(".part") or (
                    name not in recorded and not name.startswith(".")
                    and not os.path.lexists(os.path.join(path, "submission_secret.txt")))
                if half_made and now - st.st_mtime > 600:
                    if stat.S_ISDIR(st.st_mode):
                        shutil.rmtree(path, ignore_errors=True)
                    else:
                        os.remove(path)
                    log("removed a half-made entry", name)

    class Handler(socketserver.StreamRequestHandler):
        timeout = 30

        def handle(self):
            creds = self.request.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            _, uid, _ = struct.unpack("3i", creds)
            try:
                reply = self.record(uid)
            except Exception as e:  # the student's submit is told, the clerk goes on
                reply = {"ok": False, "error": str(e)}
            self.wfile.write(json.dumps(reply).encode() + b"\n")

        def record(self, uid):
            sweep()
            user = _user_name(uid)
            try:
                members = set(grp.getgrnam(students).gr_mem)
            except KeyError:
                members = set()
            if user not in members:
                return {"ok": False, "error": f"{user} is not a student of the course"}
            request = json.loads(self.rfile.readline(4096) or b"{}")
            entry = str(request.get("entry", ""))
            if not entry.startswith(user + "+") or "/" in entry or entry.endswith(".part"):
                return {"ok": False, "error": f"{entry!r} is not an entry of {user}"}
            fd = os.open(inbound, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                got = read_entry(fd, entry, uid=uid, **limits)
            except EntryRefused as e:
                return {"ok": False, "error": f"{entry}: {e}"}
            finally:
                os.close(fd)
            when = _utcnow()
            with lock:
                journal.append(entry, user, when, got.hexdigest())
            log("recorded", entry, when.strftime(_TIME_FORMAT), got.hexdigest()[:12])
            return {"ok": True, "time": when.strftime(_TIME_FORMAT)}

    path = cfg["clerk_socket"]
    if os.path.lexists(path):
        os.remove(path)
    old = os.umask(0o111)          # any local user may connect; the kernel says who did
    server = _Clerk(path, Handler)
    os.umask(old)
    log("listening on", path)

    def sweeper():
        while True:
            try:
                sweep()
            except Exception as e:
                log("sweep failed:", e)
            time.sleep(60)

    threading.Thread(target=sweeper, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "clerk":
        sys.exit("usage: python -m course_exchange clerk PREFIX/etc/deploy.json")
    serve_clerk(sys.argv[2])
