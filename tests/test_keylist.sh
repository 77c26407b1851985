#!/usr/bin/env bash
# ctest driver for p2b-keylist (tools/CMakeLists.txt registers one
# keylist.CASE test per case below), each in its own fresh directory.
#
#   test_keylist.sh CASE KEYGEN KEYLIST CHECK WORKDIR
#     KEYGEN   the p2b-keygen binary (makes the deployment's keys)
#     KEYLIST  the p2b-keylist binary
#     CHECK    the keylist_check helper: applies a list as a device does
set -euo pipefail

case_name=$1 keygen=$2 keylist=$3 check=$4 work=$5
rm -rf "$work"
mkdir -p "$work"
umask 022

fail() {
  echo "FAIL [$case_name]: $*" >&2
  exit 1
}

# run ARGS...: runs p2b-keylist; sets $rc, leaves $work/stdout and $work/stderr.
run() {
  rc=0
  "$keylist" "$@" >"$work/stdout" 2>"$work/stderr" || rc=$?
}

expect_rc() {
  [ "$rc" = "$1" ] || fail "expected exit $1, got $rc; stderr: $(cat "$work/stderr")"
}

expect_in() {  # expect_in FILE TEXT
  grep -qF -- "$2" "$1" || fail "'$2' not in $(basename "$1"): $(cat "$1")"
}

fp() { b2sum -l 128 "$1" | cut -d' ' -f1; }

"$keygen" --out "$work/old" >/dev/null
"$keygen" --out "$work/new" >/dev/null
sk=$work/old/analyzer.sign.sk
pk=$work/old/analyzer.sign.pk

# The list names the current key and the accepted ones by fingerprint; a
# device pinning the signer applies it and then seals to the current key.
case_make_and_apply() {
  run --sign-key "$sk" --list-version 3 --current "$work/new/shuffler.box.pk" \
    --accept "$work/old/shuffler.box.pk" --created 1795000000 --not-after 1795003600 \
    --out "$work/list"
  expect_rc 0
  [ "$(stat -c %s "$work/list")" = 248 ] || fail "list is $(stat -c %s "$work/list") bytes"
  [ "$(stat -c %a "$work/list")" = 644 ] || fail "list mode $(stat -c %a "$work/list")"
  [ "$(head -c 4 "$work/list")" = P2BL ] || fail "magic"
  expect_in "$work/stdout" "version     3"
  expect_in "$work/stdout" "not after   1795003600"
  expect_in "$work/stdout" "current     fingerprint $(fp "$work/new/shuffler.box.pk")"
  expect_in "$work/stdout" "accepted    fingerprint $(fp "$work/old/shuffler.box.pk")"
  expect_in "$work/stdout" "signer      fingerprint $(fp "$pk")"
  # Never a secret: no 64-hex-digit run (the key's bytes) in anything printed.
  if grep -Eq '[0-9a-f]{64}' "$work/stdout" "$work/stderr"; then fail "long hex printed"; fi
  "$check" "$work/list" "$pk" 1795003600 >"$work/check" || fail "device refused: $(cat "$work/check")"
  expect_in "$work/check" "version 3"
  expect_in "$work/check" "current $(fp "$work/new/shuffler.box.pk")"
  local got=0
  "$check" "$work/list" "$pk" 1795003601 >"$work/check" || got=$?
  [ "$got" = 1 ] || fail "expired list applied"
  expect_in "$work/check" "past its not-after time"
  got=0
  "$check" "$work/list" "$work/new/analyzer.sign.pk" 0 >"$work/check" || got=$?
  [ "$got" = 1 ] || fail "list applied under another pinned key"
  expect_in "$work/check" "signature does not verify"
}

case_show() {
  run --sign-key "$sk" --list-version 7 --current "$work/new/shuffler.box.pk" --out "$work/list"
  expect_rc 0
  run --show "$work/list" --verify-key "$pk"
  expect_rc 0
  expect_in "$work/stdout" "version     7"
  expect_in "$work/stdout" "not after   none"
  run --show "$work/list" --verify-key "$work/new/analyzer.sign.pk"
  expect_rc 1
  expect_in "$work/stderr" "signature does not verify"
  head -c 247 "$work/list" >"$work/short"
  run --show "$work/short" --verify-key "$pk"
  expect_rc 1
}

case_refuse_overwrite() {
  run --sign-key "$sk" --list-version 1 --current "$work/new/shuffler.box.pk" --out "$work/list"
  expect_rc 0
  cp "$work/list" "$work/first"
  run --sign-key "$sk" --list-version 2 --current "$work/old/shuffler.box.pk" --out "$work/list"
  expect_rc 1
  expect_in "$work/stderr" "--force"
  cmp -s "$work/list" "$work/first" || fail "refused run changed the file"
  run --sign-key "$sk" --list-version 2 --current "$work/old/shuffler.box.pk" --out "$work/list" \
    --force
  expect_rc 0
  expect_in "$work/stdout" "version     2"
  [ "$(find "$work" -maxdepth 1 -name '.*' | wc -l)" = 0 ] || fail "temporary file left"
}

case_bad_keys() {
  run --sign-key "$sk" --list-version 1 --current "$work/new/shuffler.box.pk" \
    --accept "$work/new/shuffler.box.pk" --out "$work/list"
  expect_rc 1
  expect_in "$work/stderr" "the same key"
  run --sign-key "$work/new/shuffler.box.pk" --list-version 1 \
    --current "$work/new/shuffler.box.pk" --out "$work/list"
  expect_rc 1  # a 32-byte file is no signing key
  run --sign-key "$sk" --list-version 1 --current "$work/new/shuffler.box.pk" \
    --accept "$work/old/shuffler.box.pk" --accept "$work/old/analyzer.box.pk" \
    --accept "$work/new/analyzer.box.pk" --accept "$work/old/shuffler.sign.pk" \
    --out "$work/list"
  expect_rc 2
  expect_in "$work/stderr" "at most 3 --accept keys"
  [ ! -e "$work/list" ] || fail "a refused run wrote the list"
}

case_usage() {
  run --list-version 1 --current "$work/new/shuffler.box.pk" --out "$work/list"
  expect_rc 2
  run --sign-key "$sk" --list-version 0 --current "$work/new/shuffler.box.pk" --out "$work/list"
  expect_rc 2
  expect_in "$work/stderr" "--list-version: expected an integer of 1 or more"
  run --sign-key "$sk" --list-version 1 --current "$work/new/shuffler.box.pk" --out "$work/list" \
    --created 200 --not-after 100
  expect_rc 2
  run --show "$work/list"
  expect_rc 2
  run --help
  expect_rc 0
  expect_in "$work/stdout" "Usage: p2b-keylist"
}

"case_$case_name"
rm -rf "$work"
