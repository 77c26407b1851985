#!/usr/bin/env bash
# packaging.release: scripts/release.sh on a throwaway clone of HEAD.
# prepare 97.53.1 must bump the header's version, fold every fragment into a
# CHANGELOG section and refuse to run twice; artifacts --no-wheel must then
# produce a tarball of the committed tree at that version, with no fragments
# left and nothing ignored (no build-*/), and refuse a dirty tree.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 || { echo "release_test: not a git checkout: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "release_test: $*" >&2; exit 1; }

git clone -q "$repo" "$tmp/clone"
cd "$tmp/clone"
# The work tree's scripts, not HEAD's: the test checks the change under test.
cp "$repo/scripts/release.sh" "$repo/scripts/changelog.sh" scripts/
# One fragment of the test's own, so the test does not depend on whether
# main has fragments waiting (right after a release it has none).
printf '### Changes\n- release_test: a marker entry.\n' >changelog.d/release-test-marker.md
git add changelog.d/release-test-marker.md
git -c user.email=t@example.invalid -c user.name=t commit -qam "scripts under test"
fragments=$(find changelog.d -maxdepth 1 -name '*.md' ! -name README.md | wc -l)

bash scripts/release.sh prepare 97.53.1 >/dev/null
grep -qx '#define P2B_VERSION_MAJOR 97' c_api/p2b.h || fail "MAJOR not bumped"
grep -qx '#define P2B_VERSION_MINOR 53' c_api/p2b.h || fail "MINOR not bumped"
grep -qx '#define P2B_VERSION_PATCH 1' c_api/p2b.h || fail "PATCH not bumped"
grep -q '^## 97.53.1 ' CHANGELOG.md || fail "no CHANGELOG section"
grep -q '^- release_test: a marker entry\.$' CHANGELOG.md || fail "the fragment's entry is not in CHANGELOG.md"
left=$(find changelog.d -maxdepth 1 -name '*.md' ! -name README.md | wc -l)
[ "$left" = 0 ] || fail "$left fragments left after prepare"
if bash scripts/release.sh prepare 97.53.1 2>/dev/null; then fail "prepare ran twice"; fi
if bash scripts/release.sh prepare 0.0.1 2>/dev/null; then fail "prepare went backwards"; fi

if bash scripts/release.sh artifacts --no-wheel --out "$tmp/dist" 2>/dev/null; then
  fail "artifacts ran before the release was committed"
fi
git -c user.email=t@example.invalid -c user.name=t commit -qam "release 97.53.1"
echo "// local edit" >>README.md
if bash scripts/release.sh artifacts --no-wheel --out "$tmp/dist" 2>/dev/null; then
  fail "artifacts ran on a dirty tree"
fi
git checkout -q README.md
mkdir build-junk && touch build-junk/x  # ignored: must not reach the tarball
bash scripts/release.sh artifacts --no-wheel --out "$tmp/dist" >/dev/null
tarball=$tmp/dist/p2b-97.53.1.tar.gz
[ -s "$tarball" ] || fail "no tarball"
tar -xzf "$tarball" -C "$tmp"
grep -qx '#define P2B_VERSION_MINOR 53' "$tmp/p2b-97.53.1/c_api/p2b.h" || fail "tarball has another version"
[ ! -e "$tmp/p2b-97.53.1/build-junk" ] || fail "an ignored dir reached the tarball"
[ -z "$(find "$tmp/p2b-97.53.1/changelog.d" -name '*.md' ! -name README.md)" ] || fail "fragments in the tarball"
(cd "$tmp/dist" && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not match"
echo "release_test: prepare + artifacts on a clone: ok ($fragments fragments folded)"
