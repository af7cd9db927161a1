#!/bin/sh
# Create or refresh the course's virtual environment, exactly as uv.lock pins it.
#
#   sh scripts/ensure-venv.sh            what students need (make lab): the "lab" extra
#   sh scripts/ensure-venv.sh test       also every tool of the test suite (make test): every
#                                        extra except "deploy" (deploy/setup.sh installs that one)
#
# uv synchronises the environment exactly: a package that left the lock is removed, one that
# was installed by hand and is not locked is removed too. The environment is refreshed only when
# it is missing or stale: a stamp file inside it records a hash of uv.lock, pyproject.toml and the
# Python version, and which set was installed, so a second run with nothing changed returns at once.
# An environment set up for the tests also serves `make lab` (it has every student package).
set -eu

PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}
WANT_SET=${1:-lab}
STAMP="$VENV/.course-stamp"

case "$WANT_SET" in
    lab|test) ;;
    *) echo "ensure-venv.sh: unknown set '$WANT_SET': expected 'lab' or 'test'" >&2; exit 2 ;;
esac
if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "error: '$PYTHON' was not found. Install Python 3.10 or newer, or run 'make PYTHON=/path/to/python3 ...'." >&2
    exit 1
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "error: the course needs Python 3.10 or newer; '$PYTHON' is $("$PYTHON" -V 2>&1)." >&2
    exit 1
fi

want=$("$PYTHON" - uv.lock pyproject.toml scripts/ensure-venv.sh <<'PY'
import hashlib, sys
h = hashlib.sha256(sys.version.encode())
for name in sys.argv[1:]:
    with open(name, "rb") as f:
        h.update(f.read())
print(h.hexdigest())
PY
)

have_hash="" have_set=""
if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ]; then
    read -r have_hash have_set < "$STAMP" || true
fi
if [ "$have_hash" = "$want" ] && { [ "$have_set" = "$WANT_SET" ] || [ "$have_set" = test ]; }; then
    exit 0
fi
# A copy of the course that borrows another checkout's environment (VENV=/path/to/.venv, as the
# browser tests do) must never reinstall it: course_lib would then point into the copy.
OWNER="$VENV/.course-project"
if [ -x "$VENV/bin/python" ] && [ -f "$OWNER" ] && [ "$(cat "$OWNER")" != "$(pwd -P)" ]; then
    echo ">>> $VENV belongs to $(cat "$OWNER"); using it as it is (run 'make setup' there to refresh it)." >&2
    exit 0
fi
# Keep the test tools of an environment that had them (a maintainer's), refreshing it to the lock.
# (A stamp without a set is from the time the environment always had every tool.)
if [ "$have_set" = test ] || { [ -n "$have_hash" ] && [ -z "$have_set" ]; }; then
    WANT_SET=test
fi

echo ">>> Setting up the course environment in $VENV ($WANT_SET; first run, or uv.lock changed) ..."
if [ -x "$VENV/bin/python" ] && ! "$VENV/bin/python" -c 'import sys; sys.exit(0)' 2>/dev/null; then
    rm -rf "$VENV"
fi
if [ -x "$VENV/bin/python" ]; then
    # Rebuild from scratch when the interpreter itself changed.
    if [ "$("$VENV/bin/python" -c 'import sys; print(sys.version)')" != "$("$PYTHON" -c 'import sys; print(sys.version)')" ]; then
        rm -rf "$VENV"
    fi
fi
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv --without-pip "$VENV"
rm -f "$STAMP"
if [ "$WANT_SET" = test ]; then
    # Compiled ahead (.pyc): the suite starts hundreds of Python processes (kernels, graders, nbgrader),
    # and where bytecode is not written (PYTHONDONTWRITEBYTECODE, as CI runners often set) each one
    # would compile every module it imports again (collecting the fast tests: 15 s of CPU, 7.6 s compiled).
    extras="--all-extras --no-extra deploy --compile-bytecode"
else
    extras="--extra lab"
fi
# --frozen: install uv.lock as it is ('make lock' re-resolves it; a test checks it is current).
UV_PROJECT_ENVIRONMENT="$VENV" sh scripts/uv.sh sync --quiet --frozen $extras --python "$VENV/bin/python"
pwd -P > "$OWNER"
echo "$want $WANT_SET" > "$STAMP"
echo ">>> Environment ready."
