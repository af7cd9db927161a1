"""Every student's hidden data decides: each wrong answer of the corpus loses its points, and each right one
keeps them, under the seeds the grader derives for 30 student ids (a sample of 3 in ``make test-fast``).

The harness is :func:`test_wrong_answers.every_seed`; this file holds the test alone so that pytest-xdist
(``--dist loadfile``) runs it beside the autograde runs of ``tests/test_wrong_answers.py``.
"""
import pytest
from test_wrong_answers import ASSIGNMENTS, STUDENT_IDS, check_every_seed, grader_seeds, students_of_this_run


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_wrong_answer_loses_its_points_for_every_student(assignment, tmp_path, request):
    """Every wrong version loses its points, and every right one keeps them, for each student's seeds."""
    students = students_of_this_run(request.config)
    seeds = {seed for _, seed, _ in grader_seeds(assignment, "any-cell", STUDENT_IDS)}
    assert len(seeds) == len(STUDENT_IDS) >= 30
    check_every_seed(assignment, students, tmp_path, request)
