#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and benchmarks: initdb into a temporary folder, listening on loopback
# only, on a non-default port. Source this file, then:
#
#   postgres_start [PORT]   # installs PostgreSQL if missing; exports RELINK_TEST_DATABASE_URL
#   postgres_stop           # stops the cluster and removes its folder (also registered on EXIT)
#
# POSTGRES_SERVER_OPTIONS replaces the default server settings, which trade durability for speed (a throwaway
# cluster for tests); benchmarks pass "" for PostgreSQL's durable defaults.
#
# initdb refuses to run as root, so as root the cluster runs as the `postgres` user (created by the package).

postgres_bin() {
    local dir
    for dir in /usr/lib/postgresql/*/bin /usr/local/pgsql/bin /opt/homebrew/bin /usr/local/bin /usr/bin; do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
    done
    return 1
}

postgres_install() {
    postgres_bin > /dev/null && return 0
    echo "installing PostgreSQL ..." >&2
    if command -v apt-get > /dev/null; then
        local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
        $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql > /dev/null
        # The package starts a cluster of its own on 5432; ours does not need it.
        $sudo service postgresql stop > /dev/null 2>&1 || true
    elif command -v brew > /dev/null; then
        brew install postgresql@16
    else
        echo "cannot install PostgreSQL: no apt-get or brew; install it and retry" >&2
        return 1
    fi
    postgres_bin > /dev/null
}

postgres_as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

postgres_start() {
    local port="${1:-54329}"
    postgres_install
    PG_BIN="$(postgres_bin)"
    PG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/relink-pg.XXXXXX")"
    [ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
    postgres_as_owner "$PG_BIN/initdb" -D "$PG_DIR/data" -U relink --auth=trust --encoding=UTF8 --locale=C > "$PG_DIR/initdb.log" 2>&1 \
        || { cat "$PG_DIR/initdb.log" >&2; return 1; }
    postgres_as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $PG_DIR -c max_connections=300 ${POSTGRES_SERVER_OPTIONS-"-c fsync=off -c synchronous_commit=off -c full_page_writes=off"}" \
        start > /dev/null || { cat "$PG_DIR/server.log" >&2; return 1; }
    trap postgres_stop EXIT
    postgres_as_owner "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U relink relink
    export RELINK_TEST_DATABASE_URL="postgres://relink@127.0.0.1:$port/relink?sslmode=disable"
    echo "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') running at $RELINK_TEST_DATABASE_URL (data in $PG_DIR)" >&2
}

postgres_stop() {
    [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR/data" ] || return 0
    postgres_as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop > /dev/null 2>&1 || true
    rm -rf "$PG_DIR"
    PG_DIR=""
}
