#!/usr/bin/env bash
# Every redirect kind and the scale test in one run, beside nginx's static 302, a bare SwiftNIO server answering the
# same 302 (Benchmarks/Floor) and `/healthz` (the framework's floor) on the same machine, printed as one table:
# requests/s, p50, p99, ratio to nginx and to /healthz, the server's RSS after the target.
#
#   Benchmarks/run.sh                 # 10 s per target, 64 connections, 2 wrk threads, 1,000,000 links
#   DURATION=5 LINKS=100000 Benchmarks/run.sh
#   LINK_CACHE=100000 Benchmarks/run.sh   # the server's --link-cache (entries)
#   ROUNDS=3 DURATION=6 Benchmarks/run.sh # every target 3 times, in turn; the table shows medians (and the range)
#   POSTGRES=0 Benchmarks/run.sh          # without the scale test on PostgreSQL (installed and started otherwise)
#   PACED_RATE=5000 Benchmarks/run.sh     # the paced scale runs' offered rate (default: a third of saturation)
#
# The scale targets fill the SQLite store in bulk (Benchmarks/fill-links.py: LINKS short links plus the one the
# click targets use), then click codes at random from the first 1,000 and from all of them
# (Benchmarks/random-codes.lua).
source "$(dirname "$0")/lib.sh"

RELINK_PORT=18490
NGINX_PORT=18491
FLOOR_PORT=18492
PG_PORT=18493
RELINK_PG_PORT=18494
LINKS=${LINKS:-1000000}
DB="$WORK/bench.sqlite"

build_release
echo "building the bare SwiftNIO server (Benchmarks/Floor) ..." >&2
(cd "$ROOT/Benchmarks/Floor" && swift build -c release 2>&1 | grep -E "error" || true)
need sqlite3 sqlite3
"$RELINK" keys list --db "$DB" > /dev/null 2>&1 || true
echo "filling $LINKS links ..." >&2
python3 "$ROOT/Benchmarks/fill-links.py" "$DB" "$LINKS" "$WORK/codes.txt"
# The short link the click targets use: one link, its apps and a campaign.
sqlite3 "$DB" "INSERT INTO links (project_id, domain, code, long_link, parameters, suffix_option, created_at, updated_at) VALUES ('pictlink', 'https://go.pictlink.com', 'bench1', 'https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fspring', '{\"apn\":\"jp.furyu.pictlink.android\",\"ibi\":\"jp.furyu.pictlink.ios\",\"isi\":\"000000001\",\"link\":\"https://pictlink.com/spring\",\"utm_source\":\"bench\"}', 'CUSTOM', 0, 0)"

start_nginx "$NGINX_PORT"
"$ROOT/Benchmarks/Floor/.build/release/Floor" "$FLOOR_PORT" > /dev/null &
PIDS+=($!)
wait_for "http://127.0.0.1:$FLOOR_PORT/"
"$RELINK" serve $(keep_every_click "$RELINK") --config "$ROOT/routes.json" --db "$DB" --port "$RELINK_PORT" --log-level warning --secret-file "$WORK/secret" \
    ${LINK_CACHE:+--link-cache "$LINK_CACHE"} &
RELINK_PID=$!
PIDS+=("$RELINK_PID")
wait_for "http://127.0.0.1:$RELINK_PORT/healthz"
curl -s -o /dev/null -w '%{http_code}' -H "Host: go.pictlink.com" -A "$ANDROID" "http://127.0.0.1:$RELINK_PORT/bench1" | grep -q 302

# The same scale test on PostgreSQL (POSTGRES=0 skips it): a throwaway cluster with PostgreSQL's durable defaults,
# the links loaded with COPY, a second Relink instance on it.
if [ "${POSTGRES:-1}" = 1 ]; then
    source "$ROOT/.ci/postgres.sh"
    POSTGRES_SERVER_OPTIONS="" postgres_start "$PG_PORT"
    trap 'cleanup; postgres_stop' EXIT
    "$RELINK" keys list --database "$RELINK_TEST_DATABASE_URL" > /dev/null
    echo "loading $LINKS links into PostgreSQL ..." >&2
    python3 "$ROOT/Benchmarks/fill-links.py" "$WORK/links.csv" "$LINKS" "$WORK/pg-codes.txt"
    chmod a+r "$WORK" "$WORK/links.csv"
    "$PG_BIN/psql" -q -h 127.0.0.1 -p "$PG_PORT" -U relink relink \
        -c "\copy links (project_id, domain, code, long_link, parameters, suffix_option, created_at, updated_at) FROM '$WORK/links.csv' CSV" \
        -c "ANALYZE links" > /dev/null
    "$RELINK" serve $(keep_every_click "$RELINK") --config "$ROOT/routes.json" --database "$RELINK_TEST_DATABASE_URL" --port "$RELINK_PG_PORT" --log-level warning \
        --secret-file "$WORK/secret" ${LINK_CACHE:+--link-cache "$LINK_CACHE"} &
    RELINK_PG_PID=$!
    PIDS+=("$RELINK_PG_PID")
    wait_for "http://127.0.0.1:$RELINK_PG_PORT/healthz"
fi

rss() { echo "$1|$(( $(ps -o rss= -p "${2:-$RELINK_PID}") / 1024 ))" >> "$WORK/rss"; }
# target NAME URL [wrk arguments]: measures it and notes the server's RSS after it.
target() { measure "$@"; rss "$1"; }
# pg_target NAME URL [wrk arguments]: the same against the instance on PostgreSQL.
pg_target() { measure "$@"; rss "$1" "$RELINK_PG_PID"; }

ROUNDS=${ROUNDS:-1}
echo "measuring (${DURATION}s each, $CONNECTIONS connections, $THREADS wrk threads, $(nproc) cores, $ROUNDS rounds) ..." >&2
# The targets in turn, round after round, so that the machine's moods fall on all of them alike.
for _ in $(seq 1 "$ROUNDS"); do
    target "nginx static 302" "http://127.0.0.1:$NGINX_PORT/p/42" "User-Agent: $ANDROID"
    target "/healthz (framework floor)" "http://127.0.0.1:$RELINK_PORT/healthz"
    # Below the framework: SwiftNIO's HTTP/1 pipeline and a handler answering the same 302, no routing or middleware.
    measure "bare SwiftNIO 302" "http://127.0.0.1:$FLOOR_PORT/p/42" "User-Agent: $ANDROID"
    target "long link, Android" "http://127.0.0.1:$RELINK_PORT$LONG_LINK" "Host: go.pictlink.com" "User-Agent: $ANDROID"
    target "route, desktop" "http://127.0.0.1:$RELINK_PORT/p/42" "Host: go.pictlink.com" "User-Agent: $DESKTOP"
    target "short link, desktop (+events)" "http://127.0.0.1:$RELINK_PORT/bench1" "Host: go.pictlink.com" "User-Agent: $DESKTOP"
    target "short link, iPhone preview page" "http://127.0.0.1:$RELINK_PORT/bench1" "Host: go.pictlink.com" "User-Agent: $IPHONE"
    target "short link, Android (+deferred)" "http://127.0.0.1:$RELINK_PORT/bench1" "Host: go.pictlink.com" "User-Agent: $ANDROID"
    CODES="$WORK/codes.txt" N=1000 target "scale: 1,000 links at random" "http://127.0.0.1:$RELINK_PORT/" "--script=$ROOT/Benchmarks/random-codes.lua"
    CODES="$WORK/codes.txt" N=0 target "scale: $LINKS links at random" "http://127.0.0.1:$RELINK_PORT/" "--script=$ROOT/Benchmarks/random-codes.lua"
done
# PostgreSQL's rounds after all of SQLite's: its background work after a million upserts (autovacuum, checkpoints)
# would otherwise fall on the next round's targets.
if [ "${POSTGRES:-1}" = 1 ]; then
    for _ in $(seq 1 "$ROUNDS"); do
        CODES="$WORK/pg-codes.txt" N=1000 pg_target "PostgreSQL: 1,000 links at random" "http://127.0.0.1:$RELINK_PG_PORT/" "--script=$ROOT/Benchmarks/random-codes.lua"
        CODES="$WORK/pg-codes.txt" N=0 pg_target "PostgreSQL: $LINKS links at random" "http://127.0.0.1:$RELINK_PG_PORT/" "--script=$ROOT/Benchmarks/random-codes.lua"
    done
fi

# The same scale at a fixed offered rate, about a third of saturation (PACED_RATE overrides it): the tail a
# realistic load sees, where saturation's p99 is the two shared cores'.
PACED_RATE=${PACED_RATE:-$(python3 -c "
import statistics, sys
rates = [float(line.split('|')[1]) for line in open('$WORK/results') if line.startswith('scale: 1,000 links')]
print(int(statistics.median(rates) / 3))")}
touch "$WORK/paced"
paced "paced: 1,000 links" "$PACED_RATE" "$WORK/codes.txt" 1000
paced "paced: $LINKS links" "$PACED_RATE" "$WORK/codes.txt" 0
if [ "${POSTGRES:-1}" = 1 ]; then
    paced "paced, PostgreSQL: 1,000 links" "$PACED_RATE" "$WORK/pg-codes.txt" 1000 "$RELINK_PG_PORT"
    paced "paced, PostgreSQL: $LINKS links" "$PACED_RATE" "$WORK/pg-codes.txt" 0 "$RELINK_PG_PORT"
fi

python3 - "$WORK/results" "$WORK/rss" "$WORK/paced" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, rps, p50, p99, errors = line.rstrip("\n").split("|")
    runs.setdefault(name, []).append((float(rps), p50, p99, int(errors or 0)))
rss = {}
for line in open(sys.argv[2]):
    name, megabytes = line.rstrip("\n").split("|")
    # The highest after any round: a million links fill the cache over the rounds, and memory must stay bounded after.
    rss[name] = max(rss.get(name, 0), int(megabytes))
def ms(text):
    for unit, scale in (("us", 1e-3), ("ms", 1.0), ("s", 1e3)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    return float(text)
median = {name: statistics.median(r[0] for r in rows) for name, rows in runs.items()}
nginx = median["nginx static 302"]
floor = median["/healthz (framework floor)"]
rounds = max(len(rows) for rows in runs.values())
print(f"\n{'target':<36} {'requests/s':>11} {'range':>13} {'p50':>9} {'p99':>9} {'non-3xx':>8} {'/nginx':>7} {'/healthz':>9} {'RSS MB':>7}")
for name, rows in runs.items():
    rps = median[name]
    spread = f"{min(r[0] for r in rows) / 1000:.1f}-{max(r[0] for r in rows) / 1000:.1f}k" if len(rows) > 1 else ""
    p50 = statistics.median(ms(r[1]) for r in rows)
    p99 = statistics.median(ms(r[2]) for r in rows)
    # The RSS column is Relink's: not shown for the other servers' rows.
    memory = rss.get(name, "") if name != "nginx static 302" else ""
    print(f"{name:<36} {rps:>11.0f} {spread:>13} {p50:>7.2f}ms {p99:>7.2f}ms {sum(r[3] for r in rows):>8} {rps / nginx:>7.2f} {rps / floor:>9.2f} {memory:>7}")
for store, prefix in (("SQLite", "scale:"), ("PostgreSQL", "PostgreSQL:")):
    scale = [name for name in runs if name.startswith(prefix)]
    if len(scale) == 2:
        print(f"scale ratio, {store} (1,000 links / all links): {median[scale[0]] / median[scale[1]]:.2f}")
if rounds > 1:
    print(f"(medians of {rounds} rounds; RSS the highest after any round)")
paced = [line.rstrip("\n").split("|") for line in open(sys.argv[3]) if line.strip()]
if paced:
    print(f"\n{'paced target':<36} {'rate/s':>8} {'requests':>9} {'p50':>9} {'p99':>9} {'p99.9':>9} {'non-3xx':>8}")
    for name, rate, count, p50, p99, p999, failed in paced:
        print(f"{name:<36} {rate:>8} {count:>9} {float(p50):>7.2f}ms {float(p99):>7.2f}ms {float(p999):>7.2f}ms {failed:>8}")
    p99 = {row[0]: float(row[4]) for row in paced}
    for store, prefix in (("SQLite", "paced: "), ("PostgreSQL", "paced, PostgreSQL: ")):
        pair = [name for name in p99 if name.startswith(prefix)]
        if len(pair) == 2:
            print(f"paced p99 ratio, {store} (all links / 1,000): {p99[pair[1]] / p99[pair[0]]:.2f} (goal: at most 1.2)")
PY
