#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: Debian's postgresql-15 server binaries, a fresh data
# directory under a temporary directory, a free port on 127.0.0.1, trust authentication (nothing but this
# machine can reach it and it lives only as long as the tests).
#
#   eval "$(scripts/postgres-test.sh start)"   # prints `export HERALD_TEST_POSTGRES_URL=...` and the directory
#   scripts/postgres-test.sh stop "$HERALD_TEST_POSTGRES_DIR"
#   scripts/postgres-test.sh run COMMAND...     # start, run COMMAND with the URL set, stop even when it fails
#   scripts/postgres-test.sh down|up "$HERALD_TEST_POSTGRES_DIR"   # stop the server (data kept) / start it
#                                               # again on the same port (tests of a database outage)
#   scripts/postgres-test.sh crash "$HERALD_TEST_POSTGRES_DIR"     # kill it as a crash would (data kept)
#
# initdb refuses to run as root and CI runs as root: the server then runs as the `postgres` system user
# (created when missing). Everything it prints besides the exports goes to stderr.
set -euo pipefail

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    # su -s: the postgres user's login shell may be /bin/false on some systems.
    su -s /bin/sh postgres -c "$*"
  else
    sh -c "$*"
  fi
}

# A port below the kernel's ephemeral range (32768-60999 on Linux), which port-0 listeners and outgoing
# connections draw from: the outage tests stop the server and start it again on its port, and meanwhile such
# a port could be handed to someone else. 15000-19999 is also apart from the tests' own (FreePort, 20000-32767).
free_port() {
  python3 -c '
import random, socket
for port in random.sample(range(15000, 20000), 200):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port)); print(port); break
    except OSError:
        pass
    finally:
        s.close()'
}

start() {
  [ -x "$PGBIN/initdb" ] || { echo "postgres-test: $PGBIN/initdb not found; install postgresql-15 (make deps)" >&2; exit 1; }
  if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
    useradd --system --home-dir /nonexistent --no-create-home --shell /bin/sh postgres
  fi
  local dir port
  dir=$(mktemp -d "${TMPDIR:-/tmp}/herald-pg-XXXXXX")
  mkdir -p "$dir/data" "$dir/sock"
  chmod 700 "$dir/data"
  # The server user writes its log next to the data and must be able to enter root's 0700 temporary directory.
  [ "$(id -u)" -eq 0 ] && chown -R postgres: "$dir"
  as_owner "'$PGBIN/initdb' -D '$dir/data' -A trust -U postgres -E UTF8 --no-sync" >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  # A port picked free can be taken before the server binds it: try a few.
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    # fsync off: the cluster is thrown away, and on a shared 2-core machine durability only costs time.
    echo "-p $port -k $dir/sock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" >"$dir/options"
    if up "$dir"; then
      echo "export HERALD_TEST_POSTGRES_URL='postgresql://postgres@127.0.0.1:$port/postgres'"
      echo "export HERALD_TEST_POSTGRES_DIR='$dir'"
      return 0
    fi
    grep -q "could not bind" "$dir/server.log" 2>/dev/null || { cat "$dir/server.log" >&2; exit 1; }
  done
  echo "postgres-test: no free port found" >&2
  exit 1
}

# Starts the server of `dir` with the options it was first started with.
up() {
  as_owner "'$PGBIN/pg_ctl' -D '$1/data' -l '$1/server.log' -w -t 60 -o \"$(cat "$1/options")\" start" >&2
}

# Stops the server of `dir` (fast: clients are disconnected), keeping its data for `up`.
down() {
  as_owner "'$PGBIN/pg_ctl' -D '$1/data' -m fast -w stop" >&2
}

# Kills the server of `dir` as a crash would (immediate: no checkpoint, nothing more written), keeping its
# data for `up`, which then recovers from the WAL that reached the files.
crash() {
  as_owner "'$PGBIN/pg_ctl' -D '$1/data' -m immediate -w stop" >&2
}

stop() {
  local dir=${1:-${HERALD_TEST_POSTGRES_DIR:-}}
  [ -n "$dir" ] && [ -d "$dir/data" ] || { echo "postgres-test: nothing to stop" >&2; return 0; }
  as_owner "'$PGBIN/pg_ctl' -D '$dir/data' -m immediate -w stop" >&2 || true
  rm -rf "$dir"
}

run() {
  local exports
  exports=$(start)
  eval "$exports"
  # The trap stops the cluster however COMMAND ends (failure, Ctrl-C), so no server outlives the tests.
  trap 'stop "$HERALD_TEST_POSTGRES_DIR"' EXIT
  trap 'exit 130' INT TERM
  echo "postgres-test: PostgreSQL for the tests at ${HERALD_TEST_POSTGRES_URL}" >&2
  "$@"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  up) up "${2:?usage: $0 up DIRECTORY}" ;;
  down) down "${2:?usage: $0 down DIRECTORY}" ;;
  crash) crash "${2:?usage: $0 crash DIRECTORY}" ;;
  run) shift; [ $# -gt 0 ] || { echo "usage: $0 run COMMAND..." >&2; exit 2; }; run "$@" ;;
  *) echo "usage: $0 start | stop [directory] | up|down|crash DIRECTORY | run COMMAND..." >&2; exit 2 ;;
esac
