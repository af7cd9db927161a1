"""nbgrader's file-system exchange, with the owner check of ``nbgrader collect`` enforced.

Students submit by creating ``inbound/<student>+<assignment>+<timestamp>+<random>`` in
the course's exchange, a folder every user may write to. nbgrader's collector compares
the claimed ``<student>`` with the Linux user that owns the entry, but only warns when
they differ and then collects the entry anyway: a student could hand in a notebook under
a classmate's name (with a later timestamp, it would replace the classmate's own).

:class:`OwnerCheckedCollect` refuses such entries: each one is logged as a warning and
left out before the newest submission of each student is chosen. The deployment
installs this module next to nbgrader and selects it for the instructor with
``c.ExchangeFactory.collect = "course_exchange.OwnerCheckedCollect"``.

It also never follows a symbolic link: the collector copies with the instructor's rights,
so a student's entry holding ``notebook.ipynb -> ~instructor/course/source/...`` would
otherwise be collected as a copy of the reference solution. Links are collected as links
(the course's autograde then refuses a linked notebook), and an entry that is itself a
link is refused.

The time of a submission is the server's: the newest change time (``st_ctime``, which no
user can set) of the entry and of what it holds, not the timestamp in the entry's name or
in its ``timestamp.txt``, which the student writes. The collected copy's ``timestamp.txt``
is rewritten with it, so a forged date can neither hide a resubmission nor make a late
one look on time. An entry the instructor cannot read is refused (one student's modes
never stop the class's collection), and so is one that nbgrader's submit did not make (no
``timestamp.txt`` or ``submission_secret.txt``: its feedback could not be released).

:class:`CourseSubmit` (the students' ``nbgrader submit``) leaves each entry readable by
its student and the graders' group only (the inbound folder is set-group-ID to that group), where nbgrader
would make it ``0777``. The students' commands accept an exchange root that only root may
write to (nbgrader's own refuse to work unless everyone may create folders in it).
"""
import datetime
import glob
import os
import pwd
import shutil

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect, groupby
from nbgrader.exchange.default.fetch_assignment import ExchangeFetchAssignment
from nbgrader.exchange.default.fetch_feedback import ExchangeFetchFeedback
from nbgrader.exchange.default.list import ExchangeList
from nbgrader.exchange.default.submit import ExchangeSubmit
from nbgrader.utils import check_mode

__all__ = ["OwnerCheckedCollect", "CourseSubmit", "CourseFetchAssignment", "CourseFetchFeedback", "CourseList",
           "owner_of", "server_time"]


def server_time(path):
    """The newest change time of ``path`` and everything under it (links not followed), as UTC."""
    newest = os.lstat(path).st_ctime
    if not os.path.islink(path):
        for folder, dirs, files in os.walk(path):
            for name in dirs + files:
                newest = max(newest, os.lstat(os.path.join(folder, name)).st_ctime)
    return datetime.datetime.fromtimestamp(newest, datetime.timezone.utc).replace(tzinfo=None)


def owner_of(path):
    """The name of the Linux user that owns ``path`` (``uid <n>`` when it has no name)."""
    uid = os.lstat(path).st_uid
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


class OwnerCheckedCollect(ExchangeCollect):
    """``nbgrader collect`` that takes an inbound entry only from the student it names.

    Its ``init_src`` is nbgrader's (same records, same due-date rule), with the entries
    whose owner is not the student they name left out and listed in ``refused``.
    """

    def init_src(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        if not check_mode(self.inbound_path, read=True, execute=True):
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        student_id = self.coursedir.student_id if self.coursedir.student_id else "*"
        pattern = os.path.join(self.inbound_path, f"{student_id}+{self.coursedir.assignment_id}+*")
        records, self.refused = [], []
        for path in sorted(glob.glob(pattern)):
            record = self._path_to_record(path)
            if os.path.islink(path):
                self.refused.append({"entry": record["filename"], "claimed": record["username"], "owner": "a link"})
                self.log.warning("refused %s: it is a symbolic link", record["filename"])
                continue
            owner = owner_of(path)
            if owner != record["username"]:
                self.refused.append({"entry": record["filename"], "claimed": record["username"], "owner": owner})
                self.log.warning("refused %s: it claims to be from %s but belongs to %s",
                                 record["filename"], record["username"], owner)
                continue
            unreadable = [p for p in [path] + [os.path.join(d, n) for d, ds, fs in os.walk(path) for n in ds + fs]
                          if not os.access(p, os.R_OK) and not os.path.islink(p)]
            if unreadable:
                self.refused.append({"entry": record["filename"], "claimed": record["username"], "owner": owner})
                self.log.warning("refused %s: the grader cannot read %s", record["filename"], unreadable[0])
                continue
            missing = [n for n in ("timestamp.txt", "submission_secret.txt")
                       if not os.path.isfile(os.path.join(path, n)) or os.path.islink(os.path.join(path, n))]
            if missing:   # not made by nbgrader submit; its feedback could not be released
                self.refused.append({"entry": record["filename"], "claimed": record["username"], "owner": owner})
                self.log.warning("refused %s: it has no %s (not made by nbgrader submit)",
                                 record["filename"], " or ".join(missing))
                continue
            record["claimed_timestamp"] = record["timestamp"]
            record["timestamp"] = server_time(path)
            records.append(record)
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

    def do_copy(self, src, dest, log=None):
        """nbgrader's copy, after which every link of ``src`` is a link again in ``dest`` (never its target)."""
        super().do_copy(src, dest, log)
        for folder, dirs, files in os.walk(src):
            for name in dirs + files:
                path = os.path.join(folder, name)
                if not os.path.islink(path):
                    continue
                copied = os.path.join(dest, os.path.relpath(path, src))
                if os.path.isdir(copied) and not os.path.islink(copied):
                    shutil.rmtree(copied)
                elif os.path.lexists(copied):
                    os.remove(copied)
                os.symlink(os.readlink(path), copied)
                self.log.warning("collected %s as a link, not the file it points to", path)
        stamp = os.path.join(dest, "timestamp.txt")
        if os.path.lexists(stamp):
            os.remove(stamp)
        with open(stamp, "w") as f:
            f.write(server_time(src).strftime("%Y-%m-%d %H:%M:%S.%f UTC"))


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


class CourseSubmit(_RootOwnedExchange, ExchangeSubmit):
    """``nbgrader submit`` whose entry only its student and the graders' group can read.

    nbgrader makes the entry ``0777`` (its name being the only secret); here it is ``0750``
    with files ``0640``, in the graders' group. A student cannot give a file that group
    herself (she is not in it); a file gets it by being created in a folder that inherits it
    from the set-group-ID inbound folder. nbgrader's copy ends by copying her folder's mode
    onto the entry, which drops that inheritance before it writes ``timestamp.txt``, so the
    entry is rebuilt here in a fresh folder and then given its modes.
    """

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
