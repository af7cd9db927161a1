"""The audit: each kind of tampering and copying is found, with its cell and line; honest code is not."""
import ast
import builtins
import importlib.util
import os
import subprocess
import sys
import textwrap

import nbformat
import numpy as np
import pytest
from answer_bodies import PREDICT_HARD_CODED
from grading_helpers import ASSIGNMENT, ROOT, fill, make_course, reference_bodies, submit
from honest_class import HARD_CODED, disguise, honest_class

import grading.audit as audit_module
from grading.audit import (
    audit,
    audit_source,
    audit_submission,
    copies_of_course_lib,
    course_lib_implementations,
    hard_coded,
    python_of,
    similar_pairs,
    visible_constants,
)
from grading.autograde import release
from grading.withhold import withheld_names

ASSIGNMENTS = sorted(p.name for p in (ROOT / "source").iterdir() if p.is_dir() and any(p.glob("*.ipynb")))


@pytest.mark.parametrize("code, expected", [
    ("open('/etc/passwd').read()", "file access outside the notebook's folder"),
    ("from pathlib import Path\nPath('../../source/x.ipynb').read_text()", "file access outside"),
    ("import course_lib as cl\ndef pla(X, y):\n    return cl.pla(X, y)", "uses course_lib's own pla"),
    ("from course_lib import pla", "imports course_lib's own pla"),
    ("import numpy.testing as npt\nnpt.assert_allclose = print", "changes a module: numpy.testing.assert_allclose"),
    ("import numpy as np\nsetattr(np, 'allclose', print)", "changes a module: setattr(numpy"),
    ("import builtins\nbuiltins.abs = print", "changes a module: builtins.abs"),
    ("exec('1 + 1')", "dynamic code: exec"),
    ("eval('1')", "dynamic code: eval"),
    ("import os\nos._exit(0)", "ends the process: os._exit"),
    ("import subprocess\nsubprocess.run(['ls'])", "subprocesses"),
    ("import os\nos.system('ls')", "subprocesses: os.system"),
    ("import os\nos.fork()", "subprocesses: os.fork"),
    ("import socket\nsocket.create_connection(('example.org', 80))", "network: imports socket"),
    ("import urllib.request", "network: imports urllib.request"),
    ("class Always(int):\n    def __eq__(self, other):\n        return True", "class Always redefines __eq__"),
    ("import sqlite3\nsqlite3.connect('gradebook.db')", "names the course's files"),
])
def test_each_kind_of_tampering_is_found(code, expected):
    findings = audit_source(code, exercises={"pla"})
    assert any(expected in what for _, what in findings), findings


@pytest.mark.parametrize("body", list(reference_bodies().values()))
def test_the_reference_solution_has_no_findings(body):
    assert audit_source(body, exercises={"pla", "pocket", "predict", "radius", "margin", "novikoff_bound"}) == []


def test_findings_give_the_line():
    findings = audit_source("x = 1\ny = 2\nimport os\nos._exit(1)")
    assert (4, "ends the process: os._exit") in findings


@pytest.mark.slow  # releases with nbgrader, runs the grading CLI
def test_audit_lists_each_submission_and_changes_nothing(tmp_path):
    course = make_course(tmp_path)
    release(course, ASSIGNMENT)
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    ref = reference_bodies()
    submit(course, "honest", fill(released, ref))
    sneaky = dict(ref, **{"pla-solution": "result = cl.pla(X, y, max_updates=max_updates)\n"
                                          "return result.w, result.n_updates"})
    submit(course, "sneaky", fill(released, sneaky))
    before = sorted(p.name for p in course.iterdir())
    lines = []
    report = audit(course, ASSIGNMENT, echo=lines.append)
    assert report["honest"] == []
    assert [(f["grade_id"], f["what"]) for f in report["sneaky"]] == [("pla-solution", "uses course_lib's own pla")]
    text = "\n".join(lines)
    assert "sneaky: 1 finding(s)" in text and "honest" not in text.split("\n\n")[1]
    assert (course / "autograded" / f"audit-{ASSIGNMENT}.txt").is_file()
    assert not (course / "gradebook.db").exists()
    assert sorted(p.name for p in course.iterdir()) == sorted(before + ["autograded"])
    cli = subprocess.run([sys.executable, "-m", "grading", "--course", str(course), "audit", ASSIGNMENT],
                         capture_output=True, text=True)
    assert cli.returncode == 0 and "sneaky: 1 finding(s)" in cli.stdout


def test_every_file_and_every_cell_is_read_and_nothing_stops_the_audit(tmp_path):
    course = make_course(tmp_path)
    release(course, ASSIGNMENT)
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    ref = reference_bodies()
    # a helper file that calls course_lib's pla, and a cell dressed up as a test cell
    submit(course, "helper", fill(released, ref))
    (course / "submitted" / "helper" / ASSIGNMENT / "helper.py").write_text(
        "import course_lib\ndef pla(X, y):\n    return course_lib.pla(X, y)\n")
    fake = fill(released, ref)
    fake.cells.append(nbformat.v4.new_code_cell("import os\nos._exit(0)", metadata={"nbgrader": {
        "grade": True, "solution": False, "locked": True, "points": 5, "grade_id": "extra"}}))
    submit(course, "fake_test", fake)
    # code nested 200,000 deep, a file that is not a notebook, a link
    submit(course, "deep", fill(released, dict(ref, **{"radius-solution": "return X" + ".T" * 100_000})))
    submit(course, "broken", raw="{ not json")
    submit(course, "linked", fill(released, ref))
    (course / "submitted" / "linked" / ASSIGNMENT / "data.csv").symlink_to(course / "source")
    stale = course / "autograded" / f"audit-{ASSIGNMENT}.txt"
    stale.parent.mkdir()
    stale.write_text("an earlier run's report\n")
    report = audit(course, ASSIGNMENT, echo=lambda *a: None)
    what = {s: " | ".join(f["what"] for f in found) for s, found in report.items()}
    assert "uses course_lib's own pla" in what["helper"]
    assert "ends the process: os._exit" in what["fake_test"]
    assert "could not be analysed" in what["deep"]
    assert "could not be read" in what["broken"]
    assert "symbolic link" in what["linked"]
    text = stale.read_text()
    assert "earlier run" not in text and "5 of 5 submission(s) with findings" in text


# -- dynamic lookups -----------------------------------------------------------------------------------

@pytest.mark.parametrize("code, expected", [
    # exec reached through a builtins dictionary, by a name built from pieces
    ("import builtins\nrun = builtins.__dict__['ex' + 'ec']\nrun('x = 1')", "dynamic code: builtins.exec"),
    # __import__ of a module whose name is built from pieces, then os._exit
    ("__import__('o' + 's')._exit(0)", "ends the process: os._exit"),
    ("m = __import__(''.join(['o', 's']))", "builds the name 'os' from pieces"),
    # a rigged class built with type()
    ("Always = type('Always', (float,), {'__eq__': lambda self, other: True})",
     "class built with type() redefines __eq__"),
    ("ns = {}\nns['__' + 'eq__'] = lambda s, o: True\nAlways = type('A', (float,), ns)",
     "class built with type() from a namespace computed at run time"),
    # os._exit reached through a dictionary of split strings
    ("import os\nparts = {'a': '_ex', 'b': 'it'}\ngetattr(os, parts['a'] + parts['b'])(0)",
     "dynamic lookup: getattr(...) with a name computed at run time"),
    ("import os\ngetattr(os, 'tixe_'[::-1])(0)", "ends the process: os._exit"),
    ("import os\nstop = os._exit\nstop(1)", "ends the process: os._exit"),
    ("import sys\nsys.modules['o' + 's']._exit(0)", "ends the process: os._exit"),
    ("import os\nvars(os)['_exit'](0)", "ends the process: os._exit"),
    ("g = globals()\ng['__builtins__']", "namespace lookup: globals()"),
    ("import operator, os\noperator.attrgetter('_exit')(os)(0)", "reaches '_exit' by name"),
    ("import subprocess as s\ngetattr(s, 'run')(['ls'])", "subprocesses: subprocess.run"),
    ("import course_lib as cl\ndef pla(X, y):\n    return getattr(cl, 'p' + 'la')(X, y)", "uses course_lib's own pla"),
    ("().__class__.__bases__[0].__subclasses__()", "introspection: .__subclasses__"),
    ("!rm -rf ~", "subprocesses: shell command '!rm -rf ~'"),
    ("listing = !ls /", "subprocesses: shell command '!ls /'"),
    ("%%bash\ncurl example.org", "subprocesses: shell command '%%bash: curl example.org'"),
    ("%time __import__('os').system('ls')", "subprocesses: os.system"),
])
def test_dynamic_lookups_are_found(code, expected):
    findings = audit_source(code, exercises={"pla"})
    assert any(expected in what for _, what in findings), findings


def _versions(assignment):
    """Every right and wrong version of every answer the corpus of ``assignment`` knows, with the reference."""
    spec = importlib.util.spec_from_file_location(f"corpus_{assignment}", ROOT / "tests" / "wrong_answers" /
                                                  f"{assignment}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = [("reference", body) for body in reference_bodies(assignment).values()]
    out += [(f"{ex}:{name}", body) for ex, name, answers, _ in module.WRONG for body in answers.values()
            if isinstance(body, str) and "cl." not in body and "course_lib" not in body
            and name not in HARD_CODED.get(assignment, ())]
    out += [(f"right:{name}", body) for name, answers in getattr(module, "RIGHT", []) for body in answers.values()]
    return out


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_honest_answers_of_every_assignment_have_no_findings(assignment):
    """The reference, the right versions and the honest wrong versions (none calls course_lib) are clean."""
    exercises = set(withheld_names(ROOT / "source" / assignment))
    for name, body in _versions(assignment):
        assert audit_source(body, exercises=exercises) == [], name


# -- bounded reading: file names, magics, the time limit ----------------------------------------------

def test_a_file_name_that_is_not_utf8_is_reported_escaped_and_the_class_is_audited(tmp_path):
    course = make_course(tmp_path)
    release(course, ASSIGNMENT)
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    submit(course, "odd_names", fill(released, reference_bodies()))
    submit(course, "honest", fill(released, reference_bodies()))
    folder = os.fsencode(course / "submitted" / "odd_names" / ASSIGNMENT)
    with open(os.path.join(folder, b"helper\xff\nline.py"), "w") as fh:
        fh.write("import os\nos._exit(0)\n")
    report = audit(course, ASSIGNMENT, echo=lambda *a: None)
    text = (course / "autograded" / f"audit-{ASSIGNMENT}.txt").read_text()
    assert [f["notebook"] for f in report["odd_names"]] == ["helper\\xff\\nline.py"]
    assert "  helper\\xff\\nline.py, line 2: ends the process: os._exit\n" in text
    assert report["honest"] == []


def test_ipython_syntax_is_read_in_one_linear_pass(monkeypatch):
    """A 123 KB cell of %time magics: read as Python (what a magic runs is audited), never through IPython's
    transformer, whose time grows with the square of the cell (minutes for this one)."""
    from IPython.core import inputtransformer2

    def refuse(*args, **kwargs):
        raise AssertionError("IPython's transformer was called")

    monkeypatch.setattr(inputtransformer2.TransformerManager, "transform_cell", refuse)
    lines = [f"%time x{i} = {i} * 2" if i % 2 else f"y{i} = {i}" for i in range(6_000)]
    lines[4_001] = "%time __import__('os')._exit(0)"
    source = "\n".join(lines)
    assert 100_000 < len(source) < audit_module.MAX_SOURCE
    assert audit_source(source) == [(4002, "dynamic code: __import__"), (4002, "ends the process: os._exit"),
                                    (4002, "imports os by name: __import__('os')")]
    code, shell = python_of(source)
    assert shell == [] and code.splitlines()[1] == "x1 = 1 * 2"


def test_a_cell_larger_than_the_limit_is_a_finding_not_a_parse():
    findings = audit_source("x = 1\n" * (audit_module.MAX_SOURCE // 5))
    assert findings and "too large to audit" in findings[0][1]


def test_the_time_limit_holds_inside_a_notebook(tmp_path, monkeypatch):
    """The clock runs past the limit while the first of 50 cells is read: the audit stops there, saying so."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"import os\nos._exit({i})") for i in range(50)])
    (tmp_path / "sub").mkdir()
    nbformat.write(nb, tmp_path / "sub" / "work.ipynb")
    clock = iter(float(t) for t in range(10**6))
    monkeypatch.setattr(audit_module.time, "monotonic", lambda: next(clock))
    found = audit_submission(tmp_path / "sub", time_limit=2.5)
    what = [f["what"] for f in found]
    assert what[-1].startswith("the audit of this submission stopped after 2.5 s"), what
    assert 0 < len(what) - 1 < 50


# -- copies of course_lib -------------------------------------------------------------------------------

class _Renamed(ast.NodeTransformer):
    """A copier's renaming: every local name and parameter gets another name."""

    def visit_Name(self, node):
        if node.id not in dir(builtins) and node.id not in ("np", "math"):
            node.id = f"my_{node.id}"
        return node

    def visit_arg(self, node):
        node.arg = f"my_{node.arg}"
        return node

    def visit_FunctionDef(self, node):
        node.name = f"my_{node.name}"
        self.generic_visit(node)
        return node


def _copied(function):
    """The source of ``function`` as a copier hands it in: docstring dropped, names changed, layout redone."""
    tree = ast.parse(textwrap.dedent(function))
    body = tree.body[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        tree.body[0].body = body[1:]
    return "# adapted\n" + ast.unparse(_Renamed().visit(tree))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_copies_of_course_libs_implementations_are_found_and_honest_answers_are_not(assignment):
    implementations = course_lib_implementations(withheld_names(ROOT / "source" / assignment))
    sources = {}
    for path in sorted((ROOT / "course_lib").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and f"course_lib.{path.stem}.{node.name}" in implementations:
                sources[f"course_lib.{path.stem}.{node.name}"] = ast.get_source_segment(path.read_text(), node)
    long_enough = {name: src for name, src in sources.items()
                   if len(implementations[name]) >= 2 * audit_module.MIN_COPIED}
    assert long_enough, f"{assignment}: no implementation of course_lib long enough to tell a copy"
    for name, source in long_enough.items():
        found = copies_of_course_lib(_copied(source), implementations)
        assert [where for _, where, _ in found] == [name], (name, found)
    for version, body in _versions(assignment):
        assert copies_of_course_lib(body, implementations) == [], version


# -- hard-coded answers -------------------------------------------------------------------------------------

def _visible(assignment):
    nb = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    return visible_constants([c.source.split("### BEGIN HIDDEN TESTS")[0] for c in nb.cells
                              if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"
                              and not c.metadata["nbgrader"].get("solution")])


def _wrapped(signature, body):
    return f"{signature}\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")


@pytest.mark.parametrize("signature, body", [
    ("def predict(w, X):", PREDICT_HARD_CODED),                   # returns the visible test's expected labels
    ("def predict(w, X):", "X = np.asarray(X)\nif X.shape == (3, 3):\n    return [1.0, -1.0, 1.0]\n"
                           "return -np.ones(len(X))"),
    ("def radius(X):", "table = {(1.0, 3.0, 4.0, 1.0, 0.0, 1.0): 26 ** 0.5}\n"
                       "return table.get(tuple(np.ravel(X)), 1.0)"),
    ("def margin(w_f, X, y):", "if np.allclose(w_f, [-1.5, 1.0, 1.0]):\n    return 1.5 / 4.25 ** 0.5\nreturn 0.0"),
])
def test_hard_coded_answers_are_found(signature, body):
    functions = {"predict", "radius", "margin"}
    found = hard_coded(_wrapped(signature, body), functions, _visible(ASSIGNMENT))
    assert found and all(what.startswith("hard-coded answer") for _, what in found), found


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_honest_answers_are_not_taken_for_hard_coded_ones(assignment):
    nb = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    constants = _visible(assignment)
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            names = {n.name for n in ast.parse(cell.source).body if isinstance(n, ast.FunctionDef)}
            for version, body in _versions(assignment):
                for name in names:
                    signature = cell.source.split("\n", 1)[0]
                    if signature.startswith(f"def {name}("):
                        assert hard_coded(_wrapped(signature, body), names, constants) == [], (version, name)


# -- pairs of students --------------------------------------------------------------------------------------

def _graded(answers, released):
    ids = set(reference_bodies())
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in fill(released, answers).cells
            if c.metadata.get("nbgrader", {}).get("grade_id") in ids}


@pytest.fixture(scope="module")
def released_ps1():
    return nbformat.read(ROOT / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)


def test_copied_submissions_are_paired_and_independent_ones_are_not(released_ps1):
    """A class of 40 who wrote independently (each in a style of their own), two copiers who disguised a
    classmate's answers (names, layout, comments), and two honest students whose short answers are the obvious
    ones, word for word, while they wrote the long ones each their own way."""
    template = {gid: c for gid, c in _graded({}, released_ps1).items()}
    students = honest_class(ASSIGNMENT, 42, seed=3, copies=(5, 17))
    rng = np.random.default_rng(4)
    obvious = {gid: body for gid, body in reference_bodies().items()
               if gid in ("predict-solution", "radius-solution", "margin-solution", "bound-solution")}
    students["obvious_a"] = dict(students.pop("s0040"), **obvious)
    students["obvious_b"] = dict(students.pop("s0041"), **obvious)
    pairs = similar_pairs({s: _graded(a, released_ps1) for s, a in students.items()}, template=template)
    assert sorted(sorted(p.students) for p in pairs) == [["copy_of_s0005", "s0005"], ["copy_of_s0017", "s0017"]]
    for pair in pairs:
        assert pair.score >= audit_module.PAIR_SIMILARITY and pair.chance <= audit_module.CHANCE
        assert {gid for gid, *_ in pair.cells} >= {"pla-solution", "pocket-solution"}
    # one answer copied, however long, is never enough: a guided exercise leads many to write it alike
    students["one_cell"] = dict(students.pop("s0039"), **{"pocket-solution": disguise(
        students["s0011"]["pocket-solution"], rng)})
    pairs = similar_pairs({s: _graded(a, released_ps1) for s, a in students.items()}, template=template)
    assert not [p for p in pairs if "one_cell" in p.students]


@pytest.mark.slow  # releases with nbgrader
def test_the_report_shows_copied_pairs_side_by_side_and_names_hard_coded_and_copied_answers(tmp_path):
    course = make_course(tmp_path)
    release(course, ASSIGNMENT)
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    students = honest_class(ASSIGNMENT, 24, seed=5, copies=(3,))
    students["hard_coder"] = dict(students.pop("s0023"), **{"predict-solution": PREDICT_HARD_CODED})
    pla = ast.get_source_segment(source := (ROOT / "course_lib" / "perceptron.py").read_text(),
                                 next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)
                                      and n.name == "_pla_core"))
    students["lib_copier"] = dict(students.pop("s0022"), **{"pla-solution": (
        _copied(pla) + "\nw, T = my__pla_core(np.asarray(X, float), np.asarray(y, float), np.arange(len(y)), "
        "np.zeros(np.shape(X)[1]), 1.0, max_updates)[:2]\nreturn w, T")})
    for student, answers in students.items():
        submit(course, student, fill(released, answers))
    report = audit(course, ASSIGNMENT, echo=lambda *a: None)
    flagged = {s: [f["what"] for f in found] for s, found in report.items() if found}
    assert sorted(flagged) == ["hard_coder", "lib_copier"], flagged
    assert flagged["hard_coder"] == ["hard-coded answer: predict returns a visible test's literal"]
    assert flagged["lib_copier"] == ["near-copy of course_lib: my__pla_core is 100% course_lib.perceptron._pla_core"]
    assert [sorted(p.students) for p in report.pairs] == [["copy_of_s0003", "s0003"]]
    text = (course / "autograded" / f"audit-{ASSIGNMENT}.txt").read_text()
    assert "copy_of_s0003 and s0003: 2 cell(s), similarity 100%" in text
    side = text.split("copy_of_s0003 and s0003")[1]
    assert "pocket-solution: 100%" in side and "| def pocket(X, y, max_updates):" in side

