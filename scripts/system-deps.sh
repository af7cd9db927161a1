#!/bin/sh
# What the test suite needs besides Python packages, set up by `make test` itself:
# - bubblewrap (bwrap): the sandbox in which autograding runs student code;
# - Chromium: the browser in which the browser tests drive JupyterLab;
# - as root only: the software of the multi-user deployment (deploy/setup.sh --install-only:
#   PostgreSQL, a Python environment for the hub, the proxy), which tests/test_deploy.py uses,
#   and nginx, the reverse proxy in front of its deployment made with --behind-proxy.
# As root with apt-get (containers, CI) whatever is missing is installed; otherwise the
# command to install it is printed, and the tests that need it say the same.
# With the argument "sandbox" (make autograde, make check) only bubblewrap is looked after.
set -eu
what=${1:-tests}
missing=""
command -v bwrap >/dev/null 2>&1 || missing="$missing bubblewrap"
if [ "$what" = tests ]; then
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing="$missing chromium"
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    if [ -n "$missing" ]; then
        echo ">>> Installing$missing (the grading sandbox, the browser for the browser tests) ..."
        apt-get update -qq >/dev/null 2>&1 || true
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
    fi
    if [ "$what" = tests ]; then
        deploy/setup.sh --install-only --prefix "${COURSE_DEPLOY_PREFIX:-/opt/ml-foundations-ci}" >/dev/null
        # the reverse proxy in front of a deployment made with --behind-proxy (tests/test_deploy.py);
        # the test runs nginx itself: the package's own service is not started (policy-rc.d says no)
        if ! command -v nginx >/dev/null 2>&1; then
            echo ">>> Installing nginx (the deployment test's reverse proxy) ..."
            apt-get update -qq >/dev/null 2>&1 || true
            placed=""
            if [ ! -e /usr/sbin/policy-rc.d ]; then
                printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && placed=1
            fi
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >/dev/null
            [ -z "$placed" ] || rm -f /usr/sbin/policy-rc.d
        fi
    fi
elif [ -n "$missing" ]; then
    echo ">>> Missing:$missing. Install with: sudo apt-get install$missing" >&2
    echo ">>> Without bubblewrap the grading tests fail ('make autograde' refuses to run); without" >&2
    echo ">>> Chromium the browser tests are skipped." >&2
fi
