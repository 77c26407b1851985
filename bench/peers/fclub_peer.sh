#!/usr/bin/env bash
# The FCLUB authors' Python code ("Federated Online Clustering of Bandits",
# UAI'22) as the peer of our `reference` mode (issue #16): the synthetic
# m_theta setup of their experiment/main.py, one process per seed, writing
#   OUT/results.csv  seed,algorithm,round,cum_regret (every 1000 rounds to 1e5)
#   OUT/summary.csv  seed,algorithm,regret_1e4,regret_5e4,regret_1e5,comm_1e5,clusters,wall_s
# and printing the mean and std per algorithm at round 1e5.
#   bash bench/peers/fclub_peer.sh [CHECKOUT] [--seeds 1-10|1,2,5] [--jobs 2]
#        [--out DIR] [--algos LinUCB,CLUB,...] [--install-peers]
# CHECKOUT (or $FCLUB_PEER_SRC): a clone of
# github.com/ZhaoHaoRu/Federated-Clustering-of-Bandits (bare or not; never
# committed; fetch it yourself). It is copied to a temp dir and patched there
# by fclub_peer_patch.py (np.int -> int; the seed from the command line; per-seed
# output files); their algorithm parameters are left as they are. Default
# algorithms: LinUCB, CLUB, SCLUB, HomoDC, FCLUB_DC, CDP_FCLUB_DC; the synchronous
# FCLUB and Homo (> 50 min a seed each) only with --algos. Jobs run under
# nice -n 19. Needs Debian's python3-numpy and python3-networkx
# (--install-peers apt-installs them). No checkout: exit 77 (skipped).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${FCLUB_PEER_SRC:-}
seeds=1-10
jobs=2
out=$PWD/fclub-peer-out
algos=LinUCB,CLUB,SCLUB,HomoDC,FCLUB_DC,CDP_FCLUB_DC
install=0
usage="usage: $0 [CHECKOUT] [--seeds 1-10|1,2,5] [--jobs N] [--out DIR] [--algos A,B,...] [--install-peers]"
while [ $# -gt 0 ]; do
  case "$1" in
    --seeds) seeds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --algos) algos=$2; shift 2 ;;
    --install-peers) install=1; shift ;;
    -h|--help) echo "$usage"; exit 0 ;;
    -*) echo "$usage" >&2; exit 2 ;;
    *) src=$1; shift ;;
  esac
done
if [ -z "$src" ]; then
  echo "fclub_peer: no checkout of the authors' code given (argument or FCLUB_PEER_SRC);" \
    "clone github.com/ZhaoHaoRu/Federated-Clustering-of-Bandits yourself. Skipped." >&2
  exit 77
fi
if [ ! -d "$src" ]; then
  echo "fclub_peer: $src: no such directory" >&2
  exit 2
fi
if [ "$install" = 1 ]; then
  apt-get install -y -q python3-numpy python3-networkx
fi
if ! /usr/bin/python3 -c 'import numpy, networkx' 2>/dev/null; then
  echo "fclub_peer: /usr/bin/python3 lacks numpy or networkx (--install-peers). Skipped." >&2
  exit 77
fi
case "$seeds" in
  *-*) seed_list=$(seq "${seeds%-*}" "${seeds#*-}") ;;
  *) seed_list=$(echo "$seeds" | tr ',' ' ') ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/fclub"
# only what the synthetic runs read: their code and the synthetic theta files
if [ "$(git -C "$src" rev-parse --is-bare-repository 2>/dev/null || echo false)" = true ]; then
  git -C "$src" archive HEAD experiment raw_data/synthetic_data | tar -x -C "$work/fclub"
else
  tar -C "$src" --exclude=__pycache__ -cf - experiment raw_data/synthetic_data | tar -C "$work/fclub" -xf -
fi
/usr/bin/python3 "$here/fclub_peer_patch.py" patch "$work/fclub"
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
status=0
# one process per seed, at most $jobs at once; each seed's log in OUT/logs
printf '%s\n' $seed_list |
  xargs -n 1 -P "$jobs" sh -c \
    'nice -n 19 /usr/bin/python3 "$0" run "$1" --seed "$4" --out "$2" --algos "$3" \
       >"$2/logs/seed_$4.log" 2>&1 && echo "seed $4 done" >&2 || { echo "seed $4 FAILED (see $2/logs/seed_$4.log)" >&2; exit 1; }' \
    "$here/fclub_peer_patch.py" "$work/fclub" "$out" "$algos" || status=1
/usr/bin/python3 "$here/fclub_peer_patch.py" summarise "$out"
echo "wrote $out/results.csv and $out/summary.csv" >&2
exit "$status"
