#!/usr/bin/env bash
# ctest driver for p2b-device (tools/CMakeLists.txt registers device.CASE):
#
#   test_device.sh CASE KEYGEN CODEBOOK SHUFFLER ANALYZER DEVICE WORKDIR
#
#   usage       bad command lines exit 2 and name the problem
#   no_shuffler a shuffler that never answers: exit 1 after --wait-seconds
#   round_trip  real services on loopback: reports are posted and the signed
#               model applies; a device pinning another analyzer key, or
#               holding another codebook, refuses that model (exit 1, the
#               C API's reason)
set -euo pipefail

case_name=$1 keygen=$2 codebook=$3 shuffler=$4 analyzer=$5 device=$6 work=$7
rm -rf "$work"
mkdir -p "$work"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

fail() {
  echo "FAIL [$case_name]: $*" >&2
  [ -f "$work/stderr" ] && cat "$work/stderr" >&2
  exit 1
}

# run ARGS...: p2b-device; sets $rc, leaves $work/stdout and $work/stderr.
run() {
  rc=0
  "$device" "$@" >"$work/stdout" 2>"$work/stderr" || rc=$?
}
expect() {  # RC REGEX-in-stdout-or-stderr
  [ "$rc" = "$1" ] || fail "expected exit $1, got $rc"
  grep -qE "$2" "$work/stdout" "$work/stderr" || fail "no match for: $2"
}
codebook_file() {  # OUT SEED
  "$codebook" --dim 10 --digits 1 --codes 16 --seed "$2" --threads 1 --quiet --out "$1" >/dev/null
}
# start NAME BINARY ARGS...: a service on a free loopback port; sets $url.
start() {
  local name=$1 bin=$2
  shift 2
  : >"$work/$name.out"
  "$bin" --listen 127.0.0.1:0 "$@" >"$work/$name.out" 2>"$work/$name.log" &
  pids+=($!)
  for _ in $(seq 100); do
    port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/$name.out")
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || fail "$name did not start: $(cat "$work/$name.log")"
  url=http://127.0.0.1:$port
}

case $case_name in
  usage)
    run
    expect 2 'subcommand'
    run report --keys k --codebook c
    expect 2 'shuffler'
    run report --shuffler http://127.0.0.1:1 --users 0
    expect 2 'users'
    run model --analyzer http://127.0.0.1:1 --actions 0
    expect 2 'actions'
    run --version
    expect 0 '^p2b-device [0-9]+\.[0-9]+\.[0-9]+$'
    ;;
  no_shuffler)
    "$keygen" --out "$work/keys" >/dev/null
    codebook_file "$work/codebook.p2bc" 1
    # Port 1 on loopback: nothing listens there.
    run report --keys "$work/keys" --codebook "$work/codebook.p2bc" --users 5 \
      --shuffler http://127.0.0.1:1 --wait-seconds 1
    expect 1 'not ready after 1 s'
    ;;
  round_trip)
    "$keygen" --out "$work/keys" >/dev/null
    "$keygen" --out "$work/other-keys" >/dev/null
    codebook_file "$work/codebook.p2bc" 1
    codebook_file "$work/other-codebook.p2bc" 2
    start analyzer "$analyzer" --keys "$work/keys" --store "$work/analyzer.db" \
      --shuffler-key "$work/keys/shuffler.sign.pk" --codebook "$work/codebook.p2bc" \
      --actions 10 --threshold 2 --central-epsilon off
    analyzer_url=$url
    # The spool in a directory of its own; its key outside it.
    "$keygen" --shuffler-spool --out "$work/spool-key" >/dev/null
    mkdir -p "$work/spool"
    start shuffler "$shuffler" --keys "$work/keys" --store "$work/spool/shuffler.db" \
      --spool-key "$work/spool-key/shuffler.spool.key" \
      --analyzer "$analyzer_url" --analyzer-key "$work/keys/analyzer.sign.pk" --threshold 2 \
      --batch-seconds 1
    run report --keys "$work/keys" --codebook "$work/codebook.p2bc" --users 200 --shuffler "$url"
    expect 0 '^200 users \(reward rate [0-9.]+\): [1-9][0-9]* sealed envelopes posted'
    run model --keys "$work/keys" --codebook "$work/codebook.p2bc" --analyzer "$analyzer_url"
    expect 0 '^model version 1 \([0-9]+-byte signed bundle .*\) verified and applied$'
    # Pinning another analyzer's verify key: the signature fails.
    mkdir "$work/pinned-other"
    cp "$work/keys/shuffler.box.pk" "$work/keys/analyzer.box.pk" "$work/pinned-other/"
    cp "$work/other-keys/analyzer.sign.pk" "$work/pinned-other/"
    run model --keys "$work/pinned-other" --codebook "$work/codebook.p2bc" \
      --analyzer "$analyzer_url"
    expect 1 'signature does not verify with the pinned key'
    run model --keys "$work/keys" --codebook "$work/other-codebook.p2bc" \
      --analyzer "$analyzer_url"
    expect 1 'built for another codebook'
    ;;
  *) fail "unknown case" ;;
esac
echo "ok: $case_name"
