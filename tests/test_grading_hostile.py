"""Submissions that try to cheat or to break the grader, graded end to end next to honest ones.

One autograde run of the Lecture 2 assignment, in a throwaway course, with real nbgrader
and the real sandbox. Each hostile submission answers every exercise correctly except
one, where it attacks instead: it must lose exactly that exercise, no other student's
grade or file may change, the gradebook must stay intact, nothing it starts may outlive
the run, and the run must end (endless submissions are stopped by the cell timeout).

The sandbox is required: where bubblewrap cannot run, these tests fail with the reason
(they never skip).
"""
import contextlib
import hashlib
import os
import socket
import sqlite3
import subprocess
import threading

import nbformat
import pytest
from grading_helpers import ASSIGNMENT, fill, make_course, reference_bodies, submit
from traitlets.config import Config

from grading.autograde import autograde, release
from grading.report import collect

REF = reference_bodies()
# the points the tests give (17); the derivation graded by hand (2 more) is left as released
# by every submission here, which nbgrader scores 0 at once
POINTS = {"predict": 3, "pla": 4, "radius": 1, "margin": 1, "bound": 1, "pocket": 3,
          "funtime1": 1, "funtime2": 1, "funtime3": 1, "funtime4": 1}
TOTAL = sum(POINTS.values())
TIMEOUT = 5          # seconds per cell

# Each attack is the whole solution cell of one exercise. {course} is the course's real path,
# {port} a port on which the test listens; the attacks get every chance to find their target.
ATTACKS = {
    # replaces numpy.testing's asserts and builtins, and returns an int whose == is always True
    "monkeypatches_asserts": ("radius-solution", "radius", '''
import builtins
import numpy.testing as npt
npt.assert_allclose = npt.assert_array_equal = npt.assert_equal = lambda *a, **k: None
builtins.abs = lambda x: 0.0
class Always(int):
    def __eq__(self, other): return True
    def __le__(self, other): return True
    def __ge__(self, other): return True
    def __lt__(self, other): return True
    __hash__ = int.__hash__
def radius(X):
    return Always(0)
'''),
    # an ndarray whose comparisons and conversions lie
    "rigged_eq": ("predict-solution", "predict", '''
class Rigged(np.ndarray):
    def __eq__(self, other): return np.ones(np.shape(other), dtype=bool) if np.ndim(other) else True
    def __ne__(self, other): return np.zeros(np.shape(other), dtype=bool) if np.ndim(other) else False
    def tolist(self): return [1.0, -1.0, 1.0]
    def __float__(self): return 1.0
    def __array__(self, dtype=None, copy=None): return np.array([1.0, -1.0, 1.0])
def predict(w, X):
    return np.zeros(len(X)).view(Rigged)
'''),
    # opens the instructor's notebook and executes the reference solution
    "reads_the_solution": ("pla-solution", "pla", '''
import json, glob, os
def pla(X, y, max_updates=10_000):
    candidates = glob.glob("{course}/source/*/*.ipynb") + glob.glob("../../source/*/*.ipynb") \\
        + glob.glob("/**/source/ps1_perceptron/*.ipynb", recursive=True)
    for path in candidates:
        nb = json.load(open(path))
        for cell in nb["cells"]:
            if "def pla(" in "".join(cell["source"]):
                scope = {{"np": np}}
                exec("".join(cell["source"]).replace("### BEGIN SOLUTION", "").replace("### END SOLUTION", ""), scope)
                return scope["pla"](X, y, max_updates)
    return np.zeros(np.shape(X)[1]), 0
'''),
    # reads the hidden tests from the gradebook and writes itself full marks
    "tampers_with_gradebook": ("margin-solution", "margin", '''
import sqlite3
def margin(w_f, X, y):
    try:
        db = sqlite3.connect("{course}/gradebook.db")
        db.execute("UPDATE grade SET auto_score = 100, manual_score = 100")
        db.execute("UPDATE source_cell SET source = 'pass'")
        db.commit()
    except Exception:
        pass
    return 0.0
'''),
    # overwrites another student's submission and grades
    "writes_other_students_files": ("bound-solution", "bound", '''
import os
for target in ["{course}/submitted/reference/ps1_perceptron/ps1_perceptron.ipynb",
               "{course}/submitted/reference/ps1_perceptron/notes.txt",
               "{course}/autograded/reference/ps1_perceptron/ps1_perceptron.ipynb"]:
    try:
        with open(target, "w") as fh:
            fh.write("overwritten")
    except OSError:
        pass
def novikoff_bound(R, rho):
    return 0.0
'''),
    # deletes the course's files
    "deletes_course_files": ("radius-solution", "radius", '''
import os, shutil
shutil.rmtree("{course}/source", ignore_errors=True)
shutil.rmtree("{course}/submitted", ignore_errors=True)
for name in ("nbgrader_config.py", "gradebook.db"):
    try:
        os.remove("{course}/" + name)
    except OSError:
        pass
os.system("rm -rf {course}/release 2>/dev/null")
def radius(X):
    return -1.0
'''),
    # links a file of its folder to the instructor's notebook and executes the solution from it
    "reads_a_linked_file": ("pla-solution", "pla", '''
import json
def pla(X, y, max_updates=10_000):
    try:
        nb = json.load(open("solution.json"))
    except (OSError, ValueError):
        return np.zeros(np.shape(X)[1]), 0
    for cell in nb["cells"]:
        if "def pla(" in "".join(cell["source"]):
            scope = {{"np": np}}
            exec("".join(cell["source"]), scope)
            return scope["pla"](X, y, max_updates)
    return np.zeros(np.shape(X)[1]), 0
'''),
    # a fork bomb
    "fork_bomb": ("pocket-solution", "pocket", '''
import os
def pocket(X, y, max_updates):
    while True:
        try:
            os.fork()
        except OSError:
            pass
'''),
    # asks for 50 GB
    "allocates_50_gb": ("radius-solution", "radius", '''
def radius(X):
    hog = np.ones(50 * 1024**3 // 8)
    return float(hog.sum())
'''),
    # prints without end
    "floods_stdout": ("predict-solution", "predict", '''
def predict(w, X):
    while True:
        print("spam " * 2000)
'''),
    # talks to a server on this machine
    "opens_network_connection": ("margin-solution", "margin", '''
import socket
def margin(w_f, X, y):
    for host in ("127.0.0.1", "localhost"):
        try:
            socket.create_connection((host, {port}), timeout=1).sendall(b"stolen")
        except OSError:
            pass
    return -1.0
'''),
}

ATTACKS.update({
    # calls course_lib's own pla from a helper module submitted beside the notebook
    "helper_calls_course_lib": ("pla-solution", "pla", "from helper import pla"),
    # reaches course_lib's pla under a name no reader of the code would find
    "getattr_reversed": ("pla-solution", "pla", '''
import course_lib as cl
def pla(X, y, max_updates=10_000):
    result = getattr(cl, "".join(reversed("alp")))(X, y, max_updates=max_updates)
    return result.w, result.n_updates
'''),
    # takes course_lib's pla in a cell dressed up as a test cell (added below) under an unknown grade_id
    "exec_in_fake_test_cell": ("pla-solution", "pla", '''
def pla(X, y, max_updates=10_000):
    result = stolen(X, y, max_updates=max_updates)
    return result.w, result.n_updates
'''),
    # ends its process through getattr, where no reader of the code would see os._exit
    "exits_through_getattr": ("pocket-solution", "pocket", '''
def pocket(X, y, max_updates):
    getattr(__import__("o" + "s"), "_ex" + "it")(0)
'''),
    # a wrong answer in a solution cell whose nbgrader flags are flipped (below) to look like a test cell
    "flipped_metadata": ("radius-solution", "radius", '''
def radius(X):
    return -1.0
'''),
    # answers the grader in the worker's name (through the worker's own frame), then keeps running
    "forges_a_reply": ("margin-solution", "margin", '''
import sys
def margin(w_f, X, y):
    frame = sys._getframe(1)
    while frame is not None and not ("state" in frame.f_locals and "req" in frame.f_locals):
        frame = frame.f_back
    frame.f_locals["state"].reply({{"id": frame.f_locals["req"]["id"], "result": 1.0, "error": None, "stdout": "x" * 10**7}})
    while True:
        pass
'''),
    # writes garbage and an oversized message into the grader's pipe
    "malformed_replies": ("bound-solution", "bound", '''
import os
def novikoff_bound(R, rho):
    for fd in range(3, 16):
        try:
            os.write(fd, b"[1, 2]\\n" + b"{{" * (40 * 1024**2))
        except OSError:
            pass
    return 1.0
'''),
})
# Attacks on the grader itself, each on one exercise (built below, after the release is filled in):
GRADER_ATTACKS = {
    # a wrong radius whose test cell claims the cell type "bogus" (nbgrader's schema refuses it)
    "bogus_cell_type": "radius",
    # lone surrogates in printed text, an exception's message and a markdown cell (not valid UTF-8)
    "lone_surrogates": "radius",
    # an endless loop at the top of a solution cell: in Jupyter the function below it never exists
    "loop_above_its_function": "predict",
    # a cell of 123 KB of %time magics and plain lines (IPython re-tokenizes it once per magic)
    "huge_magics_cell": "margin",
}
MANY_CELLS = 300              # cells of 20,000 printed characters each (6 MB), in a correct notebook
HUGE_MAGICS = "\n".join(f"%time x{i} = {i}" if i % 2 == 0 else f"y{i} = {i}" for i in range(8_200))
HELPER_CALLS_COURSE_LIB = "import course_lib\ndef pla(X, y, max_updates=10_000):\n" \
    "    result = course_lib.pla(X, y, max_updates=max_updates)\n    return result.w, result.n_updates\n"
STEALS_IN_A_FAKE_TEST_CELL = '''
exec("import course_lib; stolen = course_lib.pla")
'''

# honest work with a thread that never ends: full marks, and grading must not hang
SLEEPING_THREAD = '''
import threading, time
threading.Thread(target=time.sleep, args=(10**6,)).start()
''' + REF["funtime1-answer"]


# a cell of the student's own dressed up as a test cell worth 100 points, whose code would
# write a file into the course if the grader ran it outside the sandbox
FAKE_TEST = '''
open("{course}/judge-ran-student-code", "w").write("x")
assert False, "this would be a failing test"
'''


def _expected(student):
    if student in ATTACKS:
        return TOTAL - POINTS[ATTACKS[student][1]]
    if student in GRADER_ATTACKS:
        return TOTAL - POINTS[GRADER_ATTACKS[student]]
    return {"reference": TOTAL, "partial": TOTAL - POINTS["pla"] - POINTS["pocket"],
            "sleeping_thread": TOTAL, "fake_test_cell": TOTAL, "honest_helper_module": TOTAL,
            "many_cells": TOTAL}[student]


def _digest(root):
    """sha256 of every file below root, by relative path."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _sandbox_processes():
    """Processes of the user ids this grader gives its sandboxes (as root: one fresh id per sandbox)."""
    from grading.sandbox import UID_BASE
    if os.geteuid() != 0:
        mine = {os.getuid()}
        run = subprocess.run(["ps", "-o", "uid=,pid=,args=", "--ppid", str(os.getpid())], capture_output=True, text=True)
    else:
        low = UID_BASE + (os.getpid() % 100_000) * 100
        mine = set(range(low, low + 100))
        run = subprocess.run(["ps", "-eo", "uid=,pid=,args="], capture_output=True, text=True)
    rows = [line.split(None, 2) for line in run.stdout.splitlines() if line.strip()]
    return [" ".join(r) for r in rows if int(r[0]) in mine]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    from grading.sandbox import sandbox_mode
    if sandbox_mode() == "off":
        pytest.fail("GRADING_SANDBOX=off: the hostile submissions are only ever run inside the sandbox")
    course = make_course(tmp_path_factory.mktemp("hostile"))
    release(course, ASSIGNMENT)
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    connections = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
                connections.append(conn.recv(100))
                conn.close()
            except OSError:
                pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()

    submit(course, "reference", fill(released, REF))
    (course / "submitted" / "reference" / ASSIGNMENT / "notes.txt").write_text("my notes\n")
    partial = {k: v for k, v in REF.items() if k not in ("pla-solution", "pocket-solution")}
    submit(course, "partial", fill(released, partial))
    submit(course, "sleeping_thread", fill(released, dict(REF, **{"funtime1-answer": SLEEPING_THREAD})))
    fake = fill(released, REF)
    fake.cells.insert(4, nbformat.v4.new_code_cell(FAKE_TEST.format(course=course), metadata={"nbgrader": {
        "grade": True, "solution": False, "locked": True, "points": 100, "grade_id": "predict-extra-credit",
        "schema_version": 3}}))
    submit(course, "fake_test_cell", fake)
    for student, (cell, _, code) in ATTACKS.items():
        attack = code.format(course=course, port=port).strip("\n")
        submit(course, student, fill(released, dict(REF, **{cell: ("cell", attack)})))

    folder = course / "submitted"
    (folder / "helper_calls_course_lib" / ASSIGNMENT / "helper.py").write_text(HELPER_CALLS_COURSE_LIB)
    nb = nbformat.read(folder / "exec_in_fake_test_cell" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    nb.cells.insert(3, nbformat.v4.new_code_cell(STEALS_IN_A_FAKE_TEST_CELL, metadata={"nbgrader": {
        "grade": True, "solution": False, "locked": True, "points": 50, "grade_id": "pla-bonus", "schema_version": 3}}))
    nbformat.write(nb, folder / "exec_in_fake_test_cell" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    nb = nbformat.read(folder / "flipped_metadata" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "radius-solution":
            cell.metadata["nbgrader"].update(grade=True, solution=False, locked=True, points=5)
    nbformat.write(nb, folder / "flipped_metadata" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    # honest work in a helper module beside the notebook: imported as in Jupyter, full marks
    honest = fill(released, REF)
    pla_cell = next(c for c in honest.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "pla-solution")
    helper_import = dict(REF, **{"pla-solution": ("cell", "from helper import pla")})
    submit(course, "honest_helper_module", fill(released, helper_import))
    (folder / "honest_helper_module" / ASSIGNMENT / "helper.py").write_text("import numpy as np\n\n" + pla_cell.source)
    # a student folder that links to a classmate's, an assignment folder that links to source/
    (folder / "links_to_a_classmate").symlink_to(folder / "reference")
    (folder / "links_assignment_to_source" ).mkdir()
    (folder / "links_assignment_to_source" / ASSIGNMENT).symlink_to(course / "source" / ASSIGNMENT)
    # a folder name nbgrader would read as a pattern: "r*" matches reference, reads_a_linked_file, ...
    submit(course, "r*", fill(released, partial))

    _submit_grader_attacks(course, released)

    solution = course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    (course / "submitted" / "reads_a_linked_file" / ASSIGNMENT / "solution.json").symlink_to(solution)
    linked = course / "submitted" / "links_to_the_solution" / ASSIGNMENT
    linked.mkdir(parents=True)
    (linked / f"{ASSIGNMENT}.ipynb").symlink_to(solution)

    protected = {name: _digest(course / name) for name in ("source", "release", "submitted")}
    config = (course / "nbgrader_config.py").read_bytes()
    before = set(_sandbox_processes())
    status = autograde(course, ASSIGNMENT, overrides=Config({"Execute": {"timeout": TIMEOUT}}), echo=lambda *a: None)
    stop.set()
    thread.join()
    # A connection made during the run waits in the listen queue even if accept() did not run
    # yet (every sandboxed process has ended): take them all, without waiting for more.
    listener.setblocking(False)
    with contextlib.suppress(BlockingIOError):
        while True:
            conn, _ = listener.accept()
            conn.settimeout(5)
            with contextlib.suppress(OSError):
                connections.append(conn.recv(100))
            conn.close()
    listener.close()
    _, rows = collect(course, ASSIGNMENT)
    return {"course": course, "status": status, "rows": {r["student"]: r for r in rows},
            "protected": protected, "config": config, "connections": connections,
            "leftover": set(_sandbox_processes()) - before}


def _cell(nb, gid):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == gid)


def _submit_grader_attacks(course, released):
    """The submissions of GRADER_ATTACKS and the one with MANY_CELLS."""
    import json

    nb = fill(released, dict(REF, **{"radius-solution": ("cell", "def radius(X):\n    return -1.0")}))
    _cell(nb, "radius-longest-example-with-x0").metadata["nbgrader"]["cell_type"] = "bogus"
    submit(course, "bogus_cell_type", nb)

    nb = fill(released, dict(REF, **{"radius-solution": ("cell", "print('\\udcff')\n"
                                                                  "def radius(X):\n    raise ValueError('\\udcff')")}))
    nb.cells.insert(1, nbformat.v4.new_markdown_cell("a note \udcff"))
    _cell(nb, "explain-cosine-bound-on-updates").source = "my answer \udcff"     # an answer graded by hand
    submit(course, "lone_surrogates", raw=json.dumps(nb, ensure_ascii=True))   # (nbformat cannot write it)

    nb = fill(released, REF)
    _cell(nb, "predict-solution").source = "while True:\n    pass\n\n" + _cell(nb, "predict-solution").source
    submit(course, "loop_above_its_function", nb)

    nb = fill(released, REF)
    _cell(nb, "margin-solution").source = HUGE_MAGICS + "\n\n" + _cell(nb, "margin-solution").source
    submit(course, "huge_magics_cell", nb)

    nb = fill(released, REF)
    # (above the first test: below a hidden test, a student's cell keeps 1,000 characters of output at most)
    nb.cells[1:1] = [nbformat.v4.new_code_cell(f"print('{i} ' + 'x' * 20_000)") for i in range(MANY_CELLS)]
    submit(course, "many_cells", nb)


@pytest.mark.parametrize("student", sorted(ATTACKS) + sorted(GRADER_ATTACKS) + [
    "reference", "partial", "sleeping_thread", "fake_test_cell", "honest_helper_module", "many_cells"])
def test_each_submission_earns_exactly_what_it_solved(hostile, student):
    row = hostile["rows"][student]
    # (lone_surrogates wrote its answer graded by hand: it waits for a grader)
    assert row["status"] == ("provisional" if student == "lone_surrogates" else "final"), \
        f"{student}: {row['reason']}"
    assert row["score"] == _expected(student), f"{student}: {row['parts']}"
    if student in ATTACKS:
        attacked = ATTACKS[student][1]
        assert row["parts"][attacked] == 0
        assert all(row["parts"][ex] == pts for ex, pts in POINTS.items() if ex != attacked), row["parts"]


@pytest.mark.parametrize("student", ["links_to_the_solution", "links_to_a_classmate", "links_assignment_to_source"])
def test_a_submission_that_is_a_link_at_any_level_is_not_graded_nor_fed_back(hostile, student):
    row = hostile["rows"][student]
    assert row["status"] == "ungraded" and row["score"] is None
    assert "symbolic link" in row["reason"], row["reason"]
    assert not (hostile["course"] / "autograded" / student).exists() or not any(
        (hostile["course"] / "autograded" / student).rglob("*.ipynb"))


def test_a_student_folder_named_like_a_pattern_is_not_graded_and_changes_no_one_else(hostile):
    row = hostile["rows"]["r*"]
    assert row["status"] == "ungraded" and row["score"] is None
    assert "pattern" in row["reason"], row["reason"]
    assert not any((hostile["course"] / "autograded" / "r*").rglob("*.ipynb"))
    assert hostile["rows"]["reference"]["score"] == _expected("reference")


def test_the_autograded_notebooks_stay_small(hostile):
    for path in (hostile["course"] / "autograded").rglob("*.ipynb"):
        if "many_cells" not in path.parts:
            assert path.stat().st_size < 1_000_000, path


def test_a_notebook_s_outputs_stay_within_the_output_budget_and_its_feedback_too(hostile):
    """300 cells of 20,000 printed characters each (6 MB of output): the notebook keeps 2 MB of it, then a note."""
    from grading.feedback import feedback
    from grading.limits import GradingLimits

    course, budget = hostile["course"], GradingLimits().output_budget
    path = course / "autograded" / "many_cells" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = nbformat.read(path, as_version=4)
    kept = sum(len(o.get("text", "")) for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert budget * 0.9 < kept <= budget
    source = sum(len(c.source) for c in nb.cells)
    assert path.stat().st_size < 2 * (budget + source), path.stat().st_size
    assert any("output budget" in o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    feedback(course, ASSIGNMENT, student="many_cells", echo=lambda *a: None)
    page = course / "feedback" / "many_cells" / ASSIGNMENT / f"{ASSIGNMENT}.html"
    assert page.stat().st_size < 3 * (budget + source) + 2_000 * MANY_CELLS, page.stat().st_size


def test_nbgrader_metadata_and_text_the_student_wrote_cannot_make_a_submission_ungraded(hostile):
    for student in ("bogus_cell_type", "lone_surrogates"):
        row = hostile["rows"][student]
        assert row["status"] in ("final", "provisional") and row["parts"]["radius"] == 0, (student, row)
    path = hostile["course"] / "autograded" / "lone_surrogates" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    text = path.read_bytes().decode("utf-8")          # valid UTF-8 throughout
    assert "\ufffd" in text or "\\ufffd" in text


def test_a_function_below_an_endless_loop_in_its_cell_is_never_defined(hostile):
    nb = nbformat.read(hostile["course"] / "autograded" / "loop_above_its_function" / ASSIGNMENT
                       / f"{ASSIGNMENT}.ipynb", as_version=4)
    assert _cell(nb, "predict-solution").outputs[-1]["ename"] == "CellTimeoutError"
    evalue = _cell(nb, "predict-classifies-by-sign-of-score").outputs[-1]["evalue"]
    assert "name 'predict' is not defined" in evalue, evalue


def test_hidden_test_cells_show_their_verdict_only(hostile):
    """No value, display or printed text of a test cell holding hidden tests reaches the autograded notebook."""
    source = nbformat.read(hostile["course"] / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    hidden = {c.metadata["nbgrader"]["grade_id"] for c in source.cells if "### BEGIN HIDDEN TESTS" in c.source}
    assert hidden
    for path in (hostile["course"] / "autograded").rglob(f"{ASSIGNMENT}.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id") in hidden and cell.cell_type == "code":
                assert all(o["output_type"] == "error" for o in cell.outputs), (path, cell.outputs)


def test_withheld_functions_are_named_in_the_feedback(hostile):
    nb = nbformat.read(hostile["course"] / "autograded" / "getattr_reversed" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    text = "\n".join(str(o.get("evalue", "")) for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "`course_lib.pla` is not available while ps1_perceptron is graded: write it yourself" in text


def test_no_file_of_the_course_or_of_another_student_changed(hostile):
    course = hostile["course"]
    for name, digest in hostile["protected"].items():
        assert _digest(course / name) == digest, f"{name}/ changed during grading"
    assert (course / "nbgrader_config.py").read_bytes() == hostile["config"]
    assert not (course / "judge-ran-student-code").exists(), "a student's cell ran outside the sandbox"
    assert (course / "submitted" / "reference" / ASSIGNMENT / "notes.txt").read_text() == "my notes\n"


def test_gradebook_is_intact(hostile):
    db = sqlite3.connect(hostile["course"] / "gradebook.db")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    sources = dict(db.execute("SELECT name, source FROM source_cell").fetchall())
    source_nb = nbformat.read(hostile["course"] / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for cell in source_nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        meta = cell.metadata["nbgrader"] if "nbgrader" in cell.metadata else {}
        if gid in sources and meta.get("grade") and not meta.get("solution"):   # test cells, not answers
            assert sources[gid] == cell.source, f"the hidden tests of {gid} changed in the gradebook"
    top = db.execute("SELECT MAX(auto_score) FROM grade").fetchone()[0]
    assert top <= max(POINTS.values())


def test_no_network_connection_was_made(hostile):
    assert hostile["connections"] == []


def test_nothing_outlives_the_run(hostile):
    assert not hostile["leftover"], hostile["leftover"]
