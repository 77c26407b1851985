#!/usr/bin/env bash
# Fails when a figure in docs/img is stale: regenerates every figure the
# docs show from the data committed beside it (tools/regen_figures.py)
# into a temporary directory and compares bytes with the committed PNG.
# Figures whose data is not committed are listed in regen_figures.py's
# MISSING, with the reason, and not checked.
#   scripts/figures-check.sh           check
#   scripts/figures-check.sh --update  regenerate docs/img in place
# The bytes depend on the matplotlib build: CI and the committed images
# use Debian's python3-matplotlib (/usr/bin/python3).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
python=/usr/bin/python3

# Every figure a page shows must be regenerable or listed as missing.
listed=$("$python" "$repo/tools/regen_figures.py" --list | cut -d: -f1 | sort)
shown=$(cd "$repo" && grep -ho 'img/[A-Za-z0-9_.-]*\.png' README.md docs/*.md | sed 's|img/||' | sort -u)
unknown=$(comm -13 <(echo "$listed") <(echo "$shown"))
if [ -n "$unknown" ]; then
  echo "figures-check: shown in the docs but not in tools/regen_figures.py:" >&2
  echo "$unknown" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$python" "$repo/tools/regen_figures.py" "$tmp"
drawn=("$tmp"/*.png)

if [ "${1:-}" = --update ]; then
  cp "$tmp"/*.png "$repo/docs/img/"
  echo "figures-check: docs/img updated (${#drawn[@]} figures)"
  exit 0
fi

stale=0
for fresh in "${drawn[@]}"; do
  name=$(basename "$fresh")
  if ! cmp -s "$fresh" "$repo/docs/img/$name"; then
    echo "figures-check: docs/img/$name is stale: it differs from what its script draws" \
         "from the committed data (scripts/figures-check.sh --update)" >&2
    stale=1
  fi
done
[ "$stale" = 0 ] || exit 1
echo "figures-check: ${#drawn[@]} figures match their committed data;" \
     "$("$python" "$repo/tools/regen_figures.py" --list | grep -c 'not regenerable') not regenerable (tools/regen_figures.py --list)"
