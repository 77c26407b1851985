#!/usr/bin/env bash
# ctest driver for what an operator sees when a config file is wrong
# (docs/operations.md, "Config file"; common/toml_config.hpp):
#
#   test_config_errors.sh RELAY CODEBOOK WORKDIR
#
# A typo'd key, a bad value, a value of the wrong type, a binary file and a
# missing file each make a service (RELAY, p2b-relay) and a tool (CODEBOOK,
# p2b-codebook, which reads config files as tools/cli/tool_cli.hpp does) exit 2 with a first line on stderr that names FILE:LINE and
# the key, and nothing on the terminal but printable ASCII. A members file
# the config names that is missing is a configuration error too: exit 2,
# which the units' RestartPreventExitStatus= lists.
set -euo pipefail

relay=$(realpath "$1") codebook=$(realpath "$2") work=$(realpath -m "$3")
rm -rf "$work"
mkdir -p "$work"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# expect NAME WANT_LINE WANT_TEXT PROGRAM ARGS...: exit 2, the first stderr
# line starts with WANT_LINE and holds WANT_TEXT, all of stderr printable.
expect() {
  local name=$1 want_line=$2 want_text=$3
  shift 3
  local status=0
  "$@" >"$work/out" 2>"$work/err" </dev/null || status=$?
  [ "$status" = 2 ] || fail "$name: exit $status, not 2: $(head -c 300 "$work/err" | od -c | head -5)"
  local first
  first=$(head -n 1 "$work/err")
  case $first in
    "$want_line"*"$want_text"*) ;;
    *) fail "$name: first line '$first' lacks '$want_line' ... '$want_text'" ;;
  esac
  if LC_ALL=C grep -q '[^[:print:]]' "$work/err"; then
    fail "$name: unprintable bytes on stderr: $(od -c "$work/err" | head -5)"
  fi
  echo "ok: $name: $first"
}

relay_base='store = "relay.db"
members = "members.txt"
consortium-fp = "00000000000000000000000000000000"
'
printf '%sproducrs = 4\n' "$relay_base" >"$work/typo.toml"
printf '%sproducers = 65\n' "$relay_base" >"$work/bad-value.toml"
printf '%sproducers = [4, 5]\n' "$relay_base" >"$work/wrong-type.toml"
printf 'store = "relay.db"\n\001\377\376\033[31m\000garbage' >"$work/binary.toml"
printf '%sproducers = 4\n' "$relay_base" >"$work/good.toml"

p=p2b-relay
expect "$p typo" "$p: $work/typo.toml:4:1:" "key 'producrs': unknown key (did you mean 'producers'?)" \
  "$relay" --config "$work/typo.toml"
expect "$p bad value" "$p: $work/bad-value.toml:4:1:" "--producers: expected 1..64, got '65'" \
  "$relay" --config "$work/bad-value.toml"
expect "$p wrong type" "$p: $work/wrong-type.toml:4:1:" "key 'producers': expected one value" \
  "$relay" --config "$work/wrong-type.toml"
expect "$p binary" "$p: $work/binary.toml:2:" "not TOML" "$relay" --config "$work/binary.toml"
expect "$p missing" "$p: $work/none.toml: cannot read the config file" "" \
  "$relay" --config "$work/none.toml"
# The config is fine; the members file it names is not there.
(cd "$work" && expect "$p missing members file" '{' members_unreadable \
  "$relay" --config "$work/good.toml" --listen 127.0.0.1:0)

p=p2b-codebook
printf 'dim = 4\ncodse = 16\n' >"$work/codebook-typo.toml"
printf 'dim = 4\ncodes = 16\ndigits = 9\n' >"$work/codebook-value.toml"
printf 'dim = 4\ncodes = 16\nforce = "yes"\n' >"$work/codebook-type.toml"
expect "$p typo" "$p: $work/codebook-typo.toml:2:1:" "key 'codse': unknown key (did you mean 'codes'?)" \
  "$codebook" --config "$work/codebook-typo.toml"
expect "$p bad value" "$p: $work/codebook-value.toml:3:1:" "--digits" \
  "$codebook" --config "$work/codebook-value.toml" --out "$work/never.p2bc"
expect "$p wrong type" "$p: $work/codebook-type.toml:3:1:" "key 'force': expected true or false" \
  "$codebook" --config "$work/codebook-type.toml"
expect "$p binary" "$p: $work/binary.toml:2:" "not TOML" "$codebook" --config "$work/binary.toml"
expect "$p missing" "$p: $work/none.toml: cannot read the config file" "" \
  "$codebook" --config "$work/none.toml"
echo "ok: config errors"
