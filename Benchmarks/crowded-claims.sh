#!/usr/bin/env bash
# Claims at a crowded address: `relink serve` (release, SQLite) with CROWDED pending Android clicks from one address
# (200,000 by default) and SPREAD from others (200,000, four to an address), all within the fingerprint window,
# written straight into the database (crowded-fill.py). Then, for 1 and 4 connections each, fingerprint claims
# from the crowded address and from quiet ones at the same time, for CLAIM_DURATION seconds (30). The crowded
# address's claims are paced under the per-network claim limit (20 a second), as any one network's are, so that
# every one is answered rather than refused. The quiet ones wait QUIET_PACE_MS before each request of a connection
# (0, the default: as fast as the server answers, which keeps both cores busy with wrk and the server, so every
# latency includes waiting for a core). Prints requests/s and latency (p50, p90, p99) of both.
#
#   Benchmarks/crowded-claims.sh
#   QUIET_PACE_MS=5 Benchmarks/crowded-claims.sh          # quiet claims at about 150 a second per connection
#   CROWDED=50000 SPREAD=50000 CLAIM_DURATION=10 CLAIM_CONNECTIONS="1 4" Benchmarks/crowded-claims.sh
source "$(dirname "$0")/lib.sh"

RELINK_PORT=18492
CROWDED=${CROWDED:-200000}
SPREAD=${SPREAD:-200000}
DURATION=${CLAIM_DURATION:-30}
CLAIM_CONNECTIONS=${CLAIM_CONNECTIONS:-1 4}
DB="$WORK/crowded.sqlite"
export RELINK_SECRET="the crowded-claims benchmark's secret"

build_release
need wrk wrk
need sqlite3 sqlite3

start_relink() {
    "$RELINK" serve --config "$ROOT/routes.json" --db "$DB" --port "$RELINK_PORT" --log-level error --trust-forwarded-headers &
    RELINK_PID=$!
    PIDS+=("$RELINK_PID")
    wait_for "http://127.0.0.1:$RELINK_PORT/healthz"
}

# The schema first, then the clicks, with the server stopped.
start_relink
kill -TERM "$RELINK_PID"
wait "$RELINK_PID" 2>/dev/null || true
echo "filling: $CROWDED clicks from one address, $SPREAD from others ..." >&2
rows=$(python3 "$ROOT/Benchmarks/crowded-fill.py" "$DB" "$RELINK_SECRET" "$CROWDED" "$SPREAD")
sqlite3 "$DB" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
printf '%s pending clicks (%s at 11.200.0.1), database %s\n' "$rows" "$CROWDED" "$(du -h "$DB" | cut -f1)"
start_relink

# One claim from each, untimed: the page cache and the connections.
ADDRESS=11.200.0.1 wrk -t1 -c1 -d2s -s "$ROOT/Benchmarks/crowded-claims.lua" "http://127.0.0.1:$RELINK_PORT" > /dev/null
SPREAD=$SPREAD wrk -t1 -c1 -d2s -s "$ROOT/Benchmarks/crowded-claims.lua" "http://127.0.0.1:$RELINK_PORT" > /dev/null
sleep 6 # the crowded address's claim budget refills

report() {
    # report NAME FILE
    local rps p50 p90 p99 errors
    rps=$(awk '/Requests\/sec/ {print $2}' "$2")
    p50=$(awk '$1 == "50%" {print $2}' "$2")
    p90=$(awk '$1 == "90%" {print $2}' "$2")
    p99=$(awk '$1 == "99%" {print $2}' "$2")
    errors=$(awk '/Non-2xx or 3xx/ {print $5}' "$2")
    printf '%-34s %9s requests/s, p50 %8s, p90 %8s, p99 %8s, non-2xx %s\n' "$1" "$rps" "$p50" "$p90" "$p99" "${errors:-0}"
}

for connections in $CLAIM_CONNECTIONS; do
    echo "claiming for ${DURATION}s with $connections connections from each ..." >&2
    threads=$(( connections < THREADS ? connections : THREADS ))
    # Each connection paces itself so that all of them stay at 16 a second.
    ADDRESS=11.200.0.1 PACE_MS=$(( 60 * connections )) wrk -t1 -c"$connections" -d"${DURATION}s" --latency \
        -s "$ROOT/Benchmarks/crowded-claims.lua" "http://127.0.0.1:$RELINK_PORT" > "$WORK/crowded-$connections.txt" &
    crowded_wrk=$!
    SPREAD=$SPREAD PACE_MS=${QUIET_PACE_MS:-0} wrk -t"$threads" -c"$connections" -d"${DURATION}s" --latency -s "$ROOT/Benchmarks/crowded-claims.lua" \
        "http://127.0.0.1:$RELINK_PORT" > "$WORK/quiet-$connections.txt"
    wait $crowded_wrk
    report "crowded address, $connections connection(s)" "$WORK/crowded-$connections.txt"
    report "quiet addresses, $connections connection(s)" "$WORK/quiet-$connections.txt"
    sleep 6
done
matched=$(sqlite3 "file:$DB?mode=ro" "SELECT confidence, COUNT(*) FROM pending_clicks WHERE claimed_at IS NOT NULL GROUP BY confidence" | tr '\n' ' ')
echo "clicks claimed, by confidence: ${matched:-none}"
