#!/usr/bin/env bash
# ctest driver for what every service's and tool's --help shows an operator
# (cmake/operators.cmake, common/help_format.hpp):
#
#   test_help_format.sh PROGRAM...
#
# Each PROGRAM's --help (--help-all for one with subcommands) must exit 0,
# print exactly one line starting with "usage" (any case), and name every
# value (FILE, SECONDS, URL, ...), never CLI11's C++ types TEXT, UINT, INT,
# FLOAT.
set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

[ $# -gt 0 ] || fail "no programs given"
for program in "$@"; do
  name=$(basename "$program")
  help_option=--help
  "$program" --help | grep -q -- '--help-all' && help_option=--help-all
  text=$("$program" "$help_option") || fail "$name $help_option exited $?"
  usage_lines=$(printf '%s\n' "$text" | grep -ci '^usage' || true)
  [ "$usage_lines" = 1 ] || fail "$name: $usage_lines lines start with usage, not 1"
  # A type name follows an option's flag: "  --listen TEXT   ...".
  if bad=$(printf '%s\n' "$text" | grep -E '^ +-[^ ]* (TEXT|UINT|INT|FLOAT)\b'); then
    fail "$name: CLI11 type names in --help: $bad"
  fi
  printf '%s\n' "$text" | grep -qw TEXT && fail "$name: TEXT in --help"
  echo "ok: $name"
done
echo "ok: help format"
