"""Helpers that the hidden tests of the course's assignments call.

* :func:`test_rng` — the random generator of the test cell being graded;
* :func:`refuse_reference` — kept for test cells that still call it; it checks nothing. An
  answer can no longer delegate to ``course_lib``'s own implementation of an exercise:
  while an assignment is graded, the student's process gets a ``course_lib`` without
  those functions (:mod:`grading.withhold`), so such an answer fails the tests by itself,
  with a message naming the function.

:func:`python_source` turns a cell's IPython syntax into Python (for the audit).
"""
import ast
import re

__all__ = ["refuse_reference", "test_rng", "python_source"]


_IPYTHON = re.compile(r"^\s*[%!]|^[^#\n]*=\s*[%!]|\?\s*$", re.M)


def python_source(source):
    """A cell's code as plain Python: IPython syntax (``%magic``, ``!cmd``) turned into calls.

    Code without IPython syntax is returned as it is, at once (IPython's transformer takes
    time quadratic in the length of a long line).
    """
    if not _IPYTHON.search(source):
        return source
    try:
        from IPython.core.inputtransformer2 import TransformerManager
        return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - fall back to the raw text
        return source


def _dotted(node):
    """``a.b.c`` for an Attribute/Name chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def refuse_reference(func, exercise, forbidden):
    """Nothing to check any more: ``course_lib``'s implementations of the exercises are withheld.

    Test cells written when the grader looked for calls into ``course_lib`` call this; it
    accepts the same arguments and returns None. Listing the functions of an assignment in
    ``source/<assignment>/course_lib_withheld.txt`` is what keeps them from the student's
    code now (:mod:`grading.withhold`).

    Examples
    --------
    >>> refuse_reference(lambda X: X, "radius", ["radius"])
    """
    return None


def test_rng():
    """The random generator of the test cell being graded, seeded by (assignment, student, cell).

    Hidden tests draw all their random data from it, so a regrade of the same submission sees
    the same data (and gives the same score) while classmates get different data. Outside the
    grader (self-check, ``nbgrader validate``, a source notebook) the seed is the fixed one of
    :data:`grading.context.SELF_CHECK`.

    Examples
    --------
    >>> from grading.context import test_cell
    >>> with test_cell(assignment="ps1_perceptron", student="ada", cell="pla-halts"):
    ...     a = test_rng().random(3)
    >>> with test_cell(assignment="ps1_perceptron", student="ada", cell="pla-halts"):
    ...     b = test_rng().random(3)
    >>> bool((a == b).all())
    True
    """
    import numpy as np

    from .context import SELF_CHECK, current

    return np.random.default_rng((current() or SELF_CHECK).seed)


test_rng.__test__ = False   # not a pytest test, whatever module imports it
