#!/bin/sh
# System tools the test suite needs besides Python packages: bubblewrap (bwrap), the
# sandbox in which autograding runs student code. As root with apt-get (containers, CI)
# a missing tool is installed; otherwise the command to install it is printed and the
# grading tests will fail saying the same.
set -eu
missing=""
command -v bwrap >/dev/null 2>&1 || missing="$missing bubblewrap"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo ">>> Installing$missing (the sandbox for autograding) ..."
    if ! apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1; then
        apt-get update -qq >/dev/null 2>&1 || true
        apt-get install -y -qq --no-install-recommends $missing >/dev/null
    fi
else
    echo ">>> Missing:$missing. Autograding runs student code in a bubblewrap sandbox; install it with" >&2
    echo ">>>   sudo apt-get install$missing   (Fedora: sudo dnf install$missing)" >&2
    echo ">>> Until then the grading tests fail, and 'make autograde' refuses to run." >&2
fi
