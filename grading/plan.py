"""What to grade: a submission is graded again only when what decides its grade changed.

* A submission's content is a SHA-256 over its files' names and bytes
  (:func:`submission_digest`; timestamps, which a student controls, play no part).
* The instructor's version of the assignment and the grading settings (limits, which secret
  seeds the hidden tests' data) are another (:func:`source_digest`).
* :func:`plan` compares both with each student's record (:mod:`grading.status`): new or
  changed submissions are graded, the rest left as they are; ``STUDENT=<id>`` grades one
  student, ``FORCE=1`` everyone.
* nbgrader keeps manual scores, extra credit and comments when it regrades; a cell with such
  manual work whose exercise changed in a resubmission is listed for review
  (:func:`cell_digests`, :func:`cells_to_review`).
"""
import hashlib
import json
import os
from pathlib import Path

from .cells import exercise_of

__all__ = ["cell_digests", "cells_to_review", "changed_exercises", "plan", "source_digest", "submission_digest"]


def submission_digest(folder):
    """SHA-256 of a submission folder's content: every file's relative path and bytes.

    Links are recorded by their target, never followed; modification times play no part, nor
    does nbgrader's ``timestamp.txt`` at the top (which the student's code never sees either,
    :data:`grading.engine.NBGRADER_FILES`). Every path and content is hashed with its length
    first, so that two different sets of files never give the same digest: without the
    lengths, the bytes ``a`` = ``X\\0F\\0b\\0Y`` would hash like the two files ``a`` = ``X``
    and ``b`` = ``Y``, and a resubmission could draw the hidden tests' data of an earlier one
    while its code, seeing other files, behaves differently.

    Examples
    --------
    >>> import tempfile, os, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.ipynb").write_text("{}")
    >>> first = submission_digest(d)
    >>> os.utime(d / "a.ipynb", (0, 0))                 # touching the file changes nothing
    >>> submission_digest(d) == first
    True
    >>> _ = (d / "a.ipynb").write_text("{ }")
    >>> submission_digest(d) == first
    False
    >>> _ = (d / "a.ipynb").write_bytes(b"{}\\0F\\0b\\0{}")  # one file holding what two would hash as
    >>> one = submission_digest(d)
    >>> _ = (d / "a.ipynb").write_bytes(b"{}"); _ = (d / "b").write_bytes(b"{}")
    >>> submission_digest(d) == one
    False
    """
    from .engine import NBGRADER_FILES

    folder = Path(folder)
    h = hashlib.sha256(b"submission digest 2\0")

    def field(data):
        h.update(len(data).to_bytes(8, "big") + data)

    if folder.is_symlink():
        h.update(b"link")
        field(os.readlink(folder).encode("utf-8", "surrogateescape"))
        return h.hexdigest()
    for here, dirs, files in os.walk(folder, followlinks=False):
        dirs.sort()
        for name in sorted(files + [d for d in dirs if os.path.islink(os.path.join(here, d))]):
            path = os.path.join(here, name)
            rel = os.path.relpath(path, folder).encode("utf-8", "surrogateescape")
            if os.path.islink(path):
                h.update(b"L")
                field(rel)
                field(os.readlink(path).encode("utf-8", "surrogateescape"))
                continue
            if name in NBGRADER_FILES and here == str(folder):
                continue                     # written by nbgrader collect, not the student's work
            h.update(b"F")
            field(rel)
            size, inner = 0, hashlib.sha256()
            try:
                with open(path, "rb") as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        inner.update(block)
                        size += len(block)
                h.update(b"R" + size.to_bytes(8, "big") + inner.digest())
            except OSError as exc:
                h.update(b"U" + int(exc.errno or 0).to_bytes(8, "big"))
    return h.hexdigest()


def source_digest(course, assignment, settings=None):
    """SHA-256 of the instructor's version of ``assignment`` (``source/``) and the grading ``settings``.

    When it changes (a test or a time limit was edited), every submission is graded again.
    """
    h = hashlib.sha256(submission_digest(course.source_dir / assignment).encode())
    h.update(json.dumps(settings or {}, sort_keys=True, default=_setting_text).encode())
    return h.hexdigest()


def _setting_text(value):
    """A setting as text that is the same in every run: a function by its name (its address changes)."""
    if callable(value):
        return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', repr(value))}"
    return str(value)


def cell_digests(folder, notebooks):
    """``{notebook: {grade_id: sha256 of the cell's source}}`` of a submission (unreadable -> ``{}``)."""
    out = {}
    for name in notebooks:
        path = Path(folder) / f"{name}.ipynb"
        cells = {}
        try:
            if path.is_symlink() or path.stat().st_size > 64 * 1024**2:
                raise ValueError
            nb = json.loads(path.read_text())
            for cell in nb.get("cells", []):
                gid = ((cell.get("metadata") or {}).get("nbgrader") or {}).get("grade_id")
                if isinstance(gid, str):
                    src = cell.get("source", "")
                    src = "".join(src) if isinstance(src, list) else str(src)
                    cells[gid] = hashlib.sha256(src.encode("utf-8", "surrogateescape")).hexdigest()
        except (OSError, ValueError, AttributeError, TypeError):
            cells = {}
        out[name] = cells
    return out


def plan(students, status, digests, source, *, student=None, force=False):
    """Split ``students`` into those to grade and those left as they are.

    Parameters
    ----------
    students : list of str
        Students with a submission folder.
    status : dict
        The recorded state of the last runs, ``{student: {"digest", "source", ...}}``.
    digests : dict
        ``{student: submission_digest}`` now.
    source : str
        :func:`source_digest` now.
    student : str, optional
        Grade only this student (whatever changed).
    force : bool
        Grade everyone.

    Returns
    -------
    todo, unchanged : list of str

    Examples
    --------
    >>> plan(["a", "b", "c"], {"a": {"digest": "1", "source": "s"}, "b": {"digest": "2", "source": "s"}},
    ...      {"a": "1", "b": "9", "c": "3"}, "s")
    (['b', 'c'], ['a'])
    >>> plan(["a", "b"], {"a": {"digest": "1", "source": "s"}}, {"a": "1", "b": "2"}, "s", student="a")
    (['a'], [])
    """
    if student is not None:
        return [s for s in students if s == student], []
    todo, unchanged = [], []
    for s in students:
        old = status.get(s) or {}
        same = old.get("digest") == digests.get(s) and old.get("source") == source and not old.get("interrupted")
        (unchanged if same and not force else todo).append(s)
    return todo, unchanged


def cells_to_review(manual, old_cells, new_cells):
    """Grade ids with manual work (score, extra credit, comment) whose exercise changed since.

    A cell is flagged when its own source changed, or any cell of the same exercise (same
    ``grade_id`` prefix before the first ``-``) did: a manual score on a test cell is about
    the answer cells it tests.

    Examples
    --------
    >>> cells_to_review({"pla-answer", "radius-x"}, {"nb": {"pla-answer": "1", "pla-t": "2", "radius-x": "3"}},
    ...                 {"nb": {"pla-answer": "9", "pla-t": "2", "radius-x": "3"}})
    ['pla-answer']
    """
    changed = changed_exercises(old_cells, new_cells)
    return sorted(g for g in manual if exercise_of(g) in changed)


def changed_exercises(old_cells, new_cells):
    """Exercises (:func:`grading.cells.exercise_of`) with a cell whose source differs between two :func:`cell_digests`.

    Examples
    --------
    >>> sorted(changed_exercises({"nb": {"pla-answer": "1", "radius-x": "3"}}, {"nb": {"pla-answer": "9"}}))
    ['pla', 'radius']
    """
    changed = set()
    for nb in set(old_cells) | set(new_cells):
        a, b = old_cells.get(nb, {}), new_cells.get(nb, {})
        changed |= {exercise_of(g) for g in set(a) | set(b) if a.get(g) != b.get(g)}
    return changed
