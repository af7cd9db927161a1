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
"""
import glob
import os
import pwd
import shutil

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect, groupby
from nbgrader.utils import check_mode

__all__ = ["OwnerCheckedCollect", "owner_of"]


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
            self.fail("Course not found: {}".format(self.inbound_path))
        if not check_mode(self.inbound_path, read=True, execute=True):
            self.fail("You don't have read permissions for the directory: {}".format(self.inbound_path))
        student_id = self.coursedir.student_id if self.coursedir.student_id else "*"
        pattern = os.path.join(self.inbound_path, "{}+{}+*".format(student_id, self.coursedir.assignment_id))
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
