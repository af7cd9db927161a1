"""benchmarks.load: the busy processes run for exactly the block or command, and the command's status is kept."""
import os
import sys

import pytest

from benchmarks import load


def _busy_children():
    """Process ids of running busy loops started by this process."""
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me and fields[0] != "Z":
                found.append(int(entry))
    return found


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_the_busy_processes_stop_when_the_block_ends_even_on_an_error():
    with pytest.raises(RuntimeError, match="inside"):
        with load.busy_cores(2) as running:
            assert len(running.pids) == 2 and set(running.pids) <= set(_busy_children())
            raise RuntimeError("inside")
    assert not any(load._alive(pid) for pid in running.pids)


def test_a_command_runs_under_load_and_its_exit_status_is_returned(capsys):
    status = load.main(["--procs", "1", sys.executable, "-c",
                        "import os, sys; sys.exit(40 + (os.getloadavg() is not None))"])
    assert status == 41
    out = capsys.readouterr().out
    assert "1 CPU-bound process(es)" in out and "(--procs)" in out and "exited with 41" in out


@pytest.mark.parametrize("argv, message", [([], "give the command"), (["--procs", "-1", "true"], "--procs")])
def test_bad_arguments_are_named(argv, message, capsys):
    with pytest.raises(SystemExit):
        load.main(argv)
    assert message in capsys.readouterr().err


def test_a_bad_load_procs_is_named(monkeypatch, capsys):
    monkeypatch.setenv("LOAD_PROCS", "two")
    with pytest.raises(SystemExit):
        load.main(["true"])
    assert "LOAD_PROCS" in capsys.readouterr().err
