#!/usr/bin/env bash
# Checks Scripts/release/relink.service with `systemd-analyze verify`: the unit as installed, with a relink binary
# at the path it names (a stand-in when none is installed: verify checks that ExecStart's file exists).
#   check-unit.sh [UNIT [BINARY]]   another unit file (a tarball's), and the binary to check it with
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
unit="${1:-$here/relink.service}"
binary="${2:-}"
if ! command -v systemd-analyze >/dev/null; then
    sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends systemd >/dev/null
fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/etc/systemd/system" "$root/usr/local/bin"
cp "$unit" "$root/etc/systemd/system/relink.service"
if [ -n "$binary" ] || [ ! -x /usr/local/bin/relink ]; then
    if [ -n "$binary" ]; then cp "$binary" "$root/usr/local/bin/relink"; else printf '#!/bin/sh\n' > "$root/usr/local/bin/relink"; fi
    chmod +x "$root/usr/local/bin/relink"
    # verify resolves ExecStart on the host: point it at the stand-in.
    sed -i "s|ExecStart=/usr/local/bin/relink|ExecStart=$root/usr/local/bin/relink|" "$root/etc/systemd/system/relink.service"
fi
output=$(systemd-analyze verify --man=no "$root/etc/systemd/system/relink.service" 2>&1) || { echo "$output" >&2; exit 1; }
# verify exits 0 on some warnings: any line naming the unit is a finding.
if echo "$output" | grep -q "relink.service"; then echo "$output" >&2; exit 1; fi
echo "systemd-analyze verify: relink.service is clean"
