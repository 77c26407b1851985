#!/usr/bin/env bash
# ctest driver for packaging/monitoring (docs/operations.md, "Monitoring"):
#
#   monitoring_check.sh SOURCE_DIR
#
# The metric names first (tests/monitoring/metric_names.py: every name a
# rule or panel uses was scraped from a service, every scraped name is
# still in server/) and the dashboard's freshness, which need no promtool;
# then promtool's checks of the rules, the example configuration and the
# dashboard's queries, and the alerts' unit tests. Without promtool (Debian's prometheus package,
# scripts/setup.sh) the rest passed and the test is skipped: exit 77.
set -euo pipefail
root=$(cd "${1:?usage: monitoring_check.sh SOURCE_DIR}" && pwd)
mon=$root/packaging/monitoring
python=/usr/bin/python3

"$python" "$root/tests/monitoring/metric_names.py" "$root"
"$python" "$mon/make_dashboard.py" --check

if ! command -v promtool >/dev/null; then
  echo "SKIP: no promtool (apt-get install prometheus); rules not checked"
  exit 77
fi
promtool check rules "$mon"/rules/*.rules.yml
promtool check config "$mon/prometheus.yml"
# Every panel's PromQL, parsed by promtool as recording rules.
queries=$(mktemp --suffix=.yml)
trap 'rm -f "$queries"' EXIT
"$python" "$mon/make_dashboard.py" --as-rules >"$queries"
promtool check rules "$queries"
promtool test rules "$root/tests/monitoring/alerts_test.yml"
echo "ok: monitoring rules, dashboard and metric names"
