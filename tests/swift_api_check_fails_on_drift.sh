#!/usr/bin/env bash
# swift_api_check.sh must fail when p2b.h drops a name the Swift package
# uses: run it on a copy whose header renames p2b_agent_forget.
set -euo pipefail
root=${1:?usage: swift_api_check_fails_on_drift.sh <repo root>}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/c_api" "$tmp/bindings"
cp -r "$root/bindings/swift" "$tmp/bindings/"
for h in "$root"/c_api/p2b*.h; do
  sed 's/p2b_agent_forget/p2b_agent_erase/g' "$h" >"$tmp/c_api/${h##*/}"
done
if out=$(bash "$root/tests/swift_api_check.sh" "$tmp" 2>&1); then
  echo "swift_api_check passed on a header without p2b_agent_forget" >&2
  exit 1
fi
grep -q "p2b_agent_forget" <<<"$out" || { echo "wrong failure: $out" >&2; exit 1; }
echo "swift_api_check refused the drifted header: $out"
