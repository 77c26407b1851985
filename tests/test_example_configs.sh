#!/usr/bin/env bash
# ctest driver: each service starts from its example config in examples/,
# and from its systemd unit's command line (cmake/operators.cmake registers
# operators.example_config.CASE and operators.unit_exec.CASE).
#
#   test_example_configs.sh CASE SERVICE CONF KEYGEN CODEBOOK PMG WORKDIR [UNIT]
#
# A dry start: the service reads CONF with --config; only what names this
# machine's files or the listening address is given on the command line
# (keys made here by p2b-keygen, the store in WORKDIR, port 0), so every
# other setting of the example (thresholds, batch sizes, dimensions, ids,
# retention...) is the file's. The service must print its "listening on"
# line, then stop cleanly (exit 0) on SIGTERM. Exit 2 would mean the config
# was refused.
#
# With UNIT, the command is the unit's ExecStart= as systemd would run it:
# its --config file is CONF, ${CREDENTIALS_DIRECTORY} a directory holding a
# 0400 copy of each LoadCredential= file and nothing else, ${STATE_DIRECTORY}
# an empty directory. So the unit's credentials are the files the service
# needs, and its --keys/--store/...-key flags are the ones it reads.
# Keys are made where the unit looks for them, /etc/p2b read as WORKDIR/etc.
#
# With METRICS_OUT=FILE in the environment, the service's GET /metrics is
# saved to FILE before the stop (scripts/scrape-metrics.sh).
set -euo pipefail

case_name=$1 service=$2 conf=$3 keygen=$4 codebook=$5 pmg=$6 work=$7 unit=${8:-}
rm -rf "$work"
mkdir -p "$work/etc/keys"
etc=$work/etc

fail() {
  echo "FAIL [$case_name]: $*" >&2
  [ -f "$work/stderr" ] && head -c 2000 "$work/stderr" >&2
  exit 1
}

keys() { "$keygen" --out "$1" "${@:2}" >/dev/null; }

# Per case: `own` is what the unit gives itself (keys, store, the key files
# it reads as credentials), `other` the machine's public files named in the
# config, which both ways of starting give.
own=() other=()
case $case_name in
  shuffler-sqlite)
    keys "$etc/keys"
    # The spool key, where the unit loads it from; the spool gets a
    # directory of its own, which the key must lie outside.
    keys "$etc/shuffler-spool" --shuffler-spool
    mkdir -p "$work/spool"
    own=(--keys "$etc/keys" --store "sqlite:$work/spool/shuffler.db"
      --analyzer-key "$etc/keys/analyzer.sign.pk"
      --spool-key "$etc/shuffler-spool/shuffler.spool.key")
    ;;
  analyzer-sqlite)
    keys "$etc/keys"
    "$codebook" --dim 10 --digits 1 --codes 16 --seed 1 --threads 1 --quiet \
      --out "$etc/codebook.p2bc" >/dev/null
    own=(--keys "$etc/keys" --store "sqlite:$work/analyzer.db"
      --shuffler-key "$etc/keys/shuffler.sign.pk")
    other=(--codebook "$etc/codebook.p2bc")
    ;;
  relay)
    keys "$work/agent" --pfcb-agent
    # The members file holds the agent's verify key, 64 hex digits.
    od -An -tx1 -v "$work/agent/pfcb.sign.pk" | tr -d ' \n' >"$etc/members.txt"
    echo >>"$etc/members.txt"
    own=(--store "$work/relay.db")
    other=(--members "$etc/members.txt")
    ;;
  fclub-global)
    keys "$etc/keys/fclub-global" --fclub
    keys "$etc/local-1" --fclub-local
    keys "$etc/local-2" --fclub-local
    own=(--keys "$etc/keys/fclub-global" --store "$work/fclub-global.db")
    other=(--local "1=$etc/local-1" --local "2=$etc/local-2")
    ;;
  fclub-local)
    keys "$etc/keys/fclub-local" --fclub-local
    keys "$etc/global" --fclub
    own=(--keys "$etc/keys/fclub-local" --store "$work/fclub-local.db")
    other=(--global-keys "$etc/global")
    ;;
  vfl-party | vfl-ap)
    # A mask for d=20 split 10 (active party) + 10 (passive party 1), and one
    # feature row per party: what the examples' dim and party-index name.
    keys "$etc/pmg" --vfl
    keys "$etc/keys/vfl-ap" --vfl
    keys "$etc/keys/vfl-party" --vfl
    "$pmg" --partition 10,10 --party-key "$etc/keys/vfl-ap/vfl.box.pk" \
      --party-key "$etc/keys/vfl-party/vfl.box.pk" --sign-key "$etc/pmg/vfl.sign.sk" --epoch 1 \
      --out-dir "$etc" >/dev/null
    for j in 0 1; do
      printf '%s,0%s\n' 0123456789abcdef0123456789abcdef "$(printf ',0.1%.0s' $(seq 10))" \
        >"$etc/features-$j.csv"
    done
    if [ "$case_name" = vfl-party ]; then
      own=(--keys "$etc/keys/vfl-party" --store "$work/party.state")
      other=(--bundle "$etc/party-1.p2bq" --features "$etc/features-1.csv"
        --ap-key "$etc/keys/vfl-ap/vfl.box.pk" --pmg-key "$etc/pmg/vfl.sign.pk")
    else
      own=(--keys "$etc/keys/vfl-ap" --store "$work/ap.state")
      other=(--bundle "$etc/party-0.p2bq" --features "$etc/features-0.csv"
        --party "http://127.0.0.1:9,$etc/keys/vfl-party/vfl.box.pk"
        --pmg-key "$etc/pmg/vfl.sign.pk")
    fi
    ;;
  *) fail "unknown case" ;;
esac

if [ -z "$unit" ]; then
  cmd=("$service" --config "$conf" "${own[@]}")
  how="starts from $(basename "$conf")"
else
  cred=$work/credentials state=$work/state
  mkdir -p "$cred" "$state"
  while IFS=: read -r id src; do
    [ -f "$etc${src#/etc/p2b}" ] || fail "$(basename "$unit"): no $src to load as credential $id"
    install -m 0400 "$etc${src#/etc/p2b}" "$cred/$id"
  done < <(sed -n 's/^LoadCredential=//p' "$unit")
  line=$(sed -n 's/^ExecStart=//p' "$unit")
  line=${line//'${CREDENTIALS_DIRECTORY}'/$cred}
  line=${line//'${STATE_DIRECTORY}'/$state}
  # No path here holds a space, so words split as systemd splits them.
  read -ra cmd <<<"$line"
  for i in "${!cmd[@]}"; do
    if [ "${cmd[$i]}" = --config ]; then cmd[i + 1]=$conf; fi
  done
  how="starts from $(basename "$unit")"
fi
cmd+=("${other[@]}" --listen 127.0.0.1:0)

: >"$work/stdout"
"${cmd[@]}" >"$work/stdout" 2>"$work/stderr" &
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
  fail "did not start (exit $rc): ${cmd[*]}"
fi
# With METRICS_OUT set (scripts/scrape-metrics.sh), GET /metrics is saved
# there before the stop: the second scrape, which holds the first one's
# request-duration series.
if [ -n "${METRICS_OUT:-}" ]; then
  addr=$(sed -n 's/^listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$work/stdout" | head -n 1)
  curl -fsS -o /dev/null "http://$addr/metrics" || fail "GET /metrics on $addr failed"
  curl -fsS -o "$METRICS_OUT" "http://$addr/metrics" || fail "GET /metrics on $addr failed"
fi
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 0 ] || fail "exit $rc after SIGTERM"
if [ -n "$unit" ] && grep -q '^StateDirectory=' "$unit" && [ -z "$(ls -A "$state")" ]; then
  fail "nothing was written to the unit's StateDirectory"
fi
echo "ok: $case_name $how"
