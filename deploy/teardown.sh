#!/usr/bin/env bash
# Stop the course's deployment: its supervisor, JupyterHub, the users' servers, the proxy, PostgreSQL.
#
#   sudo deploy/teardown.sh [--prefix DIR]            stop everything; users, grades and data stay
#   sudo deploy/teardown.sh [--prefix DIR] --purge    also remove the accounts this deployment made
#                                                     (PREFIX/etc/created-users: never an account
#                                                     that existed before), their homes, the course
#                                                     folder, the gradebook, the exchange; /proc's
#                                                     hidepid back as it was
#   sudo deploy/teardown.sh [--prefix DIR] --uninstall  --purge, and the installed software (PREFIX)
#
# The supervisor (supervisord, or the systemd units) is stopped first, so that nothing is
# restarted. Processes are found by the pid files in PREFIX/run/, by the deployment's control
# groups (every user's server and kernels) and by the accounts it made (the course account's
# Formgrader and clerk); each is stopped by its id (TERM, then KILL after 10 s). The keepers of
# the servers' logs (course_serverlog.py, root) end by themselves with their servers. A user who
# had an account before keeps every process that is not the deployment's. Nothing of another
# deployment (another course id) is touched. Exits non-zero if anything of the deployment is
# still running.
set -uo pipefail

PREFIX=/opt/ml-foundations
PURGE=0
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) PREFIX=$2; shift 2 ;;
        --purge) PURGE=1; shift ;;
        --uninstall) PURGE=2; shift ;;
        -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "teardown.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ "$(id -u)" = 0 ] || { echo "teardown.sh: run as root" >&2; exit 1; }
say() { echo ">>> $*"; }
RUN=$PREFIX/run
CONF=$PREFIX/etc/deploy.json

setting() {  # setting KEY: a value of PREFIX/etc/deploy.json (empty when there is none)
    [ -f "$CONF" ] || return 0
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$CONF" "$1"
}
INSTRUCTOR=$(setting instructor)
GROUP=$(setting student_group)
GRADER_GROUP=$(setting grader_group)
COURSE_ID=$(setting course_id)
members() { [ -n "$1" ] && getent group "$1" | cut -d: -f4 | tr ',' ' '; }
USERS=$(echo "$INSTRUCTOR $(members "$GROUP") $(members "$GRADER_GROUP")" | tr ' ' '\n' | sort -u | tr '\n' ' ')
CREATED=$(cat "$PREFIX/etc/created-users" 2>/dev/null | tr '\n' ' ')
CGROUPS=""
[ -n "$COURSE_ID" ] && CGROUPS="/sys/fs/cgroup/$COURSE_ID-hub /sys/fs/cgroup/memory/$COURSE_ID-hub /sys/fs/cgroup/pids/$COURSE_ID-hub"
LOG_DIR=$(setting log_dir)
LOG_DIR=${LOG_DIR:-$PREFIX/log}
keeper_pids() {  # the keepers of this deployment's servers' logs (course_serverlog.py PREFIX/log/users/NAME.log)
    pgrep -u root -f -- "course_serverlog\.py ${LOG_DIR//./\\.}/users/" 2>/dev/null
    true
}
deployment_pids() {  # the processes in the deployment's control groups and of the accounts it made
    local d
    for d in $CGROUPS; do
        [ -d "$d" ] && find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null
    done
    for user in $CREATED; do
        id -u "$user" >/dev/null 2>&1 && pgrep -u "$user" 2>/dev/null
    done
    true
}

stop_pid() {  # stop_pid PID NAME [SECONDS]: TERM, wait up to SECONDS (10), then KILL
    local pid=$1 name=$2 wait=${3:-10}
    kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 $((wait * 10))); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    echo "teardown.sh: $name (pid $pid) ignored TERM; killing it" >&2
    kill -KILL "$pid" 2>/dev/null
    sleep 0.2
}

# 0. The supervisor, which would otherwise restart what is stopped below.
if [ -f "$RUN/supervisord.pid" ]; then
    say "stopping supervisord (and with it JupyterHub and PostgreSQL)"
    stop_pid "$(cat "$RUN/supervisord.pid")" supervisord 90
    rm -f "$RUN/supervisord.pid"
fi
if [ -n "$COURSE_ID" ] && [ -f "/etc/systemd/system/$COURSE_ID-jupyterhub.service" ] && [ -d /run/systemd/system ]; then
    say "stopping the systemd units"
    systemctl stop "$COURSE_ID-jupyterhub.service" "$COURSE_ID-postgresql.service"
fi

# 1. The hub (if it still runs), then the proxy it started.
if [ -f "$RUN/jupyterhub.pid" ]; then
    say "stopping JupyterHub"
    stop_pid "$(cat "$RUN/jupyterhub.pid")" jupyterhub
    rm -f "$RUN/jupyterhub.pid"
fi
if [ -f "$RUN/proxy.pid" ]; then
    stop_pid "$(cat "$RUN/proxy.pid")" configurable-http-proxy
    rm -f "$RUN/proxy.pid"
fi

# 2. The users' servers and whatever they left (kernels, terminals): the deployment's users
# only, by pid; all are sent TERM at once, then those left after 10 s get KILL.
pids=$(deployment_pids | sort -u | tr '\n' ' ')
if [ -n "${pids// /}" ]; then
    say "stopping the users' servers and kernels"
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null
    for _ in $(seq 1 100); do
        left_pids=""
        for pid in $pids; do kill -0 "$pid" 2>/dev/null && left_pids="$left_pids $pid"; done
        [ -z "$left_pids" ] && break
        sleep 0.1
    done
    for pid in $left_pids; do
        echo "teardown.sh: process $pid ignored TERM; killing it" >&2
        kill -KILL "$pid" 2>/dev/null
    done
    sleep 0.2
fi

# The keepers of the servers' logs end when their server and kernels have ended (they ignore
# TERM: a keeper that ended before its server would hang the server's kernels); any still
# there after 10 s is killed.
keepers=$(keeper_pids | tr '\n' ' ')
for _ in $(seq 1 100); do
    [ -z "${keepers// /}" ] && break
    sleep 0.1
    keepers=$(keeper_pids | tr '\n' ' ')
done
for pid in $keepers; do
    echo "teardown.sh: the log keeper $pid is still running; killing it" >&2
    kill -KILL "$pid" 2>/dev/null
done

# 3. PostgreSQL (its own cluster in PREFIX/pgdata).
if [ -f "$PREFIX/pgdata/PG_VERSION" ]; then
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    if runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PREFIX/pgdata" status >/dev/null 2>&1; then
        say "stopping PostgreSQL"
        runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PREFIX/pgdata" -m fast -w -t 30 -s stop
    fi
    rm -f "$RUN/postgresql.pid"
fi

# 4. Check: nothing of the deployment may still run.
left=""
for f in "$RUN"/*.pid; do
    [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && left="$left $(basename "$f" .pid):$(cat "$f")"
done
for pid in $( (deployment_pids; keeper_pids) | sort -u); do
    kill -0 "$pid" 2>/dev/null && left="$left $(ps -o user= -p "$pid" 2>/dev/null | tr -d ' '):$pid"
done
if [ -f "$PREFIX/pgdata/postmaster.pid" ] && kill -0 "$(head -1 "$PREFIX/pgdata/postmaster.pid")" 2>/dev/null; then
    left="$left postgresql:$(head -1 "$PREFIX/pgdata/postmaster.pid")"
fi
if [ -n "$left" ]; then
    echo "teardown.sh: still running:$left" >&2
    exit 1
fi
say "stopped"

# 5. --purge: users, homes (with the course folder and the grades), the database, the exchange.
if [ "$PURGE" -ge 1 ]; then
    case "$PREFIX" in
        /|/opt|/usr|/home|/root|/var|"") echo "teardown.sh: refusing to remove '$PREFIX'" >&2; exit 1 ;;
    esac
    say "removing the accounts it made (${CREATED:-none}) and their homes, the gradebook, the exchange"
    for user in $CREATED; do
        if id -u "$user" >/dev/null 2>&1; then
            userdel --remove "$user" 2>/dev/null
            id -u "$user" >/dev/null 2>&1 && echo "teardown.sh: could not remove user $user" >&2
        fi
    done
    for user in $USERS; do   # accounts that existed before keep everything but their place in the course
        case " $CREATED " in *" $user "*) continue ;; esac
        id -u "$user" >/dev/null 2>&1 && say "keeping $user (an account that existed before the deployment)"
    done
    [ -n "$GROUP" ] && getent group "$GROUP" >/dev/null && groupdel "$GROUP"
    [ -n "$GRADER_GROUP" ] && getent group "$GRADER_GROUP" >/dev/null && groupdel "$GRADER_GROUP"
    if [ -f "$PREFIX/etc/proc-hidepid-before" ]; then
        before=$(grep -o 'hidepid=[a-z0-9]*' "$PREFIX/etc/proc-hidepid-before" || echo hidepid=0)
        mount -o "remount,$before" /proc && say "/proc back to $before"
    fi
    if [ -n "$COURSE_ID" ]; then   # the users' control groups (empty now)
        for d in /sys/fs/cgroup/memory/"$COURSE_ID"-hub /sys/fs/cgroup/pids/"$COURSE_ID"-hub /sys/fs/cgroup/"$COURSE_ID"-hub; do
            [ -d "$d" ] && find "$d" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null; [ -d "$d" ] && rmdir "$d" 2>/dev/null
        done
        if [ -f "/etc/systemd/system/$COURSE_ID-jupyterhub.service" ]; then
            systemctl disable "$COURSE_ID-jupyterhub.service" "$COURSE_ID-postgresql.service" 2>/dev/null
            rm -f "/etc/systemd/system/$COURSE_ID-jupyterhub.service" "/etc/systemd/system/$COURSE_ID-postgresql.service"
        fi
    fi
    rm -rf "$PREFIX/pgdata" "$PREFIX/exchange" "$PREFIX/hub" "$PREFIX/log" "$PREFIX/run" "$PREFIX/etc" \
        "$PREFIX/courses" "$PREFIX/secrets" "$PREFIX/home"
fi
if [ "$PURGE" = 2 ]; then
    say "removing $PREFIX"
    rm -rf "$PREFIX"
fi
