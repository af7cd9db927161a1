"""grading.checks: what hidden tests call."""
import numpy as np

from grading.checks import python_source, refuse_reference, test_rng
from grading.context import test_cell


def test_refuse_reference_checks_nothing_now_that_course_lib_functions_are_withheld():
    import course_lib as cl

    def lazy(X, y):
        return cl.pla(X, y).w
    assert refuse_reference(lazy, "pla", forbidden=("pla",)) is None


def test_each_test_cell_of_each_student_gets_its_own_reproducible_data():
    def draw(student, cell):
        with test_cell(assignment="ps1_perceptron", student=student, cell=cell):
            return test_rng().random(4)
    assert np.array_equal(draw("ada", "pla-halts"), draw("ada", "pla-halts"))
    assert not np.array_equal(draw("ada", "pla-halts"), draw("bob", "pla-halts"))
    assert not np.array_equal(draw("ada", "pla-halts"), draw("ada", "pla-stops"))


def test_ipython_syntax_becomes_python():
    assert "run_line_magic" in python_source("%matplotlib inline")
