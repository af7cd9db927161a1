"""House rules for the committed notebooks (nbval executes them; see pyproject.toml)."""
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
LECTURES = sorted((ROOT / "notebooks").glob("*.ipynb"))
ALL = LECTURES + sorted((ROOT / "source").rglob("*.ipynb")) + sorted((ROOT / "release").rglob("*.ipynb"))


def ids(paths):
    return [p.relative_to(ROOT).as_posix() for p in paths]


def test_there_are_lecture_notebooks():
    assert len(LECTURES) >= 4


@pytest.mark.parametrize("path", ALL, ids=ids(ALL))
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    dirty = [i for i, c in enumerate(nb.cells)
             if c.cell_type == "code" and (c.outputs or c.execution_count is not None)]
    assert not dirty, f"cells {dirty} have outputs or execution counts: clear them before committing"
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3"


@pytest.mark.parametrize("path", LECTURES, ids=ids(LECTURES))
def test_lecture_notebooks_are_thin_and_seeded(path):
    nb = nbformat.read(path, as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "import course_lib as cl" in code
    assert "np.random.seed" not in code, "use one np.random.default_rng(seed) passed down, not global seeding"
    assert re.search(r"default_rng\(\s*\d+\s*\)", code), "each notebook makes one seeded generator at the top"
    long_defs = [m.group(1) for m in re.finditer(r"^def (\w+)", code, flags=re.M)]
    assert len(long_defs) <= 2, f"functions {long_defs} belong in course_lib, not in the notebook"
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("#"), "start with a title"


@pytest.mark.parametrize("path", LECTURES, ids=ids(LECTURES))
def test_every_lecture_has_a_widget_and_questions_with_their_answers(path):
    nb = nbformat.read(path, as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "cl.widgets." in code, "each lecture has something to move: a widget of course_lib.widgets"
    answers = re.findall(r"<details>\s*<summary>(.*?)</summary>(.*?)</details>", text, flags=re.S)
    assert 2 <= len(answers) <= 4, f"{len(answers)} questions with click-to-open answers; the lectures have 2 to 4"
    assert all(body.strip() for _, body in answers), "an answer is empty"
