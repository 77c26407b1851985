#!/usr/bin/env bash
# clang-format over every C/C++ source the project writes itself.
#   bash scripts/format.sh          rewrites files in place
#   bash scripts/format.sh --check  fails, listing files, if any would change
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/llvm.sh
source scripts/lib/llvm.sh
# Vendored (nanopb) and generated (protoc) code keeps its own style.
mapfile -t files < <(git ls-files -- '*.c' '*.h' '*.cpp' '*.hpp' \
  ':(exclude)proto/nanopb/*' ':(exclude)proto/generated/*')
if [ "${1:-}" = "--check" ]; then
  bad=()
  for f in "${files[@]}"; do
    "$p2b_clang_format" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    echo "format: these files differ from .clang-format (run bash scripts/format.sh):" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
  fi
  echo "format: ${#files[@]} files clean"
else
  "$p2b_clang_format" -i "${files[@]}"
fi
