#!/usr/bin/env bash
# Exports a dependency-free source tree of the device library, for firmware
# projects and IDEs that do not use CMake: the core, the C API, the committed
# nanopb code and the vendored nanopb runtime, one platform port, the Eigen
# headers the core includes (with Eigen's MPL-2.0 licence), a README and a
# plain Makefile that builds libp2b.a with nothing but a C and a C++ compiler.
# docs/packaging.md describes the tree.
#
#   bash scripts/export-tree.sh [--port none|posix|cortex-m] [--eigen DIR] OUT_DIR
#
#   --port   the platform port to include [posix]: posix needs libsodium when
#            the app links; none leaves crypto and randomness to the app
#            (p2b_config.crypto/.random); cortex-m adds the bare-metal port and
#            board hooks (libsodium built for the target stays the app's).
#   --eigen  directory holding Eigen/Core [$P2B_EIGEN_DIR, else pkg-config's
#            eigen3]; its MPL-2.0 text is taken from COPYING.MPL2 beside it or
#            above it, else from the distribution's copyright file.
#
# OUT_DIR must not exist or be empty.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() {
  echo "usage: bash scripts/export-tree.sh [--port none|posix|cortex-m] [--eigen DIR] OUT_DIR" >&2
  exit 2
}
port=posix
eigen=""
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --port) [ $# -ge 2 ] || usage; port=$2; shift 2 ;;
    --eigen) [ $# -ge 2 ] || usage; eigen=$2; shift 2 ;;
    -*) usage ;;
    *) [ -z "$out" ] || usage; out=$1; shift ;;
  esac
done
[ -n "$out" ] || usage
case "$port" in none|posix|cortex-m) ;; *) usage ;; esac
die() { echo "export-tree: $*" >&2; exit 1; }

if [ -z "$eigen" ]; then
  # shellcheck source=lib/eigen.sh
  source "$repo/scripts/lib/eigen.sh"
  eigen=$(eigen_include_dir) || exit 1
fi
[ -f "$eigen/Eigen/Core" ] || die "$eigen has no Eigen/Core"
eigen=$(cd "$eigen" && pwd)

if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then die "$out exists and is not empty"; fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

# copy SRC_REL...: repository paths, kept at the same relative path, so the
# sources' relative includes (../platform.hpp) still resolve.
copy() {
  local f
  for f in "$@"; do
    [ -f "$repo/$f" ] || die "missing $f in the repository"
    mkdir -p "$out/$(dirname "$f")"
    cp "$repo/$f" "$out/$f"
  done
}
# Every file of DIR (repository-relative) with one of the given suffixes.
files_in() {
  local dir=$1
  shift
  local pattern=()
  local ext
  for ext in "$@"; do pattern+=(-o -name "*.$ext"); done
  (cd "$repo" && find "$dir" -type f \( "${pattern[@]:1}" \) | sort)
}

# ---- p2b: C API, core, generated code, nanopb runtime ----
mapfile -t core_files < <(files_in src cpp hpp h)
mapfile -t internal_headers < <(files_in include/p2b hpp h)
# FCLUB's server-to-server messages (p2b_fclub) are no part of the device.
mapfile -t proto_files < <(files_in proto/generated c h | grep -v "/p2b_fclub\.pb\.")
copy c_api/p2b.h c_api/p2b_common.h c_api/p2b_agent.h c_api/p2b_shared_model.h c_api/p2b_pfcb.h \
  c_api/p2b.cpp c_api/c_api_support.hpp LICENSE NOTICE ports/platform.hpp \
  "${core_files[@]}" "${internal_headers[@]}" "${proto_files[@]}" \
  proto/nanopb/pb.h proto/nanopb/pb_common.c proto/nanopb/pb_common.h \
  proto/nanopb/pb_encode.c proto/nanopb/pb_encode.h proto/nanopb/pb_decode.c \
  proto/nanopb/pb_decode.h proto/nanopb/LICENSE.txt proto/nanopb/README.md
[ -f "$repo/c_api/p2b_build_config.h" ] && copy c_api/p2b_build_config.h

# ---- the port ----
case "$port" in
  posix)
    port_sources="ports/posix/sodium_port.cpp ports/sodium/sodium_crypto.cpp"
    copy ports/posix/sodium_port.cpp ports/posix/sodium_port.hpp \
      ports/sodium/sodium_crypto.cpp ports/sodium/sodium_crypto.hpp
    ;;
  none)
    port_sources="ports/none/no_platform.cpp"
    copy ports/none/no_platform.cpp
    ;;
  cortex-m)
    port_sources="ports/cortex-m/sodium_port.cpp ports/sodium/sodium_crypto.cpp \
ports/cortex-m/randombytes_hook.c ports/cortex-m/entropy_default.c ports/cortex-m/fatal.c \
ports/cortex-m/semihosting.c"
    # shellcheck disable=SC2086  # a word list
    copy $port_sources ports/sodium/sodium_crypto.hpp ports/cortex-m/p2b_cortex_m.h \
      ports/cortex-m/randombytes_hook.h ports/cortex-m/semihosting.h \
      ports/cortex-m/malloc_trap.c ports/cortex-m/new_trap.cpp
    ;;
esac
port_sources=$(echo "$port_sources" | tr -s ' \n' ' ')

# ---- Eigen: the closure of the headers the core includes ----
# Every #include "..." and #include <Eigen/...> reachable from the core's
# Eigen includes, across all #if branches (every SIMD architecture), so the
# tree compiles for any target Eigen supports.
mapfile -t eigen_roots < <(cd "$out" && grep -rhoE '#\s*include\s*<Eigen/[A-Za-z]+>' src include |
  sed -E 's/.*<(Eigen\/[A-Za-z]+)>.*/\1/' | sort -u)
[ ${#eigen_roots[@]} -gt 0 ] || die "the core includes no Eigen module?"
declare -A seen=()
queue=("${eigen_roots[@]}")
while [ ${#queue[@]} -gt 0 ]; do
  f=${queue[0]}
  queue=("${queue[@]:1}")
  [ -n "${seen[$f]:-}" ] && continue
  [ -f "$eigen/$f" ] || die "Eigen header $f not found in $eigen"
  seen[$f]=1
  dir=$(dirname "$f")
  while IFS= read -r inc; do
    case "$inc" in
      \"*) rel=$(realpath -m --relative-to="$eigen" "$eigen/$dir/${inc:1:-1}") ;;
      \<Eigen/*) rel=${inc:1:-1} ;;
      *) continue ;;
    esac
    # Only Eigen's own headers; system and GPU headers are not Eigen's to ship.
    [ -f "$eigen/$rel" ] && [ -z "${seen[$rel]:-}" ] && queue+=("$rel")
  done < <(grep -hoE '^\s*#\s*include\s*[<"][^>"]+[>"]' "$eigen/$f" | sed -E 's/^\s*#\s*include\s*//')
done
for f in "${!seen[@]}"; do
  mkdir -p "$out/third_party/eigen/$(dirname "$f")"
  cp "$eigen/$f" "$out/third_party/eigen/$f"
done
eigen_version=$(sed -nE 's/^#define EIGEN_(WORLD|MAJOR|MINOR)_VERSION ([0-9]+).*/\2/p' \
  "$eigen/Eigen/src/Core/util/Macros.h" | paste -sd.)
licence=""
for candidate in "$eigen/COPYING.MPL2" "$eigen/../COPYING.MPL2" "$eigen/../../COPYING.MPL2" \
                 "$eigen/../../share/doc/libeigen3-dev/copyright" \
                 /usr/share/doc/libeigen3-dev/copyright; do
  if [ -f "$candidate" ] && grep -q "Mozilla Public License" "$candidate"; then
    licence=$candidate
    break
  fi
done
[ -n "$licence" ] || die "no MPL-2.0 text for Eigen found (looked for COPYING.MPL2 near $eigen)"
cp "$licence" "$out/third_party/eigen/COPYING.MPL2"

# ---- Makefile ----
cat >"$out/Makefile" <<MAKEFILE
# Builds libp2b.a (the whole device library) with plain make and a C and a
# C++ compiler. Exported by scripts/export-tree.sh (port: $port).
#
#   make                          CC/CXX/AR/CFLAGS/CXXFLAGS/CPPFLAGS as usual
#   make CPPFLAGS=-DP2B_USE_DOUBLE                double-precision core
#   make CPPFLAGS='-DP2B_USER_CONFIG_FILE="\\"my_limits.h\\""'   other limits
#   make CXXFLAGS='-Os -mcpu=cortex-m4 ...'       a cross compiler's flags
#
# The flags in P2B_* are part of the library's contract (no exceptions, no
# RTTI, no FMA contraction: one seed gives the same actions on every target).

CC ?= cc
CXX ?= c++
AR ?= ar
CFLAGS ?= -O2
CXXFLAGS ?= -O2

P2B_INCLUDES := -Ic_api -Iinclude -Iproto/generated -Iproto/nanopb -isystem third_party/eigen
P2B_CFLAGS := -std=c99 -fvisibility=hidden -ffp-contract=off
P2B_CXXFLAGS := -std=c++17 -fno-exceptions -fno-rtti -ffp-contract=off -fvisibility=hidden \\
  -fvisibility-inlines-hidden

P2B_CXX_SOURCES := c_api/p2b.cpp \$(sort \$(wildcard src/*.cpp src/*/*.cpp)) \\
  \$(filter %.cpp,$port_sources)
P2B_C_SOURCES := \$(wildcard proto/generated/*.c) proto/nanopb/pb_common.c \\
  proto/nanopb/pb_encode.c proto/nanopb/pb_decode.c \$(filter %.c,$port_sources)
P2B_OBJECTS := \$(addprefix build/,\$(P2B_CXX_SOURCES:.cpp=.o) \$(P2B_C_SOURCES:.c=.o))

all: libp2b.a

libp2b.a: \$(P2B_OBJECTS)
	rm -f \$@
	\$(AR) rcs \$@ \$^

build/%.o: %.cpp
	@mkdir -p \$(dir \$@)
	\$(CXX) \$(P2B_CXXFLAGS) \$(P2B_INCLUDES) \$(CPPFLAGS) \$(CXXFLAGS) -c \$< -o \$@

build/%.o: %.c
	@mkdir -p \$(dir \$@)
	\$(CC) \$(P2B_CFLAGS) \$(P2B_INCLUDES) \$(CPPFLAGS) \$(CFLAGS) -c \$< -o \$@

clean:
	rm -rf build libp2b.a

.PHONY: all clean
MAKEFILE

# ---- README ----
case "$port" in
  posix) port_note="posix: crypto and randomness from libsodium. Link the app with \`libp2b.a -lsodium -lm\` and the C++ driver (or add -lstdc++)." ;;
  none) port_note="none: no platform code. The app fills p2b_config.crypto (and p2b_config.random unless seeded) itself." ;;
  cortex-m) port_note="cortex-m: the bare-metal port and its weak board hooks (ports/cortex-m/p2b_cortex_m.h). libsodium built for the target is the app's to provide (the repository's ports/cortex-m/libsodium.cmake lists the subset and defines it uses). malloc_trap.c and new_trap.cpp are not in libp2b.a: link their objects into the image to trap any heap use." ;;
esac
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
version=$(sed -nE 's/^#define P2B_VERSION_(MAJOR|MINOR|PATCH) +([0-9]+).*/\2/p' "$repo/c_api/p2b.h" |
  paste -sd.)
cat >"$out/README.md" <<README
# p2b $version, exported source tree

Exported from p2b (commit $commit) by \`scripts/export-tree.sh --port $port\`.
Everything the device library needs is here; building it takes a C99 and a
C++17 compiler and nothing else:

    make            # -> libp2b.a

or add the files to an IDE project with the include paths and flags that the
Makefile's \`P2B_INCLUDES\`, \`P2B_CFLAGS\` and \`P2B_CXXFLAGS\` name.

| Path | What |
|------|------|
| \`c_api/p2b.h\` (and the per-protocol headers it includes), \`c_api/p2b_build_config.h\` | the API to include: the only stable interface |
| \`c_api/p2b.cpp\`, \`c_api/c_api_support.hpp\`, \`src/\`, \`include/p2b/\` | the C API and the core (internal headers) |
| \`proto/generated/\` | generated nanopb code for the wire and state formats |
| \`proto/nanopb/\` | nanopb 0.4.7 runtime (zlib licence, \`LICENSE.txt\`) |
| \`ports/\` | the platform port: $port |
| \`third_party/eigen/\` | Eigen $eigen_version headers the core includes (MPL-2.0, \`COPYING.MPL2\`) |

Port: $port_note

Licences: p2b is Apache-2.0 (\`LICENSE\`, \`NOTICE\`); the third-party parts keep
theirs, listed above.
README

n_files=$(find "$out" -type f | wc -l)
echo "export-tree: $out ($port port, Eigen $eigen_version from $eigen, $n_files files)"
