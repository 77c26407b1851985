#!/usr/bin/env bash
# p2b-sim's speed at the issue's goal points: u = 10^6 early users, |A| = 10
# and 50, --no-crypto and sealed, each mode on its own; prints wall time, the
# crypto floor p2b-sim measures, users/s per core and peak RSS beside the
# goals (docs/benchmarks.md, "Simulator").
#   bash bench/sim_speed.sh [USERS]      (default 1000000)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
users=${1:-1000000}
cmake --preset release >/dev/null
cmake --build --preset release --target p2b-sim p2b-codebook >/dev/null
sim="$repo/build-release/tools/p2b-sim"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cb="$work/cb.p2bc"
"$repo/build-release/tools/codebook/p2b-codebook" --dim 10 --codes 1024 --seed 1 --out "$cb" --quiet >/dev/null
printf '| mode | |A| | sealing | wall s | crypto floor s | wall / floor | users/s per core | peak RSS MB |\n'
printf '|---|--:|---|--:|--:|--:|--:|--:|\n'
for mode in default paper; do
  for actions in 10 50; do
    for crypto in off on; do
      args=(--users "$users" --actions "$actions" --mode "$mode" --codebook "$cb" --quiet
        --out "$work/run")
      [ "$crypto" = off ] && args+=(--no-crypto)
      /usr/bin/time -f '%e %M' -o "$work/time" "$sim" "${args[@]}" >"$work/log"
      read -r wall rss_kb <"$work/time"
      floor=$(awk '/^crypto floor:/ { print $3 }' "$work/log")
      speed=$(awk '/^speed:/ { for (i = 1; i <= NF; ++i) if ($i == "users/s") print $(i - 1) }' "$work/log")
      ratio=-
      [ -n "$floor" ] && ratio=$(awk -v w="$wall" -v f="$floor" 'BEGIN { printf "%.2f", w / f }')
      printf '| %s | %s | %s | %s | %s | %s | %s | %.0f |\n' "$mode" "$actions" "$crypto" "$wall" \
        "${floor:--}" "$ratio" "$speed" "$(echo "$rss_kb / 1024" | bc -l)"
    done
  done
done
echo "goals: --no-crypto <= 20 s at |A| = 10; sealed within 1.3x the crypto floor; |A| = 50 within"
echo "2x |A| = 10; peak RSS <= 200 MB; the reference code: about 350 users/s per core"
