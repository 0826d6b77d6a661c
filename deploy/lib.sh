# shellcheck shell=bash disable=SC2034
# Settings and helpers shared by deploy/start and deploy/stop (sourced, not run).
# Every setting can be given in the environment; the defaults keep clear of a PostgreSQL on 5432.

DEPLOY_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$DEPLOY_DIR")

STATE=${DEPLOY_STATE_DIR:-$DEPLOY_DIR/.state}
PRIMARY_PORT=${DEPLOY_PRIMARY_PORT:-5442}
REPLICA_PORT=${DEPLOY_REPLICA_PORT:-5443}
PGBOUNCER_PORT=${DEPLOY_PGBOUNCER_PORT:-6442}
PGBOUNCER_POOL=${DEPLOY_PGBOUNCER_POOL:-20}
HTTP_HOST=${DEPLOY_HTTP_HOST:-127.0.0.1}
HTTP_PORT=${DEPLOY_HTTP_PORT:-8080}
STATS_PORT=${DEPLOY_STATS_PORT:-8404}
SERVE_COUNT=${DEPLOY_SERVES:-2}
SERVE_FIRST_PORT=${DEPLOY_SERVE_PORT:-8101}
# Or each process's port, space-separated ("8101 8203"): then DEPLOY_SERVES is their number.
SERVE_PORT_LIST=${DEPLOY_SERVE_PORTS:-}
DB_NAME=${DEPLOY_DB_NAME:-civic}
DB_USER=${DEPLOY_DB_USER:-civic}
STATEMENT_TIMEOUT_MS=${DB_STATEMENT_TIMEOUT_MS:-30000}
PG_BIN=${DEPLOY_PG_BIN:-$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -n 1)}

# The PostgreSQL servers and PgBouncer refuse to run as root: as root they run as this user.
PG_OS_USER=${DEPLOY_PG_OS_USER:-postgres}

# Their files live apart (owned by that user); the pid files of the rest live in run/.
PG_STATE=$STATE/pg
RUN=$STATE/run
LOG=$STATE/log

# As the PostgreSQL OS user when run as root, else as ourselves.
as_pg() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u "$PG_OS_USER" -- "$@"
  else
    "$@"
  fi
}

say() { printf 'deploy: %s\n' "$*" >&2; }
die() {
  say "$*"
  exit 1
}

# Whether the pid in file $1 names a running process.
alive() {
  local pid
  [ -s "$1" ] || return 1
  pid=$(head -n 1 "$1")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# Whether something listens on 127.0.0.1:$1.
port_taken() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# postmaster.pid's first line is the server's pid.
pg_running() {
  alive "$1/postmaster.pid"
}

db_password() {
  cat "$PG_STATE/password"
}

url() { # url PORT
  printf 'postgres://%s:%s@127.0.0.1:%s/%s' "$DB_USER" "$(db_password)" "$1" "$DB_NAME"
}

# The environment each serve process runs with is kept at start (NUL-separated, passwords included), so a
# restart runs it with the very settings it was started with.
serve_env() { # serve_env N
  printf '%s/etc/serve-%s.env' "$STATE" "$1"
}

# Which code bin/civic-survey.js runs: the compiled code when dist/ is newer than every source file.
say_code() {
  if [ -e "$ROOT/dist/BUILT" ] && [ -z "$(find "$ROOT/src" -newer "$ROOT/dist/BUILT" -print -quit 2>/dev/null)" ]; then
    say "the processes run the compiled code in dist/"
  else
    say "the processes run the TypeScript sources through tsx: npm run build first for the compiled code (docs/operations.md, Running)"
  fi
}

# Starts serve process N in the background from its kept environment, in a session of its own (a Ctrl-C in
# this terminal later does not reach it).
launch_serve() { # launch_serve N
  local vars
  mapfile -d '' vars <"$(serve_env "$1")"
  (
    cd "$ROOT"
    # $! is the node process itself (env, setsid and nohup each exec the next): its pid file names what to stop.
    env -i "${vars[@]}" setsid nohup node bin/civic-survey.js serve >>"$LOG/serve-$1.log" 2>&1 &
    echo $! >"$RUN/serve-$1.pid"
  )
}

# Each process's state as HAProxy's checks see it (UP, DOWN, ...), from the stats page's CSV: "serve-1 UP".
server_states() {
  curl -s "http://$HTTP_HOST:$STATS_PORT/;csv" | awk -F, '
    NR == 1 { sub(/^# /, ""); for (i = 1; i <= NF; i++) if ($i == "status") s = i; next }
    $1 == "serve" && $2 ~ /^serve-/ { print $2 " " $s }'
}

# Waits up to $2 seconds until HAProxy sees every process named in $1 (space-separated) UP; dies naming those
# that are not, or at once when one of them has exited.
wait_up() { # wait_up "serve-1 serve-2" SECONDS
  local names=$1 limit=$2 t name down
  for ((t = 0; t <= limit; t++)); do
    down=""
    for name in $names; do
      server_states | grep -qx "$name UP" || down+=" $name"
    done
    [ -z "$down" ] && return 0
    for name in $down; do
      alive "$RUN/$name.pid" || die "$name exited; the end of $LOG/$name.log (deploy/stop stops the rest):
$(tail -n 20 "$LOG/$name.log" 2>/dev/null)"
    done
    sleep 1
  done
  die "after $limit s HAProxy still sees$(for name in $down; do printf ' %s (%s)' "$name" "$(server_states | awk -v n="$name" '$1 == n { print $2 }')"; done) not up; see $LOG/ and $STATE/etc/haproxy.cfg"
}
