#!/usr/bin/env bash
# ctest driver for p2b-keygen (tools/CMakeLists.txt registers one keygen.CASE
# test per case below). Each case works in its own fresh directory, so the
# cases can run in parallel; the directory is removed when the case passes
# and kept for inspection when it fails.
#
#   test_keygen.sh CASE KEYGEN CHECK WORKDIR
#     KEYGEN  the p2b-keygen binary
#     CHECK   the keygen_check helper (tests/keygen_check.cpp)
set -euo pipefail

case_name=$1 keygen=$2 check=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
umask 022

pub_files=(shuffler.box.pk analyzer.box.pk analyzer.sign.pk shuffler.sign.pk)
sec_files=(shuffler.box.sk analyzer.box.sk analyzer.sign.sk shuffler.sign.sk)
all_files=("${pub_files[@]}" "${sec_files[@]}")

fail() {
  echo "FAIL [$case_name]: $*" >&2
  exit 1
}

# gen ARGS...: runs p2b-keygen; sets $rc and leaves $work/stdout, $work/stderr.
gen() {
  rc=0
  "$keygen" "$@" >"$work/stdout" 2>"$work/stderr" || rc=$?
}

expect_rc() {
  [ "$rc" = "$1" ] || fail "expected exit $1, got $rc; stderr: $(cat "$work/stderr")"
}

expect_in() {  # expect_in FILE TEXT
  grep -qF -- "$2" "$1" || fail "'$2' not in $(basename "$1"): $(cat "$1")"
}

hex() { od -An -v -tx1 "$1" | tr -d ' \n'; }

snapshot() { (cd "$1" && find . -type f -printf '%p %m\n' | sort && sha256sum -- * | sort); }

size_of() {
  case $1 in *.sign.sk) echo 64 ;; *) echo 32 ;; esac
}

# The eight files with exact sizes and modes, and nothing else (no temp files).
expect_key_set() {
  local dir=$1 f
  for f in "${all_files[@]}"; do
    [ -f "$dir/$f" ] || fail "$dir/$f missing"
    [ "$(stat -c %s "$dir/$f")" = "$(size_of "$f")" ] || fail "$f has the wrong size"
  done
  for f in "${pub_files[@]}"; do
    [ "$(stat -c %a "$dir/$f")" = 644 ] || fail "$f mode $(stat -c %a "$dir/$f"), want 644"
  done
  for f in "${sec_files[@]}"; do
    [ "$(stat -c %a "$dir/$f")" = 600 ] || fail "$f mode $(stat -c %a "$dir/$f"), want 600"
  done
  [ "$(find "$dir" -mindepth 1 | wc -l)" = 8 ] || fail "unexpected entries: $(ls -A "$dir")"
}

expect_pairs_work() {
  local dir=$1
  "$check" box "$dir/shuffler.box.pk" "$dir/shuffler.box.sk" || fail "shuffler box pair"
  "$check" box "$dir/analyzer.box.pk" "$dir/analyzer.box.sk" || fail "analyzer box pair"
  "$check" sign "$dir/analyzer.sign.pk" "$dir/analyzer.sign.sk" || fail "analyzer sign pair"
  "$check" sign "$dir/shuffler.sign.pk" "$dir/shuffler.sign.sk" || fail "shuffler sign pair"
}

# expect_check_rc RC ARGS...: runs the helper, leaving its stdout in $work/check.
expect_check_rc() {
  local want=$1 got=0
  shift
  "$check" "$@" >"$work/check" 2>&1 || got=$?
  [ "$got" = "$want" ] || fail "keygen_check $* exited $got, want $want: $(cat "$work/check")"
}

case_files() {
  gen --out "$work/keys"
  expect_rc 0
  expect_key_set "$work/keys"
}

# The open(2) mode is filtered by the umask; the tool's modes must not be.
case_modes_ignore_umask() {
  local mask
  for mask in 000 077; do
    (umask "$mask" && "$keygen" --out "$work/keys-$mask" >/dev/null) || fail "umask $mask run"
    expect_key_set "$work/keys-$mask"
  done
}

case_new_dir() {
  gen --out "$work/a/b/keys"
  expect_rc 0
  local d
  for d in a a/b a/b/keys; do
    [ "$(stat -c %a "$work/$d")" = 700 ] || fail "new dir $d mode $(stat -c %a "$work/$d")"
  done
  expect_key_set "$work/a/b/keys"
  mkdir -m 0755 "$work/existing"
  gen --out "$work/existing/"
  expect_rc 0
  [ "$(stat -c %a "$work/existing")" = 755 ] || fail "an existing dir's mode was changed"
  expect_key_set "$work/existing"
}

case_box_pair() {
  gen --out "$work/keys"
  expect_rc 0
  expect_pairs_work "$work/keys"
  # The check must be able to fail: a crossed pair does not open.
  expect_check_rc 1 box "$work/keys/shuffler.box.pk" "$work/keys/analyzer.box.sk"
}

case_sign_pair() {
  gen --out "$work/one"
  expect_rc 0
  gen --out "$work/two"
  expect_rc 0
  "$check" sign "$work/one/analyzer.sign.pk" "$work/one/analyzer.sign.sk" || fail "sign pair"
  expect_check_rc 1 sign "$work/one/analyzer.sign.pk" "$work/two/analyzer.sign.sk"
  expect_check_rc 1 sign "$work/one/analyzer.sign.pk" "$work/one/shuffler.sign.sk"
}

case_refuse_overwrite() {
  gen --out "$work/keys"
  expect_rc 0
  local before
  before=$(snapshot "$work/keys")
  gen --out "$work/keys"
  expect_rc 1
  expect_in "$work/stderr" "refusing to overwrite existing key file $work/keys/shuffler.box.pk"
  expect_in "$work/stderr" "$work/keys/analyzer.sign.sk"
  [ "$(snapshot "$work/keys")" = "$before" ] || fail "a refused run changed the key files"
  [ ! -s "$work/stdout" ] || fail "a refused run printed fingerprints"

  # One existing target is enough to refuse, and nothing else may be written.
  mkdir "$work/partial"
  echo not-a-key >"$work/partial/analyzer.sign.sk"
  before=$(snapshot "$work/partial")
  gen --out "$work/partial"
  expect_rc 1
  expect_in "$work/stderr" "$work/partial/analyzer.sign.sk"
  [ "$(snapshot "$work/partial")" = "$before" ] || fail "a refused run wrote files"
}

case_force_replaces() {
  gen --out "$work/keys"
  expect_rc 0
  cp -p -r "$work/keys" "$work/old"
  gen --out "$work/keys" --force
  expect_rc 0
  expect_key_set "$work/keys"
  expect_pairs_work "$work/keys"
  local f
  for f in "${all_files[@]}"; do
    ! cmp -s "$work/old/$f" "$work/keys/$f" || fail "--force left $f unchanged"
  done
  # A file of the old set must not pair with one of the new set.
  expect_check_rc 1 box "$work/old/shuffler.box.pk" "$work/keys/shuffler.box.sk"
  gen --out "$work/fresh" --force
  expect_rc 0
  expect_key_set "$work/fresh"
}

# Fingerprints are BLAKE2b-128 of the public key file, checked against an
# independent implementation (coreutils b2sum).
case_output() {
  gen --out "$work/keys"
  expect_rc 0
  local f fp sk
  for f in "${pub_files[@]}"; do
    fp=$(b2sum -l 128 "$work/keys/$f" | cut -d' ' -f1)
    expect_in "$work/stdout" "$f  fingerprint $fp"
  done
  cat "$work/stdout" "$work/stderr" >"$work/printed"
  # Every 8-byte piece of every secret must be absent. Only the first 32 bytes
  # count: the second half of an Ed25519 secret key is its public key.
  for f in "${sec_files[@]}"; do
    sk=$(hex "$work/keys/$f")
    for i in 0 16 32 48; do
      ! grep -qiF -- "${sk:$i:16}" "$work/printed" || fail "output contains bytes of $f"
    done
  done
}

# A 40-byte file size limit lets the five 32-byte files be written and makes
# the 64-byte analyzer.sign.sk, the first secret of that size, fail: a failure after a partial
# set. Output goes through a pipe, which the limit does not cover.
gen_size_limited() {
  rc=0
  printed=$( (trap '' XFSZ && prlimit --fsize=40 "$keygen" "$@") 2>&1) || rc=$?
}

case_write_failure() {
  gen_size_limited --out "$work/keys"
  expect_rc 1
  [[ $printed == *"analyzer.sign.sk: write failed"* ]] || fail "unexpected error: $printed"
  [ -z "$(ls -A "$work/keys")" ] || fail "a failed run left files: $(ls -A "$work/keys")"
  gen --out "$work/keys"
  expect_rc 0
  local before
  before=$(snapshot "$work/keys")
  gen_size_limited --out "$work/keys" --force
  expect_rc 1
  [[ $printed == *"0 of 8 key files were replaced"* ]] || fail "unexpected error: $printed"
  [ "$(snapshot "$work/keys")" = "$before" ] || fail "a failed --force changed the key set"
  expect_key_set "$work/keys"
}

case_usage() {
  gen
  expect_rc 2
  expect_in "$work/stderr" "--out DIR is required"
  gen --out "$work/keys" --bogus
  expect_rc 2
  expect_in "$work/stderr" "unknown argument '--bogus'"
  [ ! -e "$work/keys" ] || fail "a usage error created the output directory"
  gen --out
  expect_rc 2
  gen stray --out "$work/keys"
  expect_rc 2
  gen --help
  expect_rc 0
  expect_in "$work/stdout" "Usage: p2b-keygen --out DIR [--force]"
}

case_read_wrong_size() {
  gen --out "$work/keys"
  expect_rc 0
  local pk=$work/keys/shuffler.box.pk
  expect_check_rc 0 read "$pk" 32
  head -c 31 "$pk" >"$work/short"
  expect_check_rc 1 read "$work/short" 32
  expect_in "$work/check" "$work/short: is 31 bytes, a key file here must be exactly 32"
  { cat "$pk"; printf x; } >"$work/long"
  expect_check_rc 1 read "$work/long" 32
  expect_in "$work/check" "is 33 bytes"
  : >"$work/empty"
  expect_check_rc 1 read "$work/empty" 32
  expect_check_rc 1 read-secret "$work/keys/analyzer.sign.sk" 32
  expect_in "$work/check" "is 64 bytes"
  expect_check_rc 1 read "$work/keys" 32
  expect_in "$work/check" "not a regular file"
  expect_check_rc 1 read "$work/missing" 32
  expect_in "$work/check" "cannot open key file"
}

case_secret_mode_warning() {
  gen --out "$work/keys"
  expect_rc 0
  expect_check_rc 0 read-secret "$work/keys/shuffler.box.sk" 32
  ! grep -q warning "$work/check" || fail "a 0600 secret file warned"
  cp "$work/keys/shuffler.box.sk" "$work/wide.sk"
  chmod 0644 "$work/wide.sk"
  expect_check_rc 0 read-secret "$work/wide.sk" 32
  expect_in "$work/check" "mode 0644, wider than 0600"
  chmod 0400 "$work/wide.sk"
  expect_check_rc 0 read-secret "$work/wide.sk" 32
  ! grep -q warning "$work/check" || fail "a 0400 secret file warned"
}

declare -F "case_$case_name" >/dev/null || fail "no such case"
"case_$case_name"
rm -rf "$work"
echo "keygen.$case_name: ok"
