#!/usr/bin/env bash
# Installs p2b into a temporary prefix and builds tests/consumer against it
# the ways an app would: find_package(p2b) (static C, shared C, the C API
# from C++) and pkg-config (shared, and static via --static). The install
# must be the C headers and one library (libp2b.a, libp2b.so), with no C++
# header; libp2b.a must define every p2b and nanopb symbol it uses. Every
# program must build and run; any failure stops the script with a message.
#
#   bash scripts/consumer-test.sh [--release] [build-dir]
#
# build-dir defaults to build-host (configured and built if needed). With
# --release it is build-install, a Release tree with only the libraries built.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
release=0
if [ "${1:-}" = --release ]; then release=1; shift; fi
if [ $# -gt 1 ]; then echo "usage: bash scripts/consumer-test.sh [--release] [build-dir]" >&2; exit 2; fi
jobs=${JOBS:-2}
cc=${CC:-cc}

step() { printf '== consumer-test: %s\n' "$*"; }
die() { printf '== consumer-test FAILED: %s\n' "$*" >&2; exit 1; }
on_exit() {
  local rc=$?
  [ "$rc" -eq 0 ] || printf '== consumer-test FAILED (exit %s); files kept in %s\n' "$rc" "${tmp:-?}" >&2
}
trap on_exit EXIT

libs=(p2b p2b_shared)
if [ "$release" = 1 ]; then
  build=${1:-"$repo/build-install"}
  step "configure + build a Release tree in $build (libraries only)"
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DP2B_BUILD_TESTS=OFF \
    -DP2B_BUILD_TOOLS=OFF -DP2B_BUILD_BENCH=OFF >/dev/null
else
  build=${1:-"$repo/build-host"}
  if [ ! -f "$build/CMakeCache.txt" ]; then
    step "configure $build (preset host)"
    (cd "$repo" && cmake --preset host >/dev/null)
  fi
fi
# Only the installed targets: cmake --install needs nothing else.
cmake --build "$build" -j "$jobs" --target "${libs[@]}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/p2b-consumer.XXXXXX")
prefix=$tmp/prefix
step "install $build -> $prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
[ -f "$prefix/include/p2b.h" ] || die "include/p2b.h not installed"
if [ -f "$repo/c_api/p2b_build_config.h" ]; then
  [ -f "$prefix/include/p2b_build_config.h" ] || die "include/p2b_build_config.h not installed"
fi
[ -e "$prefix/include/p2b" ] && die "include/p2b/ (internal C++ headers) installed"
pc=$(find "$prefix" -name p2b.pc -print -quit)
config=$(find "$prefix" -name p2bConfig.cmake -print -quit)
if [ -z "$pc" ] || [ -z "$config" ]; then die "p2b.pc or p2bConfig.cmake not installed"; fi
libdir=$(dirname "$(dirname "$pc")")
for f in libp2b.a libp2b.so; do
  [ -e "$libdir/$f" ] || die "$libdir/$f not installed"
done
for f in "$libdir"/*; do
  case "${f##*/}" in
    libp2b.a | libp2b.so | libp2b.so.* | cmake | pkgconfig) ;;
    # A tree with the services also installs their units (lib/systemd/system).
    systemd) [ -e "$prefix/bin/p2b-shuffler" ] || die "lib/systemd without the services" ;;
    *) die "unexpected file in $libdir: ${f##*/}" ;;
  esac
done
step "libp2b.a is self-contained (nm)"
cmake -DNM="${NM:-nm}" -DLIB="$libdir/libp2b.a" -P "$repo/tests/check_self_contained.cmake"
# One version, from c_api/p2b.h, everywhere.
header_version=$(sed -nE 's/^#define P2B_VERSION_(MAJOR|MINOR|PATCH) +([0-9]+).*/\2/p' \
  "$prefix/include/p2b.h" | paste -sd.)
[ -e "$libdir/libp2b.so.$header_version" ] || die "libp2b.so.$header_version missing"
soname=$(readelf -d "$libdir/libp2b.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ -e "$libdir/$soname" ] || die "SONAME link $soname missing"
(cd "$prefix" && find . -type f -o -type l | sort | sed 's/^\.\//   /')

step "find_package(p2b): configure + build tests/consumer"
cmake -S "$repo/tests/consumer" -B "$tmp/cmake-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/cmake-build" -j "$jobs"
for exe in consumer_c consumer_c_shared consumer_cpp; do
  step "run $exe"
  "$tmp/cmake-build/$exe" || die "$exe exited nonzero"
done
readelf -d "$tmp/cmake-build/consumer_c" | grep -q "\[libp2b\.so" && die "consumer_c is not static"
readelf -d "$tmp/cmake-build/consumer_c_shared" | grep -q "\[$soname\]" ||
  die "consumer_c_shared does not load $soname"

export PKG_CONFIG_PATH=$libdir/pkgconfig
[ "$(pkg-config --modversion p2b)" = "$header_version" ] ||
  die "p2b.pc says $(pkg-config --modversion p2b), p2b.h says $header_version"
src=$repo/tests/consumer/main.c
step "pkg-config, shared: $cc main.c \$(pkg-config --cflags --libs p2b)"
pkg-config --print-errors --exists p2b
# shellcheck disable=SC2046  # pkg-config output is a word list
"$cc" -std=c99 -Wall -Werror -o "$tmp/pc_shared" "$src" $(pkg-config --cflags --libs p2b)
readelf -d "$tmp/pc_shared" | grep -q "\[$soname\]" || die "pc_shared does not load $soname"
LD_LIBRARY_PATH=$libdir "$tmp/pc_shared" || die "pc_shared exited nonzero"

# With libp2b.so next to libp2b.a the linker picks the .so for -lp2b, so the
# static check names the archive (-l:libp2b.a); the rest of the line is
# pkg-config's --static output as is, which proves Libs.private complete.
static_libs=$(pkg-config --static --libs p2b)
static_libs=${static_libs/-lp2b /-l:libp2b.a }
step "pkg-config, static: $cc main.c \$(pkg-config --cflags p2b) $static_libs"
# shellcheck disable=SC2046,SC2086
"$cc" -std=c99 -Wall -Werror -o "$tmp/pc_static" "$src" $(pkg-config --cflags p2b) $static_libs
readelf -d "$tmp/pc_static" | grep -q "\[libp2b\.so" && die "pc_static is not static"
"$tmp/pc_static" || die "pc_static exited nonzero"

rm -rf "$tmp"
step "OK (cmake: static C, shared C, C API from C++; pkg-config: shared, static)"
