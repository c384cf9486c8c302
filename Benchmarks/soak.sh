#!/usr/bin/env bash
# Five minutes of mixed traffic from one address: `relink serve` (release, SQLite) under 32 connections of
# soak.lua (70% clicks on 200 short links, 15% long links, 10% routes, 5% fingerprint claims; iPhone, Android,
# desktop and crawler User-Agents), measured in SEGMENTS runs of SEGMENT seconds back to back. Prints, per
# segment, requests/s, p50 and p99, the server's resident memory, the pending clicks kept and the database's size:
# all should stay flat from the first segment to the last.
#
#   Benchmarks/soak.sh
#   SEGMENTS=4 SEGMENT=15 CONNECTIONS=32 Benchmarks/soak.sh
source "$(dirname "$0")/lib.sh"

RELINK_PORT=18493
SEGMENTS=${SEGMENTS:-10}
SEGMENT=${SEGMENT:-30}
CONNECTIONS=${CONNECTIONS:-32}
LINKS=${LINKS:-200}
DB="$WORK/soak.sqlite"

build_release
need wrk wrk
need sqlite3 sqlite3
# The example configuration, with a minting rate limit the setup will not hit.
python3 - "$ROOT/routes.json" "$WORK/routes.json" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
for project in config["projects"]:
    project["rateLimit"] = {"requestsPerSecond": 1000000, "burst": 1000000}
json.dump(config, open(sys.argv[2], "w"))
PY
KEY=$("$RELINK" keys create --project pictlink --config "$WORK/routes.json" --db "$DB" 2>/dev/null)
"$RELINK" serve --config "$WORK/routes.json" --db "$DB" --port "$RELINK_PORT" --log-level error &
RELINK_PID=$!
PIDS+=("$RELINK_PID")
wait_for "http://127.0.0.1:$RELINK_PORT/healthz"

echo "minting $LINKS short links ..." >&2
CODES=$(python3 - "$RELINK_PORT" "$KEY" "$LINKS" <<'PY'
import json, sys, urllib.request
port, key, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
codes = []
for n in range(count):
    long_link = ("https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fcampaign%2F" + str(n)
                 + "&apn=jp.furyu.pictlink.android&ibi=jp.furyu.pictlink.ios&isi=000000001&utm_source=soak")
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/shortLinks", data=json.dumps({"longDynamicLink": long_link, "suffix": {"option": "SHORT"}}).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}", "Host": "go.pictlink.com"})
    codes.append(json.load(urllib.request.urlopen(request))["shortLink"].rsplit("/", 1)[1])
print(",".join(codes))
PY
)

rss() { awk '/VmRSS/ {printf "%.0f MB", $2 / 1024}' "/proc/$RELINK_PID/status"; }
pending() { sqlite3 "file:$DB?mode=ro" "SELECT COUNT(*) FROM pending_clicks" 2>/dev/null || echo "?"; }
size() { du -cm "$DB"* | awk 'END {print $1 " MB"}'; }

printf '%-10s %12s %10s %10s %10s %10s %10s %9s\n' "segment" "requests/s" "p50" "p99" "non-2xx" "RSS" "pending" "database"
printf '%-10s %12s %10s %10s %10s %10s %10s %9s\n' "start" "" "" "" "" "$(rss)" "$(pending)" "$(size)"
for segment in $(seq 1 "$SEGMENTS"); do
    out="$WORK/soak-$segment.txt"
    CODES=$CODES wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SEGMENT}s" --latency -s "$ROOT/Benchmarks/soak.lua" \
        "http://127.0.0.1:$RELINK_PORT" > "$out"
    printf '%-10s %12s %10s %10s %10s %10s %10s %9s\n' "$(( (segment - 1) * SEGMENT ))-$(( segment * SEGMENT ))s" \
        "$(awk '/Requests\/sec/ {print $2}' "$out")" "$(awk '$1 == "50%" {print $2}' "$out")" "$(awk '$1 == "99%" {print $2}' "$out")" \
        "$(awk '/Non-2xx or 3xx/ {print $5}' "$out" | grep . || echo 0)" "$(rss)" "$(pending)" "$(size)"
done
# What the non-2xx/3xx answers were: the claim limit's 429s are expected (one address claiming 5% of its traffic).
curl -s -H "Host: go.pictlink.com" "http://127.0.0.1:$RELINK_PORT/healthz" >/dev/null
