#!/usr/bin/env bash
# The JavaScript client's checks: relink.d.ts against a use of the API and the doc's example (Debian's tsc), then
# the unit, conformance and doc-example tests (node --test, Node 20). The conformance and doc tests start
# `relink serve` through clients/conformance/start-server.sh, with the binary in RELINK_BINARY (default: the
# checkout's .build/debug/relink). Exits non-zero when anything fails.
set -euo pipefail
cd "$(dirname "$0")"

command -v tsc >/dev/null || { echo "test.sh: no tsc (Debian: apt install node-typescript)" >&2; exit 1; }
typescript=(--noEmit --strict --target es2020 --module node16 --moduleResolution node16 --lib es2020,dom)
echo "tsc $(tsc --version): test/types-check.ts, examples/first-launch.mjs"
tsc "${typescript[@]}" test/types-check.ts
tsc "${typescript[@]}" --allowJs --checkJs examples/first-launch.mjs

node --test test/*.test.mjs
