#!/usr/bin/env bash
# Cross-builds p2b for ARM Linux and runs the whole ctest suite under qemu-user.
#
#   bash scripts/cross-test.sh aarch64|armhf [build-dir]
#
# build-dir defaults to build-<arch> in the repository root. The packages come
# from scripts/setup.sh; this script installs nothing.
#
# Environment:
#   BUILD_TYPE  CMAKE_BUILD_TYPE (default: Debug, as in the host suite)
#   JOBS        parallel build jobs and ctest jobs (default: 2)
#   CMAKE_ARGS  extra arguments for the configure step (word-split)
#   CTEST_ARGS  extra arguments for ctest (word-split), e.g. "-R numerics"
set -euo pipefail

usage() { echo "usage: bash scripts/cross-test.sh aarch64|armhf [build-dir]" >&2; exit 2; }
if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
arch=$1
case "$arch" in
  aarch64|arm64) arch=aarch64; triple="aarch64-linux-gnu"; qemu="qemu-aarch64"; deb=arm64 ;;
  armhf|arm)     arch=armhf;   triple="arm-linux-gnueabihf"; qemu="qemu-arm"; deb=armhf ;;
  *) usage ;;
esac
toolchain="$repo/toolchains/$triple.cmake"
build=${2:-"$repo/build-$arch"}
jobs=${JOBS:-2}
build_type=${BUILD_TYPE:-Debug}

# Fail early, with a pointer to setup.sh, when a tool is missing.
missing=()
for tool in cmake ninja ctest "$triple-gcc" "$triple-g++" "$qemu"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[ -e "/usr/lib/$triple/libsodium.so" ] || missing+=("libsodium-dev:$deb")
if [ ${#missing[@]} -ne 0 ]; then
  echo "cross-test: missing ${missing[*]}; run scripts/setup.sh first" >&2
  exit 1
fi

# shellcheck source=lib/checked_build_dir.sh
source "$repo/scripts/lib/checked_build_dir.sh"
build=$(checked_build_dir cross-test "$build" "$toolchain")

t0=$(date +%s)
step() { echo "== cross-test [$arch] $*"; }

step "configure -> $build"
# shellcheck disable=SC2086  # CMAKE_ARGS is a word list on purpose
cmake -S "$repo" -B "$build" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
  -DCMAKE_BUILD_TYPE="$build_type" \
  ${CMAKE_ARGS:-}
t1=$(date +%s)

step "build (ninja -j$jobs)"
ninja -C "$build" -j"$jobs"
t2=$(date +%s)

step "test (ctest under $qemu)"
rc=0
# shellcheck disable=SC2086
(cd "$build" && ctest --output-on-failure --no-tests=error -j"$jobs" ${CTEST_ARGS:-}) || rc=$?
t3=$(date +%s)

echo "== cross-test [$arch] configure $((t1 - t0))s, build $((t2 - t1))s, test $((t3 - t2))s, total $((t3 - t0))s"
if [ "$rc" -ne 0 ]; then
  echo "== cross-test [$arch] FAILED (ctest exit $rc)" >&2
  exit "$rc"
fi
echo "== cross-test [$arch] OK"
