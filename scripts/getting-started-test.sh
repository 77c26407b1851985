#!/usr/bin/env bash
# Runs docs/getting-started.md against an installed p2b: builds and installs
# the services and tools of a build tree (default build-host, configured
# with the `host` preset if missing) into a temporary prefix, extracts the
# fenced block marked `sh getting-started` from the page, runs it in a
# temporary directory, and checks what it printed. The page is the test.
#
#   bash scripts/getting-started-test.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-host}
jobs=${JOBS:-2}
page=docs/getting-started.md

fail() {
  echo "getting-started: FAIL: $*" >&2
  exit 1
}

[ -f "$build/CMakeCache.txt" ] || cmake --preset host >/dev/null
# What cmake --install copies, and nothing else (cmake/operators.cmake).
cmake --build "$build" -j "$jobs" --target p2b-installable
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
# The installed units name the installed binaries (written at install time).
if command -v systemd-analyze >/dev/null; then
  for unit in "$work/prefix"/lib/systemd/system/p2b-*.service; do
    systemd-analyze verify --man=no "$unit" || fail "installed $(basename "$unit") does not verify"
  done
  echo "getting-started: installed units verify against $work/prefix/bin"
fi

# Everything between "```sh getting-started" and the next "```".
awk '/^```sh getting-started$/ {on = 1; next} on && /^```$/ {exit} on {print}' "$page" \
  >"$work/page.sh"
n=$(grep -c . "$work/page.sh" || true)
[ "$n" -ge 5 ] || fail "no \`sh getting-started\` block in $page"
echo "getting-started: $n commands from $page"

for port in 8710 8720; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    fail "port $port is taken on loopback; the page's services need it"
  fi
done

# A service left running by a failed command is stopped on the way out.
{
  echo "trap 'jobs -p | xargs -r kill 2>/dev/null' EXIT"
  cat "$work/page.sh"
} >"$work/commands.sh"
mkdir "$work/run"
# -e: the first failing command (a service exiting non-zero included, via
# `wait`) fails the test.
if ! (cd "$work/run" && PREFIX="$work/prefix" timeout 300 bash -e "$work/commands.sh") \
  >"$work/out.txt" 2>&1; then
  cat "$work/out.txt" "$work/run/"*.log >&2 || true
  fail "a command failed"
fi
cat "$work/out.txt"

grep -qE '^[0-9]+ users \(reward rate [0-9.]+\): [1-9][0-9]* sealed envelopes posted' \
  "$work/out.txt" || fail "the devices posted no envelopes"
grep -qE '^model version [1-9][0-9]* \([0-9]+-byte signed bundle .*\) verified and applied$' \
  "$work/out.txt" || fail "no model was applied on the device"
echo "getting-started: ok"
