#!/usr/bin/env bash
# Heap allocations per request of `relink serve` (release build), for each redirect kind and /healthz: the whole
# process's malloc calls (an LD_PRELOAD counter, MallocCount/malloc-count.c) over N keep-alive requests after a
# warm-up, divided by N. Unlike requests/s it does not move with the machine's load, so two builds compare exactly.
#
#   Benchmarks/allocations.sh                                   # this checkout
#   BASELINE=/path/to/other/relink Benchmarks/allocations.sh    # and another build, side by side
#   REQUESTS=50000 Benchmarks/allocations.sh
source "$(dirname "$0")/lib.sh"

REQUESTS=${REQUESTS:-20000}

build_release
need gcc gcc
gcc -O2 -shared -fPIC -o "$WORK/malloc-count.so" "$ROOT/Benchmarks/MallocCount/malloc-count.c" -lpthread

# allocations BINARY PATH AGENT: prints allocations per request.
allocations() {
    local binary=$1 path=$2 agent=$3 port=18490 count="$WORK/count"
    rm -f "$WORK"/allocations.sqlite*
    MALLOC_COUNT_FILE=$count LD_PRELOAD="$WORK/malloc-count.so" "$binary" serve $(keep_every_click "$binary") --config "$ROOT/routes.json" \
        --db "$WORK/allocations.sqlite" --port $port --log-level error 2>/dev/null &
    local pid=$!
    wait_for "http://127.0.0.1:$port/healthz"
    send() { python3 "$ROOT/Benchmarks/MallocCount/keepalive.py" $port "$path" "$1" go.pictlink.com "$agent"; sleep 0.3; cat "$count"; }
    send 3000 >/dev/null # caches, pools and the first of each series
    local before after
    before=$(send 0)
    after=$(send "$REQUESTS")
    kill $pid; wait $pid 2>/dev/null || true
    awk -v a="$after" -v b="$before" -v n="$REQUESTS" 'BEGIN { printf "%.1f", (a - b) / n }'
}

printf '%-36s %12s' "allocations per request" "this build"
if [ -n "${BASELINE:-}" ]; then printf ' %12s' "baseline"; fi
echo
for target in "long-link redirect|$LONG_LINK|$ANDROID" "route redirect|/p/42|$ANDROID" "desktop route redirect|/p/42|$DESKTOP" \
    "/healthz|/healthz|$DESKTOP"; do
    IFS='|' read -r name path agent <<< "$target"
    printf '%-36s %12s' "$name" "$(allocations "$RELINK" "$path" "$agent")"
    if [ -n "${BASELINE:-}" ]; then printf ' %12s' "$(allocations "$BASELINE" "$path" "$agent")"; fi
    echo
done
