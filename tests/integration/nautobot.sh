#!/usr/bin/env bash
# A throwaway Nautobot on 127.0.0.1, the test cluster loaded through its REST API, and
# `dclint import nautobot` + `dclint check` run against it (issue 28, item 5).
#
#   tests/integration/nautobot.sh OUTDIR
#
# What it does, and undoes:
#   - PostgreSQL and Redis from Debian's packages (apt-get install, only when missing and run as
#     root; otherwise it skips). Neither system service is used: a private PostgreSQL cluster
#     (initdb -A trust, a temp socket directory) and a private Redis (no persistence) run in a
#     temp directory, on free ports of 127.0.0.1, as children of this script.
#   - Nautobot ($NAUTOBOT_VERSION, default 3.2.7) from PyPI into a virtualenv under
#     ${XDG_CACHE_HOME:-~/.cache}/dclint-nautobot (outside the repository), kept between runs.
#   - `nautobot-server migrate` on the first run only: the migrated, empty database is kept in
#     the same cache (per Nautobot and PostgreSQL version) and copied for every later run.
#   - A superuser and an API token made for this run (the token is random, lives in the
#     environment of this script's children only, and is checked to appear in no output),
#     `nautobot-server runserver` on 127.0.0.1, the cluster loaded by nautobot_load.py.
#   - `dclint import nautobot URL` twice (the two designs must be byte-identical), and
#     `dclint check` on the design; OUTDIR gets site.yaml, dump.json (what the server answered),
#     import.err, check.json, check.rc and timings.txt.
#   - On exit (normal, error, INT/TERM), every process it started is stopped and waited for,
#     and the temp directory is removed.
#
# Exit status: 0 passed; 77 skipped (the server cannot be had here: the reason is on stderr,
# on a line starting "SKIP:"); anything else failed.
#
# Environment: PYTHON (the interpreter that has dclint; default python3), NAUTOBOT_VERSION,
# DCLINT_NAUTOBOT_CACHE (the cache directory).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: nautobot.sh OUTDIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
VERSION=${NAUTOBOT_VERSION:-3.2.7}
CACHE=${DCLINT_NAUTOBOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dclint-nautobot}
PY=${PYTHON:-python3}
SKIP=77
T0=$SECONDS
: >"$OUT/timings.txt"

log() { printf 'nautobot.sh: [%4ds] %s\n' $((SECONDS - T0)) "$*" >&2; }
phase() { printf '%s %d\n' "$1" $((SECONDS - ${2:-T0})) >>"$OUT/timings.txt"; }
skip() {
    echo "SKIP: $*" >&2
    exit "$SKIP"
}
fail() {
    echo "nautobot.sh: FAILED: $*" >&2
    exit 1
}

# ---------------------------------------------------------------- what is needed
python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
    || skip "Nautobot $VERSION needs Python >= 3.10; python3 here is $(python3 -V 2>&1)"
mkdir -p "$CACHE"
exec 9>"$CACHE/lock"  # one run at a time fills and uses the cache
flock -w 1800 9 || fail "another run has held $CACHE/lock for 30 minutes"

pg_bin() {
    local d
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$d/initdb" ] && [ -x "$d/postgres" ]; then
            echo "$d"
            return
        fi
    done
    if command -v initdb >/dev/null && command -v postgres >/dev/null; then
        dirname "$(command -v postgres)"
    fi
}

missing=()
[ -n "$(pg_bin)" ] || missing+=(postgresql)
command -v redis-server >/dev/null || missing+=(redis-server)
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || skip "${missing[*]} not installed, and not root to apt-get install it"
    log "apt-get install ${missing[*]}"
    t=$SECONDS
    # the packages' maintainer scripts must not start the system services: policy-rc.d says no
    made_policy=
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
        made_policy=1
    fi
    export DEBIAN_FRONTEND=noninteractive
    ok=
    if timeout --foreground 900 apt-get install -y --no-install-recommends "${missing[@]}" >"$CACHE/apt.log" 2>&1 \
        || { timeout --foreground 600 apt-get update >>"$CACHE/apt.log" 2>&1 \
            && timeout --foreground 900 apt-get install -y --no-install-recommends "${missing[@]}" >>"$CACHE/apt.log" 2>&1; }; then
        ok=1
    fi
    [ -z "$made_policy" ] || rm -f /usr/sbin/policy-rc.d
    [ -n "$ok" ] || skip "apt-get could not install ${missing[*]}: $(tail -n 2 "$CACHE/apt.log" | tr '\n' ' ')"
    phase apt "$t"
fi
PGBIN=$(pg_bin)
[ -n "$PGBIN" ] || fail "PostgreSQL installed but its initdb and postgres were not found"
PGMAJOR=$("$PGBIN/postgres" --version | sed -E 's/[^0-9]*([0-9]+).*/\1/')

VENV=$CACHE/venv-$VERSION
if ! "$VENV/bin/python" -c 'import nautobot' >/dev/null 2>&1; then
    log "installing nautobot==$VERSION from PyPI into $VENV"
    t=$SECONDS
    rm -rf "$VENV" "$CACHE"/pgdata-nautobot"$VERSION"-*
    python3 -m venv "$VENV"
    if ! timeout --foreground 1200 "$VENV/bin/pip" install -q --disable-pip-version-check "nautobot==$VERSION" \
        >"$CACHE/pip.log" 2>&1; then
        reason=$(grep -v '^WARNING: Location' "$CACHE/pip.log" | tail -n 3 | tr '\n' ' ')
        rm -rf "$VENV"
        skip "nautobot==$VERSION could not be installed from PyPI: $reason"
    fi
    phase pip "$t"
fi
NAUTOBOT=$VENV/bin/nautobot-server

# ---------------------------------------------------------------- processes and their cleanup
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dclint-nautobot.XXXXXX")
chmod 755 "$WORK"
PG_PID= REDIS_PID= WEB_PID=

stop() {  # stop PID SIGNAL: signal it, wait up to 30 s, then kill it
    local pid=$1 sig=$2 i
    [ -n "$pid" ] || return 0
    kill -"$sig" "$pid" 2>/dev/null || return 0
    for i in $(seq 150); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.2
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
leftover() {  # processes of this script's session but itself (when it leads one)
    python3 - "$$" <<'EOF'
import os, sys
me, script = os.getpid(), int(sys.argv[1])
if os.getsid(0) == script:
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in (me, script, os.getppid()):
            try:
                if os.getsid(int(name)) == script:
                    print(name)
            except OSError:
                pass
EOF
}
cleanup() {
    local rc=$?
    set +e
    trap - EXIT INT TERM
    stop "$WEB_PID" TERM
    stop "$REDIS_PID" TERM
    stop "$PG_PID" INT  # PostgreSQL's fast shutdown
    # anything else still running in this script's session is ours and a bug: say so, end it
    left=$(leftover)
    if [ -n "$left" ]; then
        echo "nautobot.sh: processes left behind: $left" >&2
        kill -KILL $left 2>/dev/null
        [ "$rc" != 0 ] || rc=1
    fi
    rm -rf "$WORK"
    log "stopped everything (exit $rc)"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

read -r PGPORT REDISPORT WEBPORT < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(3)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))
')
wait_port() {  # wait_port PORT PID WHAT SECONDS
    local i
    for i in $(seq $((${4} * 5))); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        kill -0 "$2" 2>/dev/null || fail "$3 exited before listening: see its log above"
        sleep 0.2
    done
    fail "$3 did not listen on 127.0.0.1:$1 within $4 s"
}

# ---------------------------------------------------------------- PostgreSQL and Redis
AS=()
if [ "$(id -u)" = 0 ]; then  # PostgreSQL refuses to run as root
    id postgres >/dev/null 2>&1 || skip "running as root, and there is no postgres user to run PostgreSQL as"
    AS=(setpriv --reuid=postgres --regid=postgres --init-groups)
fi
TEMPLATE=$CACHE/pgdata-nautobot$VERSION-pg$PGMAJOR
PGDATA=$WORK/pgdata
t=$SECONDS
if [ -f "$TEMPLATE/PG_VERSION" ]; then
    cp -a "$TEMPLATE" "$PGDATA"
    FRESH=
else
    mkdir "$PGDATA"
    [ ${#AS[@]} = 0 ] || chown postgres: "$PGDATA"
    "${AS[@]}" "$PGBIN/initdb" -D "$PGDATA" -A trust -U nautobot -E UTF8 --no-sync \
        >"$WORK/initdb.log" 2>&1 || { cat "$WORK/initdb.log" >&2; fail "initdb"; }
    FRESH=1
fi
mkdir "$WORK/sock"
[ ${#AS[@]} = 0 ] || chown postgres: "$WORK/sock"
start_postgres() {
    # durability off: a throwaway database
    "${AS[@]}" "$PGBIN/postgres" -D "$PGDATA" -p "$PGPORT" -k "$WORK/sock" \
        -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off \
        -c full_page_writes=off </dev/null >>"$WORK/postgres.log" 2>&1 &
    PG_PID=$!
    for _ in $(seq 300); do
        "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT" && return 0
        kill -0 "$PG_PID" 2>/dev/null || { cat "$WORK/postgres.log" >&2; fail "PostgreSQL exited"; }
        sleep 0.2
    done
    fail "PostgreSQL not ready within 60 s"
}
start_postgres
[ -z "$FRESH" ] || "$PGBIN/createdb" -h 127.0.0.1 -p "$PGPORT" -U nautobot nautobot
log "PostgreSQL $PGMAJOR on 127.0.0.1:$PGPORT${FRESH:+ (new cluster)}"

redis-server --bind 127.0.0.1 --port "$REDISPORT" --save '' --appendonly no --dir "$WORK" \
    --daemonize no --protected-mode yes </dev/null >"$WORK/redis.log" 2>&1 &
REDIS_PID=$!
wait_port "$REDISPORT" "$REDIS_PID" Redis 30
log "Redis on 127.0.0.1:$REDISPORT"
phase databases "$t"

# ---------------------------------------------------------------- Nautobot
export NAUTOBOT_ROOT=$WORK/nautobot
export NAUTOBOT_CONFIG=$WORK/nautobot_config.py
export NAUTOBOT_DB_HOST=127.0.0.1 NAUTOBOT_DB_PORT=$PGPORT NAUTOBOT_DB_NAME=nautobot
export NAUTOBOT_DB_USER=nautobot NAUTOBOT_DB_PASSWORD=
export NAUTOBOT_REDIS_HOST=127.0.0.1 NAUTOBOT_REDIS_PORT=$REDISPORT
export NAUTOBOT_INSTALLATION_METRICS_ENABLED=false  # no phoning home
NAUTOBOT_SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')
export NAUTOBOT_SECRET_KEY
mkdir -p "$NAUTOBOT_ROOT"
cat >"$NAUTOBOT_CONFIG" <<'EOF'
# Written by dclint's tests/integration/nautobot.sh for one throwaway run. The database, Redis
# and secret key come from the NAUTOBOT_* environment that nautobot.core.settings reads.
from nautobot.core.settings import *  # noqa: F403

ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
DEBUG = False
INSTALLATION_METRICS_ENABLED = False
EOF

if [ -n "$FRESH" ]; then
    log "nautobot-server migrate (first run only: the migrated database is then cached)"
    t=$SECONDS
    timeout --foreground 2400 "$NAUTOBOT" migrate --no-input >"$WORK/migrate.log" 2>&1 \
        || { tail -n 40 "$WORK/migrate.log" >&2; fail "nautobot-server migrate"; }
    phase migrate "$t"
    stop "$PG_PID" INT
    PG_PID=
    rm -rf "$TEMPLATE.tmp"
    cp -a "$PGDATA" "$TEMPLATE.tmp"
    rm -f "$TEMPLATE.tmp/postmaster.pid" "$TEMPLATE.tmp/postmaster.opts"
    mv "$TEMPLATE.tmp" "$TEMPLATE"
    start_postgres
fi

t=$SECONDS
NAUTOBOT_TOKEN=$(python3 -c 'import secrets; print(secrets.token_hex(20))')
export NAUTOBOT_TOKEN
"$NAUTOBOT" runserver "127.0.0.1:$WEBPORT" --noreload --skip-checks \
    </dev/null >"$WORK/nautobot.log" 2>&1 &
WEB_PID=$!
# the user and this run's token, while the server starts
timeout --foreground 300 "$NAUTOBOT" nbshell --command '
import os
from nautobot.users.models import Token, User
user, _ = User.objects.get_or_create(username="dclint-test", defaults={"is_superuser": True, "is_staff": True})
Token.objects.create(user=user, key=os.environ["NAUTOBOT_TOKEN"], write_enabled=True)
' >"$WORK/token.log" 2>&1 || { cat "$WORK/token.log" >&2; fail "creating the user and token"; }
URL=http://127.0.0.1:$WEBPORT
python3 - "$URL" "$WEB_PID" <<'EOF' || { tail -n 40 "$WORK/nautobot.log" >&2; fail "Nautobot did not answer"; }
import os, sys, time, urllib.error, urllib.request
url, pid = sys.argv[1], int(sys.argv[2])
token = os.environ["NAUTOBOT_TOKEN"]
deadline = time.monotonic() + 240
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("nautobot-server runserver exited")
    request = urllib.request.Request(
        url + "/api/status/", headers={"Authorization": "Token " + token, "Accept": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            if answer.status == 200:
                sys.exit(0)
    except (urllib.error.URLError, OSError):
        pass
    time.sleep(0.5)
sys.exit("no answer from /api/status/ within 240 s")
EOF
log "Nautobot $VERSION at $URL"
phase nautobot_start "$t"

# ---------------------------------------------------------------- the cluster, the import, the check
t=$SECONDS
timeout --foreground 2400 python3 "$HERE/nautobot_load.py" "$URL" >&2 || fail "loading the cluster"
phase load "$t"

cd "$OUT"
t=$SECONDS
rm -f site.yaml site-again.yaml site-unsaved.yaml dump.json check.json check.rc save-dump.rc save-dump.err
timeout --foreground 1200 "$PY" -m dclint import nautobot "$URL" --map "$HERE/nautobot-import.yaml" \
    --save-dump dump.json -o site.yaml 2>import.err || { cat import.err >&2; fail "dclint import"; }
phase import "$t"
timeout --foreground 1200 "$PY" -m dclint import nautobot "$URL" --map "$HERE/nautobot-import.yaml" \
    -o site-again.yaml 2>/dev/null || fail "dclint import (again)"
cmp -s site.yaml site-again.yaml || fail "a re-import of unchanged data wrote different bytes"
rm site-again.yaml
# --save-dump into a folder that does not exist: one error line naming the flag, exit 2, and
# no design written (tests/test_import_nautobot_live.py reads save-dump.rc and .err)
rc=0
timeout --foreground 1200 "$PY" -m dclint import nautobot "$URL" --map "$HERE/nautobot-import.yaml" \
    --save-dump "$OUT/no/such/dump.json" -o site-unsaved.yaml 2>save-dump.err || rc=$?
echo "$rc" >save-dump.rc
rc=0
timeout --foreground 300 "$PY" -m dclint check site.yaml --format json >check.json || rc=$?
echo "$rc" >check.rc
# 8 racks at 100 A and gpu-r08 at 32 A: its two feeds and the rack itself are over (see
# tests/test_import_netbox.py); anything else is a difference between the two imports
python3 - <<'EOF' || fail "dclint check's findings"
import json, sys
rc = int(open("check.rc").read())
found = sorted((f["rule"], f["subject"]) for d in json.load(open("check.json"))["designs"] for f in d["findings"])
want = [("PWR003", "pf-a08"), ("PWR003", "pf-b08"), ("PWR004", "gpu-r08")]
if (rc, found) != (1, want):
    sys.exit(f"dclint check: exit {rc}, findings {found}; expected exit 1, {want}")
print(f"nautobot.sh: dclint check: exit {rc}, findings {found}", file=sys.stderr)
EOF
# the client's hall of issue #49 (loaded beside the cluster by nautobot_load.py): its import,
# with the ledger, and its check (tests/test_import_nautobot_live.py reads them)
rm -f hall.yaml hall-ledger.json hall-import.err hall-check.json hall-check.rc
python3 -c "import sys; sys.path.insert(0, '$HERE'); from hall import NAUTOBOT_MAPPING as m; \
open('hall-import.yaml', 'w').write(m)"
timeout --foreground 1200 "$PY" -m dclint import nautobot "$URL" --map hall-import.yaml \
    --ledger hall-ledger.json -o hall.yaml 2>hall-import.err || { cat hall-import.err >&2; fail "dclint import (hall)"; }
rc=0
timeout --foreground 300 "$PY" -m dclint check hall.yaml --format json >hall-check.json || rc=$?
echo "$rc" >hall-check.rc
if grep -rqsF "$NAUTOBOT_TOKEN" "$OUT" "$WORK"/*.log; then
    fail "the API token appears in the output"
fi
phase total
log "passed"
