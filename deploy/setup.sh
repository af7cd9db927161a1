#!/usr/bin/env bash
# Multi-user deployment of the course: JupyterHub, nbgrader's exchange, a PostgreSQL gradebook.
#
#   sudo deploy/setup.sh [options]            install (if needed), create users, start everything
#   sudo deploy/setup.sh                      again: keeps the deployment's settings (PREFIX/etc/deploy.json)
#   sudo deploy/setup.sh --install-only       only install: Debian packages, the Python environment, the proxy
#   sudo deploy/setup.sh --add-student NAME   one more student (Linux user, roster, gradebook); no restart
#   sudo deploy/setup.sh --add-grader NAME    one more grader (TA): the graders' group, the Formgrader; no restart
#   sudo deploy/setup.sh --password NAME      a first password for NAME, printed once on this terminal only
#
# Options (defaults in brackets; on a re-run, the deployment's own settings):
#   --prefix DIR        where the deployment lives [/opt/ml-foundations]
#   --software DIR      where its Python environment and proxy are installed [PREFIX]; several
#                       deployments may share one (each keeps its settings in PREFIX/etc)
#   --course-id ID      the deployment's course id [the course's own, in nbgrader_config.py]: every
#                       name the deployment gives (groups, the course account, the database, the
#                       exchange's folder, control groups, units) is made from it, and a second
#                       deployment on the same machine must choose another
#   --domain NAME       serve each user's server on a host of its own, <user>.NAME (wildcard DNS
#                       *.NAME to this machine), the hub on NAME [none: one origin for all; see README]
#   --tls-cert FILE --tls-key FILE   the proxy speaks HTTPS with this certificate (for NAME and *.NAME)
#   --behind-proxy      a reverse proxy (nginx) in front speaks HTTPS for NAME and *.NAME (needs
#                       --domain): the hub serves plain HTTP on 127.0.0.1 only, its cookies host-only
#                       (__Host-); setup writes the proxy's configuration, PREFIX/etc/nginx-course.conf
#                       (from deploy/nginx-course.conf.example; --tls-cert/--tls-key go there)
#   --public-port N     the port the reverse proxy serves HTTPS on [443]
#   --instructor NAME   the instructor's Linux user [instructor]
#   --students "A B"    the students' Linux users [student01 student02 student03]
#   --graders "A B"     teaching assistants who grade [none]
#   --group NAME        the students' Linux group [<course-id>-students]
#   --hub-port N        public port of the hub (the proxy), on 127.0.0.1 [8000]; the hub also uses N+1..N+3
#   --pg-port N         PostgreSQL's port, on 127.0.0.1 [5433]
#   --mem-limit MIB     memory of each user's server and kernels together [2048]
#   --tasks-limit N     processes and threads of each user [512]
#   --user-log-mib N    what each user's server and kernels print is kept in PREFIX/log/users/NAME.log
#                       (and NAME.log.1), the latest N MiB of it at most [20]
#   --cull-idle S       stop a server idle for S seconds [3600]; servers report activity every S/4
#                       seconds (at most 300), so an active student is never taken for idle
#   --login-failures N  after N wrong passwords for one name within --lockout S seconds, that name
#                       cannot log in until S seconds have passed [5, 900]
#   --lockout S
#   --min-password-length N   the hub refuses a password shorter than N characters (and one with
#                       fewer than 5 different characters, or the user's name in it), and offers
#                       /hub/course-password to choose a new one; the machine's PAM is left alone [12]
#   --no-hidepid        leave /proc as it is (by default it is remounted with hidepid=2)
#
# Logins are PAM: each person logs in with their own Linux password; nobody shares one.
# A new account has no password (it cannot log in) until --password gives it a first one.
# Everything listens on 127.0.0.1 only. Secrets are generated here and never printed:
#   PREFIX/secrets/gradebook-password   the gradebook role's password (root and the graders' group, 0640)
#   PREFIX/hub/proxy-token              the proxy's token (root only)
# The graders' group formgrade-<course-id> owns the course folder PREFIX/courses/<course-id>
# (2770). Processes are supervised: systemd units where systemd runs the machine, otherwise
# supervisord (PREFIX/etc/supervisord.conf). deploy/teardown.sh stops everything.
set -euo pipefail
umask 022

HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
PREFIX=/opt/ml-foundations
SOFTWARE=""
INSTRUCTOR="" STUDENTS="" GRADERS="" GROUP="" HUB_PORT="" PG_PORT="" COURSE_ID=""
MEM_LIMIT="" TASKS_LIMIT="" USER_LOG="" CULL_IDLE="" HIDEPID="" DOMAIN="" TLS_CERT="" TLS_KEY="" LOGIN_FAILURES="" LOCKOUT=""
MIN_PASSWORD="" BEHIND_PROXY="" PUBLIC_PORT=""
MODE=all
NEW_USER=""
SYSTEM_PYTHON=/usr/bin/python3   # Debian's: a Python under /root cannot be run by the students

need() { [ $# -ge 2 ] && [ -n "$2" ] || { echo "setup.sh: option '$1' needs a value (see --help)" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
    case "$1" in
        --install-only) MODE=install; shift; continue ;;
        --no-hidepid) HIDEPID=0; shift; continue ;;
        --behind-proxy) BEHIND_PROXY=1; shift; continue ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    esac
    need "$@"
    case "$1" in
        --prefix) PREFIX=$2 ;;
        --course-id) COURSE_ID=$2 ;;
        --software) SOFTWARE=$2 ;;
        --domain) DOMAIN=$2 ;;
        --tls-cert) TLS_CERT=$2 ;;
        --tls-key) TLS_KEY=$2 ;;
        --login-failures) LOGIN_FAILURES=$2 ;;
        --lockout) LOCKOUT=$2 ;;
        --min-password-length) MIN_PASSWORD=$2 ;;
        --public-port) PUBLIC_PORT=$2 ;;
        --instructor) INSTRUCTOR=$2 ;;
        --students) STUDENTS=$2 ;;
        --graders) GRADERS=$2 ;;
        --group) GROUP=$2 ;;
        --hub-port) HUB_PORT=$2 ;;
        --pg-port) PG_PORT=$2 ;;
        --mem-limit) MEM_LIMIT=$2 ;;
        --tasks-limit) TASKS_LIMIT=$2 ;;
        --user-log-mib) USER_LOG=$2 ;;
        --cull-idle) CULL_IDLE=$2 ;;
        --add-student) MODE=add-student; NEW_USER=$2 ;;
        --add-grader) MODE=add-grader; NEW_USER=$2 ;;
        --password) MODE=password; NEW_USER=$2 ;;
        *) echo "setup.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift 2
done
# A re-run keeps the deployment's settings: what is not given comes from PREFIX/etc/deploy.json.
CONF=$PREFIX/etc/deploy.json
if [ -f "$CONF" ]; then
    setting() { /usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$CONF" "$1"; }
    INSTRUCTOR=${INSTRUCTOR:-$(setting instructor)}
    COURSE_ID=${COURSE_ID:-$(setting course_id)}
    SOFTWARE=${SOFTWARE:-$(setting software)}
    DOMAIN=${DOMAIN:-$(setting domain)}
    TLS_CERT=${TLS_CERT:-$(setting tls_cert)}
    TLS_KEY=${TLS_KEY:-$(setting tls_key)}
    LOGIN_FAILURES=${LOGIN_FAILURES:-$(setting login_failures)}
    LOCKOUT=${LOCKOUT:-$(setting lockout_s)}
    MIN_PASSWORD=${MIN_PASSWORD:-$(setting min_password_length)}
    BEHIND_PROXY=${BEHIND_PROXY:-$(setting behind_proxy)}
    PUBLIC_PORT=${PUBLIC_PORT:-$(setting public_port)}
    GROUP=${GROUP:-$(setting student_group)}
    HUB_PORT=${HUB_PORT:-$(setting hub_port)}
    PG_PORT=${PG_PORT:-$(setting pg_port)}
    MEM_LIMIT=${MEM_LIMIT:-$(setting mem_limit_mib)}
    TASKS_LIMIT=${TASKS_LIMIT:-$(setting tasks_limit)}
    USER_LOG=${USER_LOG:-$(setting user_log_mib)}
    CULL_IDLE=${CULL_IDLE:-$(setting cull_idle_s)}
    HIDEPID=${HIDEPID:-$(setting hidepid)}
    KNOWN=1
else
    KNOWN=""
    STUDENTS=${STUDENTS:-student01 student02 student03}
fi
INSTRUCTOR=${INSTRUCTOR:-instructor}
HUB_PORT=${HUB_PORT:-8000}
PG_PORT=${PG_PORT:-5433}
MEM_LIMIT=${MEM_LIMIT:-2048}
TASKS_LIMIT=${TASKS_LIMIT:-512}
USER_LOG=${USER_LOG:-20}
CULL_IDLE=${CULL_IDLE:-3600}
HIDEPID=${HIDEPID:-1}
LOGIN_FAILURES=${LOGIN_FAILURES:-5}
LOCKOUT=${LOCKOUT:-900}
MIN_PASSWORD=${MIN_PASSWORD:-12}
BEHIND_PROXY=${BEHIND_PROXY:-0}
PUBLIC_PORT=${PUBLIC_PORT:-443}
# The course id is the deployment's (--course-id), by default the course's own (nbgrader_config.py):
# the course folder, the exchange's folder, the gradebook's database, the groups, the course
# account, the control groups and the units are all named after it.
COURSE_ID=${COURSE_ID:-$(sed -n 's/^c\.CourseDirectory\.course_id *= *["'"'"']\([a-z0-9-]*\)["'"'"'].*/\1/p' "$REPO/nbgrader_config.py")}
GROUP=${GROUP:-$COURSE_ID-students}
GRADER_GROUP=formgrade-$COURSE_ID
# The course account: owns the course folder and the exchange's course folder, runs the shared
# Formgrader and the exchange's clerk. Nobody logs in as it; graders grade as themselves.
COURSE_USER=$COURSE_ID-course

say() { echo ">>> $*"; }
die() { echo "setup.sh: error: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (it creates users and starts services as them)"
for name in "$INSTRUCTOR" $STUDENTS $GRADERS $NEW_USER; do
    [[ "$name" =~ ^[a-z_][a-z0-9_-]{0,30}$ ]] || die "'$name' is not a valid user name: expected lower-case letters, digits, '-' or '_'"
done
[[ "$COURSE_ID" =~ ^[a-z][a-z0-9-]{0,23}$ ]] || die "course id '$COURSE_ID' (--course-id, or the course's nbgrader_config.py): expected a lower-case letter, then up to 23 lower-case letters, digits or '-'"
if [ -n "$DOMAIN" ]; then
    [[ "$DOMAIN" =~ ^[a-z0-9]([a-z0-9.-]{0,200}[a-z0-9])?$ ]] || die "--domain '$DOMAIN': expected a DNS name (lower-case letters, digits, '.', '-')"
fi
if [ -n "$TLS_CERT$TLS_KEY" ]; then
    [ -f "$TLS_CERT" ] && [ -f "$TLS_KEY" ] || die "--tls-cert and --tls-key: expected two files (certificate and key), got '$TLS_CERT' and '$TLS_KEY'"
fi
if [ "$BEHIND_PROXY" = 1 ]; then
    [ -n "$DOMAIN" ] || die "--behind-proxy needs --domain NAME: the reverse proxy serves NAME and each user's <user>.NAME"
fi
[[ "$PUBLIC_PORT" =~ ^[0-9]+$ ]] && [ "$PUBLIC_PORT" -ge 1 ] && [ "$PUBLIC_PORT" -le 65535 ] \
    || die "--public-port '$PUBLIC_PORT': expected a port number (1-65535)"
for pair in "--login-failures:$LOGIN_FAILURES:1" "--lockout:$LOCKOUT:10" "--min-password-length:$MIN_PASSWORD:8"; do
    IFS=: read -r opt value least <<< "$pair"
    [[ "$value" =~ ^[0-9]+$ ]] && [ "$value" -ge "$least" ] || die "$opt '$value': expected a whole number, at least $least"
done
[ "$MIN_PASSWORD" -le 64 ] || die "--min-password-length '$MIN_PASSWORD': expected at most 64"
for port in "$HUB_PORT" "$PG_PORT"; do
    [[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -gt 1024 ] && [ "$port" -lt 65000 ] \
        || die "port '$port': expected a number between 1025 and 64999"
done
for pair in "--mem-limit:$MEM_LIMIT:256" "--tasks-limit:$TASKS_LIMIT:64" "--cull-idle:$CULL_IDLE:60" "--user-log-mib:$USER_LOG:1"; do
    IFS=: read -r opt value least <<< "$pair"
    [[ "$value" =~ ^[0-9]+$ ]] && [ "$value" -ge "$least" ] || die "$opt '$value': expected a whole number, at least $least"
done

SOFTWARE=${SOFTWARE:-$PREFIX}
VENV=$SOFTWARE/venv
PROXY_DIR=$SOFTWARE/proxy
JUPYTER_ETC=$PREFIX/etc/jupyter   # this deployment's Jupyter settings (JUPYTER_CONFIG_PATH of its processes)
RUN=$PREFIX/run
LOG=$PREFIX/log
HUBDIR=$PREFIX/hub
EXCHANGE=$PREFIX/exchange
PGDATA=$PREFIX/pgdata
PGSOCK=$RUN/postgresql
COURSE_DIR=$PREFIX/courses/$COURSE_ID
SECRETS=$PREFIX/secrets
GRADEBOOK_SECRET=$SECRETS/gradebook-password
DB_NAME=${COURSE_ID//-/_}_gradebook
DB_ROLE=${COURSE_ID//-/_}_grader

# --- 1. Installation (idempotent, skipped when up to date) ------------------------------
install_debian() {
    local missing=()
    [ -x "$SYSTEM_PYTHON" ] && "$SYSTEM_PYTHON" -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
    command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
    command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)   # the autograder's sandbox
    command -v openssl >/dev/null 2>&1 || missing+=(openssl)    # certificates for --tls-cert (and the test's)
    if [ ${#missing[@]} -gt 0 ]; then
        say "apt-get install ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    # Debian's package starts its own cluster; the course runs its own, so leave that one alone.
}

# uv, the course's installer (scripts/uv.sh: the pinned version, installed once under root's cache).
# Files are copied, not linked to root's cache (cleaning that cache never touches the hub), and
# compiled ahead: the environment is root's, so a user's server or kernel could not write the
# .pyc files and would compile every module it imports again at each start.
UV_INSTALL_OPTIONS=(--quiet --python "$VENV/bin/python" --link-mode copy --compile-bytecode)
uv() { PYTHON="$SYSTEM_PYTHON" sh "$REPO/scripts/uv.sh" "$@"; }

install_venv() {
    local want
    want=$(cat "$HERE/requirements.txt" "$REPO/pyproject.toml" "$REPO"/course_lib/*.py "$REPO"/grading/*.py \
           "$HERE/course_exchange.py" "$HERE/course_formgrader.py" "$HERE/course_password.py" "$HERE/course_serverlog.py" "$REPO/scripts/uv.sh" <(echo "${UV_INSTALL_OPTIONS[*]}") \
           <(cd "$REPO/jupyter/labextensions" && find . -type f | LC_ALL=C sort | xargs cat) | sha256sum | cut -d' ' -f1)
    if [ -f "$VENV/.deploy-stamp" ] && [ "$(cat "$VENV/.deploy-stamp")" = "$want" ]; then
        return
    fi
    say "Python environment in $VENV (from $SYSTEM_PYTHON, exactly as deploy/requirements.txt pins it)"
    [ -x "$VENV/bin/python" ] || "$SYSTEM_PYTHON" -m venv --without-pip "$VENV"
    rm -f "$VENV/.deploy-stamp"
    # Synchronised exactly: a package that left the lock, or was added by hand, is removed (pip, in an
    # environment made by venv, is kept: uv leaves the tools it was made with).
    uv pip sync "${UV_INSTALL_OPTIONS[@]}" "$HERE/requirements.txt"
    # course_lib and grading as a regular (not editable) install: the repository may be unreadable to students.
    local build
    build=$(mktemp -d)
    (cd "$REPO" && git ls-files -z 2>/dev/null || find . -path ./.venv -prune -o -path ./.git -prune -o -type f -print0) \
        | (cd "$REPO" && xargs -0 cp --parents -t "$build")
    uv pip install "${UV_INSTALL_OPTIONS[@]}" --no-deps "$build"
    rm -rf "$build"
    # the course's Validate button, prebuilt (source in jupyter/validate/), where JupyterLab looks for the
    # extensions of its environment; it turns nbgrader's own Validate button off
    rm -rf "$VENV/share/jupyter/labextensions/ml-foundations-validate"
    install -d -m 755 "$VENV/share/jupyter/labextensions"
    cp -R "$REPO/jupyter/labextensions/ml-foundations-validate" "$VENV/share/jupyter/labextensions/"
    chmod -R a+rX "$VENV/share/jupyter/labextensions/ml-foundations-validate"
    # nbgrader's exchange hardened (course_exchange.py); the shared Formgrader's limits and log (course_formgrader.py);
    # the course's password rule and the hub's page to change a password (course_password.py); the keeper
    # of each server's log (course_serverlog.py)
    cp "$HERE/course_exchange.py" "$HERE/course_formgrader.py" "$HERE/course_password.py" "$HERE/course_serverlog.py" \
        "$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/"
    uv pip check --quiet --python "$VENV/bin/python"
    echo "$want" > "$VENV/.deploy-stamp"
}

install_proxy() {
    if cmp -s "$HERE/package-lock.json" "$PROXY_DIR/package-lock.json" && [ -x "$PROXY_DIR/node_modules/.bin/configurable-http-proxy" ]; then
        return
    fi
    say "configurable-http-proxy (npm ci, deploy/package-lock.json)"
    mkdir -p "$PROXY_DIR"
    cp "$HERE/package.json" "$HERE/package-lock.json" "$PROXY_DIR/"
    (cd "$PROXY_DIR" && npm ci --omit=dev --no-audit --no-fund --loglevel=error >/dev/null)
}

# The solutions must not be readable where the clone sits: a clone made with umask 022 (the
# default) lets every user of the machine read source/, and its git folder holds every version of
# it (git show HEAD:source/...). Other users lose their access to the whole clone and to its git
# folder (which a worktree keeps elsewhere); then setup checks, as user nobody, that neither the
# solutions nor the history can be read, and refuses to go on if they can.
protect_solutions() {
    local gitdir
    gitdir=$(git -C "$REPO" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
    for d in "$REPO" "$REPO/source" "$REPO/.git" $gitdir; do
        [ -e "$d" ] || continue
        if [ -n "$(find "$d" -maxdepth 0 -perm /o=rwx -print -quit)" ] || [ -n "$(find "$d" -perm /o=rwx -print -quit)" ]; then
            say "solutions: removing other users' access to $d (students must not read it)"
            chmod -R o-rwx "$d" || die "cannot make $d unreadable to other users: run 'chmod -R o-rwx $d' or clone where only you can read"
        fi
    done
    for d in "$REPO/source" "$REPO/.git" $gitdir; do
        [ -e "$d" ] || continue
        if runuser -u nobody -- test -r "$d" -a -x "$d" 2>/dev/null \
                || runuser -u nobody -- ls "$d" >/dev/null 2>&1; then
            die "$d is still readable by other users (ACLs, or a parent folder shared otherwise): make it private first"
        fi
    done
}

mkdir -p "$PREFIX" "$SOFTWARE"
chmod 755 "$PREFIX" "$SOFTWARE"
install_debian
install_venv
install_proxy
if [ "$MODE" = install ]; then
    say "installed in $PREFIX"
    exit 0
fi
protect_solutions
# (earlier versions kept the students' nbgrader settings in the environment itself)
[ "$SOFTWARE" != "$PREFIX" ] || rm -f "$VENV/etc/jupyter/nbgrader_config.py"

# --- Names: every name this deployment gives is made from its course id; a second deployment
# on the machine must not take names another one gave (its teardown would remove them). -------
CLAIM=$PREFIX/etc/course-id
if [ "$MODE" = all ] && [ "$(cat "$CLAIM" 2>/dev/null)" != "$COURSE_ID" ]; then
    taken=""
    for g in "$GROUP" "$GRADER_GROUP"; do getent group "$g" >/dev/null && taken="$taken group $g,"; done
    id -u "$COURSE_USER" >/dev/null 2>&1 && taken="$taken user $COURSE_USER,"
    for d in /sys/fs/cgroup/"$COURSE_ID"-hub /sys/fs/cgroup/memory/"$COURSE_ID"-hub /etc/systemd/system/"$COURSE_ID"-jupyterhub.service; do
        [ -e "$d" ] && taken="$taken $d,"
    done
    [ -z "$taken" ] || die "course id '$COURSE_ID' is already used on this machine (${taken%,}): another deployment (or a failed one) has it; choose another with --course-id, or remove that deployment with its teardown.sh --purge"
    [ -n "$(cat "$CLAIM" 2>/dev/null)" ] && die "$PREFIX holds the deployment of course '$(cat "$CLAIM")': use another --prefix"
fi
install -d -m 755 "$PREFIX/etc"
[ "$MODE" = all ] && echo "$COURSE_ID" > "$CLAIM"
CREATED=$PREFIX/etc/created-users    # the accounts this deployment made: the only ones --purge removes
touch "$CREATED"

# --- 2. Users -------------------------------------------------------------------------
pg_bin() { ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1; }

as_user() {  # as_user NAME CMD...: a login-like environment, the course's tools first on PATH
    local user=$1; shift
    local home
    home=$(getent passwd "$user" | cut -d: -f6)
    (cd "$home" && runuser -u "$user" -- env -i HOME="$home" USER="$user" LOGNAME="$user" LANG=C.UTF-8 \
        PATH="$VENV/bin:/usr/local/bin:/usr/bin:/bin" JUPYTER_CONFIG_PATH="$JUPYTER_ETC" "$@")
}

make_user() {  # make_user NAME [GROUP]: a Linux user whose home only they can read; no password yet
    local name=$1 group=${2:-}
    if ! id -u "$name" >/dev/null 2>&1; then
        useradd --create-home --shell /bin/bash ${group:+--groups "$group"} "$name"
        echo "$name" >> "$CREATED"
    elif [ -n "$group" ]; then
        usermod -a -G "$group" "$name"
    fi
    local home
    home=$(getent passwd "$name" | cut -d: -f6)
    chmod 700 "$home"      # useradd leaves homes readable by every other user
}

student_jupyter() {  # students get the assignment list, not the Formgrader or the assignment editor
    local name=$1 home
    home=$(getent passwd "$name" | cut -d: -f6)
    install -d -o "$name" -g "$name" -m 700 "$home/.jupyter" "$home/.jupyter/labconfig"
    cat > "$home/.jupyter/jupyter_server_config.json" <<'JSON'
{"ServerApp": {"jpserver_extensions": {"nbgrader.server_extensions.formgrader": false}}}
JSON
    cat > "$home/.jupyter/labconfig/page_config.json" <<'JSON'
{"disabledExtensions": {"@jupyter/nbgrader:formgrader": true, "@jupyter/nbgrader:create-assignment": true,
                       "@jupyter/nbgrader:course-list": true}}
JSON
    chown "$name:$name" "$home/.jupyter/jupyter_server_config.json" "$home/.jupyter/labconfig/page_config.json"
}

render() {  # render TEMPLATE DEST MODE: @DEPLOY_JSON@ -> the deployment's settings file
    sed "s#@DEPLOY_JSON@#$PREFIX/etc/deploy.json#g" "$1" > "$2.tmp" && chmod "$3" "$2.tmp" && mv "$2.tmp" "$2"
}

make_grader() {  # make_grader NAME: in the graders' group, with nbgrader set up for the course folder
    local name=$1 home
    make_user "$name" "$GRADER_GROUP"
    home=$(getent passwd "$name" | cut -d: -f6)
    install -d -o "$name" -g "$name" -m 700 "$home/.jupyter"
    render "$HERE/nbgrader_config_instructor.py" "$home/.jupyter/nbgrader_config.py" 600
    chown "$name:$name" "$home/.jupyter/nbgrader_config.py"
    # the Formgrader of the grader's own server sends the course's policy headers too; its Validate
    # button, which may run a notebook someone else wrote, refuses where the sandbox cannot start
    cat > "$home/.jupyter/jupyter_server_config.json" <<'JSON'
{"ServerApp": {"jpserver_extensions": {"grading.formgrader_csp": true}}, "ValidateService": {"require_sandbox": true}}
JSON
    chown "$name:$name" "$home/.jupyter/jupyter_server_config.json"
}

add_to_gradebook() {  # the students' rows in the gradebook (the Formgrader's roster)
    as_user "$COURSE_USER" python - "$@" <<'PY'
import sys, warnings
from grading.course import Course
from nbgrader.api import Gradebook
course = Course(sys.argv[1])
with warnings.catch_warnings(), Gradebook(course.db_url, course.course_id) as gb:
    warnings.simplefilter("ignore")
    for student in sys.argv[2:]:
        gb.update_or_create_student(student)
PY
}

first_password() {  # first_password NAME: a random password, set and printed here, once
    id -u "$1" >/dev/null 2>&1 || die "--password $1: no such user (add them first)"
    local pw
    pw=$("$VENV/bin/python" -m course_password first "$1" "$MIN_PASSWORD")   # keeps the course's rule
    printf '%s:%s\n' "$1" "$pw" | chpasswd
    echo "First password of $1 (give it to them in person; it is not stored anywhere): $pw"
    echo "They change it at once on the hub's page /hub/course-password (linked from the login page)"
}

if [ "$MODE" = password ]; then
    first_password "$NEW_USER"
    exit 0
fi
if [ "$MODE" = add-student ] || [ "$MODE" = add-grader ]; then
    [ -n "$KNOWN" ] || die "no deployment in $PREFIX: run setup.sh first"
    if [ "$MODE" = add-student ]; then
        id -nG "$NEW_USER" 2>/dev/null | grep -qw "$GRADER_GROUP" && die "$NEW_USER is a grader; a grader cannot also be a student"
        make_user "$NEW_USER" "$GROUP"
        student_jupyter "$NEW_USER"
        add_to_gradebook "$COURSE_DIR" "$NEW_USER"
        say "student $NEW_USER added (the hub lets members of $GROUP log in; no restart needed)"
    else
        id -nG "$NEW_USER" 2>/dev/null | grep -qw "$GROUP" && die "$NEW_USER is a student; a student cannot grade"
        make_grader "$NEW_USER"
        say "grader $NEW_USER added to $GRADER_GROUP: the course folder, the gradebook and the Formgrader"
        say "(/services/formgrader/) at their next login; no restart needed"
    fi
    getent shadow "$NEW_USER" | cut -d: -f2 | grep -q '^[!*]' \
        && say "$NEW_USER has no password yet: sudo $0 --prefix $PREFIX --password $NEW_USER"
    exit 0
fi

getent group "$GROUP" >/dev/null || groupadd "$GROUP"
getent group "$GRADER_GROUP" >/dev/null || groupadd "$GRADER_GROUP"
for s in $STUDENTS $GRADERS; do
    [ "$s" != "$INSTRUCTOR" ] || die "the instructor '$s' cannot also be a student or a grader"
done
for s in $STUDENTS; do
    for g in $GRADERS; do [ "$s" != "$g" ] || die "'$s' cannot be both a student and a grader"; done
done
say "users: instructor $INSTRUCTOR, graders ${GRADERS:-none} (group $GRADER_GROUP), students ${STUDENTS:-(kept)} (group $GROUP)"
install -d -m 755 "$PREFIX/home"
if ! id -u "$COURSE_USER" >/dev/null 2>&1; then
    useradd --system --create-home --home-dir "$PREFIX/home/$COURSE_USER" --shell /usr/sbin/nologin \
        --groups "$GRADER_GROUP" "$COURSE_USER"
    echo "$COURSE_USER" >> "$CREATED"
fi
make_grader "$COURSE_USER"
make_grader "$INSTRUCTOR"
for g in $GRADERS; do make_grader "$g"; done
for s in $STUDENTS; do make_user "$s" "$GROUP"; student_jupyter "$s"; done
ALL_STUDENTS=$(getent group "$GROUP" | cut -d: -f4 | tr ',' ' ')

# --- 3. Folders, configuration, secrets -------------------------------------------------
install -d -m 700 "$HUBDIR"
install -d -m 711 "$LOG"     # root reads the logs
install -d -m 700 "$LOG/users"   # each server's output (root only; through its keeper, never a pipe to the hub, which may restart)
install -d -m 755 "$RUN"
install -d -o "$COURSE_USER" -g "$GRADER_GROUP" -m 755 "$RUN/clerk"   # the exchange clerk's socket
install -d -o root -g "$GRADER_GROUP" -m 750 "$SECRETS"
install -d -m 755 "$PREFIX/courses"
# The exchange as nbgrader documents it for several graders, but with a root that only root
# may write to: nobody can create (squat) a course's folder. Inbound: students may create
# entries but not list them (-wx), nor remove or rename another's (sticky).
install -d -o root -g root -m 755 "$EXCHANGE"
chmod 755 "$EXCHANGE"
install -d -o "$COURSE_USER" -g "$GRADER_GROUP" -m 2775 "$EXCHANGE/$COURSE_ID" "$EXCHANGE/$COURSE_ID/outbound"
install -d -o "$COURSE_USER" -g "$GRADER_GROUP" -m 3773 "$EXCHANGE/$COURSE_ID/inbound"
install -d -o "$COURSE_USER" -g "$GRADER_GROUP" -m 2771 "$EXCHANGE/$COURSE_ID/feedback"
# the clerk's journal of submissions (who, when, what): graders read it, students cannot reach it
install -d -o "$COURSE_USER" -g "$GRADER_GROUP" -m 2750 "$EXCHANGE/$COURSE_ID/records"
chown "$COURSE_USER:$GRADER_GROUP" "$EXCHANGE/$COURSE_ID" "$EXCHANGE/$COURSE_ID"/{inbound,outbound,feedback,records}
chmod 2775 "$EXCHANGE/$COURSE_ID" "$EXCHANGE/$COURSE_ID/outbound"
chmod 3773 "$EXCHANGE/$COURSE_ID/inbound"
chmod 2771 "$EXCHANGE/$COURSE_ID/feedback"
chmod 2750 "$EXCHANGE/$COURSE_ID/records"

SUPERVISOR=supervisord
[ -d /run/systemd/system ] && SUPERVISOR=systemd
"$VENV/bin/python" - "$CONF" <<PY
import json, sys
json.dump({
    "prefix": "$PREFIX", "software": "$SOFTWARE", "venv": "$VENV", "jupyter_etc": "$JUPYTER_ETC", "course_id": "$COURSE_ID", "course_dir": "$COURSE_DIR",
    "instructor": "$INSTRUCTOR", "student_group": "$GROUP", "grader_group": "$GRADER_GROUP",
    "course_user": "$COURSE_USER", "created_users": "$CREATED",
    "clerk_socket": "$RUN/clerk/clerk.sock", "submission_records": "$EXCHANGE/$COURSE_ID/records/submissions.jsonl",
    "pg_service_file": "$SECRETS/pg_service.conf", "pg_service": "${COURSE_ID//-/_}_gradebook",
    "domain": "$DOMAIN", "tls_cert": "$TLS_CERT", "tls_key": "$TLS_KEY",
    "behind_proxy": $BEHIND_PROXY, "public_port": $PUBLIC_PORT,
    "login_failures": $LOGIN_FAILURES, "lockout_s": $LOCKOUT, "min_password_length": $MIN_PASSWORD,
    "exchange": "$EXCHANGE", "hub_port": $HUB_PORT, "pg_port": $PG_PORT, "db_name": "$DB_NAME",
    "db_role": "$DB_ROLE", "gradebook_secret": "$GRADEBOOK_SECRET",
    "proxy": "$PROXY_DIR/node_modules/.bin/configurable-http-proxy",
    "hub_dir": "$HUBDIR", "run_dir": "$RUN", "log_dir": "$LOG",
    "mem_limit_mib": $MEM_LIMIT, "tasks_limit": $TASKS_LIMIT, "cull_idle_s": $CULL_IDLE, "user_log_mib": $USER_LOG,
    "hidepid": $HIDEPID, "supervisor": "$SUPERVISOR",
}, open(sys.argv[1], "w"), indent=1)
PY
chmod 644 "$CONF"
render "$HERE/jupyterhub_config.py" "$PREFIX/etc/jupyterhub_config.py" 644
# Behind a reverse proxy: its configuration for this deployment (nginx; the guide says what another needs)
if [ "$BEHIND_PROXY" = 1 ]; then
    sed -e "s#@DOMAIN@#$DOMAIN#g" -e "s#@PUBLIC_PORT@#$PUBLIC_PORT#g" -e "s#@HUB_PORT@#$HUB_PORT#g" \
        -e "s#@COURSE_ID@#$COURSE_ID#g" -e "s#@VAR@#${COURSE_ID//-/_}#g" \
        -e "s#@TLS_CERT@#${TLS_CERT:-/etc/ssl/certs/$DOMAIN.pem}#g" -e "s#@TLS_KEY@#${TLS_KEY:-/etc/ssl/private/$DOMAIN.key}#g" \
        "$HERE/nginx-course.conf.example" > "$PREFIX/etc/nginx-course.conf.tmp"
    chmod 644 "$PREFIX/etc/nginx-course.conf.tmp"
    mv "$PREFIX/etc/nginx-course.conf.tmp" "$PREFIX/etc/nginx-course.conf"
else
    rm -f "$PREFIX/etc/nginx-course.conf"
fi
install -d -m 755 "$JUPYTER_ETC"
render "$HERE/nbgrader_config_student.py" "$JUPYTER_ETC/nbgrader_config.py" 644
# Every server of the deployment (deploy/jupyter_server_config.json): kernels talk over Unix
# sockets in their user's private runtime folder, not TCP ports on 127.0.0.1 that any user can
# connect to (the connection key only signs; anyone may subscribe); the Validate button's server
# side (grading/validate_service.py) runs the course's self-check. (The shared Formgrader turns
# that off: it runs as the course account; jupyterhub_config.py.)
install -m 644 "$HERE/jupyter_server_config.json" "$JUPYTER_ETC/jupyter_server_config.json"
# The course's grading settings for everyone's Validate button (cell limits per assignment,
# stderr as output, course_lib withheld), as make check has them: the course's own
# nbgrader_config.py, with this deployment's course id (it holds no secret).
sed "s/^c\.CourseDirectory\.course_id *=.*/c.CourseDirectory.course_id = \"$COURSE_ID\"/" "$REPO/nbgrader_config.py" \
    > "$PREFIX/etc/course_nbgrader_config.py.tmp"
chmod 644 "$PREFIX/etc/course_nbgrader_config.py.tmp"
mv "$PREFIX/etc/course_nbgrader_config.py.tmp" "$PREFIX/etc/course_nbgrader_config.py"

new_secret() {  # new_secret FILE OWNER GROUP MODE: a random password, written once, never shown
    if [ ! -s "$1" ]; then
        (umask 077 && "$VENV/bin/python" -c 'import secrets; print(secrets.token_urlsafe(24))' > "$1")
    fi
    chown "$2:$3" "$1"
    chmod "$4" "$1"
}
new_secret "$HUBDIR/proxy-token" root root 600
new_secret "$GRADEBOOK_SECRET" root "$GRADER_GROUP" 640
# The gradebook's connection, password included, as a libpq service: the database URL that
# nbgrader prints (nbgrader db upgrade, error messages) then holds no password.
(umask 027 && printf '[%s]\nhost=127.0.0.1\nport=%s\ndbname=%s\nuser=%s\npassword=%s\n' "${COURSE_ID//-/_}_gradebook" \
    "$PG_PORT" "$DB_NAME" "$DB_ROLE" "$(cat "$GRADEBOOK_SECRET")" > "$SECRETS/pg_service.conf.tmp")
chown root:"$GRADER_GROUP" "$SECRETS/pg_service.conf.tmp"
chmod 640 "$SECRETS/pg_service.conf.tmp"
mv "$SECRETS/pg_service.conf.tmp" "$SECRETS/pg_service.conf"

# The course folder: the course repository's files, shared by the graders' group (2770, as
# nbgrader documents for several graders). An existing folder is kept: it holds the grades.
if [ ! -f "$COURSE_DIR/nbgrader_config.py" ]; then
    say "course folder $COURSE_DIR"
    install -d -o "$COURSE_USER" -g "$GRADER_GROUP" -m 2770 "$COURSE_DIR"
    (cd "$REPO" && git ls-files -z 2>/dev/null || find . -path ./.venv -prune -o -path ./.git -prune -o -type f -print0) \
        | (cd "$REPO" && xargs -0 cp --parents -t "$COURSE_DIR")
    chown -R "$COURSE_USER:$GRADER_GROUP" "$COURSE_DIR"
    find "$COURSE_DIR" -type d -exec chmod 2770 {} +
    find "$COURSE_DIR" -type f -exec chmod ug+rw,o-rwx {} +
fi
chown "$COURSE_USER:$GRADER_GROUP" "$COURSE_DIR"
chmod 2770 "$COURSE_DIR"
# this deployment's course id wins in the course folder too (nbgrader reads ./nbgrader_config.py last)
sed -i "s/^c\.CourseDirectory\.course_id *=.*/c.CourseDirectory.course_id = \"$COURSE_ID\"/" "$COURSE_DIR/nbgrader_config.py"

# /proc with hidepid=2: nobody sees another user's processes or their command lines.
HIDEPID_STATE=$PREFIX/etc/proc-hidepid-before
if [ "$HIDEPID" = 1 ]; then
    if ! grep -qE '^proc /proc proc .*hidepid=(2|invisible)' /proc/mounts; then
        [ -f "$HIDEPID_STATE" ] || grep -E '^proc /proc ' /proc/mounts | awk '{print $4}' > "$HIDEPID_STATE"
        if mount -o remount,hidepid=2 /proc 2>/dev/null; then
            say "/proc remounted with hidepid=2 (teardown.sh --purge restores it)"
        else
            echo "setup.sh: warning: this machine does not let /proc be remounted with hidepid=2;" \
                 "users can see each other's processes (see docs/guides/hub.md)" >&2
        fi
    fi
fi

# --- 4. Supervised services: PostgreSQL, JupyterHub (which runs the proxy, the Formgrader
# and the idle culler) -----------------------------------------------------------------
PG_BIN=$(pg_bin)
install -d -o postgres -g postgres -m 700 "$PGSOCK"
if [ ! -f "$PGDATA/PG_VERSION" ]; then
    say "PostgreSQL cluster in $PGDATA"
    install -d -o postgres -g postgres -m 700 "$PGDATA"
    runuser -u postgres -- "$PG_BIN/initdb" -D "$PGDATA" -U postgres --encoding=UTF8 --locale=C.UTF-8 \
        --auth-local=peer --auth-host=scram-sha-256 >/dev/null
fi
PG_CMD="$PG_BIN/postgres -D $PGDATA -c listen_addresses=127.0.0.1 -p $PG_PORT -k $PGSOCK -c password_encryption=scram-sha-256"
HUB_CMD="$VENV/bin/jupyterhub -f $PREFIX/etc/jupyterhub_config.py"

if [ "$SUPERVISOR" = systemd ]; then
    for unit in postgresql jupyterhub; do
        sed -e "s#@PREFIX@#$PREFIX#g" -e "s#@PG_CMD@#$PG_CMD#g" -e "s#@HUB_CMD@#$HUB_CMD#g" \
            -e "s#@COURSE_ID@#$COURSE_ID#g" "$HERE/systemd/ml-foundations-$unit.service" \
            > "/etc/systemd/system/$COURSE_ID-$unit.service"
    done
    systemctl daemon-reload
    systemctl enable --now "$COURSE_ID-postgresql.service" "$COURSE_ID-jupyterhub.service"
    systemctl restart "$COURSE_ID-jupyterhub.service"   # a re-run loads the new configuration
else
    umask 077
    cat > "$PREFIX/etc/supervisord.conf.tmp" <<CONF
; written by deploy/setup.sh: supervisord restarts each program when it dies
[unix_http_server]
file=$RUN/supervisor.sock
chmod=0700

[supervisord]
pidfile=$RUN/supervisord.pid
logfile=$LOG/supervisord.log
childlogdir=$LOG
umask=077
nocleanup=true

[rpcinterface:supervisor]
supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface

[supervisorctl]
serverurl=unix://$RUN/supervisor.sock

[program:postgresql]
command=$PG_CMD
user=postgres
priority=10
autorestart=true
startsecs=2
startretries=1000
stopsignal=INT
stopwaitsecs=60
redirect_stderr=true
stdout_logfile=$LOG/postgresql.log

[program:jupyterhub]
command=$HUB_CMD
directory=$HUBDIR
environment=COURSE_DEPLOY_JSON="$CONF"
priority=20
autorestart=true
startsecs=5
startretries=1000
stopsignal=TERM
stopwaitsecs=60
redirect_stderr=true
stdout_logfile=$LOG/jupyterhub.log
CONF
    mv "$PREFIX/etc/supervisord.conf.tmp" "$PREFIX/etc/supervisord.conf"
    umask 022
    if [ -f "$RUN/supervisord.pid" ] && kill -0 "$(cat "$RUN/supervisord.pid")" 2>/dev/null; then
        say "supervisord running: reloading its configuration, restarting the hub"
        "$VENV/bin/supervisorctl" -c "$PREFIX/etc/supervisord.conf" update >/dev/null
        "$VENV/bin/supervisorctl" -c "$PREFIX/etc/supervisord.conf" restart jupyterhub >/dev/null
    else
        say "supervisord: PostgreSQL on 127.0.0.1:$PG_PORT, JupyterHub on http://127.0.0.1:$HUB_PORT"
        "$VENV/bin/supervisord" -c "$PREFIX/etc/supervisord.conf"
    fi
fi

for _ in $(seq 1 240); do
    runuser -u postgres -- "$PG_BIN/pg_isready" -q -h "$PGSOCK" -p "$PG_PORT" && break
    sleep 0.25
done
runuser -u postgres -- "$PG_BIN/pg_isready" -q -h "$PGSOCK" -p "$PG_PORT" \
    || { tail -20 "$LOG/postgresql.log" >&2; die "PostgreSQL did not start (log: $LOG/postgresql.log)"; }

# The role gets its password as a SCRAM verifier computed here: the plain password never
# reaches the server, its logs or any command line.
"$VENV/bin/python" - "$GRADEBOOK_SECRET" "$DB_ROLE" "$DB_NAME" <<'PY' \
    | runuser -u postgres -- "$PG_BIN/psql" -h "$PGSOCK" -p "$PG_PORT" -U postgres -d postgres -q -v ON_ERROR_STOP=1 >/dev/null
import base64, hashlib, hmac, os, sys
password = open(sys.argv[1]).read().strip().encode()
role, db = sys.argv[2], sys.argv[3]
salt, rounds = os.urandom(16), 4096
salted = hashlib.pbkdf2_hmac("sha256", password, salt, rounds)
client_key = hmac.new(salted, b"Client Key", "sha256").digest()
server_key = hmac.new(salted, b"Server Key", "sha256").digest()
b64 = lambda b: base64.b64encode(b).decode()
verifier = f"SCRAM-SHA-256${rounds}:{b64(salt)}${b64(hashlib.sha256(client_key).digest())}:{b64(server_key)}"
print(f"SELECT 'CREATE ROLE {role} LOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{role}') \\gexec")
print(f"ALTER ROLE {role} LOGIN PASSWORD '{verifier}';")
print(f"SELECT 'CREATE DATABASE {db} OWNER {role}' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '{db}') \\gexec")
print(f"REVOKE ALL ON DATABASE {db} FROM PUBLIC;")
print(f"GRANT ALL ON DATABASE {db} TO {role};")
PY
say "gradebook: database $DB_NAME, role $DB_ROLE (password in $GRADEBOOK_SECRET, graders' group only)"
# shellcheck disable=SC2086
[ -z "$ALL_STUDENTS" ] || add_to_gradebook "$COURSE_DIR" $ALL_STUDENTS

hub_answers() {  # the hub's API answers on its port (HTTPS: the certificate is the operator's, not checked here)
    "$VENV/bin/python" - "$1" "$HUB_PORT" <<'PY' 2>/dev/null
import ssl, sys, urllib.request
scheme, port = sys.argv[1], sys.argv[2]
context = ssl._create_unverified_context() if scheme == "https" else None
urllib.request.urlopen(f"{scheme}://127.0.0.1:{port}/hub/api", timeout=5, context=context)
PY
}
SCHEME=http
[ -n "$TLS_CERT" ] && [ "$BEHIND_PROXY" != 1 ] && SCHEME=https
for _ in $(seq 1 240); do
    hub_answers "$SCHEME" && break
    sleep 0.5
done
hub_answers "$SCHEME" || { tail -30 "$LOG/jupyterhub.log" >&2; die "JupyterHub did not start (log: $LOG/jupyterhub.log)"; }
if [ "$BEHIND_PROXY" = 1 ]; then
    say "ready: http://127.0.0.1:$HUB_PORT for the reverse proxy, which serves https://$DOMAIN$([ "$PUBLIC_PORT" = 443 ] || echo ":$PUBLIC_PORT")"
    say "its configuration (nginx): $PREFIX/etc/nginx-course.conf; include it in nginx's http block and reload nginx"
else
    say "ready: $SCHEME://${DOMAIN:-127.0.0.1}:$HUB_PORT (Formgrader for the graders: /services/formgrader/); stop with deploy/teardown.sh --prefix $PREFIX"
fi
nopw=""
for u in $INSTRUCTOR $(getent group "$GRADER_GROUP" | cut -d: -f4 | tr ',' ' ') $ALL_STUDENTS; do
    getent shadow "$u" | cut -d: -f2 | grep -q '^[!*]' && nopw="$nopw $u"
done
if [ -n "$nopw" ]; then
    say "no password yet (cannot log in):$nopw"
    say "each gets a first password, printed once on this terminal only, with: sudo $0 --prefix $PREFIX --password NAME"
    say "hand it over in person; they choose their own at once on the hub's page /hub/course-password (nobody else then knows it)"
fi
