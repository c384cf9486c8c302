#!/usr/bin/env bash
# Builds and tests the Android client library on the JVM, with Debian's org.json (Android's own) and JUnit 5:
#   1. the main sources compiled with --release 7: only Java 7's library, which is what Android API 21 has;
#   2. the library jar, build/relink-android.jar, compiled with --release 8;
#   3. the tests (conformance scenarios against a live server, unit tests, the docs' example) on the console launcher.
# The server binary comes from env RELINK_BINARY (default: <repo>/.build/debug/relink).
#
#   clients/android/test.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
json=/usr/share/java/com.android.json.jar
junit=/usr/share/java/junit-platform-console-standalone.jar
build="$here/build"
rm -rf "$build"
mkdir -p "$build/api21" "$build/classes" "$build/test-classes"
main=$(find "$here/src/main/java" -name '*.java' | sort)
tests=$(find "$here/src/test/java" -name '*.java' | sort)

# Android API 21 has no java.nio.file (API 26); --release 7 would catch it too, the grep says why plainly.
if grep -n 'java\.nio\.file' $main; then
    echo "test.sh: the library uses java.nio.file, which Android API 21 does not have" >&2
    exit 1
fi
javac --release 7 -Xlint:all -Xlint:-options -Werror -cp "$json" -d "$build/api21" $main
javac --release 8 -Xlint:all -Werror -cp "$json" -d "$build/classes" $main
jar --create --file "$build/relink-android.jar" -C "$build/classes" .

javac --release 17 -Xlint:all -Xlint:-serial -cp "$build/classes:$json:$junit" -d "$build/test-classes" $tests
java -Drelink.repo="$repo" -jar "$junit" --disable-banner --details=tree --fail-if-no-tests \
    --class-path "$build/test-classes:$build/classes:$json" --select-package dev.relink
