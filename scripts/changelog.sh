#!/usr/bin/env bash
# Changelog fragments (changelog.d/*.md, one per change) and their assembly
# into CHANGELOG.md, in the manner of Mbed TLS's ChangeLog.d:
#   scripts/changelog.sh --check            validate every fragment
#   scripts/changelog.sh --release X.Y.Z    fold them into CHANGELOG.md, delete them
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir="$repo/changelog.d"
headings=("Security" "API changes" "Features" "Bugfix" "Changes" "Removals")

fragments() { find "$dir" -maxdepth 1 -name '*.md' ! -name README.md | sort; }

# A fragment: only known headings, at least one entry under each, entries
# start with "- " (continuation lines are indented), no other text.
check_one() {
  local f=$1 line heading="" entries=0 n=0 ok=1
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    case "$line" in
      '### '*)
        if [ -n "$heading" ] && [ "$entries" = 0 ]; then
          echo "$f:$n: section '$heading' has no entries" >&2; ok=0
        fi
        heading=${line#'### '}; entries=0
        local known=0 h
        for h in "${headings[@]}"; do [ "$h" = "$heading" ] && known=1; done
        [ "$known" = 1 ] || { echo "$f:$n: unknown heading '$heading'" >&2; ok=0; } ;;
      '- '*)
        [ -n "$heading" ] || { echo "$f:$n: entry before any heading" >&2; ok=0; }
        entries=$((entries + 1)) ;;
      '  '*) [ "$entries" -gt 0 ] || { echo "$f:$n: continuation without an entry" >&2; ok=0; } ;;
      '') ;;
      *) echo "$f:$n: expected '### Heading', '- entry' or an indented line" >&2; ok=0 ;;
    esac
  done <"$f"
  [ -n "$heading" ] || { echo "$f: no section" >&2; ok=0; }
  if [ -n "$heading" ] && [ "$entries" = 0 ]; then
    echo "$f: section '$heading' has no entries" >&2; ok=0
  fi
  [ "$ok" = 1 ]
}

check_all() {
  local f bad=0 count=0
  while IFS= read -r f; do
    count=$((count + 1))
    check_one "$f" || bad=1
  done < <(fragments)
  [ "$bad" = 0 ] || { echo "changelog: malformed fragments" >&2; return 1; }
  echo "changelog: $count fragment(s) well formed"
}

# Prints the entries of one heading from every fragment, in file order.
entries_of() {
  local heading=$1 f
  while IFS= read -r f; do
    awk -v h="### $heading" '
      /^### / { on = ($0 == h); next }
      on && NF { print }' "$f"
  done < <(fragments)
}

release() {
  local version=$1 section h body
  [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "changelog: bad version '$version'" >&2; exit 2; }
  check_all >/dev/null
  section="## $version ($(date -u +%Y-%m-%d))"$'\n'
  for h in "${headings[@]}"; do
    body=$(entries_of "$h")
    [ -z "$body" ] || section+=$'\n'"### $h"$'\n'"$body"$'\n'
  done
  # New section right after the file's preamble (before the first "## ").
  awk -v sec="$section" '
    !done && /^## / { printf "%s\n", sec; done = 1 }
    { print }
    END { if (!done) printf "\n%s", sec }' "$repo/CHANGELOG.md" >"$repo/CHANGELOG.md.new"
  mv "$repo/CHANGELOG.md.new" "$repo/CHANGELOG.md"
  fragments | xargs -r rm --
  echo "changelog: released $version"
}

case "${1:-}" in
  --check) check_all ;;
  --release) [ $# -eq 2 ] || { echo "usage: $0 --release X.Y.Z" >&2; exit 2; }; release "$2" ;;
  *) echo "usage: $0 --check | --release X.Y.Z" >&2; exit 2 ;;
esac
