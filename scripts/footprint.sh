#!/usr/bin/env bash
# Measures what p2b costs on a device and, with --check, enforces the budgets
# (docs/footprint.md):
#   flash: p2b_core for cortex-m4, .text + .data      <= 64 KiB
#   RAM:   float agent arena at d=10, K=10, k=1024     <= 64 KiB
# Prints, per target, .text/.data/.bss summed over each archive's objects
# (size -t of the target's binutils), the agent arena for a few shapes in
# float and double, and the worst-case stack of decide/reward/poll on
# cortex-m4 from GCC's call graph (-fcallgraph-info=su).
#
#   bash scripts/footprint.sh [--check]
#
# Build dirs: build-footprint-<target>, MinSizeRel (-Os), libraries only.
# cortex-m4 needs toolchains/cortex-m4.cmake and the cortex-m port; without
# them it is skipped, and --check fails (its flash budget cannot be judged).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: bash scripts/footprint.sh [--check]" >&2; exit 2 ;;
esac
jobs=${JOBS:-2}
flash_budget=$((64 * 1024))
arena_budget=$((64 * 1024))

log() { printf '== footprint: %s\n' "$*" >&2; }

# configure_build <name> <toolchain file or ""> <targets...> [-- <cmake args...>]
configure_build() {
  local name=$1 toolchain=$2
  shift 2
  local targets=() args=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do targets+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  args=("$@")
  local build=$repo/build-footprint-$name
  [ -n "$toolchain" ] && args+=("-DCMAKE_TOOLCHAIN_FILE=$repo/toolchains/$toolchain")
  log "$name: configure + build ${targets[*]} in ${build#"$repo"/}"
  mkdir -p "$build"
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel -DP2B_BUILD_TESTS=OFF \
    -DP2B_BUILD_TOOLS=OFF -DP2B_BUILD_BENCH=OFF "${args[@]}" >"$build/footprint-configure.log" 2>&1 ||
    { cat "$build/footprint-configure.log" >&2; return 1; }
  cmake --build "$build" -j "$jobs" --target "${targets[@]}" >"$build/footprint-build.log" 2>&1 ||
    { tail -40 "$build/footprint-build.log" >&2; return 1; }
}

# archive_sizes <size tool> <file...>: "text data bss" summed (size -t TOTALS).
archive_sizes() {
  local tool=$1
  shift
  "$tool" -t "$@" | awk 'END { print $1, $2, $3 }'
}

rows=()  # "target|component|text|data|bss"
add_row() {  # target component size-tool files...
  local target=$1 component=$2 tool=$3
  shift 3
  local t d b
  read -r t d b < <(archive_sizes "$tool" "$@")
  rows+=("$target|$component|$t|$d|$b")
}

# ---- code size per target ---------------------------------------------
device_libs=(p2b_core p2b_proto p2b_nanopb)
measure_linux() {  # name toolchain size-tool triple
  local name=$1 toolchain=$2 tool=$3 triple=$4 build=$repo/build-footprint-$1
  configure_build "$name" "$toolchain" "${device_libs[@]}"
  add_row "$name" "p2b_core" "$tool" "$build/libp2b_core.a"
  add_row "$name" "p2b_nanopb + p2b_proto" "$tool" "$build/libp2b_nanopb.a" "$build/libp2b_proto.a"
  # Linux ports link the distribution's libsodium.so: listed for scale, whole.
  local so
  so=$(find "/usr/lib/$triple" -maxdepth 1 -name 'libsodium.so.*.*' -print -quit 2>/dev/null || true)
  if [ -n "$so" ]; then add_row "$name" "crypto: system $(basename "$so") (whole)" "$tool" "$so"; fi
}

measure_linux x86-64 "" size x86_64-linux-gnu
measure_linux aarch64 aarch64-linux-gnu.cmake aarch64-linux-gnu-size aarch64-linux-gnu
measure_linux armv7 arm-linux-gnueabihf.cmake arm-linux-gnueabihf-size arm-linux-gnueabihf

m4_build=$repo/build-footprint-cortex-m4
m4_ok=0
if [ -f "$repo/toolchains/cortex-m4.cmake" ]; then
  # -fcallgraph-info=su writes a .ci call graph with frame sizes next to each
  # object; P2B_STACK_USAGE adds -fstack-usage (.su) to p2b_core. Neither
  # changes the generated code.
  ci="-Os -DNDEBUG -fcallgraph-info=su"
  # shellcheck source=lib/eigen.sh
  source "$repo/scripts/lib/eigen.sh"
  if eigen=$(eigen_include_dir) &&
    configure_build cortex-m4 cortex-m4.cmake "${device_libs[@]}" p2b p2b_port -- \
    "-DP2B_EIGEN_DIR=$eigen" -DP2B_STACK_USAGE=ON "-DCMAKE_C_FLAGS_MINSIZEREL=$ci" "-DCMAKE_CXX_FLAGS_MINSIZEREL=$ci"; then
    m4_ok=1
    add_row cortex-m4 "p2b_core" arm-none-eabi-size "$m4_build/libp2b_core.a"
    add_row cortex-m4 "p2b_nanopb + p2b_proto" arm-none-eabi-size \
      "$m4_build/libp2b_nanopb.a" "$m4_build/libp2b_proto.a"
    sodium=$(find "$m4_build" -name libp2b_sodium.a -print -quit)
    if [ -n "$sodium" ]; then
      add_row cortex-m4 "crypto: p2b_sodium (libsodium subset)" arm-none-eabi-size "$sodium"
    fi
  else
    log "cortex-m4: build failed (is the cortex-m port in place?)"
  fi
else
  log "cortex-m4: toolchains/cortex-m4.cmake not found: skipped"
fi

printf '\nCode size, MinSizeRel (-Os), summed over each archive'"'"'s objects (bytes)\n'
printf '%-10s %-44s %9s %7s %7s %12s\n' target component .text .data .bss "text+data"
for r in "${rows[@]}"; do
  IFS='|' read -r target component t d b <<<"$r"
  printf '%-10s %-44s %9d %7d %7d %12d\n' "$target" "$component" "$t" "$d" "$b" $((t + d))
done

# ---- agent arena (RAM), float and double -------------------------------
# A host build of libp2b is installed and tools/footprint links it through
# find_package(p2b), as an app would.
arena_table() {  # name extra-cmake-args...
  local name=$1 build=$repo/build-footprint-$1
  shift
  configure_build "$name" "" p2b p2b_shared -- "$@"
  cmake --install "$build" --prefix "$build/stage" >/dev/null
  cmake -S "$repo/tools/footprint" -B "$build/arena" -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel \
    -DCMAKE_PREFIX_PATH="$build/stage" >"$build/arena.configure.log" 2>&1 ||
    { cat "$build/arena.configure.log" >&2; return 1; }
  cmake --build "$build/arena" >/dev/null
  "$build/arena/arena_sizes"
}
arena_float=$(arena_table x86-64)
arena_double=$(arena_table x86-64-double -DP2B_USE_DOUBLE=ON)
printf '\nAgent arena (p2b_agent_footprint; other fields at their defaults), bytes\n'
printf '%5s %5s %6s %10s %10s\n' d K k float double
join <(sed 's/ /_/;s/ /_/' <<<"$arena_float" | sort) <(sed 's/ /_/;s/ /_/' <<<"$arena_double" | sort) |
  tr _ ' ' | sort -n -k1 -k2 | awk '{ printf "%5d %5d %6d %10d %10d\n", $1, $2, $3, $4, $5 }'

# ---- stack (cortex-m4) -------------------------------------------------
if [ "$m4_ok" = 1 ]; then
  printf '\nWorst-case stack on cortex-m4 (call graph of the -fcallgraph-info=su .ci files)\n'
  python3 "$repo/scripts/stack_usage.py" "$m4_build" \
    p2b_agent_decide p2b_agent_reward p2b_agent_poll_envelope
fi

# ---- budgets -----------------------------------------------------------
[ "$check" = 1 ] || exit 0
printf '\nBudgets\n'
fail=0
if [ "$m4_ok" = 1 ]; then
  read -r t d _ < <(archive_sizes arm-none-eabi-size "$m4_build/libp2b_core.a")
  flash=$((t + d))
  if [ "$flash" -le "$flash_budget" ]; then
    printf '  ok    flash: p2b_core cortex-m4 .text+.data = %d <= %d bytes\n' "$flash" "$flash_budget"
  else
    printf '  OVER  flash: p2b_core cortex-m4 .text+.data = %d > %d bytes\n' "$flash" "$flash_budget"
    fail=1
  fi
else
  printf '  FAIL  flash: no cortex-m4 build, the p2b_core flash budget cannot be checked\n'
  fail=1
fi
arena=$(awk '$1 == 10 && $2 == 10 && $3 == 1024 { print $4 }' <<<"$arena_float")
if [ -z "$arena" ]; then
  printf '  FAIL  RAM: no float arena figure for d=10, K=10, k=1024\n'
  fail=1
elif [ "$arena" -le "$arena_budget" ]; then
  printf '  ok    RAM: float arena d=10 K=10 k=1024 = %d <= %d bytes\n' "$arena" "$arena_budget"
else
  printf '  OVER  RAM: float arena d=10 K=10 k=1024 = %d > %d bytes\n' "$arena" "$arena_budget"
  fail=1
fi
if [ "$fail" = 1 ]; then
  echo "footprint: budget check FAILED (see docs/footprint.md)" >&2
  exit 1
fi
echo "footprint: within budget"
