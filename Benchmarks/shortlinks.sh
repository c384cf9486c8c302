#!/usr/bin/env bash
# Short links: redirect throughput with click recording on, next to nginx's static 302 in the same run (a desktop
# click: redirect and events; an Android click: also the pending click kept for deferred deep linking); then a
# check that no click was lost (the server is stopped gracefully and the stored CLICK counter compared with what
# it served); then minting throughput (POST /v1/shortLinks, every request a new link).
#
#   Benchmarks/shortlinks.sh
#   DURATION=30 Benchmarks/shortlinks.sh
source "$(dirname "$0")/lib.sh"

RELINK_PORT=18482
NGINX_PORT=18483
DB="$WORK/bench.sqlite"

build_release
need sqlite3 sqlite3
# The example configuration, with a minting rate limit the benchmark will not hit.
python3 - "$ROOT/routes.json" "$WORK/routes.json" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
for project in config["projects"]:
    project["rateLimit"] = {"requestsPerSecond": 1000000, "burst": 1000000}
json.dump(config, open(sys.argv[2], "w"))
PY
KEY=$("$RELINK" keys create --project pictlink --config "$WORK/routes.json" --db "$DB" 2>/dev/null)

start_relink() {
    "$RELINK" serve $(keep_every_click "$RELINK") --config "$WORK/routes.json" --db "$DB" --port "$RELINK_PORT" --log-level info 2> "$WORK/relink.log" &
    RELINK_PID=$!
    PIDS+=("$RELINK_PID")
    wait_for "http://127.0.0.1:$RELINK_PORT/healthz"
}

start_nginx "$NGINX_PORT"
start_relink
SHORT=$("$RELINK" mint --server "http://127.0.0.1:$RELINK_PORT" --key "$KEY" --suffix short \
    "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fspring&apn=jp.furyu.pictlink.android&utm_source=bench")
CODE=${SHORT##*/}
LINK_ID=$(sqlite3 "$DB" "SELECT id FROM links WHERE code = '$CODE'")
curl -s -o /dev/null -w '%{http_code}' -H "Host: go.pictlink.com" -A "$ANDROID" "http://127.0.0.1:$RELINK_PORT/$CODE" | grep -q 302

echo "measuring (${DURATION}s each, $CONNECTIONS connections, $THREADS wrk threads, $(nproc) cores) ..." >&2
measure "nginx static 302" "http://127.0.0.1:$NGINX_PORT/$CODE" "User-Agent: $ANDROID"
measure "relink short link, desktop (+events)" "http://127.0.0.1:$RELINK_PORT/$CODE" "Host: go.pictlink.com" "User-Agent: $DESKTOP"
SERVED_BY_WRK=$(awk '/requests in/ {print $1}' "$(ls -t "$WORK"/wrk-*.txt | head -1)")
measure "relink short link, Android (+deferred)" "http://127.0.0.1:$RELINK_PORT/$CODE" "Host: go.pictlink.com" "User-Agent: $ANDROID"
SERVED_BY_WRK=$((SERVED_BY_WRK + $(awk '/requests in/ {print $1}' "$(ls -t "$WORK"/wrk-*.txt | head -1)")))

# No event lost: stop gracefully (the last buffered events are written on shutdown) and count what is stored.
kill -TERM "$RELINK_PID"
wait "$RELINK_PID" 2>/dev/null || true
STORED=$(sqlite3 "$DB" "SELECT COALESCE(SUM(count), 0) FROM event_counters WHERE link_id = $LINK_ID AND event = 'CLICK'")
RECORDED=$(grep -o "events written: [0-9]* of [0-9]* recorded" "$WORK/relink.log" | tail -1 || true)

# Minting: every request a new long link.
start_relink
cat > "$WORK/mint.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local counter = 0
request = function()
  counter = counter + 1
  local body = string.format('{"longDynamicLink":"https://go.pictlink.com/?link=https%%3A%%2F%%2Fpictlink.com%%2Fbench%%2F%d-%d&apn=jp.furyu.pictlink.android","suffix":{"option":"SHORT"}}', math.random(1, 1000000000), counter)
  return wrk.format(nil, "/v1/shortLinks?key=$KEY", nil, body)
end
LUA
CONNECTIONS_SAVED=$CONNECTIONS
CONNECTIONS=16
measure "relink minting (SHORT, new links)" "http://127.0.0.1:$RELINK_PORT" "--script=$WORK/mint.lua"
CONNECTIONS=$CONNECTIONS_SAVED
MINTED=$(sqlite3 "$DB" "SELECT COUNT(*) FROM links")

report "nginx static 302"
echo
PENDING=$(sqlite3 "$DB" "SELECT COUNT(*) FROM pending_clicks")
echo "clicks: wrk completed $SERVED_BY_WRK requests; $STORED CLICK events stored for the link (1 more from the check before the run); server log: $RECORDED; $PENDING pending clicks kept for deferred links"
echo "links in the database after minting: $MINTED"
