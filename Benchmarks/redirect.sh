#!/usr/bin/env bash
# Redirect throughput: a long-link redirect and a route redirect from `relink serve` (release build), next to
# nginx answering a static 302 on the same machine, in one run. Prints requests/s, p50, p99 and the ratio to nginx.
#
#   Benchmarks/redirect.sh            # 10 s per target, 64 connections, 2 wrk threads
#   DURATION=30 Benchmarks/redirect.sh
#   BASELINE=/path/to/other/relink ROUNDS=5 DURATION=5 Benchmarks/redirect.sh
#                                     # another build beside this one, the two measured in turn, medians of 5 rounds
#                                     # (requests/s on a shared machine moves by 10% or more between runs)
source "$(dirname "$0")/lib.sh"

RELINK_PORT=18480
NGINX_PORT=18481
BASELINE_PORT=18482
ROUNDS=${ROUNDS:-1}

build_release
start_nginx "$NGINX_PORT"
"$RELINK" serve $(keep_every_click "$RELINK") --config "$ROOT/routes.json" --db "$WORK/redirect.sqlite" --port "$RELINK_PORT" --log-level warning &
PIDS+=($!)
wait_for "http://127.0.0.1:$RELINK_PORT/healthz"
if [ -n "${BASELINE:-}" ]; then
    "$BASELINE" serve $(keep_every_click "$BASELINE") --config "$ROOT/routes.json" --db "$WORK/baseline.sqlite" --port "$BASELINE_PORT" --log-level warning &
    PIDS+=($!)
    wait_for "http://127.0.0.1:$BASELINE_PORT/healthz"
fi

# Sanity: both answer a 302 before they are measured.
curl -s -o /dev/null -w '%{http_code}' -H "Host: go.pictlink.com" -A "$ANDROID" "http://127.0.0.1:$RELINK_PORT$LONG_LINK" | grep -q 302
curl -s -o /dev/null -w '%{http_code}' -H "Host: go.pictlink.com" -A "$ANDROID" "http://127.0.0.1:$RELINK_PORT/p/42" | grep -q 302

echo "measuring (${DURATION}s each, $CONNECTIONS connections, $THREADS wrk threads, $(nproc) cores, $ROUNDS rounds) ..." >&2
# relink_targets LABEL PORT: the three targets of one build.
relink_targets() {
    measure "$1 long-link redirect" "http://127.0.0.1:$2$LONG_LINK" "Host: go.pictlink.com" "User-Agent: $ANDROID"
    measure "$1 route redirect" "http://127.0.0.1:$2/p/42" "Host: go.pictlink.com" "User-Agent: $ANDROID"
    # For reference: the framework's floor on this machine, a handler that does nothing.
    measure "$1 /healthz (framework floor)" "http://127.0.0.1:$2/healthz"
}
for _ in $(seq 1 "$ROUNDS"); do
    measure "nginx static 302" "http://127.0.0.1:$NGINX_PORT/p/42" "User-Agent: $ANDROID"
    relink_targets relink "$RELINK_PORT"
    if [ -n "${BASELINE:-}" ]; then relink_targets baseline "$BASELINE_PORT"; fi
done
report "nginx static 302"
