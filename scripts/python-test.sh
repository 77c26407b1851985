#!/usr/bin/env bash
# The Python package (docs/python.md), as CI tests it: one build.
# scripts/python-wheel.sh builds the wheel offline (pinned build requirements
# from scripts/setup.sh's wheelhouse), repairs it with auditwheel, installs
# it alone into a fresh venv over Debian's Python (numpy, pandas, pytest and
# mypy from Debian) and runs the pytest suite against it; then this script
# lints the module's C++ (clang-tidy, on that build's compile database) and
# type-checks the installed package (mypy --strict). Everything lives in
# build-python/, reused, so a second run only rebuilds changes. Fails when a
# test fails and when no test ran (pytest exits 5).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/llvm.sh
source scripts/lib/llvm.sh
build=${P2B_PYTHON_BUILD_DIR:-$PWD/build-python}
export P2B_PYTHON_BUILD_DIR=$build

bash scripts/python-wheel.sh --out "$build/dist"
# The module's C++ is not in build-host's compile database: lint it here,
# every source the work tree has (new ones too, deleted ones not).
mapfile -t tidy_files < <(git ls-files --cached --others --exclude-standard -- 'bindings/python/src/*.cpp' |
  sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done)
if ! tidy_out=$(printf '%s\0' "${tidy_files[@]}" |
    xargs -0 -P "${JOBS:-2}" -n 4 "$p2b_clang_tidy" -p "$build/cmake" --quiet --warnings-as-errors='*' 2>&1); then
  printf '%s\n' "$tidy_out" | grep -vE '^[0-9]+ warnings? generated\.$' >&2
  echo "python-test: clang-tidy found problems in bindings/python/src" >&2
  exit 1
fi
echo "python-test: clang-tidy: ${#tidy_files[@]} files clean"
# The installed wheel against its stubs and annotations (mypy --strict).
"$build/test-venv/bin/python" -m mypy --config-file pyproject.toml -p p2b
