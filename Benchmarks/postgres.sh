#!/usr/bin/env bash
# Short-link redirects on PostgreSQL next to SQLite and nginx, in one run on one machine: nginx's static 302, then
# one relink instance on SQLite, one on PostgreSQL, and two on PostgreSQL behind nginx as a load balancer, each
# measured with a desktop click (redirect + click events) and an Android click (+ a pending click kept for
# deferred deep linking). PostgreSQL runs in a throwaway cluster with its durable defaults (fsync on).
#
#   Benchmarks/postgres.sh
#   DURATION=30 Benchmarks/postgres.sh
source "$(dirname "$0")/lib.sh"
source "$ROOT/.ci/postgres.sh"

NGINX_PORT=18490
SQLITE_PORT=18491
PG_PORT=18492
PG_PORT_2=18493
BALANCER_PORT=18494
LONG="https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fspring&apn=jp.furyu.pictlink.android&utm_source=bench"

build_release
need sqlite3 sqlite3
POSTGRES_SERVER_OPTIONS="" postgres_start 54391
trap 'postgres_stop; cleanup' EXIT
DATABASE="postgres://relink@127.0.0.1:54391/relink?sslmode=disable"

start_relink() {
    # start_relink PORT STORE-OPTION...
    local port=$1
    shift
    "$RELINK" serve $(keep_every_click "$RELINK") --config "$ROOT/routes.json" --port "$port" --log-level info "$@" 2> "$WORK/relink-$port.log" &
    PIDS+=($!)
    wait_for "http://127.0.0.1:$port/healthz"
}

# mint SERVER-PORT KEY: a new short link's code.
mint() {
    local short
    short=$("$RELINK" mint --server "http://127.0.0.1:$1" --key "$2" --suffix short "$LONG")
    echo "${short##*/}"
}

start_nginx "$NGINX_PORT"

SQLITE_KEY=$("$RELINK" keys create --project pictlink --db "$WORK/bench.sqlite" 2>/dev/null)
start_relink "$SQLITE_PORT" --db "$WORK/bench.sqlite"
SQLITE_CODE=$(mint "$SQLITE_PORT" "$SQLITE_KEY")

PG_KEY=$("$RELINK" keys create --project pictlink --database "$DATABASE" 2>/dev/null)
start_relink "$PG_PORT" --database "$DATABASE"
start_relink "$PG_PORT_2" --database "$DATABASE"
PG_CODE=$(mint "$PG_PORT" "$PG_KEY")

# nginx as the load balancer in front of the two PostgreSQL-backed instances.
mkdir -p "$WORK/balancer"
cat > "$WORK/balancer/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
pid $WORK/balancer/nginx.pid;
error_log $WORK/balancer/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $WORK/balancer; proxy_temp_path $WORK/balancer; fastcgi_temp_path $WORK/balancer;
    uwsgi_temp_path $WORK/balancer; scgi_temp_path $WORK/balancer;
    upstream relink { server 127.0.0.1:$PG_PORT; server 127.0.0.1:$PG_PORT_2; keepalive 64; }
    server {
        listen 127.0.0.1:$BALANCER_PORT;
        location / {
            proxy_pass http://relink;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
        }
    }
}
NGINX
nginx -c "$WORK/balancer/nginx.conf" &
PIDS+=($!)
wait_for "http://127.0.0.1:$BALANCER_PORT/healthz" go.pictlink.com

echo "measuring (${DURATION}s each, $CONNECTIONS connections, $THREADS wrk threads, $(nproc) cores) ..." >&2
measure "nginx static 302" "http://127.0.0.1:$NGINX_PORT/$SQLITE_CODE" "User-Agent: $DESKTOP"
measure "sqlite: desktop (+events)" "http://127.0.0.1:$SQLITE_PORT/$SQLITE_CODE" "Host: go.pictlink.com" "User-Agent: $DESKTOP"
served() { awk '/requests in/ {print $1}' "$(ls -t "$WORK"/wrk-*.txt | head -1)"; }
measure "postgres: desktop (+events)" "http://127.0.0.1:$PG_PORT/$PG_CODE" "Host: go.pictlink.com" "User-Agent: $DESKTOP"
PG_SERVED=$(served)
measure "sqlite: Android (+deferred)" "http://127.0.0.1:$SQLITE_PORT/$SQLITE_CODE" "Host: go.pictlink.com" "User-Agent: $ANDROID"
measure "postgres: Android (+deferred)" "http://127.0.0.1:$PG_PORT/$PG_CODE" "Host: go.pictlink.com" "User-Agent: $ANDROID"
PG_SERVED=$((PG_SERVED + $(served)))
measure "postgres x2 behind nginx: desktop" "http://127.0.0.1:$BALANCER_PORT/$PG_CODE" "Host: go.pictlink.com" "User-Agent: $DESKTOP"
PG_SERVED=$((PG_SERVED + $(served)))

report "nginx static 302"
ratio() {
    awk -F'|' -v a="$1" -v b="$2" '$1 == a {x = $2} $1 == b {y = $2} END { printf "%.2f", x / y }' "$WORK/results"
}
echo
echo "postgres / sqlite: desktop $(ratio "postgres: desktop (+events)" "sqlite: desktop (+events)"), Android $(ratio "postgres: Android (+deferred)" "sqlite: Android (+deferred)") (target: at least 0.90)"

# Every click counted: stop the instances gracefully and compare the stored counters with wrk's totals.
for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
sleep 2
PG_CLICKS=$(psql -At "postgres://relink@127.0.0.1:54391/relink" -c "SELECT COALESCE(SUM(count), 0) FROM event_counters WHERE event = 'CLICK'")
PG_PENDING=$(psql -At "postgres://relink@127.0.0.1:54391/relink" -c "SELECT COUNT(*) FROM pending_clicks")
echo "PostgreSQL: wrk completed $PG_SERVED clicks on the PostgreSQL-backed instances; $PG_CLICKS CLICK events stored (wrk does not count the requests in flight when it stops, at most one per connection per run); $PG_PENDING pending clicks kept"
echo "servers' logs:"
grep -ho "events written: [0-9]* of [0-9]* recorded" "$WORK"/relink-*.log | sed 's/^/  /'
