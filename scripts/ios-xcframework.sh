#!/usr/bin/env bash
# Builds libp2b for iOS devices (arm64) and the simulator (arm64 + x86_64)
# with toolchains/ios.cmake, and packages both as CP2B.xcframework: one static
# library per platform, p2b.h and the module map that makes `import CP2B` work
# in Swift (docs/mobile.md).
#
# UNTESTED on the development machine: it needs macOS with Xcode (xcodebuild,
# libtool), CMake >= 3.25 and Eigen (its CMake package, or P2B_EIGEN_DIR=<dir
# holding Eigen/Core>).
#
#   SODIUM_INCLUDE_DIR=<dir with sodium.h> \
#   SODIUM_IOS_LIBRARY=<libsodium.a for iphoneos> \
#   SODIUM_SIM_LIBRARY=<libsodium.a for iphonesimulator, arm64 + x86_64> \
#     scripts/ios-xcframework.sh [out-dir]          (default: out/ios)
#
# libsodium's own dist-build/apple-xcframework.sh makes those libraries. The
# app links libsodium itself; it is not merged into CP2B.xcframework, so an app
# that already ships libsodium does not get two copies. With P2B_PORT=none no
# libsodium is needed and the app supplies p2b_config.random and .crypto.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/out/ios}
port=${P2B_PORT:-posix}

build() {
  local platform=$1 sodium_lib=$2 dir=$out/build-$1
  local args=(-DCMAKE_TOOLCHAIN_FILE="$root/toolchains/ios.cmake" -DP2B_IOS_PLATFORM="$platform"
              -DCMAKE_BUILD_TYPE=Release -DP2B_PORT="$port"
              -DP2B_BUILD_TESTS=OFF -DP2B_BUILD_BENCH=OFF -DP2B_BUILD_TOOLS=OFF)
  if [[ $port == posix ]]; then
    args+=(-DSODIUM_INCLUDE_DIR="$SODIUM_INCLUDE_DIR" -DSODIUM_LIBRARY="$sodium_lib")
  fi
  if [[ -n ${P2B_EIGEN_DIR:-} ]]; then
    args+=(-DP2B_EIGEN_DIR="$P2B_EIGEN_DIR")
  fi
  cmake -S "$root" -B "$dir" "${args[@]}"
  # Only the static libraries: `all` would also link p2b_shared and the
  # examples, which iOS does not want.
  # libp2b.a is the whole device library (C API, core, port, nanopb).
  cmake --build "$dir" --config Release --target p2b
  cp "$dir/libp2b.a" "$dir/libp2b-ios.a"
}

if [[ $port == posix ]]; then
  : "${SODIUM_INCLUDE_DIR:?set SODIUM_INCLUDE_DIR (or P2B_PORT=none)}"
  : "${SODIUM_IOS_LIBRARY:?set SODIUM_IOS_LIBRARY (or P2B_PORT=none)}"
  : "${SODIUM_SIM_LIBRARY:?set SODIUM_SIM_LIBRARY (or P2B_PORT=none)}"
fi

build OS "${SODIUM_IOS_LIBRARY:-}"
build SIMULATOR "${SODIUM_SIM_LIBRARY:-}"

headers=$out/include
rm -rf "$headers" "$out/CP2B.xcframework"
mkdir -p "$headers"
# p2b.h includes the other headers of c_api (one per protocol, the limits).
cp "$root"/c_api/p2b*.h "$root/ports/ios/module.modulemap" "$headers/"

xcodebuild -create-xcframework \
  -library "$out/build-OS/libp2b-ios.a" -headers "$headers" \
  -library "$out/build-SIMULATOR/libp2b-ios.a" -headers "$headers" \
  -output "$out/CP2B.xcframework"
echo "wrote $out/CP2B.xcframework"
