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
