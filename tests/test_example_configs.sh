#!/usr/bin/env bash
# ctest driver: each service starts from its example config in examples/
# (cmake/operators.cmake registers one example_config.CASE per case below).
#
#   test_example_configs.sh CASE SERVICE CONF KEYGEN CODEBOOK PMG WORKDIR
#
# A dry start: the service reads CONF with --config; only what names this
# machine's files or the listening address is given on the command line
# (keys made here by p2b-keygen, the store in WORKDIR, port 0), so every
# other setting of the example (thresholds, batch sizes, dimensions, ids,
# retention...) is the file's. The service must print its "listening on"
# line, then stop cleanly (exit 0) on SIGTERM. Exit 2 would mean the config
# was refused.
set -euo pipefail

case_name=$1 service=$2 conf=$3 keygen=$4 codebook=$5 pmg=$6 work=$7
rm -rf "$work"
mkdir -p "$work"

fail() {
  echo "FAIL [$case_name]: $*" >&2
  [ -f "$work/stderr" ] && head -c 2000 "$work/stderr" >&2
  exit 1
}

keys() { "$keygen" --out "$work/$1" "${@:2}" >/dev/null; }

args=(--config "$conf" --listen 127.0.0.1:0)
case $case_name in
  shuffler-sqlite)
    keys keys
    args+=(--keys "$work/keys" --store "sqlite:$work/shuffler.db"
      --analyzer-key "$work/keys/analyzer.sign.pk")
    ;;
  analyzer-sqlite)
    keys keys
    "$codebook" --dim 10 --digits 1 --codes 16 --seed 1 --threads 1 --quiet \
      --out "$work/codebook.p2bc" >/dev/null
    args+=(--keys "$work/keys" --store "sqlite:$work/analyzer.db"
      --shuffler-key "$work/keys/shuffler.sign.pk" --codebook "$work/codebook.p2bc")
    ;;
  relay)
    keys agent --pfcb-agent
    # The members file holds the agent's verify key, 64 hex digits.
    od -An -tx1 -v "$work/agent/pfcb.sign.pk" | tr -d ' \n' >"$work/members.txt"
    echo >>"$work/members.txt"
    args+=(--store "$work/relay.db" --members "$work/members.txt")
    ;;
  fclub-global)
    keys global --fclub
    keys local-1 --fclub-local
    keys local-2 --fclub-local
    args+=(--keys "$work/global" --local "1=$work/local-1" --local "2=$work/local-2")
    ;;
  fclub-local)
    keys local --fclub-local
    keys global --fclub
    args+=(--keys "$work/local" --global-keys "$work/global")
    ;;
  vfl-party | vfl-ap)
    # A mask for d=20 split 10 (active party) + 10 (passive party 1), and one
    # feature row per party: what the examples' dim and party-index name.
    for n in pmg ap party1; do keys "$n" --vfl; done
    "$pmg" --partition 10,10 --party-key "$work/ap/vfl.box.pk" \
      --party-key "$work/party1/vfl.box.pk" --sign-key "$work/pmg/vfl.sign.sk" --epoch 1 \
      --out-dir "$work" >/dev/null
    for j in 0 1; do
      printf '%s,0%s\n' 0123456789abcdef0123456789abcdef "$(printf ',0.1%.0s' $(seq 10))" \
        >"$work/features-$j.csv"
    done
    common=(--pmg-key "$work/pmg/vfl.sign.pk")
    if [ "$case_name" = vfl-party ]; then
      args+=(--keys "$work/party1" --store "$work/party.state" --bundle "$work/party-1.p2bq"
        --features "$work/features-1.csv" --ap-key "$work/ap/vfl.box.pk" "${common[@]}")
    else
      args+=(--keys "$work/ap" --store "$work/ap.state" --bundle "$work/party-0.p2bq"
        --features "$work/features-0.csv" --party "http://127.0.0.1:9,$work/party1/vfl.box.pk"
        "${common[@]}")
    fi
    ;;
  *) fail "unknown case" ;;
esac

: >"$work/stdout"
"$service" "${args[@]}" >"$work/stdout" 2>"$work/stderr" &
pid=$!
for _ in $(seq 100); do
  grep -q '^listening on 127\.0\.0\.1:[0-9]' "$work/stdout" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if ! grep -q '^listening on 127\.0\.0\.1:[0-9]' "$work/stdout"; then
  kill -KILL "$pid" 2>/dev/null || true
  rc=0
  wait "$pid" || rc=$?
  fail "did not start from $conf (exit $rc)"
fi
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 0 ] || fail "exit $rc after SIGTERM"
echo "ok: $case_name starts from $(basename "$conf")"
