#!/usr/bin/env bash
# p2b-codebook (Lloyd + refinement, and mini-batch) beside scikit-learn's
# KMeans and MiniBatchKMeans on the same simplex grids, time and inertia
# (docs/benchmarks.md, "Codebook trainer").
#   bash bench/codebook_vs_sklearn.sh [--install-peers]
# scikit-learn is optional: --install-peers apt-installs python3-sklearn;
# without it its rows print "absent". Which BLAS numpy uses is printed too.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --install-peers ]; then apt-get install -y -q python3-sklearn; fi
cmake --preset release >/dev/null
cmake --build --preset release --target p2b-codebook >/dev/null
cb="$repo/build-release/tools/codebook/p2b-codebook"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
blas=$(readlink -f /etc/alternatives/libblas.so.3-"$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)" 2>/dev/null || true)
echo "numpy's BLAS (Debian alternative libblas.so.3): ${blas:-unknown}"
printf '| d | q | k | tool | seconds | inertia (whole grid) | iterations |\n|--:|--:|--:|---|--:|--:|--:|\n'
for point in "10 1 1024" "6 1 64"; do
  read -r d q k <<<"$point"
  for mode in lloyd mini-batch; do
    extra=()
    [ "$mode" = mini-batch ] && extra=(--mini-batch)
    out="$work/cb-$d-$mode.p2bc"
    start=$(date +%s.%N)
    "$cb" --dim "$d" --digits "$q" --codes "$k" --seed 0 --threads 2 "${extra[@]}" --out "$out" \
      --quiet >"$work/log"
    end=$(date +%s.%N)
    inertia=$(awk '$1 == "inertia" { print $2; exit }' "$work/log")
    iters=$(awk '$1 == "iterations" { print $2; exit }' "$work/log")
    printf '| %s | %s | %s | p2b-codebook %s | %.1f | %s | %s |\n' "$d" "$q" "$k" "$mode" \
      "$(echo "$end - $start" | bc)" "$inertia" "$iters"
  done
  /usr/bin/python3 "$repo/bench/codebook_vs_sklearn.py" "$d" "$q" "$k" | while read -r name secs inertia iters; do
    if [ "$secs" = absent ]; then
      printf '| %s | %s | %s | %s | absent | | |\n' "$d" "$q" "$k" "$name"
    else
      printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$d" "$q" "$k" "$name" "$secs" "$inertia" "$iters"
    fi
  done
done
