#!/usr/bin/env bash
# Vowpal Wabbit as a peer (issue #30, item 6), in two tables:
#  1. decide+learn per step beside p2b, the plain LinUCB, the P2B reference
#     and MABWiser: decide_peers.sh, whose options this script passes on;
#  2. the paper's synthetic environment (p2b-sim's default mode, d = 10,
#     |A| = 10, seed 1, its late users at --users 10000): reward and time per
#     interaction of p2b's LinUCB and of VW (its default exploration and
#     RegCB-Opt), per user and as one central learner, beside the oracle and
#     a random arm, on one trace (bench/env_trace, bench/peers/sim_peers.py).
#   bash bench/peers/vw_peer.sh [--install-peers] [--rounds N] [--early-users N]
#                               [--central-only] [--explorations LIST] [--sim-only]
# --early-users N: p2b-sim's --users N (its late users: N/0.7 - N of them);
# --central-only, --explorations: passed to sim_peers.py;
# --sim-only: the second table alone.
# --install-peers makes build-peers/venv from bench/peers/requirements.txt
# (decide_peers.sh); without the venv the VW rows print "absent".
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
early_users=10000
pass=()
sim_args=()
decide=1
while [ $# -gt 0 ]; do
  case "$1" in
    --early-users) early_users=$2; shift 2 ;;
    --rounds) pass+=("$1" "$2"); shift 2 ;;
    --install-peers) pass+=("$1"); shift ;;
    --central-only) sim_args+=("$1"); shift ;;
    --explorations) sim_args+=("$1" "$2"); shift 2 ;;
    --sim-only) decide=0; shift ;;
    *)
      echo "usage: $0 [--install-peers] [--rounds N] [--early-users N] [--central-only]" \
        "[--explorations LIST] [--sim-only]" >&2
      exit 2
      ;;
  esac
done
if [ "$decide" = 1 ]; then
  echo "## decide+learn per step"
  bash "$repo/bench/peers/decide_peers.sh" "${pass[@]}"
  echo
fi
echo "## the paper's synthetic environment"
build="$repo/build-release"
flock /tmp/p2b-build.lock cmake --preset release >/dev/null
flock /tmp/p2b-build.lock cmake --build --preset release --target env_trace >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bench/env_trace" --out "$work" --early-users "$early_users" >"$work/raw"
venv_python=$repo/build-peers/venv/bin/python
if [ -x "$venv_python" ] && "$venv_python" -c "import vowpalwabbit" 2>/dev/null; then
  (cd "$repo/bench/peers" && "$venv_python" sim_peers.py "$work" "${sim_args[@]}") >>"$work/raw"
else
  echo "sim vw absent: run with --install-peers" >&2
fi
/usr/bin/python3 "$repo/bench/peers/summarise_sim.py" "$work/raw"
