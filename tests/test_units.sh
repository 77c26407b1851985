#!/usr/bin/env bash
# ctest driver for the systemd units (cmake/operators.cmake):
#
#   test_units.sh UNIT...
#
# runs `systemd-analyze verify` on the build tree's copies (their ExecStart=
# is the built binary, so a wrong path fails), checks that every unit keeps
# the hardening that matters (a unit that lost its @P2B_UNIT_COMMON@ splice
# would still verify), and prints each unit's
# `systemd-analyze security --offline=yes` exposure score (docs/operations.md).
# Exit 77 (skipped) without systemd-analyze.
set -euo pipefail

command -v systemd-analyze >/dev/null || { echo "systemd-analyze not found: skipped"; exit 77; }
[ $# -gt 0 ] || { echo "FAIL: no units given" >&2; exit 1; }

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

required=(DynamicUser=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes
  PrivateDevices=yes NoNewPrivileges=yes CapabilityBoundingSet= MemoryDenyWriteExecute=yes
  LockPersonality=yes RestrictNamespaces=yes SystemCallFilter=@system-service
  "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX")
for unit in "$@"; do
  name=$(basename "$unit")
  [ -f "$unit" ] || fail "$unit missing"
  # verify prints problems on stderr; a clean unit prints nothing and exits 0.
  if ! out=$(systemd-analyze verify --man=no "$unit" 2>&1) || [ -n "$out" ]; then
    fail "$name: systemd-analyze verify: $out"
  fi
  for line in "${required[@]}"; do
    grep -qxF "$line" "$unit" || fail "$name lacks $line"
  done
  exec_path=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit")
  [ -x "$exec_path" ] || fail "$name: ExecStart $exec_path is not an executable"
  # A secret only ever arrives as a credential, never as a readable path.
  if grep -E '^ExecStart=.*\.sk' "$unit"; then fail "$name passes a secret key path"; fi
  score=$(systemd-analyze security --offline=yes --no-pager "$unit" 2>/dev/null |
    sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) \(.*\)/\1 \2/p')
  echo "ok: $name verified; exposure ${score:-unknown}"
done
echo "ok: units"
