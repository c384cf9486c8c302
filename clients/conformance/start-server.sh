#!/usr/bin/env bash
# Starts `relink serve` for the client conformance suites: this folder's routes.json, a temporary database, a free
# loopback port, forwarded headers trusted from loopback (the suites' fault proxies say which address a device
# has), and links.json's short links minted; and the stand-in email service (email-service.py) as the upstream of
# the click-tracking host, which is on loopback and so allowed by --fetch-allow-networks. Prints
# `http://127.0.0.1:<port> <pid> <email service URL> <API key>` once /healthz answers, then waits; SIGTERM (or the
# server's exit, or the end of whoever started the script) stops the server and the email service and removes the
# database. Killed itself with SIGKILL, no trap runs: on Linux the two get SIGTERM from the kernel then (setpriv's
# parent-death signal), so a test runner killed on a timeout leaves neither behind.
#
#   clients/conformance/start-server.sh [relink binary]    (default: .build/debug/relink of the checkout)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
relink="${1:-$here/../../.build/debug/relink}"
[ -x "$relink" ] || { echo "start-server.sh: no relink binary at $relink (swift build --product relink)" >&2; exit 1; }

work="$(mktemp -d)"
server=""
email=""
cleanup() {
    for process in $server $email; do kill "$process" 2>/dev/null || true; wait "$process" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 0' TERM INT HUP
parent=$PPID
# The script's own children only (bash runs a background command in a child of its own): SIGTERM when it dies.
orphaned=()
if command -v setpriv >/dev/null 2>&1 && setpriv --pdeathsig TERM -- true 2>/dev/null; then orphaned=(setpriv --pdeathsig TERM --); fi

${orphaned[@]+"${orphaned[@]}"} python3 "$here/email-service.py" >"$work/email-service.url" &
email=$!
for _ in $(seq 1 50); do [ -s "$work/email-service.url" ] && break; sleep 0.1; done
email_service="$(head -n 1 "$work/email-service.url")"
[ -n "$email_service" ] || { echo "start-server.sh: the stand-in email service did not start" >&2; exit 1; }
sed "s|{{emailService}}|$email_service|g" "$here/routes.json" >"$work/routes.json"

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
database="$work/relink.sqlite"
key="$("$relink" keys create --project conformance --name conformance --config "$work/routes.json" --db "$database" 2>/dev/null)"
${orphaned[@]+"${orphaned[@]}"} "$relink" serve --config "$work/routes.json" --db "$database" --host 127.0.0.1 --port "$port" \
    --trust-forwarded-headers --forwarded-header forwarded --fetch-allow-networks 127.0.0.1/32 --log-level error >"$work/serve.log" 2>&1 &
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

echo "$base $server $email_service $key"
# Until the server exits, or whoever started the script has ended (then the script has another parent).
while kill -0 "$server" 2>/dev/null; do
    [ "$(ps -o ppid= -p $$ | tr -d ' ')" = "$parent" ] || exit 0
    sleep 1 >/dev/null 2>&1 &
    wait $! || true
done
wait "$server"
