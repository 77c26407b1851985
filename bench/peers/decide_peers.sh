#!/usr/bin/env bash
# decide+reward per step: p2b beside a plain LinUCB, the K*d^2 floor at this
# CPU's measured FMA rate, and the Python peers when they are present, in
# interleaved rounds; prints the medians and the ratios (docs/benchmarks.md,
# "Peers").
#   bash bench/peers/decide_peers.sh [--rounds N] [--install-peers]
# Peers:
#   --install-peers    MABWiser and Vowpal Wabbit from PyPI, at the exact
#                      versions of bench/peers/requirements.txt, into the
#                      venv build-peers/venv (made once, reused)
#   P2B_REFERENCE_GIT  a git clone of github.com/mmalekzadeh/privacy-preserving-bandits
#   P2B_MABWISER_GIT   a git clone of github.com/fidelity/mabwiser, instead
#                      of PyPI's (Debian's pandas, scikit-learn, scipy and
#                      joblib must then be installed)
# (clones bare or not, never committed). A missing peer prints "absent".
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
python=/usr/bin/python3
peers=()
if [ "$install" = 1 ]; then
  venv=$repo/build-peers/venv
  [ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r "$repo/bench/peers/requirements.txt"
  python=$venv/bin/python
  peers+=(--vw)
  [ -n "${P2B_MABWISER_GIT:-}" ] || peers+=(--mabwiser)
fi
build="$repo/build-release"
# The build lock: other builds may share this checkout.
flock /tmp/p2b-build.lock cmake --preset release >/dev/null
flock /tmp/p2b-build.lock cmake --build --preset release --target peer_decide >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bench/peer_decide" --write-data "$work"
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
  "$python" "$repo/bench/peers/decide_peers.py" "$work" "${peers[@]}" --steps 1000 \
    >>"$work/raw"
done
/usr/bin/python3 "$repo/bench/peers/summarise_peers.py" "$work/raw"
