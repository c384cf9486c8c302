#!/usr/bin/env bash
# The API held to its description on a live server: schemathesis generates requests for every operation of
# /v1/openapi.json and runs all its checks (status codes, schemas, headers, 405s, auth, ...); then
# `promtool check metrics` lints /metrics as that traffic left it. Any failure or lint warning fails the script.
#
#   Scripts/check-contract.sh [relink binary]    (default: .build/debug/relink, built when missing)
#
# A temporary database, a key from `relink keys create`, loopback ports picked free; all removed at the end.
# Bounded: a fixed number of examples per operation, generated deterministically, so a run takes about three minutes
# on two cores and tries the same cases each time. RELINK_CONTRACT_EXAMPLES overrides the number of examples.
set -euo pipefail
cd "$(dirname "$0")/.."

# The version this script's options were written for (`-H` for the key, `--checks all`, `--generation-deterministic`).
schemathesis_version=4.3.18
examples="${RELINK_CONTRACT_EXAMPLES:-25}"
relink="${1:-.build/debug/relink}"

if ! command -v promtool >/dev/null; then
    sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends prometheus
fi
if [ "$(python3 -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null)" != "$schemathesis_version" ]; then
    python3 -m pip install --quiet "schemathesis==$schemathesis_version"
fi
[ -x "$relink" ] || swift build --product relink

work="$(mktemp -d)"
server=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# Two ports held open together while they are picked, so they differ.
read -r port metrics_port < <(python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in sockets))')
database="$work/relink.sqlite"

key="$("$relink" keys create --project pictlink --name contract --config routes.json --db "$database" 2>/dev/null)"
"$relink" serve --config routes.json --db "$database" --host 127.0.0.1 --port "$port" \
    --metrics-port "$metrics_port" --log-level critical >"$work/serve.log" 2>&1 &
server=$!
base="http://127.0.0.1:$port"
for _ in $(seq 1 100); do
    curl -fsS "$base/healthz" >/dev/null 2>&1 && break
    kill -0 "$server" 2>/dev/null || { cat "$work/serve.log"; echo "relink serve stopped" >&2; exit 1; }
    sleep 0.2
done

# RELINK_CONTRACT_REPORT=<folder> keeps every request and answer there (a HAR file), to read a failure byte by byte.
report=()
[ -z "${RELINK_CONTRACT_REPORT:-}" ] || report=(--report har --report-dir "$RELINK_CONTRACT_REPORT")
echo "schemathesis $schemathesis_version against $base/v1/openapi.json ($examples examples per operation)"
status=0
# The key is sent both ways the API takes it, as given, never made up (schemathesis.toml says why); the hooks keep
# header bytes HTTP forbids out, give each connection a loopback address of its own and count a DELETE made anywhere
# in the run for ensure_resource_availability (schemathesis_hooks.py).
(cd "$work" && RELINK_CONTRACT_KEY="$key" PYTHONPATH="$OLDPWD/Scripts" SCHEMATHESIS_HOOKS=schemathesis_hooks \
    schemathesis --config-file "$OLDPWD/Scripts/schemathesis.toml" run "$base/v1/openapi.json" --checks all \
    -H "Authorization: Bearer $key" --generation-with-security-parameters false --max-examples "$examples" \
    --generation-deterministic --request-timeout 10 --workers 1 --no-color --warnings off "${report[@]}") || status=$?

echo "promtool check metrics against /metrics"
curl -fsS "http://127.0.0.1:$metrics_port/metrics" >"$work/metrics.txt"
if ! lint="$(promtool check metrics <"$work/metrics.txt" 2>&1)" || [ -n "$lint" ]; then
    echo "$lint" >&2
    status=1
fi

# The alerting rules and the dashboard (docs/monitoring): the rules valid and their unit tests passing, every
# dashboard query valid PromQL (checked as recording rules, Grafana's variables filled in), and every metric either
# names one of Relink's metric families (`RelinkMetrics.Family`, where each is declared once; a family appears on
# /metrics only once it has a sample).
echo "promtool check rules and test rules (docs/monitoring)"
monitoring="$OLDPWD/docs/monitoring"
promtool check rules "$monitoring/relink-alerts.yml" >/dev/null || status=1
(cd "$monitoring" && promtool test rules relink-alerts-test.yml >/dev/null) || status=1
python3 - "$monitoring" "$OLDPWD/Sources/RelinkServer/Metrics/RelinkMetrics.swift" "$work/dashboard-rules.yml" <<'PY' || status=1
import json, re, sys
monitoring, families, rules = sys.argv[1:4]
served = set(re.findall(r'^\s*case \w+ = "(relink_\w+)"', open(families).read(), re.M))
dashboard = json.load(open(f"{monitoring}/relink-dashboard.json"))
exprs = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
with open(rules, "w") as out:
    out.write("groups:\n  - name: dashboard\n    rules:\n")
    for number, expr in enumerate(exprs):
        filled = expr.replace("$__rate_interval", "5m").replace("$job", ".*").replace("$instance", ".*")
        out.write(f"      - record: dashboard:query{number}\n        expr: {json.dumps(filled)}\n")
used = set()
for text in exprs + [open(f"{monitoring}/relink-alerts.yml").read()]:
    used |= {re.sub(r"_(bucket|sum|count)$", "", name) for name in re.findall(r"relink_\w+", text)}
unknown = sorted(used - served)
if unknown:
    print("the dashboard or the alerts name metrics Relink does not have:", ", ".join(unknown), file=sys.stderr)
    sys.exit(1)
print(f"{len(exprs)} dashboard queries, {len(used)} metrics, all Relink's")
PY
promtool check rules "$work/dashboard-rules.yml" >/dev/null || status=1
exit "$status"
