#!/usr/bin/env bash
# PostgreSQL's own CPU per click at a million links, for two builds of relink side by side (issue 37's decision 2:
# the counters' foreign keys, dropped): each build on its own schema of one durable cluster with the same LINKS
# links (loaded with COPY), the counters emptied before each run, desktop clicks on links at random from all of them
# (Benchmarks/random-codes.lua), the builds in turn for ROUNDS rounds. Prints requests/s and the CPU time of
# relink's process and of all of PostgreSQL's processes, per request.
#
#   Benchmarks/postgres-cpu.sh OLD_RELINK NEW_RELINK            # 1,000,000 links, 10 s a run, 3 rounds
#   LINKS=100000 ROUNDS=2 Benchmarks/postgres-cpu.sh old/relink new/relink
source "$(dirname "$0")/lib.sh"
source "$ROOT/.ci/postgres.sh"

LINKS=${LINKS:-1000000}
ROUNDS=${ROUNDS:-3}
PG_PORT=18497
RELINK_PORT=18498
BUILDS=("$@")
need wrk wrk
[ "${#BUILDS[@]}" -ge 1 ] || { echo "usage: $0 RELINK [RELINK ...]" >&2; exit 2; }

POSTGRES_SERVER_OPTIONS="" postgres_start "$PG_PORT"
trap 'cleanup; postgres_stop' EXIT
python3 "$ROOT/Benchmarks/fill-links.py" "$WORK/links.csv" "$LINKS" "$WORK/codes.txt"
chmod a+r "$WORK" "$WORK/links.csv"
psql() { "$PG_BIN/psql" -q -h 127.0.0.1 -p "$PG_PORT" -U relink relink "$@"; }
url() { echo "${RELINK_TEST_DATABASE_URL}&schema=build$1"; }
for index in "${!BUILDS[@]}"; do
    echo "loading $LINKS links for build $index (${BUILDS[$index]}) ..." >&2
    "${BUILDS[$index]}" keys list --database "$(url "$index")" > /dev/null
    psql -c "SET search_path TO build$index" \
        -c "\copy links (project_id, domain, code, long_link, parameters, suffix_option, created_at, updated_at) FROM '$WORK/links.csv' CSV" \
        -c "ANALYZE links" > /dev/null
done

# CPU seconds (user + system) of a process, and of every process of the cluster.
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
pg_cpu() {
    local total=0 pid
    for pid in $(pgrep -u postgres postgres); do total=$(( total + $(cpu "$pid" 2>/dev/null || echo 0) )); done
    echo "$total"
}
echo "build|round|requests/s|relink µs|postgres µs" > "$WORK/cpu"
for round in $(seq 1 "$ROUNDS"); do
    for index in "${!BUILDS[@]}"; do
        psql -c "TRUNCATE build$index.event_counters, build$index.variant_counters, build$index.confidence_counters" -c "CHECKPOINT" > /dev/null
        "${BUILDS[$index]}" serve $(keep_every_click "${BUILDS[$index]}") --config "$ROOT/routes.json" --database "$(url "$index")" \
            --port "$RELINK_PORT" --log-level warning --secret-file "$WORK/secret" &
        pid=$!
        wait_for "http://127.0.0.1:$RELINK_PORT/healthz"
        relink_before=$(cpu "$pid") pg_before=$(pg_cpu)
        out=$(CODES="$WORK/codes.txt" N=0 wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" -s "$ROOT/Benchmarks/random-codes.lua" \
            -H "Host: go.pictlink.com" "http://127.0.0.1:$RELINK_PORT/")
        # The last second's counters are written after wrk stops: wait for the flush before reading the CPU.
        sleep 2
        relink_after=$(cpu "$pid") pg_after=$(pg_cpu)
        requests=$(echo "$out" | awk '/requests in/ {print $1}')
        rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
        ticks=$(getconf CLK_TCK)
        echo "$index|$round|$rps|$(( (relink_after - relink_before) * 1000000 / ticks / requests ))|$(( (pg_after - pg_before) * 1000000 / ticks / requests ))" >> "$WORK/cpu"
        echo "  build $index round $round: $(tail -n 1 "$WORK/cpu")" >&2
        kill "$pid"
        wait "$pid" 2>/dev/null || true
    done
done
python3 - "$WORK/cpu" "${BUILDS[@]}" <<'PY'
import statistics, sys
rows = [line.rstrip("\n").split("|") for line in open(sys.argv[1])][1:]
builds = sys.argv[2:]
print(f"\n{'build':<50} {'requests/s':>11} {'relink µs':>10} {'postgres µs':>12}  (medians of rounds; µs of CPU a request)")
for index, build in enumerate(builds):
    mine = [row for row in rows if row[0] == str(index)]
    print(f"{build[-50:]:<50} {statistics.median(float(r[2]) for r in mine):>11.0f} {statistics.median(int(r[3]) for r in mine):>10} "
          f"{statistics.median(int(r[4]) for r in mine):>12}   ({', '.join(r[4] for r in mine)})")
PY
