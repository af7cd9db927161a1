#!/bin/sh
# Regenerate requirements.lock (with uv) and environment.yml from pyproject.toml.
# Run it through 'make lock' after changing a dependency in pyproject.toml.
set -eu
VENV=${VENV:-.venv}
UV_VERSION=0.13.8
"$VENV/bin/python" -m pip install --quiet "uv==$UV_VERSION"
"$VENV/bin/python" -m uv pip compile pyproject.toml --all-extras --universal \
    --python-version 3.10 --custom-compile-command "make lock" -o requirements.lock "$@"
"$VENV/bin/python" scripts/write_environment_yml.py
