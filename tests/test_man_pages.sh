#!/usr/bin/env bash
# ctest driver for the man pages help2man made from each program's --help
# and --version (cmake/operators.cmake):
#
#   test_man_pages.sh PAGE...
#
# Each PAGE (manN/PROG.N) must be a page for PROG in section N, with our
# NAME line (not help2man's placeholder) and an OPTIONS section that holds
# --help, --version and (services, section 8) --config: what a page made
# from a program whose --help went to stderr or failed would lack; and for
# p2b-device, its subcommands' flags (its page comes from --help-all); and
# the EXAMPLES, FILES, EXIT STATUS and SEE ALSO sections.
set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

[ $# -gt 0 ] || fail "no pages given"
for page in "$@"; do
  file=$(basename "$page")
  prog=${file%.*} section=${file##*.}
  [ -s "$page" ] || fail "$page missing or empty"
  upper=$(printf '%s' "$prog" | tr '[:lower:]' '[:upper:]')
  grep -q "^\.TH $upper \"$section\"" "$page" || fail "$file: no .TH $upper \"$section\""
  name_line=$(sed -n '/^\.SH NAME/{n;p;q}' "$page")
  case $name_line in
    "$prog \\- manual page for"* | "") fail "$file: no NAME description: $name_line" ;;
  esac
  grep -q '^\.SH OPTIONS' "$page" || fail "$file: no OPTIONS section"
  opts=(help version)
  [ "$section" = 8 ] && opts+=(config)  # every service reads a config file
  # Subcommands' flags, which a page made from the top-level --help lacks.
  [ "$prog" = p2b-device ] && opts+=(shuffler users analyzer wait-seconds)
  # What --help cannot say, from packaging/man/*.h2m (help2man --include).
  for section in EXAMPLES FILES "EXIT STATUS" "SEE ALSO"; do
    grep -qE "^\.SH \"?$section\"?\$" "$page" || fail "$file: no $section section"
  done
  for opt in "${opts[@]}"; do
    # roff writes every hyphen as \-, inside the name too.
    grep -qF "\\-\\-${opt//-/\\-}" "$page" || fail "$file: --$opt not documented"
  done
  echo "ok: $file ($name_line)"
done
echo "ok: man pages"
