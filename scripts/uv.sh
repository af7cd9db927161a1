#!/bin/sh
# Run the pinned version of uv (the installer and resolver of the course's environment):
#   sh scripts/uv.sh <uv arguments>
# uv is used from PATH when it is that version; otherwise it is installed once into a small
# environment of its own under the user's cache folder (shared by every checkout of the course)
# and used from there. Override with UV=/path/to/uv.
set -eu
UV_VERSION=0.13.8
PYTHON=${PYTHON:-python3}

if [ -n "${UV:-}" ]; then
    exec "$UV" "$@"
fi
if command -v uv >/dev/null 2>&1 && [ "$(uv --version 2>/dev/null | cut -d' ' -f2)" = "$UV_VERSION" ]; then
    exec uv "$@"
fi
TOOLS="${XDG_CACHE_HOME:-$HOME/.cache}/ml-foundations/uv-$UV_VERSION"
if ! [ -x "$TOOLS/bin/uv" ] || [ "$("$TOOLS/bin/uv" --version 2>/dev/null | cut -d' ' -f2)" != "$UV_VERSION" ]; then
    echo ">>> Installing uv $UV_VERSION into $TOOLS (once) ..." >&2
    rm -rf "$TOOLS"
    mkdir -p "$(dirname "$TOOLS")"
    "$PYTHON" -m venv "$TOOLS"
    "$TOOLS/bin/python" -m pip install -qq "uv==$UV_VERSION"
fi
exec "$TOOLS/bin/uv" "$@"
