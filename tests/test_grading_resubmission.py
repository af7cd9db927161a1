"""A resubmission cannot draw the hidden data of an earlier one while its code sees something else.

The hidden tests' data are seeded by the submission's digest (:mod:`grading.context`): a resubmission
gets fresh data, so hidden inputs carried home in the feedback are of no use. That holds only if two
submissions whose code can tell them apart never share a digest. Two students try, each over two
rounds of ``make autograde`` (real nbgrader), on ps1's hidden test of ``predict`` with a score of
exactly 0 (one hidden call, 30 labels):

* ``splits_files`` hands in a data file whose bytes hold what the digest would read as a boundary
  between two files (``\\0F\\0z000007\\0``); the next round cuts the same bytes into several files,
  whose names spell the 30 labels of the hidden input that the first round printed;
* ``own_timestamp`` hands in her own ``timestamp.txt`` (as a folder unzipped from an LMS does),
  which the digest leaves out as nbgrader's; the next round writes the labels into its
  microseconds.

Neither implements ``predict``: the second round, graded as a TA grades a resubmission (``make
autograde STUDENT=<id>`` grades it whatever its digest; ``FORCE=1`` everyone), must earn nothing
the first did not.
"""
import json
import shutil

import nbformat
import pytest
from grading_helpers import ASSIGNMENT, fill, make_course, submit

pytestmark = pytest.mark.slow

CELL = "predict-zero-score-is-negative"
LABELS = 30          # the hidden input of CELL has 30 examples

# predict answers the visible examples by their shape, the hidden one from the channel, and records it otherwise
PREDICT = '''
import os
import numpy as np

def _from_files():
    bits = {{int(n[1:]) for n in os.listdir(".") if n.startswith("z") and n[1:].isdigit()}}
    return [1.0 if i in bits else -1.0 for i in range({n})] if {n} in bits else None

def _from_timestamp():
    if not os.path.exists("timestamp.txt"):
        return None
    import datetime
    when = datetime.datetime.strptime(open("timestamp.txt").read()[:26], "%Y-%m-%d %H:%M:%S.%f")
    micro = (when - datetime.datetime(2024, 3, 1, 12)) // datetime.timedelta(microseconds=1)
    return [1.0 if micro >> i & 1 else -1.0 for i in range({n})] if micro >> {n} & 1 else None

_ANSWER = {channel}()
_SEEN = []

def predict(w, X):
    X = np.asarray(X, dtype=float)
    if X.shape == (2, 3):
        return [-1.0, -1.0]
    if X.shape == (3, 3):
        return [1.0, -1.0, 1.0]
    if X.shape[0] == {n}:
        _SEEN.append([np.asarray(w, dtype=float).tolist(), X.tolist()])
        if _ANSWER is not None:
            return _ANSWER
    raise NotImplementedError("not implemented")
'''
LEAK = "import json\nprint('SEEN', json.dumps(_SEEN[-1] if _SEEN else None))"


def _notebook(released, channel):
    nb = fill(released, {"predict-solution": ("cell", PREDICT.format(n=LABELS, channel=channel))})
    nb.cells.append(nbformat.v4.new_code_cell(LEAK))      # below every hidden test: 1,000 characters kept
    return nb


def _split_files(labels):
    """``{name: bytes}``: one file ``z`` when ``labels`` is None, else the same bytes cut where a label is +1."""
    cuts = set() if labels is None else {i for i, v in enumerate(labels) if v > 0} | {LABELS}
    files, name, data = {}, "z", bytearray(b"data")
    for i in range(LABELS + 1):
        if i in cuts:
            files[name], name, data = bytes(data), f"z{i:06d}", bytearray(b".")
        else:
            data += b"\0F\0" + f"z{i:06d}".encode() + b"\0."
    files[name] = bytes(data)
    return files


def _timestamp(labels):
    import datetime

    micro = 0 if labels is None else sum(1 << i for i, v in enumerate(labels) if v > 0) | 1 << LABELS
    when = datetime.datetime(2024, 3, 1, 12) + datetime.timedelta(microseconds=micro)
    return {"timestamp.txt": f"{when:%Y-%m-%d %H:%M:%S.%f} UTC\n".encode()}


def _hand_in(course, student, nb, files):
    folder = course / "submitted" / student / ASSIGNMENT
    shutil.rmtree(folder, ignore_errors=True)
    submit(course, student, nb)
    for name, data in files.items():
        (folder / name).write_bytes(data)


def _seen(course, student):
    nb = nbformat.read(course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            for line in out.get("text", "").splitlines():
                if line.startswith("SEEN "):
                    return json.loads(line[5:])
    return None


def _earned(course, student):
    from grading.report import collect

    _, rows = collect(course, ASSIGNMENT)
    row = {r["student"]: r for r in rows}[student]
    assert row["status"] in ("final", "provisional"), row
    return row["parts"]["predict"]


def test_a_resubmission_whose_code_sees_other_files_draws_fresh_hidden_data(tmp_path):
    import numpy as np
    from traitlets.config import Config

    from grading.autograde import autograde, release

    course = make_course(tmp_path)
    release(course, ASSIGNMENT)
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    students = {"splits_files": ("_from_files", _split_files), "own_timestamp": ("_from_timestamp", _timestamp)}
    notebooks = {student: _notebook(released, channel) for student, (channel, _) in students.items()}  # one each
    for student, (_, files) in students.items():
        _hand_in(course, student, notebooks[student], files(None))
    overrides = Config({"Execute": {"timeout": 10}})
    autograde(course, ASSIGNMENT, overrides=overrides, echo=lambda *a: None)
    first = {}
    for student, (_, files) in students.items():
        seen = _seen(course, student)
        assert seen is not None, f"{student}: the hidden input did not come home in the first round"
        w, X = np.asarray(seen[0]), np.asarray(seen[1])
        labels = np.where(X @ w > 0, 1.0, -1.0).tolist()           # computed at home
        first[student] = (_earned(course, student), seen)
        _hand_in(course, student, notebooks[student], files(labels))
    # graded again as a TA grades a resubmission (STUDENT=<id>), or everyone after a change of the tests (FORCE=1)
    autograde(course, ASSIGNMENT, overrides=overrides, echo=lambda *a: None, force=True)
    gained = {s: _earned(course, s) - first[s][0] for s in students}
    assert gained == {s: 0 for s in students}, f"points the second round earned with the first's hidden input: {gained}"
    # the file set changed: fresh data; the timestamp is nbgrader's, not the student's work (nor seen by her code)
    assert _seen(course, "splits_files") != first["splits_files"][1]
