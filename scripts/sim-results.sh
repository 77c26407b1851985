#!/usr/bin/env bash
# Reproduces every figure of docs/results.md with p2b-sim (Release build):
#   bash scripts/sim-results.sh [out-dir [STEP...]]   (default out/results, all steps)
# Steps (each writes <out>/<step>/results.{csv,json} and PNGs):
#   fig4-linear   |A| in {10,20,50} x u in {1e3..1e6}, both modes, the reference
#   fig4-softmax  code's linear map and the paper's Eq. 4 softmax (sealing off:
#                 it changes no number, see the sim.crypto_changes_nothing test)
#   paper-seeds   the reference's own Fig. 4 set-up (paper mode, linear map,
#                 normalised-uniform contexts, u in {1e3,5e3,1e4,5e4,1e5}) under
#                 seeds 1-5 and both maps: the spread of our runs
#   bench-*       one u=1e6 point with sealing on, |A|=10 and 50, timed
#   fig5          d from 6 to 20, u=20000, |A|=20, t=20
#   readings      u=1e5 under the other readings of the paper's environment, and
#                 other report sampling (neg_rate); softmax map
#   steep         a steeper mapping (5x Glorot W, zero b, written with numpy) to
#                 see the paper's shape where the environment has the headroom
#   central-dp    the analyzer's central DP on the private model
#   yeast         the multi-label experiment on $P2B_DATA_DIR/yeast.arff, and
#                 its accuracy against t (fig6)
#                 (P2B_DATA_DIR defaults to ../shared/data beside the checkout;
#                 the step is skipped without the file, docs/data.md)
#   vertical-*    seed 003's O3M experiments (p2b-sim --protocol vertical):
#                 vertical-synthetic (Fig. 4, 6a/b), vertical-yeast (yeast split
#                 over 4 parties; needs the file as above), vertical-cost (Fig. 5)
#   compare       every seed protocol on one world (p2b-sim --protocol compare):
#                 synthetic and yeast, 5000 users, 5 seeds; compare-accept-all
#                 repeats P-FCB-style with acceptance off (omega1 = inf, omega2 = 1),
#                 compare-fclub-beta FCLUB-style with beta scale 0.05 (beta ~ 1);
#                 compare-spends runs them at equal privacy (--spends 0.5..8:
#                 the same epsilon per user over the horizon for every protocol)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-"$repo/out/results"}
shift || true
steps=("$@")
build="$repo/build-release"
if [ "${P2B_SIM_NO_BUILD:-0}" != 1 ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target p2b-sim p2b-codebook
fi
sim="$build/tools/p2b-sim"
mkdir -p "$out"
wanted() {  # wanted STEP: true when no step was named or STEP was
  [ ${#steps[@]} = 0 ] && return 0
  local s
  for s in "${steps[@]}"; do [[ $1 == "$s"* ]] && return 0; done
  return 1
}
timed() {  # timed NAME ARGS...: runs p2b-sim, keeps its log and /usr/bin/time figures
  local name=$1; shift
  wanted "$name" || return 0
  echo "==== $name: p2b-sim $*"
  /usr/bin/time -v -o "$out/$name.time" "$sim" "$@" --out "$out/$name" | tee "$out/$name.log"
  grep -E "Elapsed|Maximum resident" "$out/$name.time"
}
# Every step but the first reuses one d=10 codebook (trained once, cached).
cb10="$out/codebooks/d10-q1-k1024-seed1.p2bc"
if [ ! -f "$cb10" ]; then
  mkdir -p "$out/codebooks"
  "$build/tools/codebook/p2b-codebook" --dim 10 --digits 1 --codes 1024 --seed 1 --out "$cb10"
fi
fig4=(--users 1000,10000,100000,1000000 --actions 10,20,50 --no-crypto --plot --codebook "$cb10")
timed fig4-linear "${fig4[@]}" --mapping linear
timed fig4-softmax "${fig4[@]}" --mapping softmax
for seed in 1 2 3 4 5; do
  for map in linear softmax; do
    timed "paper-seeds-$map-$seed" --mode paper --mapping "$map" --contexts uniform \
      --users 1000,5000,10000,50000,100000 --seed "$seed" --no-crypto --codebook "$cb10"
  done
done
if wanted paper-seeds; then
  /usr/bin/python3 "$repo/tools/summarise_seeds.py" "$out"/paper-seeds-*/results.csv \
    | tee "$out/paper-seeds.md"
fi
timed bench-a10 --users 1000000 --actions 10 --mode default --codebook "$cb10"
timed bench-a50 --users 1000000 --actions 50 --mode default --codebook "$cb10"
timed fig5 --users 20000 --actions 20 --interactions 20 --dim 6-20 --no-crypto --plot \
  --mapping softmax
timed readings-uniform --users 100000 --contexts uniform --no-crypto --codebook "$cb10" \
  --mapping softmax
timed readings-noise01 --users 100000 --noise-sd 0.1 --no-crypto --codebook "$cb10" \
  --mapping softmax
for nr in 0.5 0.95; do
  timed "readings-negrate$nr" --users 100000 --neg-rate "$nr" --no-crypto --codebook "$cb10" \
    --mapping softmax
done
if wanted steep; then
  /usr/bin/python3 -c "
import numpy as np
r = np.random.default_rng(0)
s = np.sqrt(6 / (10 + 10))
np.savez('$out/steep-weights.npz', W=5 * r.uniform(-s, s, (10, 10)), b=np.zeros(10))"
fi
timed steep --users 10000,100000,1000000 --weights "$out/steep-weights.npz" --no-crypto --plot \
  --codebook "$cb10" --mapping softmax
timed central-dp --users 100000,1000000 --actions 10,20,50 --mode default \
  --central-epsilon 0,0.5,1,2,8 --no-crypto --codebook "$cb10"
timed central-dp-first --users 100000,1000000 --actions 10 --mode default \
  --central-epsilon 0.5,1,2,8 --central-release 1048576 --no-crypto --codebook "$cb10"
yeast="${P2B_DATA_DIR:-$repo/../shared/data}/yeast.arff"
if [ -f "$yeast" ]; then
  timed yeast-disjoint --env multilabel --data "$yeast" --dim 10 --codes 32 --users 168
  timed yeast-resampled --env multilabel --data "$yeast" --dim 10 --codes 32 --users 10000,100000
  timed yeast-fig6 --env multilabel --data "$yeast" --dim 10 --codes 32 --users 10000 \
    --interactions 5,10,20,50,100 --no-crypto --plot
elif wanted yeast; then
  echo "yeast.arff not found at $yeast: multi-label step skipped"
fi
# Not --quiet: the logs keep the summaries (--quiet prints nothing).
timed vertical-synthetic --protocol vertical --plot
timed vertical-cost --protocol vertical --cost --cost-rounds 50 --plot
if [ -f "$yeast" ]; then
  timed vertical-yeast --protocol vertical --env multilabel --data "$yeast" --rounds 7251 --plot
fi
if [ -f "$yeast" ]; then
  timed compare --protocol compare --users 5000 --seeds 5 --data "$yeast" \
    --epsilons 0.5,1,2,4,8,32,128 --plot
  timed compare-accept-all --protocol compare --users 5000 --seeds 5 --data "$yeast" \
    --protocols local,pfcb,pooled --epsilons 1,8,128 --omega1 1e12 --omega2 1
  timed compare-fclub-beta --protocol compare --users 5000 --seeds 5 --data "$yeast" \
    --protocols local,fclub,pooled --epsilons 1 --beta-scale 0.05
  timed compare-spends --protocol compare --envs synthetic,multilabel --data "$yeast" \
    --ml-dim 2 --users 1000 --seeds 3 --seed 1 --dim 4 --actions 4 --beta 1 --codes 8 \
    --spends 0.5,1,2,4,8 --plot
fi
echo "results in $out"
