#!/usr/bin/env bash
# docs_index_check.sh must fail, naming the page, when docs/ and its lists
# drift apart: run it on copies of README.md and docs/ where
#  1. a new page is added and listed nowhere;
#  2. a listed page is dropped from the index's "By role" list only;
#  3. a listed page is dropped from README.md's Documentation section only;
#  4. a listed page is deleted while its entries stay.
set -euo pipefail
root=${1:?usage: docs_index_check_fails_on_drift.sh <repo root>}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fresh_copy() {
  rm -rf "$tmp/tree"
  mkdir -p "$tmp/tree/docs"
  cp "$root/README.md" "$tmp/tree/"
  cp "$root"/docs/*.md "$tmp/tree/docs/"
}

# $1: what was changed; $2: text the failure must contain.
expect_failure() {
  local out
  if out=$(bash "$root/tests/docs_index_check.sh" "$tmp/tree" 2>&1); then
    echo "docs_index_check passed with $1" >&2
    exit 1
  fi
  grep -qF -- "$2" <<<"$out" || { echo "wrong failure for $1: $out" >&2; exit 1; }
  echo "refused $1: $(grep -F -- "$2" <<<"$out" | head -n 1)"
}

# The unchanged copy passes, so each failure below is the edit's doing.
fresh_copy
bash "$root/tests/docs_index_check.sh" "$tmp/tree" >/dev/null

fresh_copy
printf '# A new page\n' >"$tmp/tree/docs/new-page.md"
expect_failure "a page listed nowhere" "docs/new-page.md is not listed under 'By protocol'"
expect_failure "a page listed nowhere" "docs/new-page.md is not listed in README.md's Documentation section"

# Drop keys.md's line from "By role" only: the index keeps it under
# "By protocol", so only the role list is wrong.
fresh_copy
awk '/^## By role/ { role = 1 } !(role && /\]\(keys\.md\)/)' "$root/docs/README.md" \
  >"$tmp/tree/docs/README.md"
expect_failure "a page missing from 'By role'" "docs/keys.md is not listed under 'By role'"

fresh_copy
sed 's:\[keys\](docs/keys\.md)::' "$root/README.md" >"$tmp/tree/README.md"
expect_failure "a page missing from README.md" "docs/keys.md is not listed in README.md's Documentation section"

fresh_copy
rm "$tmp/tree/docs/fuzzing.md"
expect_failure "an entry for a deleted page" "docs/README.md links fuzzing.md, which is not in docs/"
