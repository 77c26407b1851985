#!/usr/bin/env bash
# The Python package (docs/python.md): pip-installs it from this tree into a
# venv over Debian's Python (numpy, pandas and pytest from Debian, no
# network), lints its C++ (clang-tidy), type-checks it (mypy --strict), then
# runs its pytest suite. Build and venv live in build-python/,
# reused, so a second run only rebuilds changes. Fails when a test fails and
# when no test ran (pytest exits 5).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/llvm.sh
source scripts/lib/llvm.sh
build=${P2B_PYTHON_BUILD_DIR:-$PWD/build-python}
venv=$build/venv
python=/usr/bin/python3  # Debian's, whatever python3 is first on PATH

[ -x "$venv/bin/python" ] || "$python" -m venv --system-site-packages "$venv"
P2B_PYTHON_BUILD_DIR=$build P2B_BUILD_JOBS=${JOBS:-2} \
  "$venv/bin/python" -m pip install --no-build-isolation --no-index --quiet \
  --disable-pip-version-check .
# The module's C++ is not in build-host's compile database: lint it here.
mapfile -t tidy_files < <(git ls-files -- 'bindings/python/src/*.cpp')
if ! tidy_out=$(printf '%s\0' "${tidy_files[@]}" |
    xargs -0 -P "${JOBS:-2}" -n 4 "$p2b_clang_tidy" -p "$build" --quiet --warnings-as-errors='*' 2>&1); then
  printf '%s\n' "$tidy_out" | grep -vE '^[0-9]+ warnings? generated\.$' >&2
  echo "python-test: clang-tidy found problems in bindings/python/src" >&2
  exit 1
fi
echo "python-test: clang-tidy: ${#tidy_files[@]} files clean"
# The installed package against its stubs and annotations (mypy --strict).
"$venv/bin/python" -m mypy --config-file pyproject.toml -p p2b
# The host suite's p2b-keygen, when built: a test compares its files and
# fingerprints with p2b.keygen's (skipped without it).
if [ -z "${P2B_KEYGEN:-}" ] && [ -x build-host/tools/p2b-keygen ]; then
  export P2B_KEYGEN=$PWD/build-host/tools/p2b-keygen
fi
# From the tests' directory, so `import p2b` is the installed package, not
# the source tree's (which has no compiled module).
cd bindings/python/tests
"$venv/bin/python" -m pytest -q -p no:cacheprovider
