#!/usr/bin/env bash
# p2b-sim's speed-up with cores (issue #30, item 7): one fixed point (u early
# users, |A| = 10, default mode, --no-crypto, seed 1) run with 1, 2, 4, ...
# threads up to nproc, nproc included; prints one Markdown row per thread
# count: threads | wall s | CPU s | speed-up over 1 thread | efficiency
# (speed-up / threads). The results are the same whatever the thread count.
# Other load on the machine lowers the speed-up; the CPU column shows what
# the threads themselves cost.
#   bash bench/sim_scaling.sh [--no-build] [USERS]      (default 1000000)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build_it=1
[ "${1:-}" = --no-build ] && { build_it=0; shift; }
users=${1:-1000000}
# shellcheck source=bench/sim_setup.sh
source "$repo/bench/sim_setup.sh"
cores=$(nproc)
counts=()
for ((t = 1; t < cores; t *= 2)); do counts+=("$t"); done
counts+=("$cores")
echo "point: u = $users, |A| = 10, default mode, --no-crypto"
printf '| threads | wall s | CPU s | speed-up | efficiency |\n|--:|--:|--:|--:|--:|\n'
base=""
for t in "${counts[@]}"; do
  /usr/bin/time -f '%e %U %S' -o "$work/time" "$sim" --users "$users" --actions 10 --mode default \
    --no-crypto --threads "$t" --codebook "$cb" --quiet --out "$work/run" >/dev/null
  read -r wall user sys <"$work/time"
  [ -n "$base" ] || base=$wall
  awk -v t="$t" -v w="$wall" -v c="$(echo "$user + $sys" | bc -l)" -v b="$base" \
    'BEGIN { s = b / w; printf "| %d | %.1f | %.1f | %.2f | %.0f %% |\n", t, w, c, s, 100 * s / t }'
done
