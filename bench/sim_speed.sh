#!/usr/bin/env bash
# p2b-sim's speed at the issue's goal points: u = 10^6 early users, |A| = 10
# and 50, --no-crypto and sealed, each mode on its own; prints wall time, the
# crypto floor p2b-sim measures, users/s per core and peak RSS beside the
# goals, then one "goal:" line per goal of issue #30, its ratio taken from
# this run's own rows (docs/benchmarks.md, "Simulator"). Each goal is judged
# on wall time and on CPU time (CPU-s / threads: what an otherwise idle
# machine would take), since other load inflates wall time but not CPU time.
#   bash bench/sim_speed.sh [--no-build] [USERS]      (default 1000000)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build_it=1
[ "${1:-}" = --no-build ] && { build_it=0; shift; }
users=${1:-1000000}
# shellcheck source=bench/sim_setup.sh
source "$repo/bench/sim_setup.sh"
printf '| mode | |A| | sealing | wall s | CPU s | crypto floor s | wall / floor | CPU / CPU floor | users/s per core | peak RSS MB |\n'
printf '|---|--:|---|--:|--:|--:|--:|--:|--:|--:|\n'
declare -A walls floors cpus cpu_ratios
threads=$(nproc)
for mode in default paper; do
  for actions in 10 50; do
    for crypto in off on; do
      # Not --quiet: the speed and crypto floor lines are read from the log.
      args=(--users "$users" --actions "$actions" --mode "$mode" --codebook "$cb"
        --out "$work/run")
      [ "$crypto" = off ] && args+=(--no-crypto)
      /usr/bin/time -f '%e %M' -o "$work/time" "$sim" "${args[@]}" >"$work/log" 2>/dev/null
      read -r wall rss_kb <"$work/time"
      floor=$(awk '/^crypto floor:/ { print $3 }' "$work/log")
      speed=$(awk '/^speed:/ { for (i = 1; i <= NF; ++i) if ($i == "users/s") print $(i - 1) }' "$work/log")
      cpu=$(awk '/^speed:/ { print $5 }' "$work/log")
      cpu_ratio=$(sed -n 's/^crypto CPU floor: .*, \([0-9.]*\)x the floor$/\1/p' "$work/log")
      ratio=-
      [ -n "$floor" ] && ratio=$(awk -v w="$wall" -v f="$floor" 'BEGIN { printf "%.2f", w / f }')
      printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f |\n' "$mode" "$actions" "$crypto" \
        "$wall" "$cpu" "${floor:--}" "$ratio" "${cpu_ratio:--}" "$speed" \
        "$(echo "$rss_kb / 1024" | bc -l)"
      walls[$mode/$actions/$crypto]=$wall
      floors[$mode/$actions/$crypto]=${floor:-0}
      cpus[$mode/$actions/$crypto]=$cpu
      cpu_ratios[$mode/$actions/$crypto]=${cpu_ratio:-0}
    done
  done
done
# The goals of issue #30, default mode, from the rows above.
awk -v a10="${walls[default/10/off]}" -v a50="${walls[default/50/off]}" \
  -v c10="${cpus[default/10/off]}" -v c50="${cpus[default/50/off]}" \
  -v s="${walls[default/10/on]}" -v f="${floors[default/10/on]}" \
  -v cr="${cpu_ratios[default/10/on]}" -v u="$users" -v n="$threads" '
  function met(x, goal) { return x <= goal ? "met" : "not met" }
  BEGIN {
  printf "goal: u = %d, |A| = 10, --no-crypto: %.1f s wall, %.1f s CPU / %d threads (<= 20 s: %s by wall, %s by CPU)\n", u, a10, c10 / n, n, met(a10, 20), met(c10 / n, 20)
  printf "goal: |A| = 50 against |A| = 10, --no-crypto: %.2fx wall, %.2fx CPU (<= 2x: %s by wall, %s by CPU)\n", a50 / a10, c50 / c10, met(a50 / a10, 2), met(c50 / c10, 2)
  w = f > 0 ? s / f : 0
  printf "goal: sealed against its crypto floor, |A| = 10: %.2fx wall, %.2fx CPU (<= 1.3x: %s by wall, %s by CPU)\n", w, cr, met(w, 1.3), met(cr, 1.3)
}'
echo "also: peak RSS <= 200 MB; the reference code: about 350 users/s per core"
