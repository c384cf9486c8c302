#!/usr/bin/env bash
# What a link cache of every link costs and gives, for operators who would rather spend memory than read the store:
# LINKS short links in SQLite (as in run.sh), a server with `--link-cache` above LINKS, one pass clicking every
# link in order (Benchmarks/every-code.lua), then the scale test (1,000 links and all of them at random) and the
# server's RSS, beside the same with the default cache.
#
#   Benchmarks/full-cache.sh                 # 1,000,000 links, 10 s per target
#   LINKS=100000 DURATION=5 Benchmarks/full-cache.sh
source "$(dirname "$0")/lib.sh"

LINKS=${LINKS:-1000000}
DB="$WORK/bench.sqlite"
DEFAULT_PORT=18495
FULL_PORT=18496

build_release
need sqlite3 sqlite3
"$RELINK" keys list --db "$DB" > /dev/null 2>&1 || true
echo "filling $LINKS links ..." >&2
python3 "$ROOT/Benchmarks/fill-links.py" "$DB" "$LINKS" "$WORK/codes.txt"

rss() { echo "$1|$(( $(ps -o rss= -p "$2") / 1024 ))" >> "$WORK/rss"; }
for cache in default full; do
    port=$DEFAULT_PORT
    options=()
    if [ "$cache" = full ]; then port=$FULL_PORT; options=(--link-cache $(( LINKS + 16 ))); fi
    "$RELINK" serve $(keep_every_click "$RELINK") --config "$ROOT/routes.json" --db "$DB" --port "$port" --log-level warning \
        --secret-file "$WORK/secret" "${options[@]}" &
    pid=$!
    PIDS+=("$pid")
    wait_for "http://127.0.0.1:$port/healthz"
    # One pass over every link (at about 20,000 clicks a second, LINKS / 15,000 seconds is enough), then the test.
    echo "clicking every link once ($cache cache) ..." >&2
    CODES="$WORK/codes.txt" THREADS=$THREADS DURATION=$(( LINKS / 15000 + 5 )) measure "$cache cache: one pass over every link" \
        "http://127.0.0.1:$port/" "--script=$ROOT/Benchmarks/every-code.lua"
    rss "$cache cache: one pass over every link" "$pid"
    CODES="$WORK/codes.txt" N=1000 measure "$cache cache: 1,000 links at random" "http://127.0.0.1:$port/" "--script=$ROOT/Benchmarks/random-codes.lua"
    CODES="$WORK/codes.txt" N=0 measure "$cache cache: $LINKS links at random" "http://127.0.0.1:$port/" "--script=$ROOT/Benchmarks/random-codes.lua"
    rss "$cache cache: $LINKS links at random" "$pid"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
done
report "default cache: 1,000 links at random"
echo
cat "$WORK/rss" | sed 's/|/: RSS MB /'
