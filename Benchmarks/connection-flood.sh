#!/usr/bin/env bash
# What floods of connections leave behind: FLOODS times, FLOOD connections opened at once (each asking for a long
# link and reading its answer) and then closed; the server's RSS before, at each flood's height, 2 s after its
# connections closed, and WAIT s after, by when HeapTrimService has given the free heap back.
#
#   Benchmarks/connection-flood.sh                 # 5 floods of 9,000 connections
#   FLOODS=2 FLOOD=5000 Benchmarks/connection-flood.sh
source "$(dirname "$0")/lib.sh"

FLOODS=${FLOODS:-5}
FLOOD=${FLOOD:-9000}
WAIT=${WAIT:-35}
PORT=18497

build_release
ulimit -n "$(ulimit -Hn)"
"$RELINK" serve --config "$ROOT/routes.json" --db "$WORK/flood.sqlite" --port "$PORT" --log-level warning --secret-file "$WORK/secret" &
pid=$!
PIDS+=("$pid")
wait_for "http://127.0.0.1:$PORT/healthz"
sleep 2
echo "RSS at the start: $(( $(ps -o rss= -p "$pid") / 1024 )) MB"
printf '%-6s %9s %16s %16s %18s\n' flood answered "height RSS MB" "closed +2s MB" "closed +${WAIT}s MB"
for i in $(seq 1 "$FLOODS"); do
    IFS='|' read -r answered height closed after < <(python3 "$ROOT/Benchmarks/connection-flood.py" "$PORT" "$pid" "$FLOOD" "$WAIT")
    printf '%-6s %9s %16s %16s %18s\n' "$i" "$answered/$FLOOD" "$height" "$closed" "$after"
done
