"""Speed benchmarks of course_lib against plain implementations timed in the same run.

Run them all with ``make benchmark`` (``python -m benchmarks``) or one with
``python -m benchmarks.bench_pocket``.
"""
