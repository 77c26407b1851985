#!/usr/bin/env bash
# The Swift package (Package.swift, bindings/swift/), compiled and tested on
# Linux against the C library as an app would find it: installs a build
# tree (default build-host, configured with the `host` preset if missing)
# into a temporary prefix, points pkg-config at its p2b.pc, writes the
# binding fixture (keys, codebook, signed bundles and key lists, from
# tests/binding_fixture.cpp) and runs `swift build` and `swift test`. Fails
# when the toolchain is missing, when a test fails, and when fewer tests ran
# than the package declares (a discovery that silently found none).
#
#   bash scripts/swift-test.sh [BUILD_DIR]
#
# SwiftPM's own build lives in build-swift/ (reused). SWIFT names the
# toolchain's driver (default: `swift` on PATH, else /opt/swift/usr/bin/swift).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
build=${1:-build-host}
jobs=${JOBS:-2}

fail() {
  echo "swift-test: FAIL: $*" >&2
  exit 1
}

swift=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
[ -x "$swift" ] || fail "no Swift toolchain (looked for swift on PATH and /opt/swift); set SWIFT"
"$swift" --version 2>&1 | head -1

[ -f "$build/CMakeCache.txt" ] || cmake --preset host >/dev/null
cmake --build "$build" -j "$jobs" --target p2b-installable p2b_binding_fixture
work=$(mktemp -d "${TMPDIR:-/tmp}/p2b-swift.XXXXXX")
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
pc=$(find "$work/prefix" -name p2b.pc -print -quit)
[ -n "$pc" ] || fail "p2b.pc not installed"
libdir=$(dirname "$(dirname "$pc")")
export PKG_CONFIG_PATH=$libdir/pkgconfig
echo "swift-test: p2b $(pkg-config --modversion p2b) from $libdir"

mkdir -p "$work/fixture"
"$build/tests/p2b_binding_fixture" "$work/fixture"

# The module map links -lp2b, which the linker resolves to libp2b.so in the
# prefix; the rpath lets the test binary load it from there.
flags=(--scratch-path "$repo/build-swift" -j "$jobs" -Xlinker -rpath -Xlinker "$libdir")
"$swift" build "${flags[@]}"
declared=$(grep -ohE '^\s*func test[A-Za-z0-9_]+\(' bindings/swift/Tests/P2BTests/*.swift | wc -l)
P2B_BINDING_FIXTURE=$work/fixture "$swift" test "${flags[@]}" 2>&1 | tee "$work/test.log"
ran=$(sed -nE 's/.*Executed ([0-9]+) tests?, with 0 failures.*/\1/p' "$work/test.log" | tail -1)
[ -n "$ran" ] || fail "swift test reported no passing run"
[ "$ran" -eq "$declared" ] || fail "$ran tests ran, $declared declared"
grep -q 'skipped' "$work/test.log" && grep -qE 'with [1-9][0-9]* tests? skipped' "$work/test.log" &&
  fail "tests were skipped"
echo "swift-test: $ran XCTest cases passed"
