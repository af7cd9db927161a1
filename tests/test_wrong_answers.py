"""Every assignment graded against the wrong answers a class hands in.

For each assignment in ``source/`` the table ``tests/wrong_answers/<assignment>.py`` lists
plausible wrong versions of every graded function (with the points their exercise keeps),
right answers written differently from the reference, and the wrong choices of every
multiple-choice cell. One autograde run per assignment grades the reference, the untouched
release and all of them with real nbgrader, and every exercise's score of every submission
is compared with the table: the reference and the right answers get full marks, each wrong
version loses exactly the points the table says, in its own exercise and nowhere else.

To keep that run small, wrong versions of *different* exercises share a submission (the
j-th wrong version of every exercise goes into submission j). That is sound because the
test cells of an exercise read nothing but the names its own solution cells define, which
:func:`test_test_cells_of_an_exercise_read_only_its_own_answers` checks: whatever one
exercise's answer does, another exercise's tests never see it.

The hidden tests draw their data per student, so one autograde run sees one draw per test cell.
:func:`every_seed` (run by ``tests/test_every_student.py``) grades the same tables under the
seeds the grader derives for 30 student ids (3 of them in ``make test-fast``), in-process: one sandboxed
worker per assignment, the grader's judge running each test cell. Every hidden test builds the case
that decides (a tie, a zero score, a duplicate point, a boundary value, a generator passed in) into
every draw, so a wrong version loses its points for every student.
"""
import ast
import importlib.util
import re
import textwrap
from collections import defaultdict

import nbformat
import pytest
from grading_helpers import (
    ROOT,
    autograde_class,
    fill,
    grade_id,
    make_course,
    public_lines,
    reference_bodies,
    released_notebook,
    self_check,
    submit,
)

from grading.judge import student_names
from grading.report import exercise_of

ASSIGNMENTS = sorted(p.name for p in (ROOT / "source").iterdir() if p.is_dir() and any(p.glob("*.ipynb")))
CORPORA = ROOT / "tests" / "wrong_answers"
TIMEOUT = 10          # seconds per cell, as in the course configuration
CHOICE = re.compile(r"^\s*(\w+)\s*=\s*(\d+)\s*$")
# "## Exercise 2 — Symmetry (3 points: 2 + 1)": 3 points, a test cell worth 2 and one worth 1
HEADING = re.compile(r"^## Exercise \d+ .*\((\d+) points?(?:: ([\d +]+))?\)\s*$", re.M)


def corpus(assignment):
    """The module ``tests/wrong_answers/<assignment>.py`` (the test fails when there is none)."""
    path = CORPORA / f"{assignment}.py"
    if not path.is_file():
        pytest.fail(f"{assignment} has no corpus of wrong answers: write tests/wrong_answers/{assignment}.py")
    spec = importlib.util.spec_from_file_location(f"wrong_answers_{assignment}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def source_cells(assignment):
    nb = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    return [c for c in nb.cells if c.cell_type == "code"]


def _meta(cell):
    return cell.metadata.get("nbgrader", {})


def graded_functions(assignment):
    """``{function name: its solution cell}`` for every function a solution cell defines."""
    out = {}
    for c in source_cells(assignment):
        if _meta(c).get("solution"):
            for node in ast.parse(c.source).body:
                if isinstance(node, ast.FunctionDef):
                    out[node.name] = grade_id(c)
    return out


def choice_cells(assignment):
    """``{answer cell: (variable, right choice)}`` of the multiple-choice cells."""
    out = {}
    for gid, body in reference_bodies(assignment).items():
        code = "\n".join(line for line in body.splitlines() if not line.strip().startswith("#"))   # the key's reason
        m = CHOICE.match(code.strip())
        if m:
            out[gid] = (m.group(1), int(m.group(2)))
    return out


def points(assignment):
    """``{exercise: points}`` from the test cells of the source notebook."""
    out = defaultdict(float)
    for c in nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4).cells:
        meta = _meta(c)
        if meta.get("grade"):
            out[exercise_of(grade_id(c))] += float(meta.get("points", 0))
    return dict(out)


def manual_cells(assignment):
    """grade_ids of the answers graded by hand: Markdown answer cells with points."""
    nb = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    return [grade_id(c) for c in nb.cells
            if c.cell_type == "markdown" and _meta(c).get("grade") and _meta(c).get("solution")]


def manual_exercises(assignment):
    """Exercises graded by hand: their answer cells are Markdown cells with points."""
    nb = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    return {exercise_of(grade_id(c)) for c in nb.cells
            if c.cell_type == "markdown" and _meta(c).get("grade") and _meta(c).get("solution")}


def class_of(assignment):
    """The submissions of the corpus: ``{student: (answers, {exercise: expected points})}``.

    Submission ``wrong_j`` holds the j-th wrong version of every exercise that has one (the
    reference elsewhere); ``choice_j`` the j-th wrong choice of every multiple-choice cell;
    ``right_j`` the j-th right answer written differently.
    """
    module = corpus(assignment)
    ref = reference_bodies(assignment)
    full = {ex: 0.0 if ex in manual_exercises(assignment) else p for ex, p in points(assignment).items()}
    by_exercise = defaultdict(list)
    for exercise, name, answers, keeps in module.WRONG:
        by_exercise[exercise].append((name, answers, keeps))
    # every submission answers the questions graded by hand (an answer left as released is scored 0 at once)
    ref = dict(ref, **{cell: ("cell", "The bound adds up the probabilities of the bad events, and they overlap.")
                       for cell in manual_cells(assignment)})
    students = {"reference": (dict(ref), dict(full))}
    for j in range(max(map(len, by_exercise.values()), default=0)):
        answers, expected, names = dict(ref), dict(full), []
        for exercise, versions in sorted(by_exercise.items()):
            if j < len(versions):
                name, changed, keeps = versions[j]
                answers.update(changed)
                expected[exercise] = keeps
                names.append(f"{exercise}:{name}")
        students[f"wrong_{j}"] = (answers, expected)
    choices = getattr(module, "CHOICES", {})
    for j in range(max(map(len, choices.values()), default=0)):
        answers, expected = dict(ref), dict(full)
        for cell, wrong in choices.items():
            if j < len(wrong):
                variable = choice_cells(assignment)[cell][0]
                answers[cell] = f"{variable} = {wrong[j]}"
                expected[exercise_of(cell)] = 0.0
        students[f"choice_{j}"] = (answers, expected)
    for j, (_, changed) in enumerate(getattr(module, "RIGHT", [])):
        students[f"right_{j}"] = (dict(ref, **changed), dict(full))
    return students


def points_lost(assignment, rows):
    """One line: how many points each wrong version and wrong choice lost in this grading run."""
    full = points(assignment)
    seen, lost = defaultdict(int), []
    for exercise, name, _, _ in corpus(assignment).WRONG:
        row = rows[f"wrong_{seen[exercise]}"]
        seen[exercise] += 1
        lost.append(f"{exercise}:{name} -{full[exercise] - row['parts'].get(exercise, 0):g}")
    for cell, wrong in getattr(corpus(assignment), "CHOICES", {}).items():
        for j, choice in enumerate(wrong):
            exercise = exercise_of(cell)
            lost.append(f"{exercise}:choice {choice} -{full[exercise] - rows[f'choice_{j}']['parts'].get(exercise, 0):g}")
    return (f"{assignment}: {len(corpus(assignment).WRONG)} wrong versions and "
            f"{len(lost) - len(corpus(assignment).WRONG)} wrong choices graded; points lost: " + ", ".join(lost))


def which_versions(assignment, student):
    """The names of the wrong versions a packed submission holds (for messages)."""
    module = corpus(assignment)
    if not student.startswith("wrong_"):
        return student
    j = int(student.split("_")[1])
    by_exercise = defaultdict(list)
    for exercise, name, _, _ in module.WRONG:
        by_exercise[exercise].append(name)
    return ", ".join(f"{ex}:{names[j]}" for ex, names in sorted(by_exercise.items()) if j < len(names))


# -- the tables themselves (fast) -------------------------------------------------------

@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_corpus_has_three_wrong_versions_of_every_graded_function(assignment):
    module = corpus(assignment)
    functions = graded_functions(assignment)
    full = points(assignment)
    counts = defaultdict(int)
    for exercise, name, answers, keeps in module.WRONG:
        assert exercise in full, f"{assignment}: {name} names an unknown exercise {exercise!r}"
        assert 0 <= keeps < full[exercise], f"{assignment}: {exercise}:{name} must lose points (keeps {keeps})"
        for cell in answers:
            assert cell in reference_bodies(assignment), f"{assignment}: {name} changes {cell!r}, not a solution cell"
            assert exercise_of(cell) == exercise, f"{assignment}: {name} of {exercise} changes {cell} of another"
            for function, home in functions.items():
                if home == cell:
                    counts[function] += 1
    few = {f: counts[f] for f in functions if counts[f] < 3}
    assert not few, f"{assignment}: graded functions with fewer than 3 wrong versions in the corpus: {few}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_corpus_lists_every_wrong_choice(assignment):
    module = corpus(assignment)
    cells = choice_cells(assignment)
    listed = getattr(module, "CHOICES", {})
    assert set(listed) == set(cells), f"{assignment}: choice cells {sorted(cells)}, the corpus lists {sorted(listed)}"
    for cell, (_, right) in cells.items():
        assert sorted(listed[cell]) == [c for c in (1, 2, 3, 4) if c != right], (
            f"{assignment}: the wrong choices of {cell} are every choice but the right one")


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_test_cells_of_an_exercise_read_only_its_own_answers(assignment):
    """What makes it sound to put wrong versions of different exercises in one submission."""
    defined = defaultdict(set)
    for c in source_cells(assignment):
        if _meta(c).get("solution"):
            tree = ast.parse(c.source)
            names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
            names |= {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets
                      if isinstance(t, ast.Name)}
            defined[exercise_of(grade_id(c))] |= names
    for c in source_cells(assignment):
        meta = _meta(c)
        if meta.get("grade") and not meta.get("solution"):
            exercise = exercise_of(grade_id(c))
            others = set().union(*(names for ex, names in defined.items() if ex != exercise))
            read = student_names(c.source) & (others - defined[exercise])
            assert not read, f"{assignment}: test cell {grade_id(c)} of {exercise} reads {sorted(read)} of others"


# -- one autograde run per assignment (slow) ----------------------------------------------

@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    """``graded_class(assignment)``: the corpus class of ``assignment``, autograded once."""
    done = {}

    def grade(assignment):
        if assignment not in done:
            course = make_course(tmp_path_factory.mktemp(f"corpus_{assignment}"))
            released = released_notebook(course, assignment)
            students = class_of(assignment)
            for student, (answers, _) in students.items():
                submit(course, student, fill(released, answers), assignment=assignment)
            submit(course, "untouched", released, assignment=assignment)
            lines = []
            graded = autograde_class(course, assignment, timeout=TIMEOUT, echo=lines.append)
            done[assignment] = (students, dict(graded, summary=lines))
        return done[assignment]

    return grade


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_wrong_answer_loses_its_points_and_only_there(graded_class, assignment, request):
    students, graded = graded_class(assignment)
    full = points(assignment)
    assert graded["exercises"] == full
    request.node.user_properties.append(("report", points_lost(assignment, graded["rows"])))
    problems = []
    for student, (_, expected) in students.items():
        row = graded["rows"][student]
        if row["status"] != ("provisional" if manual_exercises(assignment) else "final"):
            problems.append(f"{student} ({which_versions(assignment, student)}) was not graded: {row['reason']}")
            continue
        for exercise, want in expected.items():
            if row["parts"][exercise] != want:
                problems.append(f"{student} ({which_versions(assignment, student)}): {exercise} scored "
                                f"{row['parts'][exercise]:g} of {full[exercise]:g}, the table says {want:g}")
    untouched = graded["rows"]["untouched"]
    if untouched["status"] not in ("final", "provisional") or untouched["score"] != 0:
        problems.append(f"the untouched release scored {untouched['score']} ({untouched['reason']})")
    assert not problems, f"{assignment}:\n  " + "\n  ".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_reference_passes_the_self_check_and_the_release_does_not(graded_class, assignment):
    _, graded = graded_class(assignment)
    for student, code in (("reference", 0), ("untouched", 1)):
        out = self_check(graded, student, assignment, timeout=TIMEOUT)
        assert out.returncode == code, out.stdout[-2000:]


# -- every student's data decides: the hidden tests under many seeds (in-process) --------------
#
# The hidden tests draw their data per student. A wrong answer must lose its points whatever
# the draw, so each hidden test builds the case that decides (a tie, a zero score, a duplicate
# point, a boundary value, a generator passed in) into every draw. Here every wrong version of
# the corpus, every right version and the reference meet the test cells of their exercise under
# the seeds the grader derives for many student ids: the student's code runs in a real sandboxed
# worker, with course_lib's exercises withheld, and each test cell runs in this process with the
# grader's judge (arguments, results and write-back cross the grader's wire), exactly as
# autograde runs it, without nbgrader's bookkeeping around it. One worker serves all the seeds.

# Student ids as LMS downloads and hub accounts spell them.
STUDENT_IDS = [
    "s0001", "s0002", "s0417", "s1999", "ada", "bob", "chen.wei", "o'neill", "anne-marie", "jdoe42",
    "li_na", "Zoë", "müller", "x", "student-with-a-rather-long-identifier-2024", "ta-test", "A12345678",
    "n.kowalski@uni.example", "李雷", "émile", "42", "s0003", "s0004", "s0005", "u123456", "kim_j",
    "r2d2", "grace.hopper", "alan-turing", "e.noether",
]
SAMPLE_IDS = ["s0001", "Zoë", "李雷"]     # make test-fast: a sample of the seeds
CELL_LIMIT = 60     # seconds per test cell: the verdicts matter here, not speed (a busy machine is slow)


SECRET = b"the secret of the course of the every-student test"


def grader_seeds(assignment, cell, students, submission="a submission's digest"):
    """The seeds the grader derives for ``students``' ``submission`` in test cell ``cell``, and the context that
    draws them.

    The one place this test meets the grader's seed derivation (:mod:`grading.context`: the course's secret, the
    assignment, the student, the cell and the submission's digest): the seeds are reported, and
    :func:`grading.checks.test_rng` draws from them inside the context.
    """
    from grading.context import seed_for, test_cell

    return [(student, seed_for(assignment, student, cell, submission=submission, secret=SECRET),
             lambda student=student: test_cell(assignment=assignment, student=student, cell=cell,
                                               submission=submission, secret=SECRET))
            for student in students]


def cells_with_tests(assignment):
    """``{grade_id: (exercise, points, source)}`` of the automatic test cells, in notebook order."""
    return {grade_id(c): (exercise_of(grade_id(c)), float(_meta(c).get("points", 0)), c.source)
            for c in source_cells(assignment) if _meta(c).get("grade") and not _meta(c).get("solution")}


def student_cells(assignment, answers):
    """``[(code, is setup cell)]`` a student's process runs for the tests: the setup cells and every answer cell.

    ``answers`` replaces the reference in some answer cells (as :func:`grading_helpers.fill` does);
    the other answer cells hold the reference. Cells that only draw or print are left out: no
    test cell reads what they define (:func:`test_test_cells_of_an_exercise_read_only_its_own_answers`).
    """
    from grading_helpers import REGION

    out = []
    for c in source_cells(assignment):
        meta = _meta(c)
        if meta.get("solution"):
            m = REGION.search(c.source)
            answer = answers.get(grade_id(c))
            if isinstance(answer, tuple):
                out.append((answer[1], False))
                continue
            body = textwrap.dedent(answer).strip("\n") + "\n" if answer is not None else textwrap.dedent(m["body"])
            out.append((c.source[:m.start()] + textwrap.indent(body, m["indent"]) + c.source[m.end():], False))
        elif meta.get("locked") and not meta.get("grade"):
            out.append((c.source, True))
    return out


class CorpusWorker:
    """A sandboxed worker for the submissions of one assignment, and the grader's judge running test cells against it.

    :meth:`load` runs a submission's cells (every answer cell, so nothing of the previous submission's answers
    is left); starting one worker per assignment instead of one per submission saves most of the time.
    """

    def __init__(self, assignment, folder):
        from grading.engine import _withholding
        from grading.limits import GradingLimits
        from grading.sandbox import Sandbox
        from grading.session import Session
        from grading.withhold import withheld_names

        self.assignment = assignment
        box = Sandbox()
        box.check()
        (folder / "files").mkdir()
        box = _withholding(box, withheld_names(ROOT / "source" / assignment), assignment, folder / "lib")
        self.session = Session(folder / "files", sandbox=box,
                               limits=GradingLimits(timeout=CELL_LIMIT, replay_timeout=CELL_LIMIT))
        self.session.start()
        self.setup = {"__builtins__": __builtins__}
        self.cells = 0

    def load(self, answers):
        """Run the cells of the submission holding ``answers`` (the reference elsewhere)."""
        import hashlib
        import json

        self.digest = hashlib.sha256(json.dumps(answers, sort_keys=True).encode()).hexdigest()   # its content
        for source, setup in student_cells(self.assignment, answers):
            if setup:
                tree = ast.parse(source)
                tree.body = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
                exec(compile(tree, "<setup>", "exec"), self.setup)      # the judge's imports, as the engine's
            self.cells += 1
            self.session.exec_cell(self.cells, source, CELL_LIMIT)   # a failing cell fails its tests, as graded

    def failures(self, cell, source, students):
        """``{student: message}`` of the students for whom test cell ``cell`` fails."""
        from grading.judge import run_test_cell

        failed = {}
        for student, seed, context in grader_seeds(self.assignment, cell, students, self.digest):
            with context():
                _, error = run_test_cell(self.session, source, setup_namespace=self.setup, timeout=CELL_LIMIT)
            if error is not None:
                failed[student] = f"seed {seed}: {error.ename}: {error.evalue[:300]}"
        return failed

    def close(self):
        self.session.close()


def candidates(assignment):
    """``[(answers, {exercise: (version, points it keeps)})]``: the submissions that hold the corpus.

    The reference; then, as in :func:`class_of`, the j-th wrong version of every exercise in one
    submission (the tests of an exercise see only its own answers); then each right version.
    """
    module = corpus(assignment)
    full = {ex: p for ex, p in points(assignment).items() if ex not in manual_exercises(assignment)}
    out = [({}, {ex: ("reference", p) for ex, p in full.items()})]
    by_exercise = defaultdict(list)
    for exercise, name, answers, keeps in module.WRONG:
        by_exercise[exercise].append((name, answers, keeps))
    for j in range(max(map(len, by_exercise.values()), default=0)):
        answers, expected = {}, {}
        for exercise, versions in by_exercise.items():
            if j < len(versions):
                name, changed, keeps = versions[j]
                answers.update(changed)
                expected[exercise] = (f"{exercise}:{name}", keeps)
        out.append((answers, expected))
    for name, answers in getattr(module, "RIGHT", []):
        out.append((answers, {exercise_of(cell): (f"right:{name}", full[exercise_of(cell)]) for cell in answers}))
    return out


def every_seed(assignment, students, tmp_path):
    """Grade every submission of the corpus under every student's seeds; return the problems and the counts."""
    cells = cells_with_tests(assignment)
    problems, pairs, lost = [], 0, 0
    process = CorpusWorker(assignment, tmp_path)
    try:
        for answers, expected in candidates(assignment):
            process.load(answers)
            earned = {student: dict.fromkeys(expected, 0.0) for student in students}
            messages = defaultdict(list)
            for cell, (exercise, worth, source) in cells.items():
                if exercise not in expected:
                    continue      # another exercise's tests never see this answer (checked above)
                failed = process.failures(cell, source, students)
                for student in students:
                    if student in failed:
                        messages[student, exercise].append(f"{cell} failed ({failed[student]})")
                    else:
                        earned[student][exercise] += worth
                        messages[student, exercise].append(f"{cell} passed")
            for student in students:
                for exercise, (version, want) in expected.items():
                    got = earned[student][exercise]
                    if not version.startswith(("reference", "right:")):
                        pairs += 1
                        lost += got == want
                    if got != want:
                        problems.append(f"{version} for student {student!r}: {exercise} scored {got:g}, the table "
                                        f"says {want:g} ({'; '.join(messages[student, exercise])})")
    finally:
        process.close()
    return problems, pairs, lost


def check_every_seed(assignment, students, tmp_path, request):
    """Fail with every (version, student) whose score is not the table's; report the counts."""
    problems, pairs, lost = every_seed(assignment, students, tmp_path)
    request.node.user_properties.append(("report", (
        f"{assignment}: {pairs} (wrong version, seed) pairs over {len(students)} student ids; {lost} scored what "
        f"the table says, {pairs - lost} did not")))
    assert not problems, f"{assignment}:\n  " + "\n  ".join(problems[:40]) + (
        f"\n  ... and {len(problems) - 40} more" if len(problems) > 40 else "")


def students_of_this_run(config):
    """Every student id in ``make test``; a sample of them in ``make test-fast`` (``-m "not slow"``)."""
    return SAMPLE_IDS if "not slow" in (config.getoption("markexpr", "") or "") else STUDENT_IDS


# -- the grader's write-back never reaches what a test expects ---------------------------------
#
# Like a caller in Jupyter, a test sees the changes a student's function makes to its arguments:
# the grader writes them back into the test's own arrays. An expectation computed from such an
# array after the call would then be computed from the student's data (a function that zeroes y
# and returns the error of y = 0 would "agree" with a reference computed on the zeroed y). So a
# test cell passes each call its own copy, or wraps the call in ``arguments_unchanged`` (which
# fails the test when an argument changed), and never reads an argument again otherwise.

_SCALAR_CALLS = {"int", "float", "bool", "str", "len", "round", "abs", "min", "max", "sum"}


def _immutable(node, immutable):
    """Whether the value of ``node`` is certainly a number, a string or a tuple of them (never written back)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id in immutable
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):      # an element of a list of numbers
        return f"{node.value.id}[]" in immutable
    if isinstance(node, ast.Subscript) and isinstance(node.value, (ast.BinOp, ast.ListComp, ast.List)):
        return _list_of_numbers(node.value, immutable)
    if isinstance(node, ast.Tuple):
        return all(_immutable(e, immutable) for e in node.elts)
    if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare)):
        return all(_immutable(e, immutable) for e in ast.iter_child_nodes(node) if isinstance(e, ast.expr))
    if isinstance(node, ast.Call):
        name = _dotted_name(node.func)
        if name in _SCALAR_CALLS:
            return name not in ("min", "max", "sum") or all(_immutable(a, immutable) for a in node.args)
        if name and name.startswith("math."):
            return True
        if name and name.startswith("rng.") and not any(k.arg == "size" for k in node.keywords) \
                and name.split(".")[1] in ("integers", "uniform", "normal", "random", "standard_normal"):
            return len(node.args) <= 2
    return False


def _list_of_numbers(node, immutable):
    """Whether ``node`` is certainly a list of numbers: a literal, a comprehension or a sum of them."""
    if isinstance(node, ast.List):
        return all(_immutable(e, immutable) for e in node.elts)
    if isinstance(node, ast.ListComp):
        return _immutable(node.elt, immutable)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _list_of_numbers(node.left, immutable) and _list_of_numbers(node.right, immutable)
    return isinstance(node, ast.Name) and f"{node.id}[]" in immutable


def _dotted_name(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def _root(node):
    """The variable an argument expression reads its object from (an attribute or slice may be a view), else None."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _loop_values(loop):
    """For each name a ``for`` loop's target binds, the expressions it may take (None: not known)."""
    rows = loop.iter
    if isinstance(rows, ast.Call) and _dotted_name(rows.func) == "range":
        rows = ast.Tuple(elts=[ast.Constant(0)])
    for leaf in ast.walk(loop.target):
        if isinstance(leaf, ast.Name):
            if isinstance(rows, ast.Subscript) and isinstance(rows.slice, ast.Slice):
                rows = rows.value                  # the elements of a slice of a list are its elements
            values = [ast.Subscript(value=rows, slice=ast.Constant(0))] if isinstance(rows, ast.Name) else [None]
            if isinstance(rows, (ast.BinOp, ast.ListComp)):
                values = [ast.Subscript(value=rows, slice=ast.Constant(0))]
            if isinstance(rows, (ast.Tuple, ast.List)) and isinstance(loop.target, ast.Name):
                values = rows.elts
            elif isinstance(rows, (ast.Tuple, ast.List)) and isinstance(loop.target, ast.Tuple) and all(
                    isinstance(r, ast.Tuple) and len(r.elts) == len(loop.target.elts) for r in rows.elts):
                at = [t.id if isinstance(t, ast.Name) else None for t in loop.target.elts].index(leaf.id)
                values = [r.elts[at] for r in rows.elts]
            yield leaf.id, values


def _immutable_names(tree):
    """Names every assignment of which (in the whole cell) gives a number, a string or a tuple of them."""
    assigned = defaultdict(list)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned[target.id].append(node.value)
                else:
                    for leaf in ast.walk(target):
                        if isinstance(leaf, ast.Name):
                            assigned[leaf.id].append(node.value if isinstance(node.value, ast.Tuple) else None)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            assigned[node.target.id].append(node.value)
        elif isinstance(node, ast.For):        # (a comprehension's names are its own)
            for name, values in _loop_values(node):
                assigned[name] += values
        elif isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)):
            for name in ([a.asname or a.name for a in node.names] if isinstance(node, (ast.Import, ast.ImportFrom))
                         else [node.name]):
                assigned[name.split(".")[0]].append(None)
    immutable, lists = set(), set()
    for _ in range(5):          # names defined from names: a few rounds settle it
        known = immutable | {f"{name}[]" for name in lists}
        lists = {name for name, values in assigned.items() if all(_list_of_numbers(v, known) for v in values)}
        immutable = {name for name, values in assigned.items()
                     if all(v is not None and _immutable(v, known) for v in values)}
    return immutable


def _checks_unchanged(test):
    """Whether an assert's test only compares a variable with what it held before: ``np.array_equal(X, X_before)``
    or ``w.tolist() == [0.2, -0.3]`` (it can only fail when the student's function changed the variable)."""
    if isinstance(test, ast.Call) and _dotted_name(test.func) == "np.array_equal" and len(test.args) == 2:
        return all(isinstance(a, ast.Name) for a in test.args)
    if isinstance(test, ast.Call) and _dotted_name(test.func) == "all" and len(test.args) == 1 \
            and isinstance(test.args[0], ast.GeneratorExp):   # all(np.array_equal(a, b) for a, b in zip(args, copies))
        return _checks_unchanged(test.args[0].elt)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        left, right = test.left, test.comparators[0]
        return (isinstance(left, ast.Call) and isinstance(left.func, ast.Attribute) and left.func.attr == "tolist"
                and isinstance(left.func.value, ast.Name) and isinstance(right, (ast.List, ast.Constant)))
    return False


def _generator_names(tree):
    """Names every assignment of which (in the whole cell) is a new generator, ``np.random.default_rng(...)``."""
    made = defaultdict(list)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        made[leaf.id].append(node.value if isinstance(target, ast.Name) else None)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension, ast.withitem)):
            target = node.optional_vars if isinstance(node, ast.withitem) else node.target
            for leaf in ast.walk(target) if target is not None else ():
                if isinstance(leaf, ast.Name):
                    made[leaf.id].append(None)
    return {name for name, values in made.items()
            if all(isinstance(v, ast.Call) and _dotted_name(v.func) == "np.random.default_rng" for v in values)}


class _Events(ast.NodeVisitor):
    """The loads, stores and calls of a test cell in the order they run (loop bodies twice, definitions skipped).

    A generator of the test's own (``generators``) passed straight to a student's function is passed, not read: a
    test passes one generator twice to see that the first call moved it on, as it would in Jupyter.
    """

    def __init__(self, functions, generators=()):
        self.functions, self.generators, self.events, self.guarded = functions, set(generators), [], []

    def visit_FunctionDef(self, node):          # runs when called, with its own names
        pass

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Name(self, node):
        self.events.append(("load" if isinstance(node.ctx, ast.Load) else "store", node.id, node.lineno))

    def visit_Assign(self, node):
        self.visit(node.value)
        for target in node.targets:
            self.visit(target)

    def visit_AugAssign(self, node):
        self.visit(node.value)
        self.events.append(("load", _root(node.target), node.lineno))

    def visit_Assert(self, node):              # its message decides nothing
        if not _checks_unchanged(node.test):    # nor does a check that an argument is as it was
            self.visit(node.test)

    def visit_For(self, node):
        self.visit(node.iter)
        for _ in range(2):                       # the second pass runs after the first pass's calls
            self.visit(node.target)
            for stmt in node.body:
                self.visit(stmt)
        for stmt in node.orelse:
            self.visit(stmt)

    def visit_While(self, node):
        for _ in range(2):
            self.visit(node.test)
            for stmt in node.body:
                self.visit(stmt)
        for stmt in node.orelse:
            self.visit(stmt)

    def visit_With(self, node):
        guarded = set()
        for item in node.items:
            self.visit(item.context_expr)
            call = item.context_expr
            if isinstance(call, ast.Call) and _dotted_name(call.func) in ("arguments_unchanged",
                                                                           "grading.checks.arguments_unchanged"):
                guarded |= {_root(k.value) for k in call.keywords} - {None}
            if item.optional_vars is not None:
                self.visit(item.optional_vars)
        self.guarded.append(guarded)
        for stmt in node.body:
            self.visit(stmt)
        self.guarded.pop()

    def visit_Call(self, node):
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name in self.functions and self.generators:
            self.visit(node.func)
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                if isinstance(arg, ast.Name) and arg.id in self.generators:
                    self.events.append(("pass", arg.id, arg.lineno))
                else:
                    self.visit(arg)
        else:
            self.generic_visit(node)
        if name in self.functions:
            guarded = set().union(*self.guarded)
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                root = _root(arg) if isinstance(arg, (ast.Name, ast.Attribute, ast.Subscript, ast.Starred)) else None
                if root is not None and root not in guarded:
                    self.events.append(("call", (name, root), node.lineno))


def argument_reuses(source, functions):
    """``[(line of the call, function, argument, line of the later read)]`` in one test cell's code.

    An argument counts when it is a variable (or an attribute or slice of one, which may be a view)
    holding something the grader could write back (not a number, a string or a tuple of them), passed
    to one of ``functions`` (the student's) outside ``arguments_unchanged``, and read again before it
    is assigned anew. A generator the test made (``g = np.random.default_rng(seed)``) may be passed to
    the student's functions again (that the first call moved it on is what such a test checks), never
    read otherwise.

    Examples
    --------
    >>> argument_reuses("N = 3\\ny = np.ones(N)\\ne = error(N, y)\\nwant = ref(N, y)", {"error"})
    [(3, 'error', 'y', 4)]
    >>> argument_reuses("N = 3\\ny = np.ones(N)\\ne = error(N, y.copy())\\nwant = ref(N, y)", {"error"})
    []
    >>> argument_reuses("g = np.random.default_rng(1)\\na = draw(g)\\nb = draw(rng=g)", {"draw"})
    []
    >>> argument_reuses("g = np.random.default_rng(1)\\na = draw(g)\\nc = g.random()", {"draw"})
    [(2, 'draw', 'g', 3)]
    """
    tree = ast.parse(source)
    immutable = _immutable_names(tree)
    visitor = _Events(set(functions), _generator_names(tree))
    for stmt in tree.body:
        visitor.visit(stmt)
    events, found = visitor.events, set()
    for i, (kind, what, line) in enumerate(events):
        if kind != "call" or what[1] in immutable:
            continue
        function, name = what
        for later_kind, later, later_line in events[i + 1:]:
            if later_kind == "store" and later == name:
                break
            if (later_kind == "load" and later == name) or (later_kind == "call" and later[1] == name
                                                            and name not in visitor.generators):
                found.add((line, function, name, later_line))
                break
    return sorted(found)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_no_test_reads_an_argument_the_students_function_could_have_changed(assignment):
    functions = set(graded_functions(assignment))
    problems = []
    for cell, (_, _, source) in cells_with_tests(assignment).items():
        for line, function, name, later in argument_reuses(source, functions):
            problems.append(f"{cell}, line {line}: {function}(... {name} ...) and {name} read again on line {later}: "
                            f"pass {name}.copy() or check the call with arguments_unchanged")
    assert not problems, f"{assignment}:\n  " + "\n  ".join(problems)

# -- every documented guarantee is tested -------------------------------------------------------

def documented_parameters(assignment):
    """``{function: {parameter: its numpydoc type line}}`` of the graded functions, and which leave arguments unchanged."""
    out, unchanged = {}, set()
    for c in source_cells(assignment):
        if not _meta(c).get("solution") or c.cell_type != "code":
            continue
        for node in ast.parse(c.source).body:
            if isinstance(node, ast.FunctionDef):
                doc = ast.get_docstring(node) or ""
                params = dict(re.findall(r"^(\w+) : (.+)$", doc.split("Returns")[0], re.M))
                out[node.name] = {a.arg: params.get(a.arg, "") for a in [*node.args.args, *node.args.kwonlyargs]}
                if "arguments are left unchanged" in doc:
                    unchanged.add(node.name)
    return out, unchanged


def _calls(assignment, function):
    """``[(call node, names checked unchanged around it)]``: every call of ``function`` in the test cells."""
    found = []
    for _, _, source in cells_with_tests(assignment).values():
        tree = ast.parse(source)
        guarded = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.With):
                names = {k.arg for item in node.items if isinstance(item.context_expr, ast.Call)
                         and _dotted_name(item.context_expr.func) == "arguments_unchanged"
                         for k in item.context_expr.keywords}
                for inner in ast.walk(node):
                    guarded.setdefault(id(inner), set()).update(names)
        found += [(node, guarded.get(id(node), set())) for node in ast.walk(tree)
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function]
    return found


def _argument(call, parameters, name):
    """The expression ``call`` passes for parameter ``name`` (positional or keyword), else None."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    position = list(parameters).index(name)
    return call.args[position] if position < len(call.args) else None


def _is_list(node):
    return isinstance(node, (ast.List, ast.ListComp)) or (isinstance(node, ast.Call)
                                                          and isinstance(node.func, ast.Attribute)
                                                          and node.func.attr == "tolist")


def _global_rng_checked(assignment, function):
    """Whether some test cell calls ``function`` inside ``with global_rng_unchanged(...)``."""
    for _, _, source in cells_with_tests(assignment).values():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.With) and any(
                    isinstance(item.context_expr, ast.Call)
                    and _dotted_name(item.context_expr.func) in ("global_rng_unchanged",
                                                                 "grading.checks.global_rng_unchanged")
                    for item in node.items):
                if any(isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == function
                       for inner in ast.walk(node)):
                    return True
    return False


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_documented_guarantee_of_a_graded_function_is_tested(assignment):
    """Arguments left unchanged (every array-like one, in ``arguments_unchanged``), array-likes given as lists,
    and ``rng`` given as a seed, as a ``numpy.random.Generator`` and as None, with NumPy's global generator left
    alone (``global_rng_unchanged``): each in some test cell. A test never passes its own data generator (``rng``,
    from ``test_rng()``) to a student's function, which could then set the state of the test's data (a generator
    a function drew from moves on for the caller, as in Jupyter)."""
    functions, unchanged = documented_parameters(assignment)
    problems = []
    for function, parameters in functions.items():
        calls = _calls(assignment, function)
        arrays = [p for p, kind in parameters.items() if "array-like" in kind]
        if function in unchanged:
            checked = set().union(*(names for _, names in calls))
            missing = sorted(set(arrays) - checked)
            if missing:
                problems.append(f"{function}: no test checks that it leaves {', '.join(missing)} unchanged "
                                "(with arguments_unchanged)")
        if arrays and not any(all(_is_list(_argument(call, parameters, p)) for p in arrays) for call, _ in calls):
            problems.append(f"{function}: no test passes its array-like arguments ({', '.join(arrays)}) as lists")
        if "rng" in parameters:
            given = [ast.unparse(_argument(call, parameters, "rng")) for call, _ in calls
                     if _argument(call, parameters, "rng") is not None]
            for what, pattern in (("a numpy.random.Generator", r"default_rng\("), ("None", r"^None$")):
                if not any(re.search(pattern, g) for g in given):
                    problems.append(f"{function}: no test passes rng={what}")
            if "rng" in given:
                problems.append(f"{function}: a test passes it its own data generator (rng=rng); pass a seed drawn "
                                "from it, or a generator of the call's own, np.random.default_rng(seed)")
            if not _global_rng_checked(assignment, function):
                problems.append(f"{function}: no test checks that it leaves NumPy's global generator alone "
                                "(with global_rng_unchanged)")
    assert not problems, f"{assignment}:\n  " + "\n  ".join(problems)

# -- graded questions are not answered in the lectures ---------------------------------------

def _plain(text):
    return re.sub(r"\s+", " ", text).strip().lower()


def _lecture_cells():
    return [_plain(c.source) for p in sorted((ROOT / "notebooks").glob("*.ipynb"))
            for c in nbformat.read(p, as_version=4).cells]


def graded_questions(assignment):
    """``[(answer cell, stem, {choice: text}, right choice)]`` of the multiple-choice cells."""
    nb = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    choices = choice_cells(assignment)
    out = []
    for i, c in enumerate(nb.cells):
        if grade_id(c) in choices:
            question = next(p.source for p in reversed(nb.cells[:i]) if p.cell_type == "markdown")
            options = dict((int(n), t.strip()) for n, t in re.findall(r"^(\d)\.\s+(.+)$", question, re.M))
            stem = re.split(r"^\d\.\s", question, maxsplit=1, flags=re.M)[0]
            out.append((grade_id(c), stem, options, choices[grade_id(c)][1]))
    return out


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_graded_questions_are_not_answered_in_the_lectures(assignment):
    """A graded question is a new variant: neither its question nor its answer is in notebooks/."""
    lectures = _lecture_cells()
    text = " ".join(lectures)
    for cell, stem, options, right in graded_questions(assignment):
        assert sorted(options) == [1, 2, 3, 4], f"{assignment}, {cell}: the question lists choices 1 to 4"
        for sentence in re.split(r"(?<=[.?!])\s+", _plain(re.sub(r"^\*\*[^*]+\*\*", "", stem.strip()))):
            assert len(sentence) < 30 or sentence not in text, (
                f"{assignment}, {cell}: the lecture notebooks ask the same question: {sentence!r}")
        answer = _plain(options[right])
        assert len(answer) < 12 or answer not in text, (
            f"{assignment}, {cell}: the right answer {options[right]!r} is written in the lecture notebooks")
        for cell_text in lectures:
            shared = sum(_plain(t) in cell_text for t in options.values())
            assert shared < 3, f"{assignment}, {cell}: a lecture cell lists the same choices"



_EXPLAINS = re.compile(r"\*\*\s*(why|answer|solution|explanation)\b|\b(the )?(right|correct) (answer|choice) is\b|"
                       r"\bthe answer is\b", re.I)


def _words(text):
    """Lower-case words of a text, markdown and LaTeX markup dropped (``$c_{rand}$`` reads ``c rand``)."""
    return re.findall(r"[a-z0-9]+", re.sub(r"\\[a-z]+", " ", text.lower()))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_release_never_explains_the_answer_of_a_graded_question(assignment):
    """A graded question's answer key (in the solution region) is not stated or explained in the student's notebook.

    After a question's test cells comes the next question or exercise, not an explanation; no cell says "the
    answer is" or "Why"; and no cell but the question itself repeats the right choice's words.
    """
    released = nbformat.read(ROOT / "release" / assignment / f"{assignment}.ipynb", as_version=4).cells
    ids = [grade_id(c) for c in released]
    for cell, _, options, right in graded_questions(assignment):
        answer = ids.index(cell)
        question = max(i for i in range(answer) if released[i].cell_type == "markdown")
        after = answer + 1
        while after < len(released) and _meta(released[after]).get("grade") \
                and not _meta(released[after]).get("solution"):
            after += 1
        if after < len(released):
            following = released[after].source.lstrip()
            assert following.startswith(("#", "**Question")), (
                f"{assignment}: the cell after the tests of {cell} is neither the next question nor a heading; "
                f"it reads {following[:120]!r}: an explanation of a graded answer belongs in the solution region")
        key = _words(options[right])
        for i, c in enumerate(released):
            if i == question:
                continue
            assert not (c.cell_type == "markdown" and _EXPLAINS.search(c.source)), (
                f"{assignment}: cell {i} explains an answer: {c.source[:120]!r}")
            words = _words(c.source)
            shared = any(words[j:j + len(key)] == key for j in range(len(words)))
            assert len(key) < 4 or not shared, (
                f"{assignment}: cell {i} states the right choice of {cell}, {options[right]!r}")

# -- regrades ------------------------------------------------------------------------------

def _test_outputs(course, assignment, student):
    nb = nbformat.read(course / "autograded" / student / assignment / f"{assignment}.ipynb", as_version=4)
    return {grade_id(c): [o.get("evalue") for o in c.outputs if o.get("output_type") == "error"]
            for c in nb.cells if _meta(c).get("grade") and not _meta(c).get("solution")}


@pytest.mark.slow
def test_a_regrade_gives_the_same_scores_and_messages_and_a_cell_can_be_replayed(graded_class):
    """ps2's hidden tests are statistical: a regrade must draw the same data, so nothing changes."""
    from grading.replay import graded_seed, regrade_check

    assignment = "ps2_hoeffding"
    students, first = graded_class(assignment)
    course = first["course"]
    before = {s: _test_outputs(course, assignment, s) for s in students}
    lines = []
    second = autograde_class(course, assignment, timeout=TIMEOUT, echo=lines.append, force=True)
    # FORCE: every submission runs again (unchanged ones would otherwise be left as they were)
    assert any(f"this run graded {len(students) + 1} submission(s)" in line for line in lines), lines
    for student in students:
        assert second["rows"][student]["parts"] == first["rows"][student]["parts"], student
    # the messages too, wherever the student's own code is deterministic (an answer drawing from NumPy's
    # global generator prints different samples on every run, and that is the point of its failure)
    for student, (answers, _) in students.items():
        codes = [a if isinstance(a, str) else a[1] for a in answers.values()]
        if not any("np.random." in code.replace("np.random.default_rng(", "") for code in codes):
            assert _test_outputs(course, assignment, student) == before[student], student
    # a failing hidden test names its seed, which differs from student to student ...
    failing = [(s, gid, msgs[0]) for s, cells in before.items() for gid, msgs in cells.items() if msgs]
    student, cell, message = next(f for f in failing if "seed" in f[2])

    def seed_for(assignment, student, cell):          # the seed the grader gives this submission's cell
        return graded_seed(course, assignment, student, cell)

    assert f"seed {seed_for(assignment, student, cell)}" in message
    assert f"STUDENT={student} CELL={cell}" in message
    assert seed_for(assignment, student, cell) != seed_for(assignment, "reference", cell)
    # the student reads the seed in the feedback, where no hidden test is shown
    import html

    from grading.feedback import feedback, hidden_lines
    feedback(course, assignment, echo=lambda *a: None)
    page = html.unescape(re.sub(r"<[^>]+>", "", (course / "feedback" / student / assignment / f"{assignment}.html")
                                .read_text()))
    assert f"seed {seed_for(assignment, student, cell)}" in page
    source = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    secret = {line for c in source.cells for line in hidden_lines(c.source) if len(line) > 15} - public_lines(source)
    assert not [line for line in secret if line in page]
    # ... and make regrade-check replays it: the same message, nothing rewritten
    lines = []
    replayed = regrade_check(course, assignment, student, cell, echo=lines.append)
    assert replayed == {cell: (seed_for(assignment, student, cell), message)}
    assert lines[0].startswith(f"{cell} (seed {seed_for(assignment, student, cell)}): FAILED")
    assert _test_outputs(course, assignment, student) == before[student]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_exercise_headings_state_the_points_the_tests_give(assignment):
    """Each "## Exercise k — ... (P points)" heading carries the points of the test cells below it."""
    nb = nbformat.read(ROOT / "release" / assignment / f"{assignment}.ipynb", as_version=4)
    stated, given = [], []
    for c in nb.cells:
        m = HEADING.search(c.source) if c.cell_type == "markdown" else None
        if m:
            split = [int(v) for v in m.group(2).split("+")] if m.group(2) else [int(m.group(1))]
            assert sum(split) == int(m.group(1)), f"{assignment}: {m.group(0)!r} does not add up"
            stated.append(split)
            given.append([])
        elif _meta(c).get("grade") and (c.cell_type == "markdown" or not _meta(c).get("solution")):
            assert given, f"{assignment}: test cell {grade_id(c)} comes before the first exercise heading"
            given[-1].append(int(_meta(c).get("points", 0)))
    assert stated == given, (f"{assignment}: the headings state {stated} points per test cell, the test cells "
                             f"below them give {given}")
    for c in nb.cells:
        if _meta(c).get("solution") and c.cell_type == "code" and grade_id(c) not in choice_cells(assignment):
            assert re.search(r"^def \w+\(", c.source, re.M) and '"""' in c.source, f"{grade_id(c)}: signature outside"
            assert "raise NotImplementedError()" in c.source, grade_id(c)


# -- answers graded by hand ------------------------------------------------------------------

@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_readme_states_the_points_of_every_test_cell(assignment):
    """README's table, the exercise headings and the test cells agree on partial credit."""
    row = next((line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith(f"| `{assignment}`")),
               None)
    assert row, f"README.md's table of assignments has no row for {assignment}"
    said = [[int(v) for v in group.split("+")] for group in re.findall(r"\((\d+(?: \+ \d+)*)\)", row)]
    nb = nbformat.read(ROOT / "release" / assignment / f"{assignment}.ipynb", as_version=4)
    headings = [HEADING.search(c.source) for c in nb.cells if c.cell_type == "markdown" and HEADING.search(c.source)]
    split = [[int(v) for v in m.group(2).split("+")] if m.group(2) else [int(m.group(1))] for m in headings]
    assert said == split, f"README says {said} for {assignment}, the notebook's headings {split}"
    total = re.search(r"(\d+) in all", row)
    assert total and int(total.group(1)) == sum(points(assignment).values()), f"README's total for {assignment}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_manual_answers_have_points_and_a_rubric_only_graders_see(assignment):
    nb = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    released = {grade_id(c): c for c in nbformat.read(ROOT / "release" / assignment / f"{assignment}.ipynb",
                                                       as_version=4).cells}
    manual = [c for c in nb.cells if c.cell_type == "markdown" and _meta(c).get("grade") and _meta(c).get("solution")]
    assert manual, f"{assignment} has no answer graded by hand"
    for c in manual:
        assert _meta(c).get("points", 0) > 0
        rubric = re.search(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", c.source, re.S)
        assert rubric and "Rubric" in rubric.group(1), f"{grade_id(c)}: the rubric belongs in the solution region"
        student_version = released[grade_id(c)].source
        assert "Rubric" not in student_version and "Model answer" not in student_version, student_version


@pytest.mark.slow
def test_a_manual_grade_given_through_the_gradebook_makes_the_total_final(graded_class):
    """Autograde, then a grader's manual grade (nbgrader's API, as the Formgrader saves it), then the export."""
    import csv
    import io
    from contextlib import redirect_stdout

    from nbgrader.api import Gradebook

    from grading.course import Course
    from grading.report import collect, grades

    assignment = "ps4_regression"
    students, graded = graded_class(assignment)
    course = graded["course"]
    (cell,) = [grade_id(c) for c in nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", 4).cells
               if c.cell_type == "markdown" and _meta(c).get("grade")]
    manual_points = points(assignment)[exercise_of(cell)]
    automatic = sum(points(assignment).values()) - manual_points
    # autograde's own summary names the answers waiting for a grader
    lines = graded["summary"]
    assert any(line.startswith("NEEDS MANUAL GRADING") and cell in line for line in lines), lines
    _, rows = collect(course, assignment)
    before = {r["student"]: r for r in rows}
    assert before["reference"]["status"] == "provisional" and cell in before["reference"]["reason"]
    assert before["reference"]["score"] == automatic
    # a grader gives 1.5 of the points to "reference" and all of them to "right_0"
    with Gradebook(Course(course).db_url) as gb:
        gb.find_grade(cell, assignment, assignment, "reference").manual_score = 1.5
        gb.find_grade(cell, assignment, assignment, "right_0").manual_score = manual_points
        gb.db.commit()
    _, rows = collect(course, assignment)
    after = {r["student"]: r for r in rows}
    assert after["reference"]["status"] == "final" and after["reference"]["score"] == automatic + 1.5
    assert after["right_0"]["status"] == "final" and after["right_0"]["score"] == automatic + manual_points
    assert after["wrong_0"]["status"] == "provisional"
    assert after["wrong_0"]["score"] == before["wrong_0"]["score"]
    with redirect_stdout(io.StringIO()):
        out = grades(course, assignment, echo=lambda *a: None)
    exported = {r["student_id"]: r for r in csv.DictReader(out.open())}
    assert exported["reference"]["status"] == "final" and float(exported["reference"]["score"]) == automatic + 1.5
    assert exported["wrong_0"]["status"] == "provisional"
    assert float(exported["wrong_0"]["score"]) == before["wrong_0"]["score"]
