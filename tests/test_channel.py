"""The channel to the student's process: a request stopped at its CPU limit is stopped close to it.

The grader reads the CPU time of the student's process tree while a request runs; near the
limit it reads it more often, so an endless loop is stopped within a few hundredths of a
second of CPU after its limit (before, up to a whole reading interval later: 0.2 s of each
timeout, paid by every endless loop of a class).
"""
import pytest

from grading.channel import MIN_WATCH_INTERVAL, WATCH_INTERVAL, CallTimeout, Worker
from grading.sandbox import Sandbox

pytestmark = pytest.mark.slow


@pytest.fixture()
def worker(tmp_path):
    sandbox = Sandbox()
    sandbox.check()
    w = Worker(tmp_path, sandbox=sandbox).start()
    yield w
    w.kill()


@pytest.mark.parametrize("limit", [0.3, 0.75])
def test_an_endless_loop_is_stopped_close_to_its_cpu_limit(worker, limit):
    before = worker.cpu_seconds()
    with pytest.raises(CallTimeout) as stopped:
        worker.request({"op": "exec", "source": "while True:\n    pass", "cell": 0}, 60, cpu_deadline=before + limit)
    assert stopped.value.cpu                                        # the CPU limit stopped it, not the backstop
    used = worker.cpu_seconds() - before
    # /proc counts in ticks of 10 ms; the last readings are MIN_WATCH_INTERVAL apart
    assert limit <= used <= limit + 2 * MIN_WATCH_INTERVAL + 0.05 < limit + WATCH_INTERVAL


def test_a_request_that_ends_in_time_is_not_stopped(worker):
    before = worker.cpu_seconds()
    reply = worker.request({"op": "exec", "source": "x = sum(range(10**6))", "cell": 0}, 60,
                           cpu_deadline=before + 5)
    assert "error" not in reply or not reply["error"]
