#!/usr/bin/env bash
# Deferred-link claim latency with a full store: `relink serve` (release, SQLite) takes CLICKS Android clicks
# (1,000,000 by default, each from its own address, four to a /24), keeps them as pending clicks, then answers
# fingerprint claims (no token) from the addresses of random earlier clicks for DURATION seconds. Prints the pending
# clicks stored, the database size, and the claims' requests/s and latency (p50, p90, p99).
#
#   Benchmarks/claims.sh
#   CLICKS=100000 DURATION=10 CLAIM_CONNECTIONS="1 4 16" FILL_CONNECTIONS=4 Benchmarks/claims.sh
source "$(dirname "$0")/lib.sh"

RELINK_PORT=18491
CLICKS=${CLICKS:-1000000}
DURATION=${DURATION:-20}
CLAIM_CONNECTIONS=${CLAIM_CONNECTIONS:-1 4 16}
# Fewer fill connections than the server could take: past its pending-click buffer (100,000) clicks are dropped,
# and the store should hold all of them.
FILL_CONNECTIONS=${FILL_CONNECTIONS:-4}
DB="$WORK/claims.sqlite"

build_release
need wrk wrk
need sqlite3 sqlite3
"$RELINK" serve --config "$ROOT/routes.json" --db "$DB" --port "$RELINK_PORT" --log-level error --trust-forwarded-headers &
SERVER=$!
PIDS+=($SERVER)
wait_for "http://127.0.0.1:$RELINK_PORT/healthz"

pending() { sqlite3 "file:$DB?mode=ro" "SELECT COUNT(*) FROM pending_clicks" 2>/dev/null || echo 0; }

echo "filling: $CLICKS Android clicks, each from its own address ..." >&2
start=$(date +%s)
# One run sends each click once and then only /healthz (its threads stop, but wrk itself waits out its duration):
# it is stopped once the store holds the clicks, or stops growing.
CLICKS=$CLICKS THREADS=$THREADS wrk -t"$THREADS" -c"$FILL_CONNECTIONS" -d900s -s "$ROOT/Benchmarks/claims-fill.lua" \
    "http://127.0.0.1:$RELINK_PORT" > "$WORK/fill.txt" &
FILLER=$!
last=-1
still=0
while kill -0 $FILLER 2>/dev/null; do
    sleep 2
    now=$(pending)
    [ "$now" -ge "$CLICKS" ] && break
    if [ "$now" -eq "$last" ]; then still=$((still + 1)); else still=0; fi
    [ $still -ge 5 ] && break # 10 s without a new row: the fill script is done (or the server dropped the rest)
    last=$now
done
kill $FILLER 2>/dev/null || true
fill_seconds=$(( $(date +%s) - start ))
# Let the server finish writing, and SQLite checkpoint, before claims are timed.
sleep 10
echo "  $(pending) pending clicks after $fill_seconds s" >&2
rows=$(pending)
size=$(du -sh "$WORK" | cut -f1)

printf '\n%s pending clicks (database and WAL: %s), stored in %s s\n' "$rows" "$size" "$fill_seconds"
# A short warm-up (page cache, connections), not counted.
CLICKS=$CLICKS wrk -t1 -c1 -d3s -s "$ROOT/Benchmarks/claims.lua" "http://127.0.0.1:$RELINK_PORT" > /dev/null
for connections in $CLAIM_CONNECTIONS; do
    echo "claiming for ${DURATION}s with $connections connections ..." >&2
    out="$WORK/claims-$connections.txt"
    CLICKS=$CLICKS wrk -t"$(( connections < THREADS ? connections : THREADS ))" -c"$connections" -d"${DURATION}s" --latency -s "$ROOT/Benchmarks/claims.lua" \
        "http://127.0.0.1:$RELINK_PORT" > "$out"
    rps=$(awk '/Requests\/sec/ {print $2}' "$out")
    p50=$(awk '$1 == "50%" {print $2}' "$out")
    p90=$(awk '$1 == "90%" {print $2}' "$out")
    p99=$(awk '$1 == "99%" {print $2}' "$out")
    errors=$(awk '/Non-2xx or 3xx/ {print $5}' "$out")
    printf 'claims, %2d connections: %8s requests/s, p50 %8s, p90 %8s, p99 %8s, non-2xx %s\n' \
        "$connections" "$rps" "$p50" "$p90" "$p99" "${errors:-0}"
done
matched=$(sqlite3 "file:$DB?mode=ro" "SELECT confidence, COUNT(*) FROM pending_clicks WHERE claimed_at IS NOT NULL GROUP BY confidence" | tr '\n' ' ')
echo "clicks claimed, by confidence: $matched"
