#!/bin/sh
# Create or refresh the course's virtual environment from the lock file.
#
# The environment is rebuilt only when it is missing or stale: a stamp file inside
# it records a hash of requirements.lock, pyproject.toml and the Python version it
# was built for, so a second run with nothing changed returns in well under a second.
set -eu

PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}
LOCK=requirements.lock
STAMP="$VENV/.course-stamp"

if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "error: '$PYTHON' was not found. Install Python 3.10 or newer, or run 'make PYTHON=/path/to/python3 ...'." >&2
    exit 1
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "error: the course needs Python 3.10 or newer; '$PYTHON' is $("$PYTHON" -V 2>&1)." >&2
    exit 1
fi

want=$("$PYTHON" - "$LOCK" pyproject.toml <<'PY'
import hashlib, sys
h = hashlib.sha256(sys.version.encode())
for name in sys.argv[1:]:
    with open(name, "rb") as f:
        h.update(f.read())
print(h.hexdigest())
PY
)

if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
    exit 0
fi
# A copy of the course that borrows another checkout's environment (VENV=/path/to/.venv, as the
# browser tests do) must never reinstall it: course_lib would then point into the copy.
OWNER="$VENV/.course-project"
if [ -x "$VENV/bin/python" ] && [ -f "$OWNER" ] && [ "$(cat "$OWNER")" != "$(pwd -P)" ]; then
    echo ">>> $VENV belongs to $(cat "$OWNER"); using it as it is (run 'make setup' there to refresh it)." >&2
    exit 0
fi

echo ">>> Setting up the course environment in $VENV (first run, or the lock file changed) ..."
if [ -x "$VENV/bin/python" ] && ! "$VENV/bin/python" -c 'import sys; sys.exit(0)' 2>/dev/null; then
    rm -rf "$VENV"
fi
if [ -x "$VENV/bin/python" ]; then
    # Rebuild from scratch when the interpreter itself changed.
    if [ "$("$VENV/bin/python" -c 'import sys; print(sys.version)')" != "$("$PYTHON" -c 'import sys; print(sys.version)')" ]; then
        rm -rf "$VENV"
    fi
fi
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
rm -f "$STAMP"
"$VENV/bin/python" -m pip install -qq --upgrade "pip>=24"
"$VENV/bin/python" -m pip install -qq -r "$LOCK"
"$VENV/bin/python" -m pip install -qq --no-deps --editable .
# Anything installed by hand that the lock does not name is reported, not removed.
"$VENV/bin/python" -m pip check
pwd -P > "$OWNER"
echo "$want" > "$STAMP"
echo ">>> Environment ready."
