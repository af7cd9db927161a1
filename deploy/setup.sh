#!/usr/bin/env bash
# Multi-user deployment of the course: JupyterHub, nbgrader's exchange, a PostgreSQL gradebook.
#
#   sudo deploy/setup.sh [options]            install (if needed), create users, start everything
#   sudo deploy/setup.sh --install-only       only install: Debian packages, the Python environment, the proxy
#   sudo deploy/setup.sh --add-student NAME   one more student (Linux user, roster, gradebook); no restart
#
# Options (defaults in brackets):
#   --prefix DIR        where the deployment lives [/opt/ml-foundations]
#   --instructor NAME   the instructor's Linux user [instructor]
#   --students "A B"    the students' Linux users [student01 student02 student03]
#   --group NAME        the students' Linux group [<course-id>-students]
#   --hub-port N        public port of the hub (the proxy), on 127.0.0.1 [8000]
#   --pg-port N         PostgreSQL's port, on 127.0.0.1 [5433]
#
# Everything listens on 127.0.0.1 only. Secrets are generated here and never printed:
#   PREFIX/hub/shared-password          the students' login password (root only, 0600)
#   ~INSTRUCTOR/.gradebook-password     the gradebook role's password (instructor only, 0600)
# Pid files are in PREFIX/run/; deploy/teardown.sh stops everything (and, with --purge, removes it).
set -euo pipefail
umask 022

HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
PREFIX=/opt/ml-foundations
INSTRUCTOR=instructor
STUDENTS="student01 student02 student03"
GROUP=""
HUB_PORT=8000
PG_PORT=5433
MODE=all
NEW_STUDENT=""
SYSTEM_PYTHON=/usr/bin/python3   # Debian's: a Python under /root cannot be run by the students

while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) PREFIX=$2; shift 2 ;;
        --instructor) INSTRUCTOR=$2; shift 2 ;;
        --students) STUDENTS=$2; shift 2 ;;
        --group) GROUP=$2; shift 2 ;;
        --hub-port) HUB_PORT=$2; shift 2 ;;
        --pg-port) PG_PORT=$2; shift 2 ;;
        --install-only) MODE=install; shift ;;
        --add-student) MODE=add; NEW_STUDENT=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "setup.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
# The course id is the course's own (nbgrader_config.py): the course folder ~INSTRUCTOR/<id>, the
# exchange's folder, the gradebook's database and the students' group are named after it.
COURSE_ID=$(sed -n 's/^c\.CourseDirectory\.course_id *= *["'"'"']\([a-z0-9-]*\)["'"'"'].*/\1/p' "$REPO/nbgrader_config.py")
GROUP=${GROUP:-$COURSE_ID-students}

say() { echo ">>> $*"; }
die() { echo "setup.sh: error: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (it creates users and starts services as them)"
for name in "$INSTRUCTOR" $STUDENTS $NEW_STUDENT; do
    [[ "$name" =~ ^[a-z_][a-z0-9_-]{0,30}$ ]] || die "'$name' is not a valid user name: expected lower-case letters, digits, '-' or '_'"
done
[[ "$COURSE_ID" =~ ^[a-z][a-z0-9-]{0,40}$ ]] || die "no course id in $REPO/nbgrader_config.py: expected a line c.CourseDirectory.course_id = \"<lower-case letters, digits, '-'>\""
for port in "$HUB_PORT" "$PG_PORT"; do
    [[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -gt 1024 ] && [ "$port" -lt 65000 ] \
        || die "port '$port': expected a number between 1025 and 64999"
done

VENV=$PREFIX/venv
RUN=$PREFIX/run
LOG=$PREFIX/log
HUBDIR=$PREFIX/hub
EXCHANGE=$PREFIX/exchange
PGDATA=$PREFIX/pgdata
PGSOCK=$RUN/postgresql
DB_NAME=${COURSE_ID//-/_}_gradebook
DB_ROLE=${COURSE_ID//-/_}_grader

# --- 1. Installation (idempotent, skipped when up to date) ------------------------------
install_debian() {
    local missing=()
    [ -x "$SYSTEM_PYTHON" ] && "$SYSTEM_PYTHON" -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
    command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
    command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)   # the autograder's sandbox
    if [ ${#missing[@]} -gt 0 ]; then
        say "apt-get install ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    # Debian's package starts its own cluster; the course runs its own, so leave that one alone.
}

install_venv() {
    local want
    want=$(cat "$HERE/requirements.txt" "$REPO/pyproject.toml" "$REPO"/course_lib/*.py "$REPO"/grading/*.py \
           "$HERE/course_exchange.py" | sha256sum | cut -d' ' -f1)
    if [ -f "$VENV/.deploy-stamp" ] && [ "$(cat "$VENV/.deploy-stamp")" = "$want" ]; then
        return
    fi
    say "Python environment in $VENV (from $SYSTEM_PYTHON and deploy/requirements.txt)"
    [ -x "$VENV/bin/python" ] || "$SYSTEM_PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -qq --upgrade "pip>=24"
    "$VENV/bin/python" -m pip install -qq -r "$HERE/requirements.txt"
    # course_lib and grading as a regular (not editable) install: the repository may be unreadable to students.
    local build
    build=$(mktemp -d)
    (cd "$REPO" && git ls-files -z 2>/dev/null || find . -path ./.venv -prune -o -path ./.git -prune -o -type f -print0) \
        | (cd "$REPO" && xargs -0 cp --parents -t "$build")
    "$VENV/bin/python" -m pip install -qq --no-deps "$build"
    rm -rf "$build"
    # nbgrader's exchange with the owner check enforced (see course_exchange.py)
    cp "$HERE/course_exchange.py" "$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/"
    "$VENV/bin/python" -m pip check >/dev/null
    echo "$want" > "$VENV/.deploy-stamp"
}

install_proxy() {
    if cmp -s "$HERE/package-lock.json" "$PREFIX/proxy/package-lock.json" && [ -x "$PREFIX/proxy/node_modules/.bin/configurable-http-proxy" ]; then
        return
    fi
    say "configurable-http-proxy (npm ci, deploy/package-lock.json)"
    mkdir -p "$PREFIX/proxy"
    cp "$HERE/package.json" "$HERE/package-lock.json" "$PREFIX/proxy/"
    (cd "$PREFIX/proxy" && npm ci --omit=dev --no-audit --no-fund --loglevel=error >/dev/null)
}

mkdir -p "$PREFIX"
chmod 755 "$PREFIX"
install_debian
install_venv
install_proxy
if [ "$MODE" = install ]; then
    say "installed in $PREFIX"
    exit 0
fi

# --- 2. Users -------------------------------------------------------------------------
pg_bin() { ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1; }

as_user() {  # as_user NAME CMD...: a login-like environment, the course's tools first on PATH
    local user=$1; shift
    local home
    home=$(getent passwd "$user" | cut -d: -f6)
    (cd "$home" && runuser -u "$user" -- env -i HOME="$home" USER="$user" LOGNAME="$user" LANG=C.UTF-8 \
        PATH="$VENV/bin:/usr/local/bin:/usr/bin:/bin" "$@")
}

make_user() {  # make_user NAME [GROUP]: a Linux user whose home only they can read
    local name=$1 group=${2:-}
    if ! id -u "$name" >/dev/null 2>&1; then
        useradd --create-home --shell /bin/bash ${group:+--groups "$group"} "$name"
    elif [ -n "$group" ]; then
        usermod -a -G "$group" "$name"
    fi
    local home
    home=$(getent passwd "$name" | cut -d: -f6)
    chmod 700 "$home"      # useradd leaves homes readable by every other user
    # Students get the assignment list, not the Formgrader or the assignment editor.
    if [ -n "$group" ]; then
        install -d -o "$name" -g "$name" -m 700 "$home/.jupyter" "$home/.jupyter/labconfig"
        cat > "$home/.jupyter/jupyter_server_config.json" <<'JSON'
{"ServerApp": {"jpserver_extensions": {"nbgrader.server_extensions.formgrader": false}}}
JSON
        cat > "$home/.jupyter/labconfig/page_config.json" <<'JSON'
{"disabledExtensions": {"@jupyter/nbgrader:formgrader": true, "@jupyter/nbgrader:create-assignment": true,
                       "@jupyter/nbgrader:course-list": true}}
JSON
        chown "$name:$name" "$home/.jupyter/jupyter_server_config.json" "$home/.jupyter/labconfig/page_config.json"
    fi
}

add_to_gradebook() {  # the students' rows in the gradebook (the Formgrader's roster)
    as_user "$INSTRUCTOR" python - "$@" <<'PY'
import sys, warnings
from traitlets.config import Config
from grading.course import Course
from nbgrader.api import Gradebook
course = Course(sys.argv[1])
with warnings.catch_warnings(), Gradebook(course.db_url, course.course_id) as gb:
    warnings.simplefilter("ignore")
    for student in sys.argv[2:]:
        gb.update_or_create_student(student)
PY
}

INSTR_HOME=$(getent passwd "$INSTRUCTOR" | cut -d: -f6 || true)
COURSE_DIR=${INSTR_HOME:-/home/$INSTRUCTOR}/$COURSE_ID

if [ "$MODE" = add ]; then
    [ -f "$PREFIX/etc/deploy.json" ] || die "no deployment in $PREFIX: run setup.sh first"
    # the running deployment's instructor and group, whatever the options say
    INSTRUCTOR=$("$VENV/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["instructor"])' "$PREFIX/etc/deploy.json")
    GROUP=$("$VENV/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["student_group"])' "$PREFIX/etc/deploy.json")
    INSTR_HOME=$(getent passwd "$INSTRUCTOR" | cut -d: -f6)
    COURSE_DIR=$INSTR_HOME/$COURSE_ID
    make_user "$NEW_STUDENT" "$GROUP"
    add_to_gradebook "$COURSE_DIR" "$NEW_STUDENT"
    say "student $NEW_STUDENT added (the hub lets members of $GROUP log in; no restart needed)"
    exit 0
fi

say "users: instructor $INSTRUCTOR, students $STUDENTS (group $GROUP)"
getent group "$GROUP" >/dev/null || groupadd "$GROUP"
make_user "$INSTRUCTOR"
INSTR_HOME=$(getent passwd "$INSTRUCTOR" | cut -d: -f6)
COURSE_DIR=$INSTR_HOME/$COURSE_ID
for s in $STUDENTS; do make_user "$s" "$GROUP"; done

# --- 3. Folders, configuration, secrets -------------------------------------------------
install -d -m 755 "$PREFIX/etc"
install -d -m 700 "$HUBDIR"
install -d -m 711 "$LOG"     # root reads the logs; postgres may write its own file here
install -d -m 755 "$RUN"
install -d -m 1777 "$EXCHANGE"     # every user may create, nobody may remove another's entries
chmod 1777 "$EXCHANGE"

"$VENV/bin/python" - "$PREFIX/etc/deploy.json" <<PY
import json, sys
json.dump({
    "prefix": "$PREFIX", "venv": "$VENV", "course_id": "$COURSE_ID", "course_dir": "$COURSE_DIR",
    "instructor": "$INSTRUCTOR", "student_group": "$GROUP", "exchange": "$EXCHANGE",
    "hub_port": $HUB_PORT, "pg_port": $PG_PORT, "db_name": "$DB_NAME", "db_role": "$DB_ROLE",
    "gradebook_secret": "$INSTR_HOME/.gradebook-password",
    "proxy": "$PREFIX/proxy/node_modules/.bin/configurable-http-proxy",
    "hub_dir": "$HUBDIR", "run_dir": "$RUN", "log_dir": "$LOG",
}, open(sys.argv[1], "w"), indent=1)
PY
chmod 644 "$PREFIX/etc/deploy.json"
render() {  # render TEMPLATE DEST MODE: @DEPLOY_JSON@ -> the deployment's settings file
    sed "s#@DEPLOY_JSON@#$PREFIX/etc/deploy.json#g" "$1" > "$2.tmp" && chmod "$3" "$2.tmp" && mv "$2.tmp" "$2"
}
render "$HERE/jupyterhub_config.py" "$PREFIX/etc/jupyterhub_config.py" 644
install -d -m 755 "$VENV/etc/jupyter"
render "$HERE/nbgrader_config_student.py" "$VENV/etc/jupyter/nbgrader_config.py" 644
install -d -o "$INSTRUCTOR" -g "$INSTRUCTOR" -m 700 "$INSTR_HOME/.jupyter"
render "$HERE/nbgrader_config_instructor.py" "$INSTR_HOME/.jupyter/nbgrader_config.py" 600
chown "$INSTRUCTOR:$INSTRUCTOR" "$INSTR_HOME/.jupyter/nbgrader_config.py"

new_secret() {  # new_secret FILE OWNER: a random password, written once, never shown
    if [ ! -s "$1" ]; then
        (umask 077 && "$VENV/bin/python" -c 'import secrets; print(secrets.token_urlsafe(24))' > "$1")
    fi
    chown "$2:$2" "$1"
    chmod 600 "$1"
}
new_secret "$HUBDIR/shared-password" root
new_secret "$HUBDIR/proxy-token" root
new_secret "$INSTR_HOME/.gradebook-password" "$INSTRUCTOR"

# The course folder: the course repository's files, owned by the instructor (the Formgrader
# needs it inside the instructor's home). An existing folder is kept: it holds the grades.
if [ ! -f "$COURSE_DIR/nbgrader_config.py" ]; then
    say "course folder $COURSE_DIR"
    install -d -o "$INSTRUCTOR" -g "$INSTRUCTOR" -m 700 "$COURSE_DIR"
    (cd "$REPO" && git ls-files -z 2>/dev/null || find . -path ./.venv -prune -o -path ./.git -prune -o -type f -print0) \
        | (cd "$REPO" && xargs -0 cp --parents -t "$COURSE_DIR")
    chown -R "$INSTRUCTOR:$INSTRUCTOR" "$COURSE_DIR"
fi

# --- 4. PostgreSQL: the course's own cluster on 127.0.0.1 -------------------------------
PG_BIN=$(pg_bin)
install -d -o postgres -g postgres -m 700 "$PGSOCK"
if [ ! -f "$PGDATA/PG_VERSION" ]; then
    say "PostgreSQL cluster in $PGDATA"
    install -d -o postgres -g postgres -m 700 "$PGDATA"
    runuser -u postgres -- "$PG_BIN/initdb" -D "$PGDATA" -U postgres --encoding=UTF8 --locale=C.UTF-8 \
        --auth-local=peer --auth-host=scram-sha-256 >/dev/null
fi
touch "$LOG/postgresql.log" && chown postgres:postgres "$LOG/postgresql.log" && chmod 600 "$LOG/postgresql.log"
if ! runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
    say "PostgreSQL on 127.0.0.1:$PG_PORT"
    runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$LOG/postgresql.log" -w -t 60 -s \
        -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PGSOCK -c password_encryption=scram-sha-256" start
fi
head -1 "$PGDATA/postmaster.pid" > "$RUN/postgresql.pid"

# The role gets its password as a SCRAM verifier computed here: the plain password never
# reaches the server, its logs or any command line.
"$VENV/bin/python" - "$INSTR_HOME/.gradebook-password" "$DB_ROLE" "$DB_NAME" <<'PY' \
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
say "gradebook: database $DB_NAME, role $DB_ROLE (password in $INSTR_HOME/.gradebook-password)"

# --- 5. JupyterHub and its proxy on 127.0.0.1 ------------------------------------------
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
HUB_STARTING=""
if alive "$RUN/jupyterhub.pid"; then
    say "JupyterHub already running (pid $(cat "$RUN/jupyterhub.pid"))"
else
    HUB_STARTING=1
    say "JupyterHub on http://127.0.0.1:$HUB_PORT"
    (umask 077 && touch "$LOG/jupyterhub.log")   # the hub's log is root's alone
    (cd "$HUBDIR" || exit 1
     COURSE_DEPLOY_JSON="$PREFIX/etc/deploy.json" setsid -f "$VENV/bin/jupyterhub" -f "$PREFIX/etc/jupyterhub_config.py" \
        >> "$LOG/jupyterhub.log" 2>&1 < /dev/null)
fi
# the students' rows in the gradebook, while the hub starts
add_to_gradebook "$COURSE_DIR" $STUDENTS
if [ -n "$HUB_STARTING" ]; then
    for _ in $(seq 1 120); do
        if "$VENV/bin/python" - "$HUB_PORT" <<'PY' 2>/dev/null; then break; fi
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/hub/api", timeout=2)
PY
        sleep 0.5
    done
    alive "$RUN/jupyterhub.pid" || { tail -20 "$LOG/jupyterhub.log" >&2; die "JupyterHub did not start (log: $LOG/jupyterhub.log)"; }
fi
say "ready: http://127.0.0.1:$HUB_PORT (shared password in $HUBDIR/shared-password); stop with deploy/teardown.sh --prefix $PREFIX"
