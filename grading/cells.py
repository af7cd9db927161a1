"""What kind of cell a notebook cell is, in nbgrader's terms: the one place that decides.

A thin layer over :mod:`nbgrader.utils`, accepting cells as nbformat nodes or plain dicts
(as read from a file nobody has validated).

Examples
--------
>>> test = {"cell_type": "code", "metadata": {"nbgrader": {"grade": True, "solution": False,
...         "locked": True, "grade_id": "pla-halts"}}, "source": "assert True"}
>>> is_test_cell(test), is_setup_cell(test), grade_id(test)
(True, False, 'pla-halts')
>>> describe_cell(test, 7)
"cell 7 ('pla-halts')"
"""
from nbformat import NotebookNode, from_dict
from nbgrader import utils

__all__ = ["grade_id", "exercise_of", "is_test_cell", "is_setup_cell", "is_solution_cell", "is_graded_by_hand", "describe_cell",
           "source_of", "has_hidden_tests", "HIDDEN_TESTS"]

HIDDEN_TESTS = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")
"""The markers around the hidden part of a test cell (nbgrader's)."""


def _node(cell):
    if isinstance(cell, NotebookNode):
        return cell
    cell = dict(cell) if isinstance(cell, dict) else {}
    meta = cell.get("metadata")
    cell["metadata"] = dict(meta) if isinstance(meta, dict) else {}
    nbg = cell["metadata"].get("nbgrader")
    if "nbgrader" in cell["metadata"] and not isinstance(nbg, dict):
        del cell["metadata"]["nbgrader"]
    return from_dict(cell)


def _nbgrader(cell):
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    nbg = meta.get("nbgrader") if isinstance(meta, dict) else None
    return nbg if isinstance(nbg, dict) else {}


def grade_id(cell):
    """The cell's nbgrader ``grade_id`` (a string), or None."""
    gid = _nbgrader(cell).get("grade_id")
    return gid if isinstance(gid, str) else None


def exercise_of(grade_id):
    """The exercise a grade cell belongs to: the part of its ``grade_id`` before the first ``-``.

    Examples
    --------
    >>> exercise_of("pla-stops-after-max-updates")
    'pla'
    """
    return grade_id.split("-", 1)[0]


def is_test_cell(cell):
    """A code cell nbgrader grades by running it (graded, not a solution): an instructor's test."""
    cell = _node(cell)
    return cell.get("cell_type") == "code" and bool(utils.is_grade(cell)) and not utils.is_solution(cell)


def is_solution_cell(cell):
    """A cell the student writes (nbgrader ``solution``)."""
    return bool(utils.is_solution(_node(cell)))


def is_setup_cell(cell):
    """A read-only code cell of the instructor's that is neither a test nor a solution (imports, data)."""
    cell = _node(cell)
    return (cell.get("cell_type") == "code" and bool(utils.is_locked(cell)) and not utils.is_grade(cell)
            and not utils.is_solution(cell))


def is_graded_by_hand(cell):
    """An answer that earns points and is written by the student (graded by hand): nbgrader ``grade`` and ``solution``."""
    cell = _node(cell)
    return bool(utils.is_grade(cell)) and bool(utils.is_solution(cell))


def has_hidden_tests(source):
    """Whether a test cell's code holds hidden tests.

    >>> has_hidden_tests("assert f(1) == 2\\n### BEGIN HIDDEN TESTS\\nassert f(2) == 4\\n### END HIDDEN TESTS")
    True
    """
    return isinstance(source, str) and HIDDEN_TESTS[0] in source


def describe_cell(cell, index):
    """A short human name for a cell: its index and grade_id, if any."""
    gid = grade_id(cell)
    return f"cell {index} ({gid!r})" if gid else f"cell {index}"


def source_of(cell):
    """A cell's source as one string, whether stored as a string or a list of lines."""
    source = cell.get("source", "") if isinstance(cell, dict) else ""
    if isinstance(source, list):
        source = "".join(s for s in source if isinstance(s, str))
    return source if isinstance(source, str) else ""
