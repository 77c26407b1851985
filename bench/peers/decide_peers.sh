#!/usr/bin/env bash
# decide+reward per step: p2b beside a plain LinUCB, the K*d^2 floor at this
# CPU's measured FMA rate, and the Python peers when they are present, in
# interleaved rounds; prints the medians and the ratios (docs/benchmarks.md,
# "Peers").
#   bash bench/peers/decide_peers.sh [--rounds N] [--install-peers]
# Peers (never committed; fetch them yourself):
#   P2B_REFERENCE_GIT  a git clone of github.com/mmalekzadeh/privacy-preserving-bandits
#   P2B_MABWISER_GIT   a git clone of github.com/fidelity/mabwiser
# (bare or not). MABWiser needs pandas, scikit-learn, scipy and joblib from
# Debian: --install-peers apt-installs them. A missing peer prints "absent".
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
rounds=5
install=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --install-peers) install=1; shift ;;
    *) echo "usage: $0 [--rounds N] [--install-peers]" >&2; exit 2 ;;
  esac
done
if [ "$install" = 1 ]; then
  apt-get install -y -q python3-numpy python3-pandas python3-sklearn python3-scipy python3-joblib
fi
build="$repo/build-release"
cmake --preset release >/dev/null
cmake --build --preset release --target peer_decide >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bench/peer_decide" --write-data "$work"
peers=()
if [ -n "${P2B_REFERENCE_GIT:-}" ]; then
  mkdir -p "$work/reference/bandipy"
  git -C "$P2B_REFERENCE_GIT" show HEAD:bandipy/policy.py >"$work/reference/bandipy/policy.py"
  peers+=(--reference "$work/reference")
fi
if [ -n "${P2B_MABWISER_GIT:-}" ]; then
  mkdir -p "$work/mabwiser"
  for f in $(git -C "$P2B_MABWISER_GIT" ls-tree --name-only HEAD mabwiser/); do
    git -C "$P2B_MABWISER_GIT" show "HEAD:$f" >"$work/mabwiser/$(basename "$f")" 2>/dev/null ||
      rm -f "$work/mabwiser/$(basename "$f")"
  done
  mkdir -p "$work/mabwiser-root" && mv "$work/mabwiser" "$work/mabwiser-root/mabwiser"
  peers+=(--mabwiser "$work/mabwiser-root")
fi
for r in $(seq "$rounds"); do
  echo "round $r/$rounds" >&2
  "$build/bench/peer_decide" --steps 200000 >>"$work/raw"
  /usr/bin/python3 "$repo/bench/peers/decide_peers.py" "$work" "${peers[@]}" --steps 1000 \
    >>"$work/raw"
done
/usr/bin/python3 "$repo/bench/peers/summarise_peers.py" "$work/raw"
