#!/usr/bin/env bash
# The per-client rate limiter over HTTP: `relink serve` (release) answering wrong API keys from 10 client addresses,
# then from 1,000,000 distinct ones (ten times the limiter's 100,000 capacity, so it evicts all along), then from
# 10 again. Prints requests/s, latency and the server's RSS after each phase. Throughput should not depend on the
# number of clients, and RSS should stop growing once the limiter is full.
#
#   Benchmarks/ratelimit-http.sh                 # 20 s with 10 addresses; 1,000,000 requests' worth with a million
#   DURATION=30 Benchmarks/ratelimit-http.sh
source "$(dirname "$0")/lib.sh"

RELINK_PORT=18490
DURATION=${DURATION:-20}
build_release
"$RELINK" serve --config "$ROOT/routes.json" --db "$WORK/ratelimit.sqlite" --port "$RELINK_PORT" --log-level error \
    --trust-forwarded-headers &
PIDS+=($!)
SERVER=$!
wait_for "http://127.0.0.1:$RELINK_PORT/healthz"

rss() { awk '/VmRSS/ {printf "%.1f MB", $2 / 1024}' "/proc/$SERVER/status"; }

# Sanity: the limiter answers 401 then 429 for one address.
statuses=$(for _ in $(seq 1 25); do
    curl -s -o /dev/null -w '%{http_code} ' -X POST -H "X-Forwarded-For: 11.0.0.1" \
        "http://127.0.0.1:$RELINK_PORT/v1/shortLinks?key=rl_benchmark_wrong_key" -d '{}'
done)
echo "$statuses" | grep -q 401 && echo "$statuses" | grep -q 429

phase() {
    # phase NAME DISTINCT SECONDS
    local name=$1 distinct=$2 seconds=$3
    local out="$WORK/wrk-$distinct-$RANDOM.txt"
    DISTINCT=$distinct THREADS=$THREADS wrk -t"$THREADS" -c"$CONNECTIONS" -d"${seconds}s" --latency \
        -s "$ROOT/Benchmarks/ratelimit-http.lua" "http://127.0.0.1:$RELINK_PORT/" > "$out"
    local rps p50 p99 total
    rps=$(awk '/Requests\/sec/ {print $2}' "$out")
    p50=$(awk '$1 == "50%" {print $2}' "$out")
    p99=$(awk '$1 == "99%" {print $2}' "$out")
    total=$(awk '/requests in/ {print $1}' "$out")
    printf '%-34s %10s req/s  p50 %8s  p99 %8s  %9s requests  RSS after %s\n' "$name" "$rps" "$p50" "$p99" "$total" "$(rss)"
    echo "$rps" > "$WORK/rps-$name"
}

need wrk wrk
echo "RSS at start: $(rss); ${CONNECTIONS} connections, ${THREADS} wrk threads, $(nproc) cores" >&2
phase "10 addresses" 10 "$DURATION"
# Long enough to send about a million requests, each from an address the limiter has not seen in this pass.
ten=$(cat "$WORK/rps-10 addresses")
million_seconds=$(awk -v r="$ten" 'BEGIN { s = int(1250000 / r) + 1; if (s < 30) s = 30; print s }')
phase "1,000,000 addresses" 1000000 "$million_seconds"
phase "10 addresses again" 10 "$DURATION"
awk -v a="$ten" -v b="$(cat "$WORK/rps-1,000,000 addresses")" \
    'BEGIN { printf "1,000,000 addresses at %.2f of the 10-address throughput\n", b / a }'
