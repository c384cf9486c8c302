#!/usr/bin/env bash
# The release tarball on a bare Debian 12, installed the way its INSTALL says and nothing more.
#
#   Scripts/test-release.sh [TARBALL]     (default: build one with Scripts/release.sh)
#
# Makes a minimal root with debootstrap (kept in .build-release/debian-12-minbase, copied fresh for each run), then
# runs INSTALL's commands in it, word for word and in order: each step below must appear in INSTALL as a line of its
# own, so the text and this test cannot drift apart. systemd does not run in a chroot: its unit is installed as
# INSTALL says and checked with `systemd-analyze verify` against the tarball's binary instead of being started; the
# service runs the "without systemd" way. Checks: `relink --version` names the release, /healthz answers 200, a
# minted short link redirects, and SIGTERM stops it with its last log line. Needs root (debootstrap, chroot).
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${WORK:-$REPO/.build-release}"
# debootstrap, chroot and namespaces need root: through sudo when there is one.
if [ "$(id -u)" != 0 ]; then
    command -v sudo > /dev/null || { echo "test-release: needs root (debootstrap, chroot), and there is no sudo" >&2; exit 1; }
    exec sudo --preserve-env=CONFIGURATION,WORK,OUT,SCRATCH "$0" "$@"
fi
for tool in debootstrap unshare chroot ip; do
    command -v "$tool" > /dev/null && continue
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap iproute2 util-linux > /dev/null
    break
done

TARBALL="${1:-$("$REPO/Scripts/release.sh" | tail -1)}"
NAME="$(basename "$TARBALL" .tar.gz)"
VERSION="${NAME#relink-}"
VERSION="${VERSION%-linux-*}"

# A bare Debian 12 (minbase: apt, coreutils, util-linux and little else), made once.
PRISTINE="$WORK/debian-12-minbase"
if [ ! -f "$PRISTINE/.complete" ]; then
    rm -rf "$PRISTINE"
    mkdir -p "$WORK"
    echo "test-release: debootstrap --variant=minbase bookworm (about a minute)" >&2
    debootstrap --variant=minbase bookworm "$PRISTINE" http://deb.debian.org/debian > "$WORK/debootstrap.log" 2>&1 \
        || { tail -20 "$WORK/debootstrap.log" >&2; exit 1; }
    touch "$PRISTINE/.complete"
fi
SYSTEM="$(mktemp -d "$WORK/test-root.XXXXXX")"
trap '[ -n "${KEEP_ROOT:-}" ] || rm -rf "$SYSTEM"' EXIT
cp -a "$PRISTINE/." "$SYSTEM/"
rm -f "$SYSTEM/.complete"
cp "$TARBALL" "$SYSTEM/root/"
cp /etc/resolv.conf "$SYSTEM/etc/resolv.conf"
tar xzf "$TARBALL" -C "$WORK" "$NAME/INSTALL"
INSTALL="$WORK/$NAME/INSTALL"

# INSTALL's steps, in its order. "network" ones run with the host's network (apt), the rest on a loopback of their
# own (port 8080 may be taken here); "check" ones are run until they succeed (a service takes a moment to start);
# "skip" ones need a running systemd.
STEPS=(
    "network|tar xzf $NAME.tar.gz && cd $NAME"
    "network|apt-get update && apt-get install -y libsqlite3-0 libxml2 libcurl4 ca-certificates curl"
    "run|install -m 0755 bin/relink /usr/local/bin/relink"
    "version|relink --version"
    "run|useradd --system --user-group --home-dir /var/lib/relink --shell /usr/sbin/nologin relink"
    "run|install -d -m 0750 -o relink -g relink /var/lib/relink"
    "run|install -d -m 0755 /etc/relink"
    "run|install -m 0644 routes.json /etc/relink/routes.json"
    "run|relink config check /etc/relink/routes.json"
    "run|(umask 077 && head -c 32 /dev/urandom | base64 > /etc/relink/secret)"
    "run|install -m 0644 relink.service /etc/systemd/system/relink.service"
    "skip|systemctl daemon-reload"
    "skip|systemctl enable --now relink"
    "skip|systemctl status relink"
    "run|install -d -m 0700 -o relink -g relink /run/relink"
    "run|install -m 0400 -o relink -g relink /etc/relink/secret /run/relink/secret"
    "serve|runuser -u relink -- env RELINK_CONFIG=/etc/relink/routes.json RELINK_DB=/var/lib/relink/relink.sqlite relink serve --secret-file /run/relink/secret &"
    "check|curl -s http://127.0.0.1:8080/healthz"
    "key|runuser -u relink -- relink keys create --project pictlink --config /etc/relink/routes.json --db /var/lib/relink/relink.sqlite"
    "mint|curl -s -X POST 'http://127.0.0.1:8080/v1/shortLinks?key=KEY' -H 'Content-Type: application/json' -d '{\"longDynamicLink\": \"https://go.pictlink.com/?link=https://pictlink.com/welcome\"}'"
    "redirect|curl -s -o /dev/null -w '%{http_code} %{redirect_url}\n' -A 'Mozilla/5.0 (X11; Linux x86_64)' -H 'Host: go.pictlink.com' http://127.0.0.1:8080/CODE"
)
for step in "${STEPS[@]}"; do
    command="${step#*|}"
    grep -qxF -- "  $command" "$INSTALL" || grep -qF -- "$command" "$INSTALL" \
        || { echo "test-release: INSTALL no longer says: $command" >&2; exit 1; }
done

# The steps as two scripts for the chroot (with the network, then without), each step echoed first.
PREAMBLE='set -euo pipefail
export DEBIAN_FRONTEND=noninteractive PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
cd /root'
echo "$PREAMBLE" > "$SYSTEM/root/online.sh"
{ echo "$PREAMBLE"; echo "cd $NAME"; } > "$SYSTEM/root/offline.sh"
for step in "${STEPS[@]}"; do
    kind="${step%%|*}"
    command="${step#*|}"
    script="$SYSTEM/root/offline.sh"
    [ "$kind" = network ] && script="$SYSTEM/root/online.sh"
    {
        printf 'echo %q\n' "# $command"
        case "$kind" in
            network | run) echo "$command" ;;
            skip) echo 'echo "(skipped: no systemd in a chroot; the unit is checked with systemd-analyze verify)"' ;;
            version) echo "test \"\$($command)\" = $(printf %q "$VERSION") || { echo \"relink --version: \$($command), not $VERSION\"; exit 1; }" ;;
            serve) echo "${command%&} > /root/serve.log 2>&1 & SERVER=\$!" ;;
            check) echo "for i in \$(seq 150); do $command > /root/healthz 2>/dev/null && break; sleep 0.2; done; cat /root/healthz; echo" ;;
            key) echo "KEY=\$($command)" ;;
            mint)
                # KEY stands inside single quotes: the key goes between two of them.
                mint="$(printf '%s' "$command" | sed "s/key=KEY'/key='\"\$KEY\"''/")"
                echo "ANSWER=\$($mint); echo \"\$ANSWER\""
                echo "CODE=\$(echo \"\$ANSWER\" | grep -o '\"shortLink\":\"https://go.pictlink.com/[A-Za-z0-9]*' | sed 's|.*/||')"
                echo "test -n \"\$CODE\" || { echo 'no short link minted'; exit 1; }" ;;
            redirect)
                echo "HEAD=\$(${command/CODE/\$CODE}); echo \"\$HEAD\""
                echo "case \"\$HEAD\" in '302 https://pictlink.com/'*) ;; *) echo 'the short link does not redirect'; exit 1 ;; esac" ;;
        esac
    } >> "$script"
done
cat >> "$SYSTEM/root/offline.sh" << 'EOF_STOP'
echo "# kill -TERM (the stop)"
kill -TERM $SERVER
wait $SERVER || true  # runuser passes the signal on, then ends by it
grep -q "stopped in .*nothing left unwritten" /root/serve.log || { cat /root/serve.log; exit 1; }
grep "stopped in" /root/serve.log
EOF_STOP

# A mount namespace (the root's /proc and /dev go with it) and a PID namespace (nothing it starts outlives it).
echo "test-release: installing $NAME on a bare Debian 12 as INSTALL says" >&2
unshare --mount --pid --fork bash -euo pipefail -c '
    system="$1"
    mount -t proc proc "$system/proc"
    mount --rbind /dev "$system/dev"
    chroot "$system" /bin/bash /root/online.sh
    unshare --net bash -euo pipefail -c "ip link set lo up && chroot \"$system\" /bin/bash /root/offline.sh"
' test-release "$SYSTEM"

# The unit INSTALL put in place, against the tarball's binary.
"$REPO/Scripts/release/check-unit.sh" "$SYSTEM/etc/systemd/system/relink.service" "$SYSTEM/usr/local/bin/relink"
echo "test-release: $NAME installed from INSTALL on a bare Debian 12: --version $VERSION, /healthz 200, a short link redirects, the unit verifies"
