#!/usr/bin/env bash
# Writes packaging/monitoring/metrics-SERVICE.txt, the metric families each
# service's GET /metrics really holds, from a build tree's binaries:
#
#   bash scripts/scrape-metrics.sh [BUILD_DIR]     (default build-host)
#
# Each service is started as tests/test_example_configs.sh starts it (its
# example config, keys made by p2b-keygen, loopback port 0) and scraped
# before it stops. A file lists one "NAME TYPE" per family, from the
# exposition's "# TYPE" lines. The alert rules and the dashboard may use only
# these names, and every name must still be in server/'s sources: both are
# what tests/monitoring_check.sh checks. Run it again after a service gains
# or loses a metric, and commit the lists.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:-build-host}" && pwd)
out=packaging/monitoring
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# CASE (an example config's name) and the binary under $build/server.
cases=(shuffler-sqlite:shuffler/p2b-shuffler analyzer-sqlite:analyzer/p2b-analyzer
  relay:pfcb/p2b-relay fclub-global:fclub/p2b-fclub-global fclub-local:fclub/p2b-fclub-local
  vfl-ap:vfl/p2b-vfl-ap vfl-party:vfl/p2b-vfl-party)
for pair in "${cases[@]}"; do
  case_name=${pair%%:*} binary=$build/server/${pair#*:}
  service=${binary##*/p2b-}
  METRICS_OUT=$work/$service.prom bash tests/test_example_configs.sh "$case_name" "$binary" \
    "examples/$case_name.conf" "$build/tools/p2b-keygen" "$build/tools/codebook/p2b-codebook" \
    "$build/server/vfl/p2b-vfl-pmg" "$work/$case_name" >/dev/null
  {
    echo "# Metric families of p2b-$service's GET /metrics, as scraped by"
    echo "# scripts/scrape-metrics.sh from its example config ($case_name.conf): NAME TYPE."
    awk '$1 == "#" && $2 == "TYPE" {print $3, $4}' "$work/$service.prom" | sort -u
  } >"$out/metrics-$service.txt"
  echo "scrape-metrics: $out/metrics-$service.txt: $(grep -vc '^#' "$out/metrics-$service.txt") families"
done
