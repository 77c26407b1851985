#!/usr/bin/env bash
# The Python wheel, as CI and scripts/release.sh make it (docs/python.md,
# "From the wheel"), offline:
#   1. `pip wheel` builds it once with the pinned build requirements
#      (pyproject.toml) from scripts/setup.sh's wheelhouse, no build isolation;
#   2. `auditwheel repair` makes it a manylinux wheel, libsodium inside, in
#      --out [dist/];
#   3. that wheel alone is installed into a fresh venv (Debian's numpy,
#      pandas and pytest through --system-site-packages, no index), timed;
#   4. the pytest suite (bindings/python/tests) runs against it, from the
#      tests' directory, so `import p2b` can only be the installed wheel.
# Prints the build and install times. Reuses $build/cmake, so a second run
# only rebuilds changes; leaves $build/test-venv for scripts/python-test.sh.
#
# usage: scripts/python-wheel.sh [--out DIR] [--no-test]
# env: JOBS [2] parallel compile jobs; P2B_PYTHON_BUILD_DIR [build-python];
#      P2B_WHEELHOUSE [~/.cache/p2b-wheelhouse]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/python_pins.sh
source scripts/lib/python_pins.sh

out=dist
run_tests=1
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || { echo "python-wheel: --out needs a directory" >&2; exit 2; }; out=$2; shift ;;
    --no-test) run_tests=0 ;;
    *) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
  shift
done
build=${P2B_PYTHON_BUILD_DIR:-$PWD/build-python}
python=/usr/bin/python3  # Debian's, whatever python3 is first on PATH
tools_venv=$build/build-venv
test_venv=$build/test-venv
mkdir -p "$build" "$out"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

mapfile -t pins < <(p2b_python_pins build && p2b_python_pins wheel-tools)
if ! compgen -G "$p2b_wheelhouse/*.whl" >/dev/null; then
  echo "python-wheel: no wheels in $p2b_wheelhouse: run scripts/setup.sh (it downloads ${pins[*]})" >&2
  exit 1
fi
# The build backend and the wheel tools, in a venv of their own, from the
# wheelhouse (pip does nothing when they are there already).
[ -x "$tools_venv/bin/python" ] || "$python" -m venv "$tools_venv"
"$tools_venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index \
  --find-links "$p2b_wheelhouse" "${pins[@]}"

# 1. The wheel. CMake's output goes to a log (the tail is shown on failure):
# `pip install -v .` is the way to watch a build.
raw=$build/wheel
rm -rf "$raw"
log=$build/wheel-build.log
echo "python-wheel: building (${JOBS:-2} jobs, log $log)"
start=$(now)
if ! CMAKE_BUILD_PARALLEL_LEVEL=${JOBS:-2} "$tools_venv/bin/python" -m pip wheel --verbose \
    --disable-pip-version-check --no-build-isolation --no-index --no-deps \
    --config-settings=build-dir="$build/cmake" -w "$raw" . >"$log" 2>&1; then
  tail -40 "$log" >&2
  echo "python-wheel: pip wheel failed (whole log: $log)" >&2
  exit 1
fi
built=("$raw"/p2b-*.whl)
echo "python-wheel: built ${built[0]##*/} in $(since "$start") s"

# 2. manylinux: auditwheel picks the oldest policy the module's symbols allow
# and copies the shared libraries outside that policy (libsodium) into it.
version=$(basename "${built[0]}" | cut -d- -f2)
rm -f "$out"/p2b-"$version"-*.whl
PATH=$tools_venv/bin:$PATH auditwheel repair --wheel-dir "$out" "${built[0]}" >"$build/auditwheel.log" 2>&1 || {
  cat "$build/auditwheel.log" >&2
  exit 1
}
wheels=("$out"/p2b-"$version"-*manylinux*.whl)
[ -f "${wheels[0]}" ] || { cat "$build/auditwheel.log" >&2; exit 1; }
wheel=${wheels[0]}
echo "python-wheel: repaired: $wheel ($(du -k "$wheel" | cut -f1) KiB)"
"$tools_venv/bin/auditwheel" show "$wheel" | sed -n '1,3p' | tr -s '\n' ' '
echo

# 3. The wheel alone in a fresh venv: no source tree, no index.
rm -rf "$test_venv"
"$python" -m venv --system-site-packages "$test_venv"
start=$(now)
"$test_venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$wheel"
echo "python-wheel: installed the wheel in $(since "$start") s"

[ "$run_tests" = 1 ] || exit 0
# 4. The tests. The host suite's p2b-keygen, when built: a test compares its
# files and fingerprints with p2b.keygen's (skipped without it).
if [ -z "${P2B_KEYGEN:-}" ] && [ -x build-host/tools/p2b-keygen ]; then
  export P2B_KEYGEN=$PWD/build-host/tools/p2b-keygen
fi
cd bindings/python/tests
"$test_venv/bin/python" - "$test_venv" <<'PY'
import sys
from pathlib import Path

import p2b

where = Path(p2b.__file__).resolve()
if Path(sys.argv[1]).resolve() not in where.parents:
    sys.exit("python-wheel: p2b imported from %s, not the test venv" % where)
PY
"$test_venv/bin/python" -m pytest -q -p no:cacheprovider
