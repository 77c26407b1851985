#!/usr/bin/env bash
# The ctest export_tree_builds: exports the tree with --port posix
# (scripts/export-tree.sh), checks that it holds exactly the core sources the
# CMake build compiles, builds libp2b.a with the tree's own Makefile, links
# examples/minimal_agent.c against it and runs it.
#
#   bash tests/export_tree_test.sh WORK_DIR EIGEN_DIR SODIUM_LIBRARY "CORE_SOURCES"
#
# CORE_SOURCES: p2b_core's sources, repository-relative, ';'-separated.
# CC and CXX (environment) are the compilers [cc, c++].
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: export_tree_test.sh WORK_DIR EIGEN_DIR SODIUM_LIBRARY CORE_SOURCES" >&2; exit 2; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$1 eigen=$2 sodium=$3 core_sources=$4
cc=${CC:-cc} cxx=${CXX:-c++}
tree=$work/tree

rm -rf "$work"
mkdir -p "$work"
bash "$repo/scripts/export-tree.sh" --port posix --eigen "$eigen" "$tree"

# The Makefile compiles every src/*.cpp: that must be p2b_core, no more, no less.
diff -u <(tr ";" "\n" <<<"$core_sources" | sed "s|^$repo/||" | grep "\.cpp$" | sort) \
        <(cd "$tree" && find src -name '*.cpp' | sort) ||
  { echo "export_tree_test: the tree's src/*.cpp differ from p2b_core's sources" >&2; exit 1; }

sodium_dir=$(dirname "$sodium")
make -C "$tree" -j2 CC="$cc" CXX="$cxx" CFLAGS=-O1 CXXFLAGS=-O1 >"$work/make.log" 2>&1 ||
  { tail -30 "$work/make.log" >&2; echo "export_tree_test: make failed" >&2; exit 1; }
"$cc" -std=c99 -Wall -Werror -I"$tree/c_api" -c "$repo/examples/minimal_agent.c" -o "$work/minimal_agent.o"
"$cxx" -o "$work/minimal_agent" "$work/minimal_agent.o" "$tree/libp2b.a" -L"$sodium_dir" -lsodium -lm
"$work/minimal_agent"
echo "export_tree_test: OK ($(find "$tree" -type f | wc -l) files, libp2b.a $(stat -c %s "$tree/libp2b.a") bytes)"
