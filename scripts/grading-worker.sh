#!/bin/sh
# make grading-worker SCHEDULER=tcp://host:8786: a grading machine in one command.
#   1. installs exactly what grading needs into $GRADING_VENV (default .venv-grading): the course's
#      dependencies, Dask and nbgrader, as uv.lock pins them (the "dask" extra, nothing else), with
#      the course's pinned uv (scripts/uv.sh finds or installs it: uv need not be on PATH);
#   2. looks after bubblewrap, the sandbox every submission runs in;
#   3. compares this clone (commit, uv.lock, grading code) with what the scheduler serves and refuses
#      with one line when they differ (start the scheduler with `make grading-scheduler`);
#   4. starts single-threaded Dask workers, one per core (WORKERS=<n> to choose).
set -eu
SCHEDULER=${1:?usage: make grading-worker SCHEDULER=tcp://host:8786}
PYTHON=${PYTHON:-python3}
VENV=${GRADING_VENV:-.venv-grading}
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv --without-pip "$VENV"
echo ">>> Installing what grading needs into $VENV (uv.lock, the dask extra) ..."
UV_PROJECT_ENVIRONMENT="$VENV" sh scripts/uv.sh sync --quiet --frozen --extra dask --python "$VENV/bin/python"
sh scripts/system-deps.sh sandbox
command -v bwrap >/dev/null 2>&1 || { echo "grading-worker: bubblewrap (bwrap) is missing: sudo apt-get install bubblewrap" >&2; exit 2; }
"$VENV/bin/python" -m grading.workers check "$SCHEDULER"
exec "$VENV/bin/dask" worker "$SCHEDULER" --nworkers "${WORKERS:-auto}" --nthreads 1 --preload grading.workers \
    ${WORKER_ARGS:-}
