# Shared helpers for the benchmark scripts: installing tools, starting servers, running wrk, printing results.
# Sourced, not run. Every server started here is stopped on exit.

set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d /tmp/relink-bench.XXXXXX)
PIDS=()
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
# The clients and the long link every script clicks as.
ANDROID="Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"
IPHONE="Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1"
DESKTOP="Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
LONG_LINK="/?link=https%3A%2F%2Fpictlink.com%2FmyPage&apn=jp.furyu.pictlink.android&ibi=jp.furyu.pictlink.ios&ius=pictlink&isi=000000001&utm_source=bench"

cleanup() {
    for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

need() {
    # need COMMAND PACKAGE: install PACKAGE from Debian if COMMAND is missing.
    command -v "$1" >/dev/null 2>&1 && return
    echo "installing $2 ..." >&2
    if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq "$2" >/dev/null
    else sudo apt-get update -qq && sudo apt-get install -y -qq "$2" >/dev/null; fi
}

wait_for() {
    # wait_for URL [HOST]: until it answers, at most 30 s.
    for _ in $(seq 1 300); do
        curl -s -o /dev/null -H "Host: ${2:-localhost}" "$1" && return 0
        sleep 0.1
    done
    echo "server at $1 did not start" >&2
    return 1
}

build_release() {
    echo "building relink (release) ..." >&2
    (cd "$ROOT" && swift build -c release --product relink 2>&1 | grep -E "error|warning: unre" || true)
    RELINK="$ROOT/.build/release/relink"
}

start_nginx() {
    # start_nginx PORT: nginx answering every request with a static 302, as a CDN edge or a static redirect would.
    need nginx nginx-light
    local port=$1
    mkdir -p "$WORK/nginx"
    cat > "$WORK/nginx/nginx.conf" <<NGINX
worker_processes auto;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path $WORK/nginx; proxy_temp_path $WORK/nginx; fastcgi_temp_path $WORK/nginx;
    uwsgi_temp_path $WORK/nginx; scgi_temp_path $WORK/nginx;
    server {
        listen 127.0.0.1:$port;
        location / {
            add_header Cache-Control no-store always;
            return 302 https://play.google.com/store/apps/details?id=jp.furyu.pictlink.android;
        }
    }
}
NGINX
    nginx -c "$WORK/nginx/nginx.conf" &
    PIDS+=($!)
    wait_for "http://127.0.0.1:$port/"
}

# measure NAME URL [HEADER | --script=FILE ...]: runs wrk and appends "NAME|rps|p50|p99|non-2xx/3xx" to
# $WORK/results.
measure() {
    local name=$1 url=$2
    shift 2
    local args=()
    for arg in "$@"; do
        case "$arg" in
            --script=*) args+=(-s "${arg#--script=}") ;;
            *) args+=(-H "$arg") ;;
        esac
    done
    need wrk wrk
    local out="$WORK/wrk-$RANDOM.txt"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "${args[@]}" "$url" > "$out"
    local rps p50 p99 errors
    rps=$(awk '/Requests\/sec/ {print $2}' "$out")
    p50=$(awk '$1 == "50%" {print $2}' "$out")
    p99=$(awk '$1 == "99%" {print $2}' "$out")
    errors=$(awk '/Non-2xx or 3xx/ {print $5}' "$out")
    echo "$name|$rps|$p50|$p99|${errors:-0}" >> "$WORK/results"
    echo "  $name: $rps requests/s, p50 $p50, p99 $p99" >&2
}

# paced NAME RATE CODES N: a fixed offered rate, not saturation: RATE requests/s in all from PACED_CLIENTS (16)
# h2load clients, each request a code from the first N of CODES (all with N=0), in a shuffled order, as a desktop
# browser on go.pictlink.com. h2load logs every request; its percentiles (p50, p99, p99.9) go to $WORK/paced.
paced() {
    local name=$1 rate=$2 codes=$3 limit=$4 port=${5:-$RELINK_PORT}
    need h2load nghttp2-client
    local clients=${PACED_CLIENTS:-16}
    local uris="$WORK/paced-uris-$RANDOM.txt" log="$WORK/paced-$RANDOM.log"
    { if [ "$limit" -gt 0 ]; then head -n "$limit" "$codes"; else cat "$codes"; fi; } | shuf -n 200000 --random-source=<(yes) |
        sed "s|^|http://127.0.0.1:$port/|" > "$uris"
    h2load --h1 -c "$clients" --rps $(( (rate + clients - 1) / clients )) -D "$DURATION" --log-file "$log" -i "$uris" \
        -H ":authority: go.pictlink.com" -H "User-Agent: $DESKTOP" > "$log.out" 2>&1
    python3 - "$name" "$rate" "$log" >> "$WORK/paced" <<'PY'
import sys
name, rate, log = sys.argv[1:4]
# h2load's per-request log: start (µs since the epoch), status, microseconds to the end of the response.
rows = [line.split("\t") for line in open(log) if line.strip()]
latencies = sorted(int(row[2]) / 1000 for row in rows)
def percentile(p):
    return latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))] if latencies else float("nan")
failed = sum(1 for row in rows if not 300 <= int(row[1]) < 400)
print(f"{name}|{rate}|{len(rows)}|{percentile(50):.2f}|{percentile(99):.2f}|{percentile(99.9):.2f}|{failed}")
PY
    echo "  $name (paced, $rate/s): $(tail -n 1 "$WORK/paced")" >&2
}

# report BASELINE: prints the results as a table with each row's ratio to the BASELINE row's requests/s. A target
# measured in several rounds shows its medians (requests/s, p50, p99) and the range of its requests/s.
report() {
    python3 - "$1" "$WORK/results" <<'PY'
import statistics, sys
baseline, path = sys.argv[1], sys.argv[2]
rows = {}
for line in open(path):
    name, rps, p50, p99, errors = line.rstrip("\n").split("|")
    rows.setdefault(name, []).append((float(rps), p50, p99, int(errors or 0)))
def seconds(text):
    for unit, scale in (("us", 1e-6), ("ms", 1e-3), ("s", 1.0)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    return float(text)
def show(value):
    return f"{value * 1e3:.2f}ms"
base = statistics.median(r[0] for r in rows[baseline])
print(f"\n{'target':<44} {'requests/s':>11} {'range':>15} {'p50':>9} {'p99':>9} {'non-3xx':>8} {'ratio':>6}")
for name, runs in rows.items():
    rps = statistics.median(r[0] for r in runs)
    spread = f"{min(r[0] for r in runs):.0f}-{max(r[0] for r in runs):.0f}" if len(runs) > 1 else ""
    p50 = show(statistics.median(seconds(r[1]) for r in runs))
    p99 = show(statistics.median(seconds(r[2]) for r in runs))
    print(f"{name:<44} {rps:>11.0f} {spread:>15} {p50:>9} {p99:>9} {sum(r[3] for r in runs):>8} {rps / base:>6.2f}")
rounds = max(len(r) for r in rows.values())
print(f'(ratio: requests/s relative to "{baseline}"' + (f"; medians of {rounds} rounds)" if rounds > 1 else ")"))
PY
}

# keep_every_click BINARY: the flag that lifts the per-network cap on clicks kept for deferred linking, for the
# benchmarks whose clicks all come from one address and should each be kept as a real user's would (nothing for
# a build without the cap, so a baseline runs as it is).
keep_every_click() {
    if "$1" serve --help 2>/dev/null | grep -q -- --kept-clicks-per-network; then echo "--kept-clicks-per-network 100000"; fi
}
