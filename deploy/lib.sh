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
