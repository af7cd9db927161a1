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
"""
import ast
import importlib.util
import re
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
        m = CHOICE.match(body.strip())
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
        if row["status"] != ("needs manual grading" if manual_exercises(assignment) else "graded"):
            problems.append(f"{student} ({which_versions(assignment, student)}) was not graded: {row['reason']}")
            continue
        for exercise, want in expected.items():
            if row["parts"][exercise] != want:
                problems.append(f"{student} ({which_versions(assignment, student)}): {exercise} scored "
                                f"{row['parts'][exercise]:g} of {full[exercise]:g}, the table says {want:g}")
    untouched = graded["rows"]["untouched"]
    if untouched["status"] not in ("graded", "needs manual grading") or untouched["score"] != 0:
        problems.append(f"the untouched release scored {untouched['score']} ({untouched['reason']})")
    assert not problems, f"{assignment}:\n  " + "\n  ".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_reference_passes_the_self_check_and_the_release_does_not(graded_class, assignment):
    _, graded = graded_class(assignment)
    for student, code in (("reference", 0), ("untouched", 1)):
        out = self_check(graded, student, assignment, timeout=TIMEOUT)
        assert out.returncode == code, out.stdout[-2000:]


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
    assert before["reference"]["status"] == "needs manual grading" and cell in before["reference"]["reason"]
    assert before["reference"]["score"] == automatic
    # a grader gives 1.5 of the points to "reference" and all of them to "right_0"
    with Gradebook(Course(course).db_url) as gb:
        gb.find_grade(cell, assignment, assignment, "reference").manual_score = 1.5
        gb.find_grade(cell, assignment, assignment, "right_0").manual_score = manual_points
        gb.db.commit()
    _, rows = collect(course, assignment)
    after = {r["student"]: r for r in rows}
    assert after["reference"]["status"] == "graded" and after["reference"]["score"] == automatic + 1.5
    assert after["right_0"]["status"] == "graded" and after["right_0"]["score"] == automatic + manual_points
    assert after["wrong_0"]["status"] == "needs manual grading"
    assert after["wrong_0"]["score"] == before["wrong_0"]["score"]
    with redirect_stdout(io.StringIO()):
        out = grades(course, assignment, echo=lambda *a: None)
    exported = {r["student_id"]: r for r in csv.DictReader(out.open())}
    assert exported["reference"]["status"] == "graded" and float(exported["reference"]["score"]) == automatic + 1.5
    assert exported["wrong_0"]["status"] == "needs manual grading"
    assert float(exported["wrong_0"]["score"]) == before["wrong_0"]["score"]
