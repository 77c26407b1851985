#!/usr/bin/env bash
# Cross-builds p2b for a bare-metal Cortex-M4F (toolchains/cortex-m4.cmake),
# prints the target sizes, and runs the test image under qemu-system-arm's
# mps2-an386 with semihosting; fails unless the image reports PASS. It then
# runs the malloc-trap image and fails unless the trap fires. docs/ports.md.
#
#   bash scripts/cortex-m-test.sh [build-dir]
#
# build-dir defaults to build-cortex-m4 in the repository root. Packages and
# the libsodium source (.deps/libsodium-*) come from scripts/setup.sh; this
# script installs nothing. Eigen is the host's (scripts/lib/eigen.sh), given
# to the build as P2B_EIGEN_DIR.
#
# Environment:
#   BUILD_TYPE  CMAKE_BUILD_TYPE (default: MinSizeRel, what a device ships)
#   JOBS        parallel build jobs (default: 2)
#   TIMEOUT     seconds each qemu run may take (default: 120)
#   CMAKE_ARGS  extra arguments for the configure step (word-split)
set -euo pipefail

if [ $# -gt 1 ]; then echo "usage: bash scripts/cortex-m-test.sh [build-dir]" >&2; exit 2; fi
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
toolchain="$repo/toolchains/cortex-m4.cmake"
build=${1:-"$repo/build-cortex-m4"}
jobs=${JOBS:-2}
build_type=${BUILD_TYPE:-MinSizeRel}
timeout_s=${TIMEOUT:-120}

# Fail early, with a pointer to setup.sh, when a tool or a source is missing.
missing=()
for tool in cmake ninja arm-none-eabi-gcc arm-none-eabi-g++ arm-none-eabi-size qemu-system-arm; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
multilib=/usr/lib/arm-none-eabi/newlib/thumb/v7e-m+fp/hard
[ -e "$multilib/libc_nano.a" ] || missing+=("libnewlib-arm-none-eabi")
[ -e "$multilib/libstdc++_nano.a" ] || missing+=("libstdc++-arm-none-eabi-newlib")
compgen -G "$repo/.deps/libsodium-*/src/libsodium/crypto_box/crypto_box_seal.c" >/dev/null ||
  missing+=("libsodium source in .deps/")
# shellcheck source=lib/eigen.sh
source "$repo/scripts/lib/eigen.sh"
eigen=$(eigen_include_dir 2>/dev/null) || missing+=("Eigen (libeigen3-dev)")
if [ ${#missing[@]} -ne 0 ]; then
  echo "cortex-m-test: missing ${missing[*]}; run scripts/setup.sh first" >&2
  exit 1
fi

# shellcheck source=lib/checked_build_dir.sh
source "$repo/scripts/lib/checked_build_dir.sh"
build=$(checked_build_dir cortex-m-test "$build" "$toolchain")

step() { echo "== cortex-m-test $*"; }

step "configure -> $build ($build_type)"
# shellcheck disable=SC2086  # CMAKE_ARGS is a word list on purpose
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
  -DCMAKE_BUILD_TYPE="$build_type" -DP2B_EIGEN_DIR="$eigen" ${CMAKE_ARGS:-} >/dev/null

step "build (ninja -j$jobs)"
ninja -C "$build" -j"$jobs"

images="$build/ports/cortex-m"
step "sizes for cortex-m4 ($build_type; archives before --gc-sections, in bytes)"
# libp2b is the whole device library (the four parts after it, plus the C API).
for lib in libp2b.a libp2b_core.a ports/cortex-m/libp2b_port.a libp2b_proto.a libp2b_nanopb.a \
           ports/cortex-m/libp2b_cortex_m_board.a ports/cortex-m/libp2b_sodium.a; do
  arm-none-eabi-size -t "$build/$lib" | tail -n 1 |
    awk -v name="$(basename "$lib" .a)" '{printf "  %-22s text %7d  data %5d  bss %5d\n", name, $1, $2, $3}'
done
echo "  test image (linked, everything above that it uses, plus newlib):"
arm-none-eabi-size "$images/p2b_cortex_m_test.elf" | sed 's/^/    /'

# Runs one image; its semihosting exit status becomes ours.
run_image() {
  timeout "$timeout_s" qemu-system-arm -machine mps2-an386 -nographic \
    -semihosting-config enable=on,target=native -kernel "$1"
}

step "run the test image under qemu-system-arm -machine mps2-an386"
log="$build/cortex-m-test.log"
rc=0
run_image "$images/p2b_cortex_m_test.elf" 2>&1 | tee "$log" || rc=${PIPESTATUS[0]}
[ "$rc" -eq 124 ] && echo "cortex-m-test: qemu timed out after ${timeout_s}s" >&2
if [ "$rc" -ne 0 ] || ! grep -qx "p2b cortex-m4: PASS" "$log"; then
  echo "== cortex-m-test FAILED (qemu exit $rc)" >&2
  exit 1
fi

step "run the malloc-trap image (must trap)"
trap_log="$build/cortex-m-malloc-trap.log"
rc=0
run_image "$images/p2b_cortex_m_malloc_demo.elf" 2>&1 | tee "$trap_log" || rc=${PIPESTATUS[0]}
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] ||
   ! grep -q "FATAL: malloc called" "$trap_log"; then
  echo "== cortex-m-test FAILED: the malloc trap did not fire (qemu exit $rc)" >&2
  exit 1
fi
echo "(trapped as intended, qemu exit $rc)"
echo "== cortex-m-test OK"
