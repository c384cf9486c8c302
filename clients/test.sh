#!/usr/bin/env bash
# The Android (Java) and JavaScript clients' suites, each with its unit tests, the conformance scenarios
# (clients/conformance) and its doc's example, against `relink serve` built from this checkout. For people who only
# touch a client; .ci/run runs it too, beside `swift test` (which runs the same scenarios with the Swift client).
#
#   bash clients/test.sh [relink binary]    (default: builds .build/debug/relink)
#
# Installs what it needs from Debian's packages when missing: a JDK 17, JUnit 5, Android's org.json, Node.js and
# TypeScript. Exits non-zero when either suite fails.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v javac >/dev/null || missing+=(openjdk-17-jdk-headless)
[ -e /usr/share/java/junit-platform-console-standalone.jar ] || missing+=(junit5)
[ -e /usr/share/java/com.android.json.jar ] || missing+=(libandroid-json-java)
command -v node >/dev/null || missing+=(nodejs)
command -v tsc >/dev/null || missing+=(node-typescript)
command -v curl >/dev/null || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]} ..."
    sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ $# -ge 1 ]; then
    relink="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
else
    swift build --product relink
    relink="$PWD/.build/debug/relink"
fi
export RELINK_BINARY="$relink"

status=0
echo "== clients/android (Java $(javac -version 2>&1 | cut -d' ' -f2))"
bash clients/android/test.sh || status=1
echo "== clients/js (Node $(node --version))"
bash clients/js/test.sh || status=1
[ "$status" = 0 ] && echo "clients/test.sh: both suites passed" || echo "clients/test.sh: a suite failed" >&2
exit "$status"
