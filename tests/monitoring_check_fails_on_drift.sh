#!/usr/bin/env bash
# tests/monitoring/metric_names.py must fail, naming what drifted, on a copy
# of the tree where: a rule names a metric no service exposes; a service
# stops emitting a listed metric (a quoted name, and an FCLUB counter built
# from a /v1/stats key); a unit has no scraped list; an alert's runbook
# heading is gone. Each case starts from a fresh copy.
#
#   monitoring_check_fails_on_drift.sh SOURCE_DIR
set -euo pipefail
root=$(cd "${1:?usage: monitoring_check_fails_on_drift.sh SOURCE_DIR}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fresh_copy() {
  rm -rf "$tmp/tree"
  mkdir -p "$tmp/tree/docs"
  cp -r "$root/packaging" "$root/server" "$tmp/tree/"
  cp "$root/docs/operations.md" "$tmp/tree/docs/"
}

# must_fail CASE EXPECTED-TEXT FILE SED-SCRIPT
must_fail() {
  local case_name=$1 expected=$2 file=$3 script=$4
  fresh_copy
  sed -i "$script" "$tmp/tree/$file"
  cmp -s "$root/$file" "$tmp/tree/$file" && { echo "FAIL [$case_name]: $file unchanged" >&2; exit 1; }
  local out
  if out=$(/usr/bin/python3 "$root/tests/monitoring/metric_names.py" "$tmp/tree" 2>&1); then
    echo "FAIL [$case_name]: the check passed" >&2
    exit 1
  fi
  grep -qF "$expected" <<<"$out" || { echo "FAIL [$case_name]: wrong failure: $out" >&2; exit 1; }
  echo "ok: $case_name: $(grep -F "$expected" <<<"$out" | head -n 1)"
}

must_fail "rule names an unknown metric" "p2b_shuffler_disk_lower is in no scraped list" \
  packaging/monitoring/rules/p2b-shuffler.rules.yml 's/p2b_shuffler_disk_low ==/p2b_shuffler_disk_lower ==/'
must_fail "metric renamed in the code" "p2b_shuffler_bad_acks_total is no longer" \
  server/shuffler/metrics.cpp 's/"p2b_shuffler_bad_acks_total"/"p2b_shuffler_bad_acks_count"/'
must_fail "stats key renamed in the code" "p2b_fclub_global_merges_total is no longer" \
  server/fclub/fclub_services.cpp 's/{"merges",/{"merge_count",/'
must_fail "runbook heading gone" "runbook 'docs/operations.md#p2bservicedown'" \
  docs/operations.md 's/^#### P2BServiceDown$/#### Service down/'

fresh_copy
touch "$tmp/tree/packaging/systemd/p2b-new.service.in"
if out=$(/usr/bin/python3 "$root/tests/monitoring/metric_names.py" "$tmp/tree" 2>&1) ||
  ! grep -qF "no packaging/monitoring/metrics-new.txt" <<<"$out"; then
  echo "FAIL [unit without a list]: $out" >&2
  exit 1
fi
echo "ok: unit without a list refused"
echo "ok: the monitoring check fails on drift"
