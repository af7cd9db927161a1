"""nbgrader's own commands run the course's engine: `nbgrader autograde` and NbGraderAPI.autograde.

nbgrader_config.py registers grading.preprocessors in nbgrader's Autograde converter, so a
terminal's `nbgrader autograde` and the Formgrader's autograde button (NbGraderAPI) grade
a hostile submission exactly as `make autograde` does: sandboxed, tests from the gradebook.
"""
import contextlib
import os
import subprocess
import sys
import uuid

import nbformat
import pytest
from grading_helpers import ASSIGNMENT, fill, make_course, reference_bodies, submit

pytestmark = pytest.mark.slow

REF = reference_bodies()
RUN = uuid.uuid4().hex[:12]   # the files the attack would leave are named for this run alone
# nbgrader runs `alembic` from PATH, as it would in an activated environment
ENV = dict(os.environ, PATH=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
TOTAL = 17     # what the tests give; the derivation graded by hand (2 of the 19 points) is left as released: 0
PLA = 4

# reads the instructor's notebook (relative and absolute paths), runs its solution, and
# leaves a file outside its folder
HOSTILE = '''
import glob, json, os
def pla(X, y, max_updates=10_000):
    for target in ("../../../pwned", "{course}/pwned", os.path.expanduser("~/pwned-{tag}-{run}")):
        try:
            open(target, "w").write("x")
        except OSError:
            pass
    paths = glob.glob("../../../source/*/*.ipynb") + glob.glob("{course}/source/*/*.ipynb")
    for path in paths:
        for cell in json.load(open(path))["cells"]:
            if "def pla(" in "".join(cell["source"]):
                scope = {{"np": np}}
                exec("".join(cell["source"]), scope)
                return scope["pla"](X, y, max_updates)
    return np.zeros(np.shape(X)[1]), 0
'''


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    from grading.sandbox import sandbox_mode
    if sandbox_mode() == "off":
        pytest.fail("GRADING_SANDBOX=off: hostile submissions are only ever run inside the sandbox")
    course = make_course(tmp_path_factory.mktemp("nbgrader_cli"))
    run = subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--force"],
                         cwd=course, capture_output=True, text=True, env=ENV)
    assert run.returncode == 0, run.stderr[-3000:]
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    submit(course, "reference", fill(released, REF))
    for tag in ("cli", "api"):
        attack = HOSTILE.format(course=course, tag=tag, run=RUN).strip("\n")
        submit(course, f"hostile_{tag}", fill(released, dict(REF, **{"pla-solution": ("cell", attack)})))
    return course


def _score(course, student):
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        sub = gb.find_submission(ASSIGNMENT, student)
        return sub.score, {g.name: g.score for nb in sub.notebooks for g in nb.grades}


def _nothing_written_outside(course, tag):
    assert not (course / "pwned").exists()
    assert not (course.parent / "pwned").exists()
    assert not os.path.exists(os.path.expanduser(f"~/pwned-{tag}-{RUN}"))


def test_nbgrader_autograde_on_the_command_line_runs_the_course_engine(course):
    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT, "--force"],
                         cwd=course, capture_output=True, text=True, env=ENV)
    assert run.returncode == 0, run.stderr[-3000:]
    assert _score(course, "reference")[0] == TOTAL
    score, grades = _score(course, "hostile_cli")
    assert score == TOTAL - PLA, grades
    assert all(v == 0 for k, v in grades.items() if k.startswith("pla-")), grades
    _nothing_written_outside(course, "cli")


def test_nbgrader_api_autograde_runs_the_course_engine(course):
    """What the Formgrader's autograde button calls."""
    from nbgrader.apps import NbGraderAPI

    from grading.course import Course

    cwd = os.getcwd()
    os.chdir(course)
    try:
        api = NbGraderAPI(config=Course(course).config)
        result = api.autograde(ASSIGNMENT, "hostile_api", force=True, create=True)
    finally:
        os.chdir(cwd)
    assert result["success"], result.get("error") or result.get("log")
    score, grades = _score(course, "hostile_api")
    assert score == TOTAL - PLA, grades
    _nothing_written_outside(course, "api")


def test_the_formgrader_autograde_button_runs_the_course_engine(tmp_path):
    """`make lab-instructor`: the Formgrader's HTTP endpoint behind its autograde button."""
    from labdriver import running_lab  # starts `make lab-instructor` on a copy of the course

    with running_lab("instructor", tmp_path) as lab:
        course = lab.course
        run = subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--force"],
                             cwd=course, capture_output=True, text=True, env=ENV)
        assert run.returncode == 0, run.stderr[-3000:]
        released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
        attack = HOSTILE.format(course=course, tag="formgrader", run=RUN).strip("\n")
        submit(course, "hostile_formgrader", fill(released, dict(REF, **{"pla-solution": ("cell", attack)})))
        result = lab.api(f"formgrader/api/submission/{ASSIGNMENT}/hostile_formgrader/autograde", method="POST",
                         body={}, timeout=600)
        assert result["success"], result
        score, grades = _score(course, "hostile_formgrader")
        assert score == TOTAL - PLA, grades
        _nothing_written_outside(course, "formgrader")


def test_a_course_whose_grading_code_cannot_load_refuses_instead_of_grading_unsandboxed(course, tmp_path):
    """nbgrader ignores a configuration file that raises; this one must fail closed instead."""
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "nh3.py").write_text('raise ImportError("nh3 is broken in this environment")\n')
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    attack = HOSTILE.format(course=course, tag="broken", run=RUN).strip("\n")
    submit(course, "hostile_broken", fill(released, dict(REF, **{"pla-solution": ("cell", attack)})))
    env = dict(ENV, PYTHONPATH=os.pathsep.join([str(broken), ENV.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT, "--force",
                          "--student", "hostile_broken"], cwd=course, capture_output=True, text=True, env=env)
    assert run.returncode != 0, "autograde went ahead with a course configuration that could not load"
    assert "could not be loaded" in run.stderr and "nh3 is broken" in run.stderr, run.stderr[-3000:]
    _nothing_written_outside(course, "broken")
    assert not (course / "autograded" / "hostile_broken" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").exists()


def test_nbgrader_autograde_stops_a_submission_at_its_budget_and_grades_the_next(tmp_path):
    """Every answer cell of one submission sleeps until its timeout: the budget ends it, the next student is graded."""
    course = make_course(tmp_path)
    run = subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--force"],
                         cwd=course, capture_output=True, text=True, env=ENV)
    assert run.returncode == 0, run.stderr[-3000:]
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    spender = fill(released, REF)
    for cell in spender.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source += "\nimport threading\nthreading.Event().wait()\n"     # right answers, then no end
    submit(course, "budget_1_spender", spender)
    submit(course, "budget_2_honest", fill(released, REF))
    timeout, budget = 3, 8    # every answer cell runs at least `timeout` s: the budget ends the submission early
    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT, "--force", "--student=budget_*",
                          f"--CourseExecute.timeout={timeout}", f"--CourseExecute.submission_timeout={budget}"],
                         cwd=course, capture_output=True, text=True, env=ENV)
    assert run.returncode == 0, run.stderr[-3000:]
    assert _score(course, "budget_2_honest")[0] == TOTAL
    score, grades = _score(course, "budget_1_spender")
    graded = nbformat.read(course / "autograded" / "budget_1_spender" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb",
                           as_version=4)
    stopped = [i for i, c in enumerate(graded.cells) if c.cell_type == "code"
               and any(o.get("ename") == "BudgetExceeded" for o in c.get("outputs", []))]
    assert stopped, "no cell was stopped by the submission's budget"
    message = next(o["evalue"] for o in graded.cells[stopped[-1]].outputs if o.get("ename") == "BudgetExceeded")
    assert f"the {budget} s budget" in message and "CourseExecute.submission_timeout" in message, message
    # from the first stopped cell on, every test cell earns nothing
    after = {c.metadata["nbgrader"]["grade_id"] for c in graded.cells[stopped[0]:]
             if c.metadata.get("nbgrader", {}).get("grade")}
    assert after and all(grades[g] == 0 for g in after), (after, grades)
    assert score < TOTAL


def _timeout_messages(nb):
    """``{grade_id: message}`` of the test cells stopped by the cell time limit."""
    return {c.metadata["nbgrader"]["grade_id"]: o["evalue"] for c in nb.cells if c.cell_type == "code"
            and c.metadata.get("nbgrader", {}).get("grade") for o in c.get("outputs", [])
            if o.get("ename") == "CellTimeoutError"}


def test_an_assignment_s_own_cell_limit_holds_in_nbgrader_make_check_and_the_course_command(tmp_path):
    """``CourseExecute.assignment_timeouts`` beats the course-wide limit everywhere (autograde, make check,
    nbgrader's Validate); ``--timeout`` beats both."""
    from answer_bodies import ENDLESS
    from grading_helpers import with_answers

    course = make_course(tmp_path)
    with open(course / "nbgrader_config.py", "a") as f:
        f.write(f"\nc.Execute.timeout = 60\nc.CourseExecute.assignment_timeouts = {{{ASSIGNMENT!r}: 2}}\n")
    run = subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--force"],
                         cwd=course, capture_output=True, text=True, env=ENV)
    assert run.returncode == 0, run.stderr[-3000:]
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    path = submit(course, "looper", fill(released, with_answers(REF, pla_solution=ENDLESS)))
    pla_tests = {"pla-halts-with-no-training-mistake", "pla-stops-after-max-updates"}

    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT, "--force"],
                         cwd=course, capture_output=True, text=True, env=ENV)
    assert run.returncode == 0, run.stderr[-3000:]
    graded = course / "autograded" / "looper" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    stopped = _timeout_messages(nbformat.read(graded, as_version=4))
    assert set(stopped) == pla_tests and all("within 2 s" in m for m in stopped.values()), stopped
    assert _score(course, "looper")[0] == TOTAL - PLA

    check = subprocess.run([sys.executable, "-m", "grading", "check", str(path)], cwd=course, capture_output=True,
                           text=True, env=ENV)
    assert check.returncode == 1 and "did not finish within 2 s" in check.stdout, check.stdout[-3000:]
    assert "within 60 s" not in check.stdout, check.stdout[-3000:]

    # nbgrader's own Validate (the button of JupyterLab), in the notebook's folder named for the assignment
    validate = subprocess.run([sys.executable, "-m", "nbgrader", "validate", str(path)], cwd=course,
                              capture_output=True, text=True, env=ENV)
    assert validate.stderr.count("Timeout waiting for execute reply (2s)") == 2, validate.stderr[-3000:]

    run = subprocess.run([sys.executable, "-m", "grading", "--course", str(course), "autograde", ASSIGNMENT,
                          "--force", "--timeout", "3"], capture_output=True, text=True, env=ENV)
    assert run.returncode == 0, run.stderr[-3000:]
    stopped = _timeout_messages(nbformat.read(graded, as_version=4))
    assert set(stopped) == pla_tests and all("within 3 s" in m for m in stopped.values()), stopped


@pytest.mark.parametrize("corrupt", [
    lambda m: m.update(points="two"),                    # not a number
    lambda m: m.pop("points"),                           # a grade cell without points
    lambda m: m.update(grade_id=""),                     # an empty grade_id
    lambda m: m.update(schema_version=2),                # outdated
    lambda m: m.update(schema_version=4),                # too new
    lambda m: m.update(grade="yes"),                     # not a boolean
    lambda m: None,                                      # untouched: valid
], ids=["points-text", "no-points", "empty-id", "old-schema", "new-schema", "grade-text", "valid"])
def test_the_course_s_metadata_check_rejects_what_nbgrader_s_rejects(corrupt):
    """The course's CheckCellMetadata (schema compiled once) against nbgrader's own, on the same notebook."""
    import copy

    from nbgrader.preprocessors import CheckCellMetadata as NbgraderCheck

    from grading.preprocessors import CheckCellMetadata

    nb = nbformat.read(f"source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb", as_version=4)
    test_cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade"))
    corrupt(test_cell.metadata["nbgrader"])
    outcomes = []
    for check in (NbgraderCheck(), CheckCellMetadata(), CheckCellMetadata()):   # the second reuses the schema
        try:
            check.preprocess(copy.deepcopy(nb), {})
            outcomes.append("valid")
        except Exception as exc:
            outcomes.append(type(exc).__name__)
    assert outcomes[0] == outcomes[1] == outcomes[2], outcomes


def test_the_course_s_metadata_check_rejects_a_duplicate_grade_id_as_nbgrader_does():
    from nbgrader.nbgraderformat import ValidationError

    from grading.preprocessors import CheckCellMetadata

    nb = nbformat.read(f"source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb", as_version=4)
    tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    tests[1].metadata["nbgrader"]["grade_id"] = tests[0].metadata["nbgrader"]["grade_id"]
    with pytest.raises(ValidationError, match="may be corrupted"):
        CheckCellMetadata().preprocess(nb, {})


def test_every_nbgrader_key_of_a_cell_comes_from_the_gradebook_and_every_text_is_valid_utf8(course):
    """TrustOnlyTheGradebook on its own (no sandbox): forged keys are replaced, unknown cells lose their metadata."""
    import json

    from grading.preprocessors import TrustOnlyTheGradebook

    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    truth = {c.metadata["nbgrader"]["grade_id"]: dict(c.metadata["nbgrader"]) for c in released.cells
             if "nbgrader" in c.metadata}
    nb = nbformat.from_dict(json.loads(json.dumps(released)))
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.metadata["nbgrader"].update(cell_type="bogus", points=100, task=True, checksum="forged", extra=1)
    nb.cells.append(nbformat.v4.new_code_cell("x = '\udcff'", metadata={"nbgrader": {"grade_id": "mine", "grade": True}}))
    resources = {"nbgrader": {"db_url": f"sqlite:///{course / 'gradebook.db'}", "notebook": ASSIGNMENT,
                              "assignment": ASSIGNMENT, "student": "s"}}
    nb, _ = TrustOnlyTheGradebook().preprocess(nb, resources)
    from nbgrader.api import Gradebook

    got = {c.metadata["nbgrader"]["grade_id"]: dict(c.metadata["nbgrader"]) for c in nb.cells if "nbgrader" in c.metadata}
    assert got.keys() == truth.keys()
    with Gradebook(resources["nbgrader"]["db_url"]) as gb:
        for gid, meta in got.items():
            # the release's keys, but the checksum of the cell as the gradebook keeps it (hidden tests included)
            assert meta.pop("checksum") == gb.find_source_cell(gid, ASSIGNMENT, ASSIGNMENT).checksum, gid
            meta.setdefault("task", False)                   # (nbgrader writes task: false on some cells only)
            assert {k: v for k, v in meta.items() if k != "points"} == dict(
                {"task": False}, **{k: v for k, v in truth[gid].items() if k not in ("points", "checksum")}), gid
            assert float(meta.get("points", 0)) == float(truth[gid].get("points", 0)), gid
    nbformat.writes(nb).encode("utf-8")                  # no lone surrogate is left


def test_the_limits_are_resolved_once_from_the_course_s_configuration(tmp_path):
    from traitlets.config import Config

    from grading.limits import GradingLimits
    from grading.preprocessors import CourseExecute

    cfg = Config({"Execute": {"timeout": 7}, "CourseExecute": {"assignment_timeouts": {"ps1_perceptron": 3},
                                                              "output_budget": 1000, "wall_factor": 4},
                  "CourseDirectory": {"root": str(tmp_path)}})
    execute = CourseExecute(config=cfg)
    assert execute.limits("ps1_perceptron") == GradingLimits(timeout=3, output_budget=1000, wall_factor=4)
    assert execute.limits("ps2_hoeffding").timeout == 7
    settings = execute.settings("ps1_perceptron")
    assert settings["limits"]["timeout"] == 3 and len(settings["secret"]) == 16
    assert (tmp_path / "grading-secret.key").stat().st_mode & 0o777 == 0o600
    assert execute.settings("ps1_perceptron") == settings           # the same secret, the same digest



def _graded_rows(db_url, assignment, student):
    """Every grade (automatic and manual score, flag) and automatic comment of a submission, by notebook and cell."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gb:
        sub = gb.find_submission(assignment, student)
        grades = {(nb.name, g.name): (g.auto_score, g.manual_score, g.needs_manual_grade)
                  for nb in sub.notebooks for g in nb.grades}
        comments = {(nb.name, c.name): c.auto_comment for nb in sub.notebooks for c in nb.comments}
    return grades, comments


def test_the_course_s_save_autogrades_writes_what_nbgrader_s_writes(tmp_path):
    """nbgrader's SaveAutoGrades and the course's (one commit per notebook) leave the same rows, whichever test
    cells pass, fail or never ran, with the solutions as released, and with scores a grader had given by hand."""
    import copy

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from nbgrader.api import Gradebook
    from nbgrader.preprocessors import SaveAutoGrades as NbgraderSaveAutoGrades

    from grading.classrun import generate
    from grading.course import Course
    from grading.preprocessors import SaveAutoGrades

    course = Course(make_course(tmp_path))
    databases = {}
    for step in (NbgraderSaveAutoGrades, SaveAutoGrades):
        databases[step] = f"sqlite:///{tmp_path / (step.__module__ + '.db')}"
        generate(course, ASSIGNMENT, release_dir=tmp_path / step.__module__, db_url=databases[step])
    released = nbformat.read(tmp_path / SaveAutoGrades.__module__ / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    graded = [i for i, c in enumerate(released.cells) if c.metadata.get("nbgrader", {}).get("grade")]
    assert {released.cells[i].cell_type for i in graded} == {"code", "markdown"}
    error = nbformat.v4.new_output("error", ename="AssertionError", evalue="wrong", traceback=[])

    @settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(outcomes=st.lists(st.sampled_from(["pass", "fail", "not run"]), min_size=len(graded),
                             max_size=len(graded)),
           by_hand=st.sets(st.sampled_from(graded), max_size=3))
    def same_rows(outcomes, by_hand):
        nb = copy.deepcopy(released)
        for i, outcome in zip(graded, outcomes, strict=True):
            if nb.cells[i].cell_type == "code":
                nb.cells[i].outputs = [error] if outcome == "fail" else []
                nb.cells[i].execution_count = None if outcome == "not run" else 1
        rows = {}
        for step, db in databases.items():
            with Gradebook(db) as gb:
                gb.update_or_create_student("s1")
                if gb.find_assignment(ASSIGNMENT).submissions:
                    gb.remove_submission(ASSIGNMENT, "s1")
                gb.add_submission(ASSIGNMENT, "s1")
                for i in by_hand:
                    gb.find_grade(nb.cells[i].metadata.nbgrader["grade_id"], ASSIGNMENT, ASSIGNMENT,
                                  "s1").manual_score = 1.0
                gb.db.commit()
            resources = {"nbgrader": {"notebook": ASSIGNMENT, "assignment": ASSIGNMENT, "student": "s1",
                                      "db_url": db}}
            step().preprocess(copy.deepcopy(nb), resources)
            rows[step] = _graded_rows(db, ASSIGNMENT, "s1")
        assert rows[SaveAutoGrades] == rows[NbgraderSaveAutoGrades]
        grades, _ = rows[SaveAutoGrades]
        for i, outcome in zip(graded, outcomes, strict=True):          # and they say what happened
            cell = nb.cells[i]
            if cell.cell_type == "code" and outcome != "not run":
                auto = grades[(ASSIGNMENT, cell.metadata.nbgrader["grade_id"])][0]
                assert auto == (0 if outcome == "fail" else cell.metadata.nbgrader["points"])

    same_rows()


def test_the_course_s_overwrite_cells_restores_what_nbgrader_s_restores(tmp_path):
    """nbgrader's OverwriteCells (asking the gradebook) and the course's (answered from the copy a run reads once)
    make the same notebook and the same warnings (or fail alike) from a submission whose cells were deleted,
    edited, retyped, unlocked, re-pointed or renamed."""
    import copy
    import json
    import logging

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from nbgrader.preprocessors import OverwriteCells as NbgraderOverwriteCells

    from grading import gradebook as gbk
    from grading.classrun import generate
    from grading.course import Course
    from grading.preprocessors import OverwriteCells

    course = Course(make_course(tmp_path))
    db = f"sqlite:///{tmp_path / 'gradebook.db'}"
    generate(course, ASSIGNMENT, release_dir=tmp_path / "release", db_url=db)
    released = nbformat.read(tmp_path / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    with gbk.open_url(db) as gb:
        book = gbk.source_notebook(gb, ASSIGNMENT, ASSIGNMENT)
    known = [i for i, c in enumerate(released.cells) if c.metadata.get("nbgrader", {}).get("grade_id")]
    changes = st.sampled_from(["delete", "edit", "retype", "unlock", "points", "rename", "keep"])

    def changed(kinds):
        nb = copy.deepcopy(released)
        for i, kind in sorted(zip(known, kinds, strict=True), reverse=True):
            cell, meta = nb.cells[i], nb.cells[i].metadata.nbgrader
            if kind == "delete":
                del nb.cells[i]
            elif kind == "edit":
                cell.source += "\nx = 1  # changed"
            elif kind == "retype":
                nb.cells[i] = (nbformat.v4.new_markdown_cell(cell.source, metadata=cell.metadata)
                               if cell.cell_type == "code" else
                               nbformat.v4.new_code_cell(cell.source, metadata=cell.metadata))
            elif kind == "unlock":
                meta["locked"] = not meta.get("locked", False)
            elif kind == "points" and "points" in meta:
                meta["points"] = float(meta["points"]) + 7
            elif kind == "rename":
                meta["grade_id"] = meta["grade_id"] + "-mine"
        return nb

    def run(step, nb, grading):
        records = []
        handler = logging.Handler()
        handler.emit = records.append
        log = logging.getLogger(f"overwrite-{step.__module__}")
        log.handlers, log.propagate = [handler], False
        resources = {"nbgrader": {"notebook": ASSIGNMENT, "assignment": ASSIGNMENT, "student": "s1", "db_url": db}}
        if grading:
            resources["grading"] = {"book": book}
        try:
            out, _ = step(config=course.nbgrader_config(), log=log).preprocess(copy.deepcopy(nb), resources)
        except Exception as exc:          # (nbgrader fails on some of these: the course's must fail alike)
            out = f"{type(exc).__name__}: {exc}"
        return json.dumps(out, sort_keys=True), [r.getMessage() for r in records]

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(kinds=st.lists(changes, min_size=len(known), max_size=len(known)))
    def same_notebook(kinds):
        nb = changed(kinds)
        theirs = run(NbgraderOverwriteCells, nb, grading=False)
        ours = run(OverwriteCells, nb, grading=True)
        assert ours == theirs

    failed = 0
    for i in range(len(known)):                          # each change alone, on each cell
        for kind in ("delete", "edit", "retype", "unlock", "points", "rename"):
            nb = changed(["keep"] * i + [kind] + ["keep"] * (len(known) - i - 1))
            ours = run(OverwriteCells, nb, grading=True)
            assert ours == run(NbgraderOverwriteCells, nb, grading=False)
            failed += ours[0].startswith('"')
    assert failed < 3 * len(known)                       # most single changes are restored, not refused
    same_notebook()


def _logged(name):
    """A logger of its own (nothing propagates) and the list of ``(level, message)`` it receives."""
    import logging

    records = []
    handler = logging.Handler()
    handler.emit = lambda r: records.append((r.levelname, r.getMessage()))
    log = logging.getLogger(name)
    log.handlers, log.propagate = [handler], False
    log.setLevel(logging.DEBUG)
    return log, records


def _collected_late(db, *, due, timestamp, extension, by_hand):
    """What collecting and a grader leave in a gradebook: the due date, one submission (s1) made at ``timestamp``, an
    extension, a score by hand on the written answer, and a stale late penalty that autograding must replace (the
    automatic scores are the ones autograding writes)."""
    from nbgrader.api import Gradebook

    from grading import gradebook as gbk

    with gbk.quiet(), Gradebook(db) as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate=due)
        gb.update_or_create_student("s1")
        sub = gb.update_or_create_submission(ASSIGNMENT, "s1", timestamp=timestamp)   # (again: a resubmission)
        sub.extension = extension
        for name, score in by_hand.items():
            gb.find_grade(name, ASSIGNMENT, ASSIGNMENT, "s1").manual_score = score
        gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, "s1").late_submission_penalty = 123.0
        gb.db.commit()


def _late_penalty(db):
    """The notebook's late penalty and score in the gradebook."""
    from nbgrader.api import Gradebook

    from grading import gradebook as gbk

    with gbk.quiet(), Gradebook(db) as gb:
        nb = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, "s1")
        return nb.late_submission_penalty, nb.score


def test_the_course_s_assign_late_penalties_writes_what_nbgrader_s_writes(tmp_path):
    """nbgrader's SaveAutoGrades and AssignLatePenalties (a gradebook of their own each) and the course's (in a class
    run's RunGradebook, each step in a use of its own or both in one use that already read the submission; and without
    a class run) leave the same late penalty and log the same, on time, early, within a grace period, hours and days
    late, with or without an extension, whichever test cells passed and whatever a grader gave by hand; and the
    penalty is the course's policy's."""
    import copy
    import datetime as dt
    import math
    import shutil

    from hypothesis import HealthCheck, example, given, settings
    from hypothesis import strategies as st
    from nbgrader.preprocessors import AssignLatePenalties as NbgraderAssignLatePenalties
    from nbgrader.preprocessors import SaveAutoGrades as NbgraderSaveAutoGrades

    from grading import gradebook as gbk
    from grading.classrun import generate
    from grading.course import Course
    from grading.late import Policy
    from grading.preprocessors import AssignLatePenalties, SaveAutoGrades

    course = Course(make_course(tmp_path))
    generated = tmp_path / "generated.db"
    generate(course, ASSIGNMENT, release_dir=tmp_path / "release", db_url=f"sqlite:///{generated}")
    ways = {"nbgrader": "nbgrader.db", "run": "run.db", "run, one use": "one_use.db", "no run": "no_run.db",
            "no run's gradebook": "no_gradebook.db"}
    databases = {}
    for way, name in ways.items():                       # the same gradebook, a copy for each way
        shutil.copy(generated, tmp_path / name)
        databases[way] = f"sqlite:///{tmp_path / name}"
    runs = {way: gbk.RunGradebook(databases[way], course.course_id) for way in ("run", "run, one use")}
    released = nbformat.read(tmp_path / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    points = {c.metadata.nbgrader["grade_id"]: float(c.metadata.nbgrader["points"]) for c in released.cells
              if c.metadata.get("nbgrader", {}).get("grade")}
    cells = {c.metadata.nbgrader["grade_id"]: i for i, c in enumerate(released.cells)
             if c.metadata.get("nbgrader", {}).get("grade")}
    written = [g for g, i in cells.items() if released.cells[i].cell_type == "markdown"]
    tests = sorted(set(points) - set(written))
    assert len(written) == 1 and len(tests) >= 10
    cfg = course.nbgrader_config()
    assert cfg.AssignLatePenalties.plugin_class == "grading.late.LatePenalty"
    percent = float(cfg.LatePenalty.percent_per_day)
    assert percent > 0
    error = nbformat.v4.new_output("error", ename="AssertionError", evalue="wrong", traceback=[])
    due = dt.datetime(2026, 11, 20, 23, 59)
    day, us = 86400, 1_000_000

    def autograde(way, nb, cfg):
        """The two steps in nbgrader's order, as ``way`` runs them; the penalty, the score and what was logged."""
        db = databases[way]
        log, records = _logged(f"late-{way}")
        resources = {"nbgrader": {"notebook": ASSIGNMENT, "assignment": ASSIGNMENT, "student": "s1", "db_url": db}}
        if way in runs:
            resources["grading"] = {"book": None, "gradebook": runs[way]}
        elif way == "no run's gradebook":
            resources["grading"] = {"book": None}
        steps = ((NbgraderSaveAutoGrades, NbgraderAssignLatePenalties) if way == "nbgrader" else
                 (SaveAutoGrades, AssignLatePenalties))
        out = copy.deepcopy(nb)
        with runs[way].use() if way == "run, one use" else contextlib.nullcontext() as gb:
            if gb is not None:                           # as a class run: the submission already read in the use
                assert gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, "s1").score is not None
            for step in steps:
                out, resources = step(config=cfg, log=log).preprocess(out, copy.deepcopy(resources))
        assert out == nb
        return _late_penalty(db), records

    lateness = st.one_of(
        st.just(0),                                                  # on time, to the microsecond
        st.integers(-30 * day * us, -1),                             # early
        st.integers(1, 30 * 60 * us),                                # within a grace period of half an hour
        st.integers(30 * 60 * us + 1, day * us - 1),                 # hours
        st.integers(day * us, 15 * day * us),                        # days, up to all of the score
        st.integers(1, 12).map(lambda d: d * day * us),              # a whole number of days, to the microsecond
    )

    @settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(late_us=lateness, extension_days=st.sampled_from([0, 0, 1]), grace=st.sampled_from([None, 30.0]),
           passed=st.sets(st.sampled_from(tests)), by_hand=st.sampled_from([None, 0.0, 0.5, points[written[0]]]))
    @example(late_us=0, extension_days=0, grace=None, passed=set(tests), by_hand=1.0)
    @example(late_us=-3600 * us, extension_days=0, grace=None, passed=set(tests[:3]), by_hand=None)
    @example(late_us=10 * 60 * us, extension_days=0, grace=30.0, passed=set(tests), by_hand=2.0)
    @example(late_us=5 * 3600 * us + 7, extension_days=0, grace=None, passed=set(tests[1:]), by_hand=0.5)
    @example(late_us=2 * day * us, extension_days=0, grace=None, passed=set(tests), by_hand=None)
    @example(late_us=2 * day * us + 1, extension_days=1, grace=None, passed=set(tests), by_hand=2.0)
    @example(late_us=13 * day * us, extension_days=0, grace=None, passed=set(tests[::2]), by_hand=0.0)
    @example(late_us=3 * day * us, extension_days=0, grace=None, passed=set(), by_hand=None)
    def same_penalty(late_us, extension_days, grace, passed, by_hand):
        config = cfg if grace is None else course.nbgrader_config(LatePenalty={"grace_minutes": grace})
        nb = copy.deepcopy(released)
        for name in tests:
            cell = nb.cells[cells[name]]
            cell.outputs, cell.execution_count = ([] if name in passed else [error]), 1
        outcome = {}
        for way in ways:
            _collected_late(databases[way], due=due, timestamp=due + dt.timedelta(microseconds=late_us),
                            extension=dt.timedelta(days=extension_days) if extension_days else None,
                            by_hand={written[0]: by_hand})
            outcome[way] = autograde(way, nb, config)
        for way in ways:
            assert outcome[way] == outcome["nbgrader"], way
        (penalty, score), records = outcome["nbgrader"]
        # the course's policy in closed form: percent_per_day of the score per started day after the grace period
        expected_score = sum(points[t] for t in passed) + (by_hand or 0.0)
        assert score == pytest.approx(expected_score)
        seconds = max(0.0, (dt.timedelta(microseconds=late_us) - dt.timedelta(days=extension_days)).total_seconds())
        warned = [message for level, message in records if level == "WARNING"]
        if seconds == 0:
            assert penalty is None and warned == []          # on time: no penalty at all, as nbgrader leaves it
            return
        grace_s = 60 * float(config.LatePenalty.grace_minutes)
        days = math.ceil((seconds - grace_s) / day) if seconds > grace_s else 0
        assert penalty == pytest.approx(min(expected_score, expected_score * percent / 100 * days), abs=1e-6)
        assert penalty == pytest.approx(Policy.from_config(config).penalty(expected_score, seconds), abs=1e-6)
        assert warned == [f"SubmittedAssignment<{ASSIGNMENT} for s1> is {seconds} seconds late",
                          f"Late submission penalty: {penalty}"]

    try:
        same_penalty()
    finally:
        for held in runs.values():
            held.close()


def test_the_course_s_overwrite_kernelspec_sets_what_nbgrader_s_sets(tmp_path):
    """nbgrader's OverwriteKernelspec (asking the gradebook) and the course's (answered from the copy a class run reads
    once) make the same notebook and log the same, for a submission without a kernelspec, with another kernel's, with
    one that would run a program of the student's, and with the right one; and when the gradebook keeps no kernelspec
    (None) or an empty one, or does not know the notebook."""
    import copy
    import json

    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.preprocessors import OverwriteKernelspec as NbgraderOverwriteKernelspec

    from grading import gradebook as gbk
    from grading.classrun import generate
    from grading.course import Course
    from grading.preprocessors import OverwriteKernelspec

    course = Course(make_course(tmp_path))
    db = f"sqlite:///{tmp_path / 'gradebook.db'}"
    generate(course, ASSIGNMENT, release_dir=tmp_path / "release", db_url=db)
    released = nbformat.read(tmp_path / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    source = nbformat.read(course.root / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    right = dict(source.metadata.kernelspec)
    assert right["name"] == "python3"
    submissions = {
        "none": None,
        "another kernel": {"name": "ir", "display_name": "R", "language": "R"},
        "a program of the student's": dict(right, argv=["sh", "-c", "touch pwned"], env={"PYTHONPATH": "/tmp"}),
        "the right one": right,
    }

    def run(step, nb, notebook, book):
        log, records = _logged(f"kernelspec-{step.__module__}")
        resources = {"nbgrader": {"notebook": notebook, "assignment": ASSIGNMENT, "student": "s1", "db_url": db}}
        if book is not False:
            resources["grading"] = {"book": book}
        try:
            out, _ = step(config=course.nbgrader_config(), log=log).preprocess(copy.deepcopy(nb), resources)
        except MissingEntry as exc:       # (nbgrader's fails on a notebook the gradebook lacks: the course's alike)
            out = f"{type(exc).__name__}: {exc}"
        return json.dumps(out, sort_keys=True), records

    def kept_as(kernelspec):
        with gbk.quiet(), Gradebook(db) as gb:
            gb.find_notebook(ASSIGNMENT, ASSIGNMENT).kernelspec = kernelspec
            gb.db.commit()
        with gbk.open_url(db) as gb:
            return gbk.source_notebook(gb, ASSIGNMENT, ASSIGNMENT)

    checked = 0
    with gbk.open_url(db) as gb:
        generated = gb.find_notebook(ASSIGNMENT, ASSIGNMENT).kernelspec
    assert json.loads(generated) == right
    for kept in (generated, None, "{}"):
        book = kept_as(kept)
        assert book.kernelspec == kept
        for what, kernelspec in submissions.items():
            nb = copy.deepcopy(released)
            nb.metadata.pop("kernelspec", None)
            if kernelspec is not None:
                nb.metadata["kernelspec"] = kernelspec
            theirs = run(NbgraderOverwriteKernelspec, nb, ASSIGNMENT, False)
            assert run(OverwriteKernelspec, nb, ASSIGNMENT, book) == theirs, (kept, what)
            assert run(OverwriteKernelspec, nb, ASSIGNMENT, False) == theirs, (kept, what)   # without a class run
            out = json.loads(theirs[0])
            if kept == generated:                          # the instructor's kernel, whatever the student's said
                assert out["metadata"]["kernelspec"] == right, what
            else:                                          # nothing to overwrite with: the submission's, as nbgrader
                assert out["metadata"].get("kernelspec") == kernelspec, (kept, what)
            checked += 1
    assert checked == 3 * len(submissions)
    theirs = run(NbgraderOverwriteKernelspec, released, "unknown", False)
    assert theirs[0].startswith('"MissingEntry')
    assert run(OverwriteKernelspec, released, "unknown", None) == theirs   # the run's books lack it: nbgrader's step
