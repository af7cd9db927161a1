"""Submissions in from an LMS download, and who is who there: the roster.

``make collect-lms FROM=<download> ASSIGNMENT=...`` (:func:`collect_lms`) puts the
submissions of a Canvas or Moodle download into ``submitted/<student_id>/<assignment>/``,
where ``make autograde`` (and nbgrader) grade them:

* **Canvas** — the ``submissions.zip`` of an assignment's *Download Submissions*: one file per
  attachment, named ``<name>[_LATE]_<user id>_<attachment id>_<file name>`` (Canvas adds
  ``-1``, ``-2`` ... to a file name the student had uploaded before). The user id is matched
  to the roster's ``lms_id``.
* **Moodle** — the assignment's *Download all submissions* with "Download submissions in
  folders": one folder per student, ``<Full Name>_<participant number>_assignsubmission_file_``.
  A student is matched through Moodle's grading worksheet (``TIMES=``, *Download grading
  worksheet*: its "Identifier" is ``Participant <number>``, matched by e-mail address), or
  else by full name (when exactly one roster entry has it).

The notebook is named as the assignment's (``ps1_perceptron-1.ipynb`` becomes
``ps1_perceptron.ipynb``), helper files are kept (a ``.py`` file renamed ``-1`` by the LMS
gets its name back: Python could not import it otherwise), a zip the student uploaded is
unpacked (within limits). The submission time becomes ``timestamp.txt`` (nbgrader's late
penalty reads it): from ``TIMES=`` — a CSV with the student (``student_id``, ``ID``/``lms_id``,
``login`` or ``email``) and ``submitted_at``, Canvas's submissions API (JSON), or Moodle's
worksheet. A submission the LMS marked late whose time is not known is recorded as such: its
total stays provisional (never exported as final) until its time is given. A student the
roster does not know is reported and not imported.

The **roster** (``roster.csv`` in the course folder, or ``ROSTER=``; never committed) maps
nbgrader ids to the LMS: columns ``student_id`` (required), ``lms_id`` (Canvas user ID,
Moodle user id), ``login`` (Canvas SIS Login ID, Moodle username), ``sis_id`` (Canvas SIS
User ID, Moodle ID number), ``email``, ``first_name``, ``last_name`` (or ``name``),
``section``. Canvas's own gradebook export (*Export*) is read as a roster too, the SIS
Login ID being the nbgrader id. The grade files for the LMS take their identity columns
from it (:func:`grading.exporters.lms_export`).
"""
import csv
import datetime as dt
import io
import json
import os
import re
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .course import Course, CourseError
from .csvfiles import plain, safe

__all__ = ["ROSTER_FILE", "Roster", "RosterEntry", "collect_lms", "import_record", "read_roster", "valid_student_id"]

ROSTER_FILE = "roster.csv"
MAX_FILE = 64 * 1024**2          # one file of a submission
MAX_SUBMISSION = 256 * 1024**2   # all of one student's files, unpacked
MAX_FILES = 500                  # files of one student's submission
_PATTERN = set("*?[]")
CANVAS_NAME = re.compile(r"^(?P<name>.*?)(?P<late>_LATE|_late)?_(?P<user>\d+|anon_[A-Za-z0-9]+)_(?P<attachment>\d+)_"
                         r"(?P<file>.+)$")
MOODLE_FOLDER = re.compile(r"^(?P<name>.+)_(?P<participant>\d+)_assign(?:submission|feedback)_[a-z]+_?$")
MOODLE_FILE = re.compile(r"^(?P<name>.+)_(?P<participant>\d+)_assignsubmission_[a-z]+_(?P<file>.+)$")
SUFFIX = re.compile(r"^(?P<base>.+?)-(?P<n>\d+)(?P<ext>\.[^.]+)$")


def valid_student_id(student):
    """Why ``student`` cannot be an nbgrader student id (a folder name under ``submitted/``), or None.

    Examples
    --------
    >>> valid_student_id("b07902001") is None, valid_student_id("../x"), valid_student_id("r*")
    (True, "it holds '/'", "it holds '*' (nbgrader reads it as a file pattern)")
    """
    if not student or not student.strip():
        return "it is empty"
    if "/" in student or "\\" in student:
        return f"it holds {'/' if '/' in student else chr(92)!r}"
    if student in (".", "..") or student.startswith("."):
        return "it starts with '.'"
    bad = sorted(_PATTERN & set(student))
    if bad:
        return f"it holds {bad[0]!r} (nbgrader reads it as a file pattern)"
    if any(ord(c) < 32 for c in student):
        return "it holds a control character"
    return None


@dataclass(frozen=True)
class RosterEntry:
    """One student as nbgrader and the LMS know them."""

    student_id: str
    lms_id: str = ""
    login: str = ""
    sis_id: str = ""
    email: str = ""
    first_name: str = ""
    last_name: str = ""
    section: str = ""
    name: str = ""

    @property
    def sortable_name(self):
        """``Last, First`` (Canvas's *Student* column)."""
        if self.last_name and self.first_name:
            return f"{self.last_name}, {self.first_name}"
        return self.name or self.last_name or self.first_name or self.student_id

    @property
    def full_name(self):
        """``First Last`` (how Moodle names a download's folder)."""
        if self.first_name or self.last_name:
            return " ".join(p for p in (self.first_name, self.last_name) if p)
        if "," in self.name:
            last, first = (p.strip() for p in self.name.split(",", 1))
            return f"{first} {last}".strip()
        return self.name

    def can_identify(self, form):
        """Whether the LMS ``form`` finds this student from the identity columns written for it.

        A value that begins like a formula is written quoted (:mod:`grading.csvfiles`), and the
        LMS would then not recognise it: Canvas finds a student by the numeric ``ID`` first, so
        only that must be plain there; Moodle maps whichever column the TA chooses, so every
        identity value must be plain (one user it does not recognise stops Moodle's import).
        """
        def plain_value(v):
            return safe(v) == v

        if form == "canvas":
            if self.lms_id and plain_value(self.lms_id):
                return True
            return any(v and plain_value(v) for v in (self.sis_id, self.login))
        values = [v for v in (self.login, self.email, self.sis_id) if v]
        return bool(values) and all(plain_value(v) for v in values)


_ALIASES = {"student_id": ("student_id", "nbgrader_id", "student"), "lms_id": ("lms_id", "id", "user_id"),
            "login": ("login", "sis_login_id", "username", "login_id"), "sis_id": ("sis_id", "sis_user_id", "id_number"),
            "email": ("email", "email_address", "e-mail"), "first_name": ("first_name", "firstname", "given_name"),
            "last_name": ("last_name", "lastname", "surname", "family_name"), "section": ("section",),
            "name": ("name", "full_name")}


def _key(header):
    return re.sub(r"[^a-z0-9]+", "_", header.strip().lower()).strip("_")


class Roster:
    """The students of the course as the LMS knows them (see the module)."""

    def __init__(self, entries, *, path=None):
        self.path = path
        self.entries = list(entries)
        self._by = {k: {} for k in ("student_id", "lms_id", "email", "login")}
        for e in self.entries:
            for k, index in self._by.items():
                value = getattr(e, k).strip().lower() if k == "email" else getattr(e, k).strip()
                if value:
                    index.setdefault(value, e)

    def find(self, student_id):
        """The entry of nbgrader id ``student_id`` (None when the roster does not know it)."""
        return self._by["student_id"].get(student_id)

    def by_lms_id(self, lms_id):
        return self._by["lms_id"].get(str(lms_id))

    def by_email(self, email):
        return self._by["email"].get(str(email).strip().lower())

    def by_login(self, login):
        return self._by["login"].get(str(login))

    def by_name(self, name):
        """The one entry whose full or sortable name is ``name`` (case and spacing ignored), else None."""
        want = " ".join(str(name).lower().split())
        found = [e for e in self.entries
                 if want in {" ".join(e.full_name.lower().split()), " ".join(e.sortable_name.lower().split())}]
        return found[0] if len(found) == 1 else None


def _canvas_columns(keys):
    """Where each field is in Canvas's gradebook export: the SIS Login ID is the nbgrader id."""
    column = {"name": keys.index("student"), "lms_id": keys.index("id"), "login": keys.index("sis_login_id"),
              "student_id": keys.index("sis_login_id")}
    if "sis_user_id" in keys:
        column["sis_id"] = keys.index("sis_user_id")
    if "section" in keys:
        column["section"] = keys.index("section")
    return column


def _roster_columns(keys):
    """Where each field is in a roster of the course's own form (each field under any of its names)."""
    column = {}
    for name, aliases in _ALIASES.items():
        for a in aliases:
            if a in keys and not (name == "lms_id" and a == "id" and "lms_id" in keys):
                column.setdefault(name, keys.index(a))
    return column


def read_roster(path):
    """Read a roster file (see the module); a problem raises :class:`CourseError` naming the line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CourseError(f"no roster at {path}: expected a CSV file with a student_id column and the LMS's "
                          "identities (lms_id, login, sis_id, email, first_name, last_name, section); "
                          "give another with ROSTER=path") from None
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None:
        raise CourseError(f"the roster {path} is empty: expected a header row with student_id")
    canvas, column = _columns_of(path, header)
    entries, seen, lms_seen = [], {}, {}
    for n, values in _roster_rows(reader, column, canvas=canvas):
        _check_identities(path, n, values, seen, lms_seen)
        entries.append(RosterEntry(**{k: v for k, v in values.items() if k in RosterEntry.__dataclass_fields__}))
    return Roster(entries, path=path)


def _columns_of(path, header):
    """``(canvas, {field: column index})``: whether the roster is Canvas's gradebook export, and where each field is."""
    keys = [_key(h) for h in header]
    canvas = keys[:2] == ["student", "id"] and "sis_login_id" in keys
    column = _canvas_columns(keys) if canvas else _roster_columns(keys)
    if "student_id" not in column:
        raise CourseError(f"the roster {path} has no student_id column (the nbgrader id); its columns are: "
                          f"{', '.join(header)}")
    return canvas, column


def _roster_rows(reader, column, *, canvas):
    """``(line, {field: value})`` of each student's row (blank lines and Canvas's "Points Possible" left out)."""
    for n, row in enumerate(reader, start=2):
        if not any(c.strip() for c in row):
            continue
        values = {k: plain(row[i]).strip() if i < len(row) else "" for k, i in column.items()}
        if canvas and values.get("name", "").strip().lower().startswith("points possible"):
            continue
        yield n, values


def _check_identities(path, n, values, seen, lms_seen):
    """Refuse a row whose student id cannot be one, or whose student id or LMS id an earlier line has (noted here)."""
    sid = values.get("student_id", "")
    why = valid_student_id(sid)
    if why:
        raise CourseError(f"the roster {path}, line {n}: student_id {sid!r} cannot be a student id: {why}")
    if sid in seen:
        raise CourseError(f"the roster {path}, line {n}: student_id {sid!r} is also on line {seen[sid]}")
    seen[sid] = n
    lms = values.get("lms_id", "")
    if lms and lms in lms_seen:
        raise CourseError(f"the roster {path}, line {n}: lms_id {lms!r} is also on line {lms_seen[lms]}")
    lms_seen[lms] = n


def roster_path(course, roster=None):
    return Path(roster) if roster else course.root / ROSTER_FILE


# -- the record of what an LMS download said --------------------------------------------------
def _record_path(course, assignment):
    return course.submitted_dir / ".lms" / f"{assignment}.json"


def import_record(course, assignment):
    """``{student: {"lms", "late", "submitted_at", "files", "from"}}`` of the last LMS imports of ``assignment``."""
    try:
        data = json.loads(_record_path(course, assignment).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_record(course, assignment, data):
    path = _record_path(course, assignment)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(tmp, path)


# -- reading a download ---------------------------------------------------------------------------
@dataclass
class _File:
    path: str             # within the student's submission
    read: object          # () -> bytes
    size: int


@dataclass
class _Submission:
    key: str                      # the LMS's id of the student (Canvas user id, Moodle participant number)
    name: str                     # the LMS's name of the student, as in the file names
    lms: str
    late: bool = False
    files: list = field(default_factory=list)
    problems: list = field(default_factory=list)


def _entries(source):
    """``[(path, read, size)]`` of the regular files of a zip or a folder (links and odd entries skipped)."""
    source = Path(source)
    if source.is_file():
        try:
            archive = zipfile.ZipFile(source)
        except zipfile.BadZipFile as exc:
            raise CourseError(f"FROM={source} is not a zip file ({exc}): expected Canvas's submissions.zip, "
                              "Moodle's download, or the folder it unpacks to") from None
        out = []
        for info in archive.infolist():
            mode = (info.external_attr >> 16) & 0o170000
            if info.is_dir() or mode == 0o120000:          # folders, and links a zip can hold
                continue
            out.append((info.filename, (lambda i=info: archive.read(i)), info.file_size))
        return out
    if source.is_dir():
        out = []
        for here, dirs, files in os.walk(source):
            dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(here, d))]
            for name in files:
                path = os.path.join(here, name)
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                rel = os.path.relpath(path, source).replace(os.sep, "/")
                out.append((rel, (lambda p=path: Path(p).read_bytes()), os.path.getsize(path)))
        return out
    raise CourseError(f"FROM={source} does not exist: expected Canvas's submissions.zip or Moodle's download "
                      "(a zip file or the folder it unpacks to)")


def _clean(parts):
    """A path inside a submission from its parts, or None when it would leave it."""
    out = []
    for p in parts:
        if p in ("", "."):
            continue
        if p == ".." or "\\" in p or p.startswith("/") or any(ord(c) < 32 for c in p):
            return None
        out.append(p)
    return "/".join(out) if out else None


def _parse(entries):
    """The submissions of a download, by the LMS's id of each student."""
    subs, skipped = {}, []
    for name, read, size in sorted(entries, key=lambda e: e[0]):
        parts = PurePosixPath(name).parts
        if not parts or parts[-1].startswith(".") or "__MACOSX" in parts:
            continue
        m = MOODLE_FOLDER.match(parts[0]) if len(parts) > 1 else None
        if m:
            sub = subs.setdefault(("moodle", m["participant"]), _Submission(m["participant"], m["name"], "moodle"))
            rel = _clean(parts[1:])
        elif (m := MOODLE_FILE.match(parts[-1])) and len(parts) == 1:
            sub = subs.setdefault(("moodle", m["participant"]), _Submission(m["participant"], m["name"], "moodle"))
            rel = _clean([m["file"]])
        elif (m := CANVAS_NAME.match(parts[-1])) and len(parts) == 1:
            sub = subs.setdefault(("canvas", m["user"]), _Submission(m["user"], m["name"], "canvas"))
            sub.late = sub.late or bool(m["late"])
            rel = _clean([m["file"]])
        else:
            skipped.append(name)
            continue
        if rel is None:
            sub.problems.append(f"left out {name!r}: its path leaves the submission's folder")
            continue
        sub.files.append(_File(rel, read, size))
    return subs, skipped


def _unzip_uploads(sub):
    """A zip the student uploaded is unpacked in place of itself (bounded: files, bytes, paths)."""
    out = []
    for f in sub.files:
        if not f.path.lower().endswith(".zip"):
            out.append(f)
            continue
        try:
            inner = zipfile.ZipFile(io.BytesIO(f.read()))
        except zipfile.BadZipFile:
            out.append(f)
            continue
        base = PurePosixPath(f.path).parent
        for info in inner.infolist():
            mode = (info.external_attr >> 16) & 0o170000
            parts = PurePosixPath(info.filename).parts
            if info.is_dir() or mode == 0o120000 or "__MACOSX" in parts or (parts and parts[-1].startswith(".")):
                continue
            rel = _clean(list(base.parts) + list(parts))
            if rel is None:
                sub.problems.append(f"left out {info.filename!r} of {f.path}: its path leaves the submission's folder")
                continue
            out.append(_File(rel, (lambda i=info, z=inner: z.read(i)), info.file_size))
    sub.files = out


def _strip_single_folder(sub):
    """Files of an uploaded zip that sit in one folder (``ps1/ps1_perceptron.ipynb``) come up to the top."""
    top = {PurePosixPath(f.path).parts[0] for f in sub.files}
    if len(top) == 1 and all(len(PurePosixPath(f.path).parts) > 1 for f in sub.files):
        sub.files = [_File("/".join(PurePosixPath(f.path).parts[1:]), f.read, f.size) for f in sub.files]


def _renames(sub, notebooks, released):
    """Give back the names the LMS suffixed with ``-1``, ``-2``: the assignment's notebooks, released files, .py files."""
    names = {f.path for f in sub.files}
    wanted = {f"{n}.ipynb" for n in notebooks} | set(released)
    best = {}
    for f in sub.files:
        m = SUFFIX.match(f.path)
        if not m:
            continue
        target = m["base"] + m["ext"]
        if target in names:
            continue
        if target in wanted or m["ext"] == ".py":
            if target not in best or int(m["n"]) > int(SUFFIX.match(best[target].path)["n"]):
                best[target] = f
    for target, f in best.items():
        others = [g.path for g in sub.files if g is not f and (m := SUFFIX.match(g.path)) and m["base"] + m["ext"] == target]
        if others:
            sub.problems.append(f"kept {f.path} as {target} (the latest) and left out {', '.join(others)}")
            sub.files = [g for g in sub.files if g.path not in others]
        f.path = target


# -- submission times ---------------------------------------------------------------------------
def _parse_time(text, timezone):
    from dateutil import parser, tz

    text = str(text or "").strip()
    if not text or text == "-":
        return None
    try:
        when = parser.parse(text, fuzzy=True)
    except (ValueError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=tz.gettz(timezone) or dt.timezone.utc)
    return when.astimezone(dt.timezone.utc).replace(tzinfo=None)


def read_times(path, roster, *, timezone="UTC"):
    """``({student_id: naive UTC time or None}, {moodle participant: student_id}, problems)`` from ``TIMES=``.

    Reads a CSV with a student column (``student_id``, ``ID``/``lms_id``/``user_id``,
    ``login``, ``email``) and ``submitted_at``; Canvas's submissions API as JSON (a list of
    objects with ``user_id`` and ``submitted_at``); or Moodle's grading worksheet
    (``Identifier``, ``Email address``, ``Last modified (submission)``).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise CourseError(f"TIMES={path} cannot be read: {exc}") from None
    if path.suffix.lower() == ".json":
        times, problems = _canvas_times(path, text, roster, timezone)
        return times, {}, problems
    return _csv_times(text, roster, timezone)


def _canvas_times(path, text, roster, timezone):
    """``({student_id: time}, problems)`` from Canvas's submissions API (JSON: ``user_id``, ``submitted_at``)."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CourseError(f"TIMES={path} is not JSON ({exc}): expected Canvas's submissions list") from None
    times, problems = {}, []
    for item in data if isinstance(data, list) else []:
        if not isinstance(item, dict):
            continue
        entry = roster.by_lms_id(item.get("user_id"))
        if entry is None:
            problems.append(f"TIMES: Canvas user {item.get('user_id')!r} is not in the roster")
            continue
        times[entry.student_id] = _parse_time(item.get("submitted_at"), timezone)
    return times, problems


def _csv_times(text, roster, timezone):
    """:func:`read_times` of a CSV: Moodle's grading worksheet, or a student column and ``submitted_at``."""
    rows = list(csv.DictReader(io.StringIO(text)))
    keys = {_key(k): k for k in (rows[0].keys() if rows else [])}
    moodle = "identifier" in keys and "last_modified_submission" in keys
    times, participants, problems = {}, {}, []
    for n, row in enumerate(rows, start=2):
        def get(k, row=row):
            return (plain(row.get(keys.get(k, ""), "") or "").strip())
        if moodle:
            entry, when = _worksheet_entry(get, roster, participants), get("last_modified_submission")
        else:
            entry, when = _time_entry(get, roster), get("submitted_at")
        if entry is None:
            problems.append(f"TIMES, line {n}: no roster entry for {dict((k, v) for k, v in row.items() if v)!r}")
            continue
        times[entry.student_id] = _parse_time(when, timezone)
    return times, participants, problems


def _worksheet_entry(get, roster, participants):
    """The roster entry of a row of Moodle's worksheet (by email, else name); its participant number noted."""
    entry = roster.by_email(get("email_address")) or roster.by_name(get("full_name"))
    m = re.search(r"(\d+)", get("identifier"))
    if entry is not None and m:
        participants[m.group(1)] = entry.student_id
    return entry


_TIME_COLUMNS = (("student_id", "find"), ("lms_id", "by_lms_id"), ("id", "by_lms_id"), ("user_id", "by_lms_id"),
                 ("login", "by_login"), ("email", "by_email"))
"""The columns that name a student in a CSV of times, in the order they are tried, and the roster's look-up of each."""


def _time_entry(get, roster):
    """The roster entry of a row of a CSV of times: found by the first column of :data:`_TIME_COLUMNS` that finds one."""
    for column, find in _TIME_COLUMNS:
        value = get(column)
        if value:
            entry = getattr(roster, find)(value)
            if entry is not None:
                return entry
    return None


# -- putting them in place --------------------------------------------------------------------------
def _digest_files(files):
    import hashlib
    h = hashlib.sha256()
    for path, data in sorted(files.items()):
        h.update(path.encode("utf-8", "surrogateescape") + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()


def _folder_files(folder):
    out = {}
    for here, _, files in os.walk(folder):
        for name in files:
            p = os.path.join(here, name)
            rel = os.path.relpath(p, folder).replace(os.sep, "/")
            if rel != "timestamp.txt" and not os.path.islink(p):
                out[rel] = Path(p).read_bytes()
    return out


def _roster_entry(roster, participants, lms, key, sub):
    """The roster's entry for the submission ``sub`` of the LMS's user ``key``, or None."""
    if lms == "canvas":
        return roster.by_lms_id(key)
    sid = participants.get(key)                        # Moodle: its participant number, else the name
    return roster.find(sid) if sid else roster.by_name(sub.name)


def _read_files(sub):
    """The files of the submission ``sub`` ({path: bytes}), each file over the limit left out and said so."""
    files = {}
    for f in sub.files:
        if f.size > MAX_FILE:
            sub.problems.append(f"left out {f.path}: larger than {MAX_FILE // 1024**2} MiB")
            continue
        files[f.path] = f.read()
    return files


def _write_submission(folder, files, stamp_text):
    """Replace ``folder`` by the submission ``files`` ({path: bytes}) and its ``timestamp.txt`` (when known)."""
    if folder.exists():
        shutil.rmtree(folder)
    for rel, data in files.items():
        dest = folder / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    folder.mkdir(parents=True, exist_ok=True)
    if stamp_text:
        (folder / "timestamp.txt").write_text(stamp_text + "\n")


def collect_lms(root, assignment, source, *, roster=None, times=None, echo=print):
    """Import an LMS download of ``assignment`` into ``submitted/`` (see the module).

    Parameters
    ----------
    root : str or Path
        The course directory.
    assignment : str
    source : str or Path
        Canvas's ``submissions.zip``, Moodle's download (zip), or the folder either unpacks to.
    roster : str or Path, optional
        The roster (default ``roster.csv`` in the course directory).
    times : str or Path, optional
        Submission times (see :func:`read_times`).
    echo : callable

    Returns
    -------
    dict
        ``{"imported": [...], "unchanged": [...], "unknown": [...], "late": [...], "late_unknown": [...]}``.
    """
    course = Course(root)
    course.check_assignment(assignment)
    roster_obj = read_roster(roster_path(course, roster))
    timezone = str(course.config.get("CourseLMS", {}).get("timezone", "UTC") or "UTC")
    known_times, participants, problems = (read_times(times, roster_obj, timezone=timezone) if times
                                           else ({}, {}, []))
    subs, skipped = _read_download(source)
    notebooks = course.notebooks(assignment)
    released = _released_files(course, assignment)
    record = import_record(course, assignment)
    result = {"imported": [], "unchanged": [], "unknown": [], "late": [], "late_unknown": [], "problems": []}
    chosen = {}
    for (lms, key), sub in sorted(subs.items()):
        entry = _roster_entry(roster_obj, participants, lms, key, sub)
        if entry is None:
            result["unknown"].append(f"{sub.name} ({lms} {'user' if lms == 'canvas' else 'participant'} {key})")
            continue
        if entry.student_id in chosen:
            result["problems"].append(f"{entry.student_id}: two submissions in the download "
                                      f"({chosen[entry.student_id]} and {key}); kept the first")
            continue
        chosen[entry.student_id] = key
        _prepare_files(sub, notebooks, released)
        if _too_large(sub):
            result["problems"].append(f"{entry.student_id}: not imported: more than {MAX_FILES} files or "
                                      f"{MAX_SUBMISSION // 1024**2} MiB")
            continue
        record[entry.student_id] = _import_one(course, assignment, entry.student_id, sub, lms=lms, source=source,
                                               when=known_times.get(entry.student_id), notebooks=notebooks,
                                               result=result)
    _write_record(course, assignment, record)
    result["problems"] += problems + [f"left out {s!r}: not named as Canvas or Moodle name submissions"
                                      for s in skipped]
    _say(result, echo, assignment=assignment, folder=course.submitted_dir, source=source, roster=roster_obj.path)
    return result


def _read_download(source):
    """The submissions of the download at ``source`` and what was left out; none at all is an error."""
    subs, skipped = _parse(_entries(source))
    if not subs:
        raise CourseError(f"FROM={source} holds no submission Canvas or Moodle names as they do "
                          "(<name>[_LATE]_<user id>_<attachment id>_<file> for Canvas, folders "
                          "<Full Name>_<number>_assignsubmission_file_ for Moodle)"
                          + (f"; it holds {', '.join(skipped[:5])}" if skipped else ""))
    return subs, skipped


def _released_files(course, assignment):
    """The paths of the released assignment's files (none when it was not released)."""
    released_dir = course.release_dir / assignment
    if not released_dir.is_dir():
        return []
    return [p.relative_to(released_dir).as_posix() for p in released_dir.rglob("*") if p.is_file()]


def _prepare_files(sub, notebooks, released):
    """A submission's files as the student made them: uploaded zips unpacked, one top folder lifted, LMS suffixes off."""
    _unzip_uploads(sub)
    _strip_single_folder(sub)
    _renames(sub, notebooks, released)


def _too_large(sub):
    return len(sub.files) > MAX_FILES or sum(f.size for f in sub.files) > MAX_SUBMISSION


def _import_one(course, assignment, sid, sub, *, lms, source, when, notebooks, result):
    """Write one student's submission into ``submitted/`` unless it is there already; its entry in the import record.

    ``result`` gets the student under ``imported`` or ``unchanged``, ``late`` or
    ``late_unknown`` (late by the LMS without a submission time), and the submission's problems.
    """
    files = _read_files(sub)
    folder = course.submitted_dir / sid / assignment
    stamp_text = f"{when.strftime('%Y-%m-%d %H:%M:%S')} UTC" if when else None
    if _already_there(folder, files, stamp_text):
        result["unchanged"].append(sid)
    else:
        _write_submission(folder, files, stamp_text)
        result["imported"].append(sid)
    if sub.late:
        result["late" if when else "late_unknown"].append(sid)
    if not any(p.endswith(".ipynb") and PurePosixPath(p).stem in notebooks for p in files):
        sub.problems.append(f"no {', '.join(n + '.ipynb' for n in notebooks)} among {', '.join(sorted(files)) or 'no files'}"
                            " (it will be reported as ungraded)")
    result["problems"] += [f"{sid}: {p}" for p in sub.problems]
    return {"lms": lms, "late": sub.late, "submitted_at": when.strftime("%Y-%m-%d %H:%M:%S UTC") if when else None,
            "files": sorted(files), "from": Path(source).name}


def _already_there(folder, files, stamp_text):
    """Whether ``folder`` holds exactly ``files`` and the submission time ``stamp_text`` (None: no timestamp.txt)."""
    if not folder.is_dir() or _digest_files(_folder_files(folder)) != _digest_files(files):
        return False
    stamp = folder / "timestamp.txt"
    return (stamp.read_text().strip() if stamp.is_file() else None) == stamp_text


def _say(result, echo, *, assignment, folder, source, roster):
    """What ``make collect-lms`` did, in a few lines: counts, late submissions, students the roster lacks, problems."""
    echo(f"{assignment}: {len(result['imported'])} submission(s) imported into {folder}, "
         f"{len(result['unchanged'])} unchanged, from {Path(source).name}")
    if result["late"]:
        echo(f"late by the LMS ({len(result['late'])}), with their submission times: {', '.join(result['late'])}")
    if result["late_unknown"]:
        echo(f"LATE WITHOUT A TIME ({len(result['late_unknown'])}) — their totals stay provisional until the time is "
             f"given (TIMES=...): {', '.join(result['late_unknown'])}")
    if result["unknown"]:
        echo(f"NOT IN THE ROSTER ({len(result['unknown'])}) — not imported; add them to "
             f"{roster}: {'; '.join(result['unknown'])}")
    for p in result["problems"]:
        echo(f"  {p}")
