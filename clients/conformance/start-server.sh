#!/usr/bin/env bash
# Starts `relink serve` for the client conformance suites: this folder's routes.json, a temporary database, a free
# loopback port, forwarded headers trusted from loopback (the suites' fault proxies say which address a device
# has), and links.json's short links minted. Prints `http://127.0.0.1:<port> <pid>` once /healthz answers, then
# waits; SIGTERM (or the server's exit) stops the server and removes the database.
#
#   clients/conformance/start-server.sh [relink binary]    (default: .build/debug/relink of the checkout)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
relink="${1:-$here/../../.build/debug/relink}"
[ -x "$relink" ] || { echo "start-server.sh: no relink binary at $relink (swift build --product relink)" >&2; exit 1; }

work="$(mktemp -d)"
server=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 0' TERM INT

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
database="$work/relink.sqlite"
key="$("$relink" keys create --project conformance --name conformance --config "$here/routes.json" --db "$database" 2>/dev/null)"
"$relink" serve --config "$here/routes.json" --db "$database" --host 127.0.0.1 --port "$port" \
    --trust-forwarded-headers --forwarded-header forwarded --log-level error >"$work/serve.log" 2>&1 &
server=$!
base="http://127.0.0.1:$port"
for _ in $(seq 1 150); do
    curl -fsS "$base/healthz" >/dev/null 2>&1 && break
    kill -0 "$server" 2>/dev/null || { cat "$work/serve.log" >&2; echo "start-server.sh: relink serve stopped" >&2; exit 1; }
    sleep 0.2
done
curl -fsS "$base/healthz" >/dev/null || { echo "start-server.sh: relink serve did not answer /healthz" >&2; exit 1; }

python3 -c 'import json, sys
for link in json.load(open(sys.argv[1]))["shortLinks"]: print(link["slug"], link["longLink"])' "$here/links.json" |
    while read -r slug long; do
        "$relink" mint --server "$base" --key "$key" --slug "$slug" "$long" >/dev/null
    done

echo "$base $server"
wait "$server"
