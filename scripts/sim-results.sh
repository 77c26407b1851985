#!/usr/bin/env bash
# Reproduces every figure of docs/results.md with p2b-sim (Release build):
#   bash scripts/sim-results.sh [out-dir]      (default out/results)
# Steps (each writes <out>/<step>/results.{csv,json} and PNGs):
#   fig4      |A| in {10,20,50} x u in {1e3..1e6}, both modes (sealing off:
#             it changes no number, see the sim.crypto_changes_nothing test)
#   bench-*   one u=1e6 point with sealing on, |A|=10 and 50, timed
#   fig5      d from 6 to 20, u=20000, |A|=20, t=20
#   readings  u=1e5 under the other readings of the paper's environment, and
#             other report sampling (neg_rate)
#   steep     a steeper mapping (5x Glorot W, zero b, written with numpy) to
#             see the paper's shape where the environment has the headroom
#   yeast     the multi-label experiment on $P2B_DATA_DIR/yeast.arff
#             (P2B_DATA_DIR defaults to ../shared/data beside the checkout;
#             the step is skipped without the file, docs/data.md)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-"$repo/out/results"}
build="$repo/build-release"
if [ "${P2B_SIM_NO_BUILD:-0}" != 1 ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target p2b-sim p2b-codebook
fi
sim="$build/tools/p2b-sim"
mkdir -p "$out"
timed() {  # timed NAME ARGS...: runs p2b-sim, keeps its log and /usr/bin/time figures
  local name=$1; shift
  echo "==== $name: p2b-sim $*"
  /usr/bin/time -v -o "$out/$name.time" "$sim" "$@" --out "$out/$name" | tee "$out/$name.log"
  grep -E "Elapsed|Maximum resident" "$out/$name.time"
}
timed fig4 --users 1000,10000,100000,1000000 --actions 10,20,50 --no-crypto --plot
timed bench-a10 --users 1000000 --actions 10 --mode default --codebook "$out/fig4/codebooks/d10-q1-k1024-seed1.p2bc" --quiet
timed bench-a50 --users 1000000 --actions 50 --mode default --codebook "$out/fig4/codebooks/d10-q1-k1024-seed1.p2bc" --quiet
timed fig5 --users 20000 --actions 20 --interactions 20 --dim 6-20 --no-crypto --plot
timed readings-uniform --users 100000 --contexts uniform --no-crypto --codebook "$out/fig4/codebooks/d10-q1-k1024-seed1.p2bc"
timed readings-noise01 --users 100000 --noise-sd 0.1 --no-crypto --codebook "$out/fig4/codebooks/d10-q1-k1024-seed1.p2bc"
for nr in 0.5 0.95; do
  timed "readings-negrate$nr" --users 100000 --neg-rate "$nr" --no-crypto \
    --codebook "$out/fig4/codebooks/d10-q1-k1024-seed1.p2bc"
done
/usr/bin/python3 -c "
import numpy as np
r = np.random.default_rng(0)
s = np.sqrt(6 / (10 + 10))
np.savez('$out/steep-weights.npz', W=5 * r.uniform(-s, s, (10, 10)), b=np.zeros(10))"
timed steep --users 10000,100000,1000000 --weights "$out/steep-weights.npz" --no-crypto --plot \
  --codebook "$out/fig4/codebooks/d10-q1-k1024-seed1.p2bc"
timed central-dp --users 100000,1000000 --actions 10,20,50 --mode default \
  --central-epsilon 0,0.5,1,2,8 --no-crypto --quiet \
  --codebook "$out/fig4/codebooks/d10-q1-k1024-seed1.p2bc"
timed central-dp-first --users 100000,1000000 --actions 10 --mode default \
  --central-epsilon 0.5,1,2,8 --central-release 1048576 --no-crypto --quiet \
  --codebook "$out/fig4/codebooks/d10-q1-k1024-seed1.p2bc"
yeast="${P2B_DATA_DIR:-$repo/../shared/data}/yeast.arff"
if [ -f "$yeast" ]; then
  timed yeast-disjoint --env multilabel --data "$yeast" --dim 10 --codes 32 --users 168
  timed yeast-resampled --env multilabel --data "$yeast" --dim 10 --codes 32 --users 10000,100000
else
  echo "yeast.arff not found at $yeast: multi-label step skipped"
fi
echo "all results in $out"
