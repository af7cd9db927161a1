"""Every CSV file the course writes, written one way: formula-safe.

A spreadsheet runs a cell that begins with ``=``, ``+``, ``-`` or ``@`` as a formula (and some
treat a leading tab or carriage return the same way); student ids come from folder names
and LMS downloads, so a student folder named ``=HYPERLINK("http://...")`` would become a
live link in the TA's grade sheet. As OWASP recommends for CSV injection, such a cell is
written with a leading single quote, which spreadsheets show as text; plain numbers are
written as they are. :func:`plain` undoes it for the files the course reads back.

Examples
--------
>>> safe("=HYPERLINK(1)"), safe("@SUM(1+1)"), safe("-1+2"), safe("ada"), safe(-3.5), safe("17")
("'=HYPERLINK(1)", "'@SUM(1+1)", "'-1+2", 'ada', '-3.5', '17')
>>> plain(safe("=x")), plain("ada")
('=x', 'ada')
"""
import csv
import os
import re
from pathlib import Path

__all__ = ["TRIGGERS", "plain", "safe", "write_rows"]

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def safe(value):
    """``value`` as a CSV cell no spreadsheet runs as a formula (None is an empty cell)."""
    if value is None:
        return ""
    text = str(value)
    if text.startswith(TRIGGERS) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def plain(text):
    """A cell read back from a file written with :func:`safe`: its leading quote removed."""
    text = "" if text is None else str(text)
    if text.startswith("'") and text[1:].startswith(TRIGGERS):
        return text[1:]
    return text


def write_rows(path, header, rows, *, encoding="utf-8"):
    """Write ``header`` and ``rows`` (sequences of cells) to ``path`` atomically, every cell made safe.

    Returns the path. The file is written next to its final name and renamed into place, so
    a reader never sees half a file.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", newline="", encoding=encoding) as f:
        w = csv.writer(f)
        if header is not None:
            w.writerow([safe(c) for c in header])
        for row in rows:
            w.writerow([safe(c) for c in row])
    os.replace(tmp, path)
    return path
