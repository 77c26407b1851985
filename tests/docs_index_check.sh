#!/usr/bin/env bash
# Every page of docs/ is found from the two places a reader starts: the
# index docs/README.md, in both of its lists ("By protocol" and "By role"),
# and the "Documentation" section of README.md. A page added without an
# entry, or an entry left behind by a removed or renamed page, fails here
# rather than going unnoticed (issue #31: the README had drifted to 25 of
# 31 pages).
#   tests/docs_index_check.sh <repo root>
set -euo pipefail
root=${1:?usage: docs_index_check.sh <repo root>}
index=$root/docs/README.md
readme=$root/README.md
errors=0

fail() {
  echo "docs_index_check: $*" >&2
  errors=$((errors + 1))
}

# The lines of a markdown file from the level-2 heading $2 up to the next
# level-2 heading. Level-3 headings inside the section belong to it.
section() {
  awk -v want="## $2" '
    /^## / { inside = ($0 == want); next }
    inside { print }' "$1"
}

[ -f "$index" ] || { echo "docs_index_check: $index is missing" >&2; exit 1; }

mapfile -t pages < <(find "$root/docs" -maxdepth 1 -name '*.md' ! -name README.md \
  -printf '%f\n' | sort)
[ "${#pages[@]}" -gt 0 ] || { echo "docs_index_check: no pages in $root/docs" >&2; exit 1; }

by_protocol=$(section "$index" "By protocol")
by_role=$(section "$index" "By role")
documentation=$(section "$readme" "Documentation")
[ -n "$by_protocol" ] || fail "docs/README.md has no '## By protocol' section"
[ -n "$by_role" ] || fail "docs/README.md has no '## By role' section"
[ -n "$documentation" ] || fail "README.md has no '## Documentation' section"
grep -qF '](docs/README.md)' <<<"$documentation" ||
  fail "README.md's Documentation section does not link the index docs/README.md"

# A link counts with or without an anchor: (page.md) or (page.md#part).
links_to() { grep -qE "\]\($2(#[^)]*)?\)" <<<"$1"; }

for page in "${pages[@]}"; do
  links_to "$by_protocol" "$page" || fail "docs/$page is not listed under 'By protocol' in docs/README.md"
  links_to "$by_role" "$page" || fail "docs/$page is not listed under 'By role' in docs/README.md"
  links_to "$documentation" "docs/$page" || fail "docs/$page is not listed in README.md's Documentation section"
done

# The other way round: no entry points at a page that does not exist.
while IFS= read -r target; do
  [ -f "$root/docs/$target" ] || fail "docs/README.md links $target, which is not in docs/"
done < <(grep -oE '\]\([a-z0-9_-]+\.md' "$index" | sed 's/^](//' | sort -u)
while IFS= read -r target; do
  [ -f "$root/$target" ] || fail "README.md's Documentation section links $target, which does not exist"
done < <(grep -oE '\]\(docs/[a-z0-9_-]+\.md' <<<"$documentation" | sed 's/^](//' | sort -u)

if [ "$errors" -gt 0 ]; then
  echo "docs_index_check: $errors problem(s)" >&2
  exit 1
fi
echo "docs_index_check: all ${#pages[@]} pages of docs/ are in both lists of docs/README.md and in README.md"
