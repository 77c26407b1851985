#!/usr/bin/env bash
# Installs p2b into a temporary prefix and builds tests/consumer against it
# the ways an app would: find_package(p2b) (static C, shared C, the C API
# from C++) and pkg-config (shared, and static via --static). The install
# must be the C headers, one library (libp2b.a, libp2b.so) and the HTML
# reference, with no C++ header; libp2b.a must define every p2b and nanopb
# symbol it uses. Then the same for a library-only install
# (P2B_BUILD_SERVICES and P2B_BUILD_TOOLS OFF, configured without SQLite,
# libpq, cpp-httplib, CLI11, nlohmann-json or toml++), consumed from C alone:
# tests/consumer_c, a project(... LANGUAGES C), and pkg-config with cc.
# Every program must build, run and print the line it should; any failure
# stops the script with a message.
#
#   bash scripts/consumer-test.sh [--release] [build-dir]
#
# build-dir defaults to build-host (configured and built if needed); the
# library-only tree is build-libonly. With --release build-dir is
# build-install, a library-only Release tree, and serves both parts.
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

# The installed targets and the reference: cmake --install needs nothing else.
targets_of() {
  local targets=(p2b p2b_shared)
  grep -q '^P2B_INSTALL_DOCS:BOOL=ON' "$1/CMakeCache.txt" && targets+=(doc)
  printf '%s\n' "${targets[@]}"
}
# What a library-only tree is configured with; `configure_libonly dir type`.
configure_libonly() {
  cmake -S "$repo" -B "$1" -G Ninja -DCMAKE_BUILD_TYPE="$2" -DP2B_BUILD_SERVICES=OFF \
    -DP2B_BUILD_TOOLS=OFF -DP2B_BUILD_TESTS=OFF -DP2B_BUILD_BENCH=OFF >/dev/null
  # The services' dependencies were not even looked for.
  if grep -qiE '^(SQLite3|HTTPLIB|LIBPQ|CLI11|nlohmann_json|tomlplusplus|TOMLPP)[A-Za-z_]*:' "$1/CMakeCache.txt"; then
    die "the library-only tree $1 looked for a service dependency"
  fi
}
if [ "$release" = 1 ]; then
  build=${1:-"$repo/build-install"}
  step "configure + build a library-only Release tree in $build"
  configure_libonly "$build" Release
else
  build=${1:-"$repo/build-host"}
  if [ ! -f "$build/CMakeCache.txt" ]; then
    step "configure $build (preset host)"
    (cd "$repo" && cmake --preset host >/dev/null)
  fi
fi
mapfile -t targets < <(targets_of "$build")
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/p2b-consumer.XXXXXX")

# Installs build dir $1 into prefix $2 and checks what is there; sets
# libdir, header_version and soname.
install_and_check() {
  local build=$1 prefix=$2 f
  step "install $build -> $prefix"
  cmake --install "$build" --prefix "$prefix" >/dev/null
  # The umbrella p2b.h and the headers it includes, one per protocol.
  for f in p2b.h p2b_common.h p2b_agent.h p2b_shared_model.h p2b_pfcb.h; do
    [ -f "$prefix/include/$f" ] || die "include/$f not installed"
  done
  if [ -f "$repo/c_api/p2b_build_config.h" ]; then
    [ -f "$prefix/include/p2b_build_config.h" ] || die "include/p2b_build_config.h not installed"
  fi
  [ -e "$prefix/include/p2b" ] && die "include/p2b/ (internal C++ headers) installed"
  if grep -q '^P2B_INSTALL_DOCS:BOOL=ON' "$build/CMakeCache.txt"; then
    [ -f "$prefix/share/doc/p2b/html/index.html" ] || die "share/doc/p2b/html/index.html not installed"
    grep -q 'p2b_pfcb.h' "$prefix/share/doc/p2b/html/files.html" ||
      die "the installed reference does not list p2b_pfcb.h"
  elif command -v doxygen >/dev/null; then
    die "doxygen is installed but $build has P2B_INSTALL_DOCS off"
  fi
  local pc config
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
  (cd "$prefix" && find . -type f -o -type l | grep -v '^\./share/doc/p2b/html/' | sort |
    sed 's/^\.\//   /')
}

# Runs program $1 (label $2) and checks the line it prints: the agent's
# consumer (tests/consumer/main.c) is seeded, so every build of it prints
# the same line, which must name the installed version.
agent_line=
run_agent() {
  local out
  step "run $2"
  out=$("$1") || die "$2 exited nonzero"
  printf '   %s\n' "$out"
  [[ $out =~ ^consumer\(c\):\ p2b\ ${header_version//./\\.},\ [0-9]+-byte\ arena,\ [0-9]+/300\ rewarded,\ [0-9]+\ sealed\ reports$ ]] ||
    die "$2 printed an unexpected line: $out"
  [ -z "$agent_line" ] || [ "$out" = "$agent_line" ] || die "$2 printed '$out', others '$agent_line'"
  agent_line=$out
}

prefix=$tmp/prefix
install_and_check "$build" "$prefix"

step "find_package(p2b): configure + build tests/consumer"
cmake -S "$repo/tests/consumer" -B "$tmp/cmake-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/cmake-build" -j "$jobs"
run_agent "$tmp/cmake-build/consumer_c" consumer_c
run_agent "$tmp/cmake-build/consumer_c_shared" consumer_c_shared
step "run consumer_cpp"
"$tmp/cmake-build/consumer_cpp" || die "consumer_cpp exited nonzero"
readelf -d "$tmp/cmake-build/consumer_c" | grep -q "\[libp2b\.so" && die "consumer_c is not static"
readelf -d "$tmp/cmake-build/consumer_c_shared" | grep -q "\[$soname\]" ||
  die "consumer_c_shared does not load $soname"

# pkg-config from C: `pkgconfig_checks <label>`, against $libdir.
pkgconfig_checks() {
  local label=$1 src=$repo/tests/consumer/main.c static_libs
  export PKG_CONFIG_PATH=$libdir/pkgconfig
  [ "$(pkg-config --modversion p2b)" = "$header_version" ] ||
    die "p2b.pc says $(pkg-config --modversion p2b), p2b.h says $header_version"
  step "pkg-config ($label), shared: $cc main.c \$(pkg-config --cflags --libs p2b)"
  pkg-config --print-errors --exists p2b
  # shellcheck disable=SC2046  # pkg-config output is a word list
  "$cc" -std=c99 -Wall -Werror -o "$tmp/pc_shared_$label" "$src" $(pkg-config --cflags --libs p2b)
  readelf -d "$tmp/pc_shared_$label" | grep -q "\[$soname\]" ||
    die "pc_shared_$label does not load $soname"
  LD_LIBRARY_PATH=$libdir run_agent "$tmp/pc_shared_$label" "pc_shared_$label"

  # With libp2b.so next to libp2b.a the linker picks the .so for -lp2b, so the
  # static check names the archive (-l:libp2b.a); the rest of the line is
  # pkg-config's --static output as is, which proves Libs.private complete.
  static_libs=$(pkg-config --static --libs p2b)
  static_libs=${static_libs/-lp2b /-l:libp2b.a }
  step "pkg-config ($label), static: $cc main.c \$(pkg-config --cflags p2b) $static_libs"
  # shellcheck disable=SC2046,SC2086
  "$cc" -std=c99 -Wall -Werror -o "$tmp/pc_static_$label" "$src" $(pkg-config --cflags p2b) \
    $static_libs
  readelf -d "$tmp/pc_static_$label" | grep -q "\[libp2b\.so" && die "pc_static_$label is not static"
  run_agent "$tmp/pc_static_$label" "pc_static_$label"
}
pkgconfig_checks full

# ---- a library-only install, consumed from C alone ----
if [ "$release" = 1 ]; then
  libonly_prefix=$prefix # build-install is library-only already
else
  libonly_build=$repo/build-libonly
  step "configure + build a library-only tree in $libonly_build"
  configure_libonly "$libonly_build" Release
  mapfile -t targets < <(targets_of "$libonly_build")
  cmake --build "$libonly_build" -j "$jobs" --target "${targets[@]}"
  libonly_prefix=$tmp/libonly
  install_and_check "$libonly_build" "$libonly_prefix"
fi
# Headers, libraries, packages and the reference; no program, unit or config.
shopt -s nullglob
for f in "$libonly_prefix"/* "$libonly_prefix"/share/* "$libonly_prefix"/share/doc/*; do
  case "${f#"$libonly_prefix"/}" in
    include | lib | lib64 | lib/* | share | share/doc | share/doc/p2b) ;;
    *) die "the library-only install has ${f#"$libonly_prefix"/}" ;;
  esac
done
shopt -u nullglob
[ -e "$libdir/systemd" ] && die "the library-only install has systemd units"

step "find_package(p2b) from C only: configure + build tests/consumer_c"
cmake -S "$repo/tests/consumer_c" -B "$tmp/c-only-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$libonly_prefix" >/dev/null
grep -q '^CMAKE_CXX_COMPILER:' "$tmp/c-only-build/CMakeCache.txt" &&
  die "tests/consumer_c enabled C++; it must link with the C driver alone"
cmake --build "$tmp/c-only-build" -j "$jobs"
run_agent "$tmp/c-only-build/c_only_static" c_only_static
run_agent "$tmp/c-only-build/c_only_shared" c_only_shared
readelf -d "$tmp/c-only-build/c_only_static" | grep -q "\[libp2b\.so" && die "c_only_static is not static"
readelf -d "$tmp/c-only-build/c_only_shared" | grep -q "\[$soname\]" ||
  die "c_only_shared does not load $soname"
step "run c_only_pfcb (p2b_pfcb.h alone)"
out=$("$tmp/c-only-build/c_only_pfcb") || die "c_only_pfcb exited nonzero"
printf '   %s\n' "$out"
[[ $out =~ ^consumer\(c,\ p2b_pfcb\.h\):\ p2b\ ${header_version//./\\.},\ [0-9]+-byte\ arena,\ [1-9][0-9]*\ units\ in\ 50\ rounds$ ]] ||
  die "c_only_pfcb printed an unexpected line: $out"
pkgconfig_checks libonly

rm -rf "$tmp"
step "OK (cmake: static C, shared C, C API from C++; pkg-config: shared, static; library-only" \
  "install from C alone: cmake static, shared and p2b_pfcb.h, pkg-config shared, static)"
