#!/bin/sh
# Run a command while CPU-bound processes keep the cores busy, and say how long it took:
#   sh scripts/under-load.sh make test          (what `make test-under-load` does)
# LOAD_PROCS (default 2, one per core of the course's 2-core reference machine) busy loops
# run for the whole command and are stopped when it ends, however it ends. The exit status is
# the command's. The test suite has no timed assertions, so it must pass here too, only slower.
set -eu
[ $# -gt 0 ] || { echo "usage: under-load.sh COMMAND [ARGS...]" >&2; exit 2; }
n=${LOAD_PROCS:-2}
pids=""
stop() {
    for pid in $pids; do kill "$pid" 2>/dev/null || true; done
}
trap stop EXIT
trap 'exit 130' INT TERM
i=0
while [ "$i" -lt "$n" ]; do
    sh -c 'while :; do :; done' &
    pids="$pids $!"
    i=$((i + 1))
done
echo ">>> $n CPU-bound processes running (pids$pids); now: $*"
start=$(date +%s)
status=0
"$@" || status=$?
end=$(date +%s)
echo ">>> under load ($n busy processes): '$*' exited with $status after $(( (end - start) / 60 )) min $(( (end - start) % 60 )) s"
exit $status
