"""The grading engine on one submission: every failure is one cell's, nothing blocks or bloats.

Each test builds a small notebook with a hostile cell, runs it through
``grading.engine.execute_submission`` (a real sandboxed worker) and checks the outcome of
every cell. A test passes on the state it reaches, never on how long it took.
"""
import json
import os
import pickle

import nbformat
import pytest

from grading.engine import execute_submission, read_files
from grading.limits import GradingLimits
from grading.sandbox import sandbox_mode

pytestmark = pytest.mark.skipif(sandbox_mode() == "off", reason="GRADING_SANDBOX=off")

TEST_META = {"grade": True, "solution": False, "locked": True, "points": 1, "schema_version": 3}


def notebook(*cells):
    """Code cells; a ``("test", grade_id, source)`` tuple is a test cell."""
    nb = nbformat.v4.new_notebook()
    tests = {}
    for cell in cells:
        if isinstance(cell, tuple):
            _, gid, source = cell
            nb.cells.append(nbformat.v4.new_code_cell(source, metadata={"nbgrader": dict(TEST_META, grade_id=gid)}))
            tests[gid] = source
        else:
            nb.cells.append(nbformat.v4.new_code_cell(cell))
    return nb, tests


def run(nb, tests, *, timeout=10, submission_timeout=600, **kwargs):
    limits = GradingLimits(timeout=timeout, submission_timeout=submission_timeout)
    return execute_submission(nb, tests=tests, limits=limits, **kwargs)


def outcomes(report):
    return report.outcomes()


def test_arguments_and_results_are_plain_data(tmp_path):
    nb, tests = notebook("def f():\n    return 1", ("test", "t", "assert f() == 1"))
    args = dict(notebook=nb, tests=tests, files={"a.txt": b"x"}, assignment="ps", student="s", submission="d",
                secret=b"k", limits=GradingLimits(timeout=10))
    assert pickle.loads(pickle.dumps(args)) == args
    done, report = execute_submission(**args)
    assert pickle.loads(pickle.dumps((done, report)))[1] == report
    assert report.status == "graded" and outcomes(report) == ["ok", "ok"]


def test_a_helper_module_beside_the_notebook_is_importable_and_the_folder_is_the_cwd(tmp_path):
    (tmp_path / "helper.py").write_text("def double(x):\n    return 2 * x\n")
    (tmp_path / "data.csv").write_text("1,2\n")
    nb, tests = notebook("from helper import double\nrows = open('data.csv').read()",
                         ("test", "t", "assert double(21) == 42 and rows == '1,2\\n'"))
    _, report = run(nb, tests, files=tmp_path)
    assert outcomes(report) == ["ok", "ok"]


def test_a_death_fails_its_cell_and_keeps_the_definitions_made_before_it(tmp_path):
    nb, tests = notebook("def f():\n    return 42\nimport os\nos._exit(1)",
                         "x = 1",
                         ("test", "t", "assert f() == 42 and x == 1"))
    _, report = run(nb, tests)
    assert report.status == "graded"
    assert outcomes(report) == ["died", "ok", "ok"]


def test_a_cell_stopped_for_time_keeps_what_ran_before_it_stopped_and_nothing_after():
    # as in Jupyter: f and np exist, g (after the endless loop) never did; the rest is graded
    nb, tests = notebook("import numpy as np\ndef f():\n    return 42\nx = np.ones(2)\nwhile True:\n    pass\n"
                         "def g():\n    return 1",
                         ("test", "before", "assert f() == 42 and x.tolist() == [1.0, 1.0]"),
                         ("test", "after", "assert g() == 1"))
    done, report = run(nb, tests, timeout=2)
    assert outcomes(report) == ["timeout", "ok", "error"]
    assert done.cells[0].outputs[-1]["ename"] == "CellTimeoutError"
    assert "of CPU time" in done.cells[0].outputs[-1]["evalue"]
    assert "name 'g' is not defined" in done.cells[2].outputs[-1]["evalue"]


def test_an_endless_loop_in_a_cell_of_its_own_loses_that_cell_only():
    nb, tests = notebook("def f():\n    return 42", "while True:\n    pass", "def g():\n    return 1",
                         ("test", "t", "assert f() == 42 and g() == 1"))
    _, report = run(nb, tests, timeout=2)
    assert outcomes(report) == ["ok", "timeout", "ok", "ok"]


def test_a_cell_that_blocks_is_stopped_by_the_wall_clock_backstop():
    # it waits for an event nothing sets: no CPU time, so only the backstop stops it
    nb, tests = notebook("def f():\n    return 42\nimport threading\nthreading.Event().wait()\ndef g():\n    return 1",
                         ("test", "t", "assert f() == 42"))
    done, report = run(nb, tests, timeout=1)
    assert outcomes(report) == ["timeout", "ok"]
    assert "5 s of wall-clock time" in done.cells[0].outputs[-1]["evalue"]


def test_the_submission_budget_stops_the_cells_left():
    nb, tests = notebook("while True:\n    pass", "while True:\n    pass", "while True:\n    pass",
                         "y = 2", ("test", "t", "assert y == 2"))
    _, report = run(nb, tests, timeout=3, submission_timeout=5)
    got = outcomes(report)
    # (on a busy machine 3 s of CPU time may take more than the 5-s budget: the first cell then ends with it)
    assert got[0] in ("timeout", "budget") and got[-1] == "budget" and got[-2] == "budget", got
    assert "ok" not in got


def _forge(message):
    """Student code that writes ``message`` (Python code of a dict) to the grader's pipe, through the worker's frame."""
    return ("import sys\n"
            "def forge(extra=None):\n"
            "    frame = sys._getframe(1)\n"
            "    while frame is not None and not ('state' in frame.f_locals and 'req' in frame.f_locals):\n"
            "        frame = frame.f_back\n"
            "    req = frame.f_locals['req']\n"
            f"    frame.f_locals['state'].reply(dict({message}, id=req['id']) if extra is None else extra)\n")


def test_a_forged_reply_then_a_deaf_process_fails_the_cell_and_never_blocks():
    # the function answers for itself, then stops reading: the next (large) request cannot be written
    nb, tests = notebook(_forge('{"result": 42, "error": None, "stdout": ""}')
                         + "def f():\n    forge()\n    while True:\n        pass\n"
                         + "def g(x):\n    return 1\n"
                         + "def h():\n    return 3",
                         ("test", "t1", "import numpy as np\nf()\nassert g(np.zeros(1_000_000)) == 1"),
                         ("test", "t2", "assert h() == 3"))
    _, report = run(nb, tests, timeout=3)
    assert outcomes(report) == ["ok", "timeout", "ok"]


@pytest.mark.parametrize("f_body, timeout", [
    # answers for itself, then keeps running: its own test fails, not the next one
    ("    forge()\n    while True:\n        pass\n", 3),
    # sends a reply to a request that was never made
    ("    forge({'id': 10**6, 'result': 5})\n    return 1\n", 10),
], ids=["answers-for-itself-and-keeps-running", "answers-no-request"])
def test_a_forged_reply_fails_its_test_only(f_body, timeout):
    nb, tests = notebook(_forge('{"result": 1, "error": None, "stdout": ""}')
                         + "def f():\n" + f_body
                         + "def h():\n    return 3",
                         ("test", "t1", "assert f() == 1"),
                         ("test", "t2", "assert h() == 3"))
    _, report = run(nb, tests, timeout=timeout)
    assert outcomes(report) == ["ok", "protocol", "ok"]


def test_oversized_and_malformed_messages_fail_the_cell_and_stay_small():
    spam = ("import os\n"
            "def spam():\n"
            "    for fd in range(3, 12):\n"
            "        try:\n"
            "            os.write(fd, b'{' + b'x' * (40 * 1024**2))\n"
            "        except OSError:\n"
            "            pass\n"
            "    return 1\n"
            "def garbage():\n"
            "    for fd in range(3, 12):\n"
            "        try:\n"
            "            os.write(fd, b'[1, 2]\\n')\n"
            "        except OSError:\n"
            "            pass\n"
            "    return 1\n"
            "def h():\n    return 3")
    nb, tests = notebook(spam, ("test", "t1", "assert spam() == 1"), ("test", "t2", "assert garbage() == 1"),
                         ("test", "t3", "assert h() == 3"))
    done, report = run(nb, tests, timeout=20)
    assert outcomes(report) == ["ok", "protocol", "protocol", "ok"]
    assert len(json.dumps(done)) < 200_000


@pytest.mark.slow  # the looping cell runs until its 120-s timeout ends it (see below)
def test_forged_huge_output_fails_the_cell_and_the_notebook_stays_small():
    nb, tests = notebook("print('y' * 10**7)",
                         _forge('{"error": None, "stdout": "x" * (25 * 1024**2)}') + "forge()\nwhile True:\n    pass",
                         _forge('{"error": {"ename": "E", "evalue": "x" * (25 * 1024**2)}, "stdout": ""}') + "forge()",
                         "z = 3", ("test", "t", "assert z == 3"))
    # A forged reply of the right size looks like an answer; the ping that follows every reply finds
    # it out (the student's loop keeps the worker from answering), and that ping may wait the rest
    # of the cell's time, since an honest worker on a busy machine must never be failed by a short
    # bound. So the forger costs the grader what an endless loop costs, no more. Either way the
    # 25 MB it sent is not kept: the notebook stays small.
    done, report = run(nb, tests, timeout=120)
    assert outcomes(report) == ["ok", "protocol", "protocol", "ok", "ok"]
    assert len(json.dumps(done)) < 200_000
    assert "more characters" in done.cells[0].outputs[0]["text"]


def test_too_many_scratch_files_fail_the_cell_and_a_fresh_start_is_clean():
    # the fresh process starts on an empty scratch space; the statements before the flood (mkdir) run again
    nb, tests = notebook("import os\nos.mkdir('d')\nfor i in range(12_000):\n    open(f'd/{i}', 'w').close()",
                         "import os\nn = sorted(os.listdir('.')), len(os.listdir('d'))",
                         ("test", "t", "assert n == [['d'], 0]"))
    _, report = run(nb, tests, timeout=30)
    assert outcomes(report) == ["scratch", "ok", "ok"]


# The historical attack: 223,000 small files, each restart then re-owned every one of them. The
# submission first switches off every guard its own process could hold (the worker's module,
# os.scandir), then fills its working folder and /tmp. The bound is kept by the grader.
FLOOD = """import os, sys
main = sys.modules.get('__main__')
for name in dir(main):
    if 'file' in name.lower() or 'scratch' in name.lower():
        setattr(main, name, lambda *a, **k: False)
os.scandir = os.listdir = lambda *a, **k: iter(())
def helper():
    return 7
for top in ('.', '/tmp'):
    for d in range(223):
        os.makedirs(f'{top}/flood{d}', exist_ok=True)
        for i in range(500):
            open(f'{top}/flood{d}/{i}', 'w').close()
"""


def test_a_flood_of_files_with_the_process_s_own_guards_off_fails_its_cell_only(monkeypatch):
    import os

    from grading.sandbox import Limits, Sandbox

    def no_reowning(*args, **kwargs):
        raise AssertionError("the grader re-owned a file")

    monkeypatch.setattr(os, "chown", no_reowning)
    monkeypatch.setattr(os, "lchown", no_reowning)
    box = Sandbox(limits=Limits(scratch_files=2_000))
    # (the flood's own os.listdir is still in place after the replay: the folders are counted by their links)
    nb, tests = notebook(FLOOD,
                         "import os\nleft = os.stat('.').st_nlink - 2 + os.stat('/tmp').st_nlink - 2",
                         ("test", "t1", "assert helper() == 7"),
                         ("test", "t2", "assert left == 0"))
    done, report = run(nb, tests, timeout=120, sandbox=box)
    assert report.status == "graded"
    assert outcomes(report) == ["scratch", "ok", "ok", "ok"]      # the definitions above the flood are kept
    assert report.restarts == 1
    error = done.cells[0].outputs[-1]
    assert error["ename"] == "ScratchSpaceError" and "at most 2000 are allowed" in error["evalue"]
    # the next student, in the same grader, is graded as usual
    nb, tests = notebook("def helper():\n    return 7", ("test", "t1", "assert helper() == 7"))
    _, report = run(nb, tests, sandbox=box)
    assert outcomes(report) == ["ok", "ok"]


def test_a_folder_that_is_a_link_is_refused(tmp_path):
    from grading.engine import SubmissionRefused

    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(SubmissionRefused, match="symbolic link"):
        read_files(tmp_path / "link")


def test_files_below_are_read_without_following_links(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the instructor's")
    sub = tmp_path / "sub"
    (sub / "pkg").mkdir(parents=True)
    (sub / "pkg" / "m.py").write_text("x = 1\n")
    (sub / "leak.txt").symlink_to(secret)
    (sub / "dirlink").symlink_to(tmp_path)
    (sub / "timestamp.txt").write_text("2024-03-01 12:00:00.123456 UTC")   # nbgrader's, outside the digest
    (sub / "pkg" / "timestamp.txt").write_text("the student's own")
    files, notes = read_files(sub)
    assert files == {"pkg/m.py": b"x = 1\n", "pkg/timestamp.txt": b"the student's own"}
    assert len(notes) == 2 and all("link" in n for n in notes)


def test_without_the_sandbox_the_machine_s_own_tmp_is_not_counted_as_scratch_space(monkeypatch):
    from grading.sandbox import Sandbox

    monkeypatch.setenv("GRADING_SANDBOX", "off")
    nb, tests = notebook("import os\nhome = os.environ['HOME']",
                         ("test", "t", "assert home.startswith('/tmp/grading-')"))
    _, report = run(nb, tests, sandbox=Sandbox())
    assert outcomes(report) == ["ok", "ok"]


def test_arguments_a_function_modifies_are_modified_for_the_test_as_in_jupyter():
    # an SGD step that updates w in place, a list extended, a dict filled: the test sees what Jupyter's caller sees
    nb, tests = notebook("import numpy as np\n"
                         "def step(w, X):\n    w -= 0.5 * X[0]\n    X[1, 1] = 7.0\n    return w\n"
                         "def grow(xs, d):\n    xs.append(3)\n    xs[0][0] = 9\n    d['k'] = [1.5]\n    return len(xs)\n"
                         "def fails(w):\n    w[0] = 5.0\n    raise ValueError('after the change')\n"
                         "def pure(w):\n    return w * 2",
                         ("test", "arrays", "import numpy as np\n"
                          "w = np.array([1.0, 2.0]); X = np.eye(2); alias = w\n"
                          "got = step(w, X)\n"
                          "assert alias.tolist() == [0.5, 2.0] and X.tolist() == [[1.0, 0.0], [0.0, 7.0]]\n"
                          "assert got.tolist() == [0.5, 2.0]"),
                         ("test", "lists", "inner = [0, 1]\nxs = [inner, 2]\nd = {}\n"
                          "assert grow(xs, d) == 3 and xs == [[9, 1], 2, 3] and inner == [9, 1] and d == {'k': [1.5]}"),
                         ("test", "raised", "import numpy as np\nw = np.zeros(2)\n"
                          "try:\n    fails(w)\nexcept Exception:\n    pass\nassert w.tolist() == [5.0, 0.0]"),
                         ("test", "guarded", "import numpy as np\nfrom grading.checks import arguments_unchanged\n"
                          "w = np.ones(2)\nwith arguments_unchanged('pure', w=w):\n    pure(w)\n"
                          "with arguments_unchanged('step', w=w, X=np.eye(2)):\n    step(w, np.eye(2))"))
    done, report = run(nb, tests)
    assert outcomes(report) == ["ok", "ok", "ok", "ok", "error"]
    assert "step changed its argument w" in done.cells[-1].outputs[-1]["evalue"]


def test_a_forged_list_of_changed_arguments_cannot_reach_beyond_the_call_s_arguments():
    # the function answers for itself with 'changed' entries that name no argument, a wrong shape, an object array
    nb, tests = notebook(_forge('{"result": 1, "error": None, "stdout": "", "changed": {"5": 1, "kw:x": 2, '
                                '"0": {"__ndarray__": "AAAAAAAAAAA=", "dtype": "<f8", "shape": [1]}, '
                                '"1": {"__ndarray__": "", "dtype": "|O", "shape": [0]}}}')
                         + "def f(w, v):\n    forge()\n    return 1\n",
                         ("test", "t", "import numpy as np\nw = np.ones(2); v = np.ones(2)\n"
                          "f(w, v)\nassert w.tolist() == [1.0, 1.0] and v.tolist() == [1.0, 1.0]"))
    _, report = run(nb, tests)
    # the forged reply leaves the worker out of step, so the cell fails ("protocol"); had anything been written
    # into the test's arrays, its assertion would have failed first ("error")
    assert outcomes(report) == ["ok", "protocol"]


def test_code_nested_200_000_deep_fails_its_cell_and_the_grader_goes_on():
    nb, tests = notebook("def radius(X):\n    return X" + ".T" * 200_000, "y = 2", ("test", "t", "assert y == 2"))
    done, report = run(nb, tests)
    assert report.status == "graded" and outcomes(report) == ["error", "ok", "ok"]
    assert done.cells[0].outputs[-1]["ename"] == "RecursionError"


def test_the_grader_never_parses_or_transforms_a_student_s_cell(monkeypatch):
    """123 KB of %time magics and plain lines: IPython's transformer re-tokenizes the cell once per magic (minutes
    of CPU). It runs in the sandbox, under the cell's limit; the grader itself never transforms the cell."""
    from IPython.core.inputtransformer2 import TransformerManager

    def refuse(self, cell):
        raise AssertionError("the grader transformed a student's cell")

    monkeypatch.setattr(TransformerManager, "transform_cell", refuse)
    magics = "\n".join(f"%time x{i} = {i}" if i % 2 == 0 else f"y{i} = {i}" for i in range(8_200))
    assert len(magics) > 120_000
    nb, tests = notebook("def g():\n    return 2", magics + "\ndef f():\n    return 1", "y = 3",
                         "z = 1\n" * 200_000,
                         ("test", "kept", "assert g() == 2 and y == 3"), ("test", "lost", "assert f() == 1"),
                         ("test", "refused", "assert z == 1"))
    done, report = run(nb, tests, timeout=2)
    assert outcomes(report) == ["ok", "timeout", "ok", "error", "ok", "error", "error"]
    assert done.cells[3].outputs[-1]["ename"] == "CellTooLarge"      # 1.2 MB of code: refused, not run


@pytest.mark.slow
def test_verdicts_do_not_depend_on_the_machine_s_load():
    """The same honest and looping submission, graded on an idle machine and with every core busy: the same verdicts.

    The honest test needs about 0.6 s of CPU time against a limit of 1.5 s: counted in wall-clock time it fails as
    soon as the student's process gets less than 40 % of a core, which three busy processes per core bring about."""
    from benchmarks.load import busy_cores

    nb, tests = notebook("def work(n):\n    s = 0\n    for i in range(n):\n        s += i % 7\n    return s\n"
                         "def spin():\n    while True:\n        pass",
                         ("test", "honest", "n = 25_000_000\nassert work(n) == 21 * (n // 7) + sum(range(n % 7))"),
                         ("test", "loops", "spin()"))
    limits = GradingLimits(timeout=1.5, wall_factor=40)
    idle = execute_submission(nb, tests=tests, limits=limits)[1].outcomes()
    with busy_cores(3 * (os.cpu_count() or 1)):
        busy = execute_submission(nb, tests=tests, limits=limits)[1].outcomes()
    assert idle == busy == ["ok", "ok", "timeout"]


def _every_assignment():
    from grading_helpers import ROOT
    return sorted(p.name for p in (ROOT / "source").iterdir() if any(p.glob("*.ipynb")))


@pytest.mark.slow
@pytest.mark.parametrize("assignment", _every_assignment())
def test_hidden_tests_show_their_verdict_only_in_every_assignment(assignment):
    """Every graded function prints and returns what it was given: no test cell holding hidden tests shows a value, a
    display or what the student's code printed (whatever the test does), only its verdict, in every assignment."""
    import re

    from grading_helpers import ROOT

    from grading.cells import grade_id, has_hidden_tests, is_setup_cell, is_solution_cell, is_test_cell

    source = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    tests = {grade_id(c): c.source for c in source.cells if is_test_cell(c)}
    setups = {grade_id(c): c.source for c in source.cells if is_setup_cell(c)}
    nb = nbformat.read(ROOT / "release" / assignment / f"{assignment}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and is_solution_cell(cell):
            names = re.findall(r"^def (\w+)\(", cell.source, re.M)
            answers = re.findall(r"answer_\d+", cell.source)
            cell.source = "".join(f"def {n}(*args, **kwargs):\n    print('STUDENT-PRINTED', args)\n"
                                  f"    return args[0] if args else 1\n" for n in names)
            cell.source += "".join(f"{a} = 2\nprint('STUDENT-PRINTED', {a})\n" for a in answers) or "pass"
    done, report = execute_submission(nb, tests=tests, setups=setups, assignment=assignment, student="echo",
                                      submission="d", secret=b"k", limits=GradingLimits(timeout=30))
    assert report.status == "graded"
    hidden = [c for c in done.cells if is_test_cell(c) and has_hidden_tests(tests.get(grade_id(c)))]
    assert len(hidden) == sum(has_hidden_tests(t) for t in tests.values()) > 0
    for cell in hidden:
        assert [o["output_type"] for o in cell.outputs] in ([], ["error"]), (grade_id(cell), cell.outputs)
        assert "STUDENT-PRINTED" not in json.dumps(cell.outputs), grade_id(cell)
    assert any(cell.outputs for cell in hidden)           # the echoes fail the tests, with a message


def test_outputs_stay_within_the_notebook_s_budget_and_a_failing_test_still_fails():
    nb, tests = notebook(*[f"print('{i}' * 20_000)" for i in range(12)],
                         ("test", "fails", "assert 1 == 2, 'x' * 30_000"), ("test", "passes", "pass"))
    limits = GradingLimits(output_budget=85_000)
    done, report = execute_submission(nb, tests=tests, limits=limits)
    assert report.outcomes() == ["ok"] * 12 + ["error", "ok"]
    texts = [o.get("text", "") for c in done.cells for o in c.outputs if o["output_type"] == "stream"]
    assert sum(map(len, texts)) <= 85_000 + 200 and sum("output budget" in t for t in texts) == 1
    failing = done.cells[12].outputs
    assert [o["output_type"] for o in failing] == ["error"] and len(failing[0]["evalue"]) < 400


def test_after_the_first_hidden_test_the_student_s_cells_keep_little_output():
    hidden = "assert 1\n### BEGIN HIDDEN TESTS\nassert f(41) == 42\n### END HIDDEN TESTS"
    nb, tests = notebook("def f(x):\n    print('during the test', x)\n    return x + 1", "print('a' * 5_000)",
                         ("test", "hidden", hidden), "print('b' * 5_000)", "raise ValueError('c' * 5_000)")
    done, report = run(nb, tests)
    assert report.outcomes() == ["ok", "ok", "ok", "ok", "error"]
    assert len(done.cells[1].outputs[0]["text"]) > 5_000                 # before it: as usual
    assert done.cells[2].outputs == []                                    # the hidden test: its verdict only
    assert len(done.cells[3].outputs[0]["text"]) < 1_100                  # after it: a small cap
    assert len(done.cells[4].outputs[0]["evalue"]) < 1_100


MANY_TINY_LISTS = '''
def f():
    return [[0]] * 3_000_000          # 12 MB of "[0]," on the wire: 3 million lists for whoever parses it
'''
_GRADER_PEAK = '''
import json, resource, sys
import nbformat
from grading.engine import execute_submission
from grading.limits import GradingLimits
meta = {"grade": True, "solution": False, "locked": True, "points": 1, "schema_version": 3}
source = json.loads(sys.argv[1])
cells = [nbformat.v4.new_code_cell(source[0]),
         nbformat.v4.new_code_cell("r = f()\\nassert len(r) > 0", metadata={"nbgrader": dict(meta, grade_id="t")}),
         nbformat.v4.new_code_cell("ok = 1"),
         nbformat.v4.new_code_cell("assert ok == 1", metadata={"nbgrader": dict(meta, grade_id="u")})]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
_, report = execute_submission(nbformat.v4.new_notebook(cells=cells), tests={"t": cells[1].source, "u": cells[3].source},
                               limits=GradingLimits(timeout=60))
print(json.dumps({"outcomes": report.outcomes(),
                  "grown_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024}))
'''


def test_a_reply_of_millions_of_tiny_values_is_refused_before_the_grader_parses_it():
    """The grader's own memory is outside the sandbox's limits: a 12 MB reply of 3 million one-element lists took
    640 MB of it to parse (32 MB, the largest message, 1.7 GB and 10 s). It is refused unread; the cell fails, the
    next one runs."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", _GRADER_PEAK, json.dumps([MANY_TINY_LISTS])], capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["outcomes"] == ["ok", "protocol", "ok", "ok"], result
    assert result["grown_mb"] < 200, result
