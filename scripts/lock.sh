#!/bin/sh
# Re-resolve uv.lock (with uv) after changing a dependency in pyproject.toml, and write the
# files generated from it:
#   environment.yml            what students need (the "lab" extra), for conda and Binder
#   deploy/requirements.txt    what the multi-user deployment installs (the "lab" and "deploy" extras)
# Run it through 'make lock'. Extra arguments go to 'uv lock' (e.g. --upgrade-package numpy).
set -eu
sh scripts/uv.sh lock --quiet "$@"
export_set() {
    sh scripts/uv.sh export --quiet --frozen --no-hashes --no-emit-project --no-header --no-annotate "$@"
}
export_set --extra lab > .lab-requirements.tmp
"${PYTHON:-python3}" scripts/write_environment_yml.py .lab-requirements.tmp
rm -f .lab-requirements.tmp
{
    echo "# Generated from uv.lock by 'make lock' (the lab and deploy extras); do not edit by hand."
    export_set --extra lab --extra deploy
} > deploy/requirements.txt
