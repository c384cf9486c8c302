#!/usr/bin/env bash
# Builds the release tarball: dist/relink-<version>-linux-<arch>.tar.gz, holding the relink binary (release build,
# Swift runtime linked in with --static-swift-stdlib), the example routes.json, the hardened systemd unit and
# INSTALL. Prints the tarball's path on its last line.
#
#   Scripts/release.sh                  build and pack
#   OUT=/tmp/dist Scripts/release.sh    elsewhere (default: dist/ in the repository)
#   CONFIGURATION=debug Scripts/release.sh
#                                       the same tarball from a debug build (in .build-release-debug: about 8 minutes
#                                       cold, not the 20 to 28 of a release build): what CI installs on the bare system
#
# Build folder: .build-release (apart from the debug build). Needs libcurl's development link (Foundation's networking
# links it): installed from Debian's packages when missing and run as root.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${OUT:-$ROOT/dist}"
CONFIGURATION="${CONFIGURATION:-release}"
case "$CONFIGURATION" in
    release) SCRATCH="${SCRATCH:-$ROOT/.build-release}" ;;
    # Not .build: objects compiled for a static runtime do not link into the tests' dynamic build, nor the reverse.
    debug) SCRATCH="${SCRATCH:-$ROOT/.build-release-debug}" ;;
    *) echo "release: CONFIGURATION is release or debug, not '$CONFIGURATION'" >&2; exit 1 ;;
esac
ARCH="$(uname -m)"
MULTIARCH="$(gcc -print-multiarch 2>/dev/null || echo "$ARCH-linux-gnu")"

if [ ! -e "/usr/lib/$MULTIARCH/libcurl.so" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
        echo "release: installing libcurl4-openssl-dev (the link to libcurl the static Foundation needs)" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q libcurl4-openssl-dev > /dev/null
    else
        echo "release: /usr/lib/$MULTIARCH/libcurl.so is missing: apt-get install libcurl4-openssl-dev" >&2
        exit 1
    fi
fi

cd "$ROOT"
swift build -c "$CONFIGURATION" --static-swift-stdlib --product relink --scratch-path "$SCRATCH" >&2
BINARY="$SCRATCH/$CONFIGURATION/relink"
VERSION="$("$BINARY" --version)"
[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+([.-][0-9A-Za-z.-]+)?$ ]] || { echo "release: odd version '$VERSION'" >&2; exit 1; }

NAME="relink-$VERSION-linux-$ARCH"
[ "$CONFIGURATION" = release ] || NAME="$NAME-$CONFIGURATION"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/$NAME/bin"
# Debug sections off (about 3/4 of the file); symbols stay, so crash backtraces keep their function names.
objcopy --strip-debug "$BINARY" "$STAGE/$NAME/bin/relink"
cp routes.json Scripts/release/relink.service "$STAGE/$NAME/"
sed "s/@VERSION@/$VERSION/g; s/@NAME@/$NAME/g" Scripts/release/INSTALL > "$STAGE/$NAME/INSTALL"
chmod 0755 "$STAGE/$NAME/bin/relink"
chmod 0644 "$STAGE/$NAME/routes.json" "$STAGE/$NAME/relink.service" "$STAGE/$NAME/INSTALL"

mkdir -p "$OUT"
TARBALL="$OUT/$NAME.tar.gz"
# Files owned by root, dated by the last commit: the same tree packs the same way.
STAMP="$(git -C "$ROOT" log -1 --format=%cI 2> /dev/null || date -u +%FT%TZ)"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="$STAMP" -C "$STAGE" -czf "$TARBALL" "$NAME"
(cd "$OUT" && sha256sum "$NAME.tar.gz" > "$NAME.tar.gz.sha256")
echo "release: $(du -h "$TARBALL" | cut -f1) $(basename "$TARBALL") (relink $VERSION; $(ldd "$BINARY" | grep -c '=>') shared libraries)" >&2
echo "$TARBALL"
