#!/usr/bin/env bash
# scripts/swift-test.sh compiles the Swift package where a Swift toolchain
# is installed; this check runs everywhere else too (every ctest suite, the
# cross builds), so a drift from the C API shows up without one: every
# snake_case C name (functions, struct fields) and every P2B_* constant the
# Swift sources use outside comments must be declared in p2b.h, and every
# error status of p2b.h must have its P2BError constant (which no compiler
# checks).
#   tests/swift_api_check.sh <repo root>
set -euo pipefail
root=${1:?usage: swift_api_check.sh <repo root>}
# p2b.h and the headers it includes (one per protocol, the common part).
headers=("$root"/c_api/p2b*.h)
sources=$root/bindings/swift/Sources/P2B
errors=0
# The C library's own calls, not p2b's (NativeArena's wipe).
platform_names=" explicit_bzero memset_s "

mapfile -t used < <(sed 's://.*$::' "$sources"/*.swift |
  grep -ohE '\b([a-z][a-z0-9]*(_[a-z0-9]+)+|P2B_[A-Z0-9_]*[A-Z0-9])\b' | sort -u)
for name in "${used[@]}"; do
  [[ $platform_names == *" $name "* ]] && continue
  if ! grep -qw -- "$name" "${headers[@]}"; then
    echo "swift_api_check: the Swift sources use $name, which p2b.h does not declare" >&2
    errors=$((errors + 1))
  fi
done

mapfile -t statuses < <(grep -ohE '^\s*P2B_ERR_[A-Z_]+ *=' "${headers[@]}" | tr -d ' =' | sort -u)
for status in "${statuses[@]}"; do
  if ! grep -q "P2BError($status)" "$sources/P2BError.swift"; then
    echo "swift_api_check: P2BError has no constant for $status" >&2
    errors=$((errors + 1))
  fi
done

if [ "${#used[@]}" -lt 40 ] || [ "${#statuses[@]}" -lt 30 ]; then
  echo "swift_api_check: found only ${#used[@]} C names and ${#statuses[@]} statuses: the patterns broke" >&2
  exit 1
fi
if [ "$errors" -gt 0 ]; then exit 1; fi
echo "swift_api_check: ${#used[@]} C names used by the Swift package exist in p2b.h; ${#statuses[@]} error statuses all mapped"
