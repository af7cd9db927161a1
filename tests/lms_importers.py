"""The LMS importers' documented rules, as independent checks of the files the course writes.

Written from the importers' own source (read with the search tool, not copied):

* Canvas, ``app/models/gradebook_importer.rb`` and ``ui/features/gradebook_uploads/jquery/
  process_gradebook_upload.js``: the header's first column contains "Student", the second
  "ID"; then "SIS Login ID" (or "SIS User ID" and "SIS Login ID", maybe "Integration ID"),
  and the last identity column must contain "Section"; a row whose first cell contains
  "Points Possible" gives the points; a student is found by ID, then SIS User ID, then SIS
  Login ID, then by name (else the importer treats them as a missing student); an assignment
  column is matched by its title; a cell that differs from Canvas's current grade is posted as
  the new grade, so a blank cell clears an existing grade.
* Moodle, ``grade/import/csv/classes/load_data.php``: each row is a user, found by the mapped
  field (username, email, idnumber, id); a user it does not find stops the whole import; a
  grade of "" or "-" is "no grade" (it clears the grade); a row with a blank user field is
  not a user row.
"""
import csv
from pathlib import Path


class ImportRefused(Exception):
    """The importer would stop the whole import."""


def _read(path):
    with Path(path).open(newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def canvas_import(path, users, current=None):
    """What Canvas would do with the grades file ``path``.

    ``users``: Canvas's students, dicts with ``id``, ``sis_user_id``, ``login_id``,
    ``name``, ``sortable_name``. ``current``: ``{(user id, title): grade}`` already in Canvas.
    Returns ``(posted {(user id, title): grade}, missing_students [row], cleared [(user id, title)])``.
    """
    rows = _read(path)
    header = rows[0]
    if not (len(header) > 3 and "Student" in header[0] and "ID" in header[1]):
        raise ImportRefused(f"invalid header row {header}")
    columns = 3
    login_col = sis_col = None
    if "SIS Login ID" in header[2]:
        login_col, columns = 2, 4
    elif "SIS User ID" in header[2] and "SIS Login ID" in header[3]:
        sis_col, login_col, columns = 2, 3, 5
        if len(header) > 4 and "Integration ID" in header[4]:
            columns += 1
    if "Section" not in header[columns - 1]:
        raise ImportRefused(f"invalid header row {header}: no Section column where the identity columns end")
    titles = header[columns:]
    posted, missing, cleared = {}, [], []
    current = current or {}
    for row in rows[1:]:
        if row and "Points Possible" in row[0]:
            continue
        user = _canvas_user(row, users, sis_col, login_col)
        if user is None:
            missing.append(row)
            continue
        for title, value in zip(titles, row[columns:], strict=True):
            value = value.strip()
            old = current.get((user["id"], title), "")
            if value == old:
                continue
            if value == "":
                cleared.append((user["id"], title))
            posted[(user["id"], title)] = value
    return posted, missing, cleared


def _canvas_user(row, users, sis_col, login_col):
    """The student Canvas finds for ``row``: by ID, then SIS User ID, then SIS Login ID, then by name; or None."""
    user = None
    if row[1].strip():
        user = next((u for u in users if str(u["id"]) == row[1].strip()), None)
    if user is None and sis_col is not None and row[sis_col].strip():
        user = next((u for u in users if u.get("sis_user_id") == row[sis_col].strip()), None)
    if user is None and login_col is not None and row[login_col].strip():
        user = next((u for u in users if u.get("login_id") == row[login_col].strip()), None)
    if user is None:
        user = next((u for u in users if row[0] in (u.get("name"), u.get("sortable_name"))), None)
    return user


def moodle_import(path, users, *, map_from, map_to, current=None):
    """What Moodle's CSV grade import would do with ``path``, the column ``map_from`` mapped to the user field ``map_to``.

    ``users``: Moodle's users, dicts with ``username``, ``email``, ``idnumber``, ``id``. Every
    other column is mapped to the grade item of its title. Returns ``(grades {(username,
    item): value}, cleared [(username, item)])``; raises :class:`ImportRefused` when Moodle
    would stop the import (a user it does not find, a grade that is not a number).
    """
    rows = _read(path)
    header = rows[0]
    if map_from not in header:
        raise ImportRefused(f"no column {map_from!r} to map users from")
    identity = {"First name", "Last name", "ID number", "Username", "Email address"}
    key = header.index(map_from)
    grades, cleared = {}, []
    for row in rows[1:]:
        if len(row) <= 1:
            continue
        value = row[key].strip()
        if not value:
            raise ImportRefused(f"a row without a user ({row}): Moodle would give its grades to the previous user")
        user = next((u for u in users if str(u.get(map_to, "")) == value), None)
        if user is None:
            raise ImportRefused(f"user mapping error: no user with {map_to} {value!r}")
        for title, cell in zip(header, row, strict=True):
            if title in identity:
                continue
            cell = cell.strip()
            if cell in ("", "-"):
                cleared.append((user["username"], title))
                continue
            try:
                float(cell)
            except ValueError:
                raise ImportRefused(f"bad grade {cell!r} for {value}") from None
            grades[(user["username"], title)] = cell
    return grades, cleared
