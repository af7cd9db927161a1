"""A submission's job and its way back into nbgrader, step by step, without a sandbox.

The class run executes each submission elsewhere and hands nbgrader's Autograde what came back
through ``resources["grading"]`` (:mod:`grading.jobs`); these tests drive nbgrader's plug-ins
with such resources directly, in the style of nbgrader's own preprocessor tests, and read a
real SQLite gradebook made with nbgrader's API. ``tests/test_autograde.py`` grades whole
classes through the same road.
"""
import os
import sys

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from traitlets.config import Config

from grading import gradebook as gbk
from grading.engine import KernelDied, SubmissionRefused
from grading.executors import JobFailed
from grading.jobs import CourseAutograde, TakePrepared, results_of
from grading.preprocessors import CourseExecute, source_notebook
from grading.results import CellResult, Outcome, SubmissionReport


def _resources(**grading):
    # no db_url and no submission folder: a step that went to the gradebook or ran the engine would fail
    return {"nbgrader": {"assignment": "ps1", "notebook": "ps1", "student": "ada"}, "grading": grading}


def _executed():
    nb = new_notebook(cells=[new_code_cell("x = 1", outputs=[new_output("stream", name="stdout", text="ran\n")])])
    return nb, SubmissionReport(cells=[CellResult(0, None, Outcome.OK)], notes=["big.csv left out"])


def test_course_execute_takes_the_result_in_resources_instead_of_running_the_engine():
    executed, report = _executed()
    nb = new_notebook(cells=[new_code_cell("x = 1")])
    out, resources = CourseExecute(config=Config()).preprocess(nb, _resources(result=(executed, report)))
    assert out.cells == executed.cells and out.cells[0].outputs[0].text == "ran\n"
    assert resources["grading"]["report"] is report


def test_course_execute_stops_a_notebook_whose_result_is_ungraded_or_an_error():
    executed, _ = _executed()
    ungraded = SubmissionReport(status="ungraded", reason="the student's process could not start")
    with pytest.raises(KernelDied, match="could not start"):
        CourseExecute(config=Config()).preprocess(new_notebook(), _resources(result=(executed, ungraded)))
    refused = SubmissionRefused("the folder is a symbolic link")
    with pytest.raises(SubmissionRefused) as caught:
        CourseExecute(config=Config()).preprocess(new_notebook(), _resources(result=refused))
    assert caught.value is refused


def test_results_of_a_job_that_did_not_come_back_or_came_back_short():
    lost = results_of(["a", "b"], None, JobFailed("worker lost"))
    assert set(lost) == {"a", "b"}
    for error in lost.values():
        assert isinstance(error, KernelDied)
        assert "did not come back (worker lost)" in str(error) and "graded again by the next run" in str(error)
    executed, report = _executed()
    short = results_of(["a", "b"], {"a": {"notebook": dict(executed), "report": report.to_dict()}}, None)
    nb, back = short["a"]
    assert nb.cells == executed.cells and back == report
    assert isinstance(short["b"], KernelDied) and "b.ipynb" in str(short["b"])
    refused = SubmissionRefused("not a folder")
    assert results_of(["a"], None, refused) == {"a": refused}        # the submission's own reason, kept


def test_take_prepared_gives_the_job_s_notebook_and_sanitizes_one_without_a_job():
    prepared = new_notebook(cells=[new_markdown_cell("as the job carried it")])
    step = TakePrepared(config=Config())
    first, _ = step.preprocess(new_notebook(cells=[new_code_cell("other")]), _resources(prepared=dict(prepared)))
    first.cells[0].source = "changed by a later step"
    again, _ = step.preprocess(new_notebook(), _resources(prepared=dict(prepared)))
    assert again.cells[0].source == "as the job carried it"
    config = Config({"Autograde": {"sanitize_preprocessors": ["nbgrader.preprocessors.ClearOutput"]}})
    nb = new_notebook(cells=[new_code_cell("1", outputs=[new_output("stream", name="stdout", text="old\n")],
                                           execution_count=3)])
    out, _ = TakePrepared(config=config).preprocess(nb, _resources())
    assert out.cells[0].outputs == [] and out.cells[0].execution_count is None


@pytest.fixture
def gradebook(tmp_path, monkeypatch):
    """A real SQLite gradebook holding one notebook of ps1 with every kind of cell."""
    from nbgrader.api import Gradebook

    monkeypatch.setenv("PATH", os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(url) as gb:
        gb.add_assignment("ps1")
        gb.add_notebook("ps1", "ps1")
        cells = {  # name: (cell_type, source, locked)
            "setup-imports": ("code", "import numpy as np", True),
            "pla-solution": ("code", "def pla(X, y):\n    ...", False),
            "pla-test": ("code", "assert pla is not None", True),
            "explain": ("markdown", "Your answer", False),
            "task-plot": ("markdown", "Draw it", True),
            "intro": ("markdown", "# Problem set 1", True),
        }
        for name, (kind, source, locked) in cells.items():
            gb.add_source_cell(name, "ps1", "ps1", cell_type=kind, source=source, locked=locked,
                               checksum=f"sum-{name}")
        gb.add_grade_cell("pla-test", "ps1", "ps1", max_score=4, cell_type="code")
        gb.add_grade_cell("explain", "ps1", "ps1", max_score=2, cell_type="markdown")
        gb.add_solution_cell("pla-solution", "ps1", "ps1")
        gb.add_solution_cell("explain", "ps1", "ps1")
        gb.add_task_cell("task-plot", "ps1", "ps1", max_score=1, cell_type="markdown")
    return url


def test_the_source_notebook_answers_what_the_sanitizing_steps_ask(gradebook):
    with gbk.open_url(gradebook) as gb:
        book = gbk.source_notebook(gb, "ps1", "ps1")
        assert gbk.source_notebook(gb, "ps1", "ps2") is None
    assert book.tests() == {"pla-test": "assert pla is not None"}
    assert book.setups() == {"setup-imports": "import numpy as np"}
    assert sorted(book.locked()) == ["intro", "pla-test", "setup-imports", "task-plot"]
    meta = book.metadata()
    assert meta["pla-test"] == {"grade_id": "pla-test", "grade": True, "solution": False, "locked": True,
                                "schema_version": 3, "cell_type": "code", "points": 4.0, "checksum": "sum-pla-test"}
    assert meta["explain"]["grade"] and meta["explain"]["solution"] and meta["explain"]["points"] == 2.0
    assert meta["task-plot"]["task"] and meta["task-plot"]["points"] == 1.0 and not meta["task-plot"]["grade"]
    assert not meta["intro"]["grade"] and "points" not in meta["intro"]
    # read from the gradebook when no class run handed it over, taken as handed over otherwise
    resources = {"nbgrader": {"db_url": gradebook, "assignment": "ps1", "notebook": "ps1"}}
    assert source_notebook(resources) == book
    assert source_notebook(dict(resources, grading={"book": book})) is book


def test_the_class_run_s_converter_puts_book_job_and_result_in_each_notebook_s_resources(tmp_path):
    from nbgrader.coursedir import CourseDirectory

    config = Config({"CourseDirectory": {"root": str(tmp_path)}})
    executed, report = _executed()
    converter = CourseAutograde(coursedir=CourseDirectory(config=config), config=config,
                                prepared={"ps1": dict(executed)}, results={"ps1": (executed, report)},
                                books={"ps1": "the book of ps1"})
    path = str(tmp_path / "submitted" / "ada" / "ps1" / "ps1.ipynb")
    grading = converter.init_single_notebook_resources(path)["grading"]
    assert grading == {"book": "the book of ps1", "prepared": dict(executed), "result": (executed, report)}
    other = converter.init_single_notebook_resources(str(tmp_path / "submitted" / "ada" / "ps1" / "extra.ipynb"))
    assert other["grading"] == {"book": None}


def _init_course(root, template, *, known, repeated, excluded, create):
    """A course at ``root`` with the gradebook ``template`` (ps1: notebooks ps1 and extra) and instructor's files."""
    import shutil
    from datetime import datetime

    root.mkdir()
    shutil.copy(template, root / "gradebook.db")
    for rel, text in {"source/ps1/ps1.ipynb": "{}", "source/ps1/extra.ipynb": "{}",
                      "source/ps1/data.csv": "instructor's data", "source/ps1/sub/notes.txt": "notes"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    if known:
        with gbk.open_url(f"sqlite:///{root / 'gradebook.db'}", "ml-foundations") as gb:
            gb.add_student("ada", first_name="Ada")
            if repeated:
                gb.add_submission("ps1", "ada", timestamp=datetime(2026, 2, 1))
                gb.find_grade("ps1-test", "ps1", "ps1", "ada").manual_score = 2.0
                gb.db.commit()
    return Config({"CourseDirectory": {"root": str(root), "course_id": "ml-foundations"},
                   "Autograde": {"create_student": create,
                                 "exclude_overwriting": {"ps1": ["data.csv"]} if excluded else {}}})


def _init_submit(root, notebooks, timestamp, own_data):
    """Ada's submission of ps1 at ``root``: the ``notebooks``, her own files, a timestamp; its notebook paths."""
    folder = root / "submitted" / "ada" / "ps1"
    folder.mkdir(parents=True)
    for name in notebooks:
        (folder / f"{name}.ipynb").write_text("{}")
    (folder / "own.txt").write_text("the student's")
    if own_data:
        (folder / "data.csv").write_text("the student's data")
    if timestamp is not None:
        (folder / "timestamp.txt").write_text(timestamp)
    return sorted(str(p) for p in folder.glob("*.ipynb"))


def _init_outcome(root, converter_class, config, notebooks, **extra):
    """``init_assignment`` of ps1 for ada by ``converter_class``: error, notebooks kept, gradebook, files, messages."""
    import logging

    from nbgrader.coursedir import CourseDirectory

    messages = []
    handler = logging.Handler()
    handler.emit = lambda record: messages.append(record.getMessage())      # as a handler formats: at once
    log = logging.getLogger(f"init-{root.name}")
    log.handlers, log.propagate, log.level = [handler], False, logging.DEBUG
    converter = converter_class(coursedir=CourseDirectory(config=config), config=config, log=log, **extra)
    converter.notebooks = list(notebooks)
    error = None
    try:
        converter.init_assignment("ps1", "ada")
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
    finally:
        if "gradebook" in extra:
            extra["gradebook"].close()
    with gbk.open_url(f"sqlite:///{root / 'gradebook.db'}", "ml-foundations") as gb:
        students = sorted((s.id, s.first_name) for s in gb.students)
        subs = {sub.student.id: (sub.timestamp, {nb.name: [(g.name, g.auto_score, g.manual_score,
                                                            g.needs_manual_grade) for g in nb.grades]
                                                 for nb in sub.notebooks})
                for sub in gb.find_assignment("ps1").submissions}
    dest = root / "autograded" / "ada" / "ps1"
    files = sorted((str(p.relative_to(dest)), p.read_text()) for p in dest.rglob("*") if p.is_file())
    return (error, [os.path.relpath(n, root) for n in converter.notebooks], students, subs, files,
            sorted(m.replace(str(root), "<root>") for m in messages))


def test_the_class_run_s_init_assignment_does_what_nbgrader_s_does(tmp_path, monkeypatch):
    """nbgrader's ``Autograde.init_assignment`` (a gradebook per step) and the class run's (one gradebook) leave
    the same gradebook, the same ``autograded/`` folder and notebooks to grade, log the same and fail alike:
    a new or known student (created or required), a first or a repeated submission with a grader's score, on
    time, late or without a timestamp, a notebook missing or unknown, files of the student's and of the
    instructor's (one excluded from overwriting)."""
    from datetime import datetime
    from itertools import count

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from nbgrader.api import Gradebook
    from nbgrader.converters import Autograde

    monkeypatch.setenv("PATH", os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    template = tmp_path / "template.db"
    with Gradebook(f"sqlite:///{template}", "ml-foundations") as gb:
        gb.add_assignment("ps1", duedate=datetime(2026, 3, 1, 12, 0))
        for name in ("ps1", "extra"):
            gb.add_notebook(name, "ps1")
            gb.add_source_cell(f"{name}-test", name, "ps1", cell_type="code", source="assert True", locked=True,
                               checksum="x")
            gb.add_grade_cell(f"{name}-test", name, "ps1", max_score=3, cell_type="code")
    roots = count()

    @settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(known=st.booleans(), repeated=st.booleans(), create=st.booleans(), excluded=st.booleans(),
           notebooks=st.sets(st.sampled_from(["ps1", "extra", "mine"]), min_size=1),
           timestamp=st.sampled_from([None, "2026-02-27 09:00:00", "2026-03-03 18:30:00"]), own_data=st.booleans())
    def same_outcome(known, repeated, create, excluded, notebooks, timestamp, own_data):
        outcomes = {}
        for kind in (Autograde, CourseAutograde):
            root = tmp_path / f"course{next(roots)}"
            config = _init_course(root, template, known=known, repeated=repeated, excluded=excluded, create=create)
            paths = _init_submit(root, notebooks, timestamp, own_data)
            extra = {"gradebook": gbk.RunGradebook(f"sqlite:///{root / 'gradebook.db'}", "ml-foundations")} \
                if kind is CourseAutograde else {}
            outcomes[kind] = _init_outcome(root, kind, config, paths, **extra)
        assert outcomes[CourseAutograde] == outcomes[Autograde]
        error, kept, _, subs, files, _ = outcomes[CourseAutograde]       # and it is what nbgrader's step means
        if error is not None:
            assert (not known and not create) or notebooks == {"mine"}
            return
        assert sorted(os.path.basename(n)[:-len(".ipynb")] for n in kept) == sorted(notebooks - {"mine"})
        data = dict(files).get("data.csv")
        assert data == ("the student's data" if own_data else None) if excluded else data == "instructor's data"
        grades = subs["ada"][1]
        if "extra" not in notebooks:
            assert grades["extra"][0][1] == 0                             # a missing notebook scores zero
        if known and repeated:
            assert grades["ps1"][0][2] == 2.0                             # the grader's score stays

    same_outcome()
