#!/usr/bin/env bash
# Cuts a release in two steps (docs/packaging.md, "Releases"):
#
#   bash scripts/release.sh prepare X.Y.Z
#       bumps the one version source (the P2B_VERSION_* macros in c_api/p2b.h,
#       which CMake, the Python package, Gradle and Swift read) and folds
#       changelog.d/ into CHANGELOG.md (scripts/changelog.sh --release). Commit
#       the result, then tag it vX.Y.Z.
#   bash scripts/release.sh artifacts [--no-wheel] [--out DIR]
#       from the committed HEAD: the source tarball p2b-X.Y.Z.tar.gz (git
#       archive, so nothing untracked or ignored goes in), the repaired Python
#       wheel (scripts/python-wheel.sh), and SHA256SUMS, in DIR [dist/].
#       Refuses when the header's version is not a section of CHANGELOG.md,
#       or when fragments are still waiting in changelog.d/ (not prepared).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
header=c_api/p2b.h

usage() {
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
die() { echo "release: $*" >&2; exit 1; }

header_version() {
  local part v=""
  for part in MAJOR MINOR PATCH; do
    local n
    n=$(sed -n "s/^#define P2B_VERSION_${part} \([0-9][0-9]*\)$/\1/p" "$header")
    [ -n "$n" ] || die "$header has no '#define P2B_VERSION_${part} N' line"
    v+="${v:+.}$n"
  done
  echo "$v"
}

waiting_fragments() { find changelog.d -maxdepth 1 -name '*.md' ! -name README.md | wc -l; }

prepare() {
  local version=$1 old major minor patch
  [[ "$version" =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || die "bad version '$version' (want X.Y.Z)"
  major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]} patch=${BASH_REMATCH[3]}
  old=$(header_version)
  [ "$old" != "$version" ] || die "the header already says $version"
  # A version only moves forward: sort -V puts the older first.
  [ "$(printf '%s\n%s\n' "$old" "$version" | sort -V | head -1)" = "$old" ] ||
    die "$version is older than the current $old"
  [ "$(waiting_fragments)" -gt 0 ] || die "changelog.d/ has no fragments: nothing to release"
  bash scripts/changelog.sh --check >/dev/null
  sed -i -e "s/^#define P2B_VERSION_MAJOR [0-9]*$/#define P2B_VERSION_MAJOR $major/" \
    -e "s/^#define P2B_VERSION_MINOR [0-9]*$/#define P2B_VERSION_MINOR $minor/" \
    -e "s/^#define P2B_VERSION_PATCH [0-9]*$/#define P2B_VERSION_PATCH $patch/" "$header"
  [ "$(header_version)" = "$version" ] || die "bumping $header failed"
  bash scripts/changelog.sh --release "$version"
  echo "release: $old -> $version; review, commit, then tag v$version and run '$0 artifacts'"
}

artifacts() {
  local out=dist wheel=1 version
  while [ $# -gt 0 ]; do
    case "$1" in
      --no-wheel) wheel=0 ;;
      --out) [ $# -ge 2 ] || usage; out=$2; shift ;;
      *) usage ;;
    esac
    shift
  done
  version=$(git show "HEAD:$header" >/dev/null 2>&1 && git show "HEAD:$header" |
    sed -n 's/^#define P2B_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' | paste -sd.)
  [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "cannot read the version from HEAD:$header"
  # Read whole, not piped into grep -q: an early exit would SIGPIPE git under pipefail.
  local changelog
  changelog=$(git show HEAD:CHANGELOG.md)
  grep -q "^## $version " <<<"$changelog" ||
    die "CHANGELOG.md at HEAD has no '## $version' section: run '$0 prepare $version' and commit"
  [ "$(git ls-tree --name-only HEAD changelog.d/ | grep -cv 'README.md$')" = 0 ] ||
    die "changelog.d/ at HEAD still holds fragments: run '$0 prepare $version' and commit"
  # The wheel is built from the work tree: it must be HEAD's.
  git diff --quiet HEAD -- || die "the work tree differs from HEAD: commit or stash first"
  mkdir -p "$out"
  local tarball="$out/p2b-$version.tar.gz"
  git archive --format=tar.gz --prefix="p2b-$version/" -o "$tarball" HEAD
  echo "release: $tarball ($(du -h "$tarball" | cut -f1))"
  if [ "$wheel" = 1 ]; then
    bash scripts/python-wheel.sh --out "$out"
  fi
  (cd "$out" && shopt -s nullglob && sha256sum -- "p2b-$version.tar.gz" p2b-"$version"-*.whl >SHA256SUMS)
  echo "release: $out/SHA256SUMS"
  cat "$out/SHA256SUMS"
}

case "${1:-}" in
  prepare) [ $# -eq 2 ] || usage; prepare "$2" ;;
  artifacts) shift; artifacts "$@" ;;
  *) usage ;;
esac
