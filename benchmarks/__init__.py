"""Speed benchmarks of the course against plain implementations timed in the same run.

Run them all with ``make benchmark`` (``python -m benchmarks``), some with ``python -m
benchmarks pocket sgd``, or one with ``python -m benchmarks.bench_pocket``. Every comparison
alternates the project and its baseline over several runs and reports medians and the paired
ratio (benchmarks/paired.py); the table at the end lists every figure with its goal.
"""
