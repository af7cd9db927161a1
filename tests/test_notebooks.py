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


# --- the shape of a lecture (every notebook in notebooks/, whoever adds it) -------------------
# A lecture opens with its place among Lin's four questions and its plan; its sections are
# numbered 1, 2, ... in order; the last but one is the questions, the last the summary, which
# ends with its references; a text that announces "the cell below" stands right above it.
FOUR_QUESTIONS = re.compile(r"\b\**(when|why|how)\** can machines learn", re.I)
SECTION = re.compile(r"^## (?!#)(.*)$", re.M)
NUMBERED = re.compile(r"^(\d+)\. +(\S.*)$")
# "the cell below", "the next cell", "the next two cells", "The cell checks ...", "the code below"
# (not "the cell above"); and a text that ends with a colon, announcing what comes next.
ANNOUNCES_A_CELL = re.compile(r"\bthe (?:next |following )?(?:(?:two|three|\d+) )?(?:code )?cells?\b(?!\s+(?:above|before))"
                              r"|\bthe code below\b|:\s*$", re.I)


def markdown_headings(nb):
    """[(cell index, heading text)] of every level-2 heading, in order."""
    return [(i, m.group(1).strip()) for i, c in enumerate(nb.cells) if c.cell_type == "markdown"
            for m in SECTION.finditer(c.source)]


def section_text(nb, title_start, until=None):
    """The markdown of the section whose heading's title starts with ``title_start``, up to the next level-2
    heading (or, with ``until``, up to the heading whose title starts with it), across cells."""
    text = "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    heads = [(m.start(), m.end(), NUMBERED.match(m.group(1).strip())) for m in SECTION.finditer(text)]
    for k, (_start, end, m) in enumerate(heads):
        if m and m.group(2).startswith(title_start):
            stop = len(text)
            for s2, _, m2 in heads[k + 1:]:
                if until is None or (m2 and m2.group(2).startswith(until)):
                    stop = s2
                    break
            return text[end:stop]
    return ""


@pytest.mark.parametrize("path", LECTURES, ids=ids(LECTURES))
def test_a_lecture_opens_with_its_roadmap(path):
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# "), "the first cell is the lecture's title"
    assert FOUR_QUESTIONS.search(first.source), (
        "the first cell places the lecture among Lin's four questions (When / Why / How / How better can "
        "machines learn?)")
    assert re.search(r"^\s*1\. ", first.source, re.M), "the first cell gives the plan, a numbered list of the sections"


@pytest.mark.parametrize("path", LECTURES, ids=ids(LECTURES))
def test_sections_are_numbered_in_order_with_the_questions_and_then_the_summary_last(path):
    nb = nbformat.read(path, as_version=4)
    headings = markdown_headings(nb)
    assert len(headings) >= 3, f"a lecture has numbered sections, questions and a summary; found {headings}"
    numbers = []
    for cell, text in headings:
        m = NUMBERED.match(text)
        assert m, f"cell {cell}: section heading '## {text}' is not numbered ('## k. Title')"
        numbers.append(int(m.group(1)))
    assert numbers == list(range(1, len(numbers) + 1)), f"sections numbered {numbers}, not 1, 2, ... in order"
    titles = [NUMBERED.match(t).group(2) for _, t in headings]
    assert titles[-1].startswith("Summary"), f"the last section is '{titles[-1]}', not the summary"
    assert titles[-2].startswith("Questions"), f"the section before the summary is '{titles[-2]}', not the questions"
    text = section_text(nb, "Questions")
    assert re.search(r"<details>|\banswer", text, re.I), "the questions section holds questions with their answers"


@pytest.mark.parametrize("path", LECTURES, ids=ids(LECTURES))
def test_the_summary_is_last_and_ends_with_its_references(path):
    nb = nbformat.read(path, as_version=4)
    start = markdown_headings(nb)[-1][0]
    after = nb.cells[start:]
    code = [start + i for i, c in enumerate(after) if c.cell_type != "markdown"]
    assert not code, f"cells {code} come after the summary; nothing but its references may"
    text = section_text(nb, "Summary")
    summary, sep, references = text.partition("### References")
    assert sep, "the summary ends with a '### References' subsection"
    assert re.search(r"^\s*[*-] ", summary, re.M), "the summary is a list of bullets"
    items = re.findall(r"^\s*(?:[*-]|\d+\.) +\S", references, re.M)
    assert items, "the references are a short list"
    assert not re.search(r"^#{1,6} ", references, re.M), "nothing comes after the references"


@pytest.mark.parametrize("path", LECTURES, ids=ids(LECTURES))
def test_a_text_that_announces_the_cell_below_stands_right_above_it(path):
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        last = [p for p in re.split(r"\n\s*\n", cell.source.strip()) if p.strip()][-1:]
        for paragraph in re.split(r"\n\s*\n", cell.source.strip()):
            m = ANNOUNCES_A_CELL.search(paragraph)
            if m and m.group(0).strip() == ":" and paragraph is not cell.source.strip() and \
                    paragraph.strip() not in (p.strip() for p in last):
                continue                         # a colon inside a cell introduces what follows it there
            if not m:
                continue
            following = nb.cells[i + 1] if i + 1 < len(nb.cells) else None
            assert following is not None and following.cell_type == "code", (
                f"cell {i} says '{m.group(0)}' but the cell after it is "
                f"{'missing' if following is None else 'a ' + following.cell_type + ' cell'}")
            assert paragraph.strip() in (p.strip() for p in last), (
                f"cell {i} says '{m.group(0)}' in a paragraph that is not its last: the text after it "
                f"stands between the announcement and the cell")
