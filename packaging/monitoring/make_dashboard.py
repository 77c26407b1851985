#!/usr/bin/python3
"""Writes grafana/p2b-services.json, the Grafana dashboard of every p2b
service: one row per service, the panels every service shares (up, requests
by code, latency percentiles, HTTP refusals, memory and CPU) and the
service's own. Generated so that the shared panels are written once; the
JSON is committed, and tests/monitoring_check.sh fails when it is stale or
names a metric the services do not expose (docs/operations.md, "Monitoring").

    /usr/bin/python3 packaging/monitoring/make_dashboard.py [--check | --as-rules]

--as-rules prints the committed dashboard's queries as a Prometheus rules
file (one recording rule each, $__rate_interval read as 5m), so that
`promtool check rules` parses every panel's PromQL.
"""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "grafana" / "p2b-services.json"
RATE = "[$__rate_interval]"

# (unit/job name, metric prefix, [(panel title, unit, [(expr, legend)])]).
SERVICES = [
    ("p2b-shuffler", "p2b_shuffler", [
        ("Reports", "reqps", [
            (f"rate(p2b_shuffler_received_total{RATE})", "accepted {{instance}}"),
            (f"sum by (reason) (rate(p2b_shuffler_rejected_total{RATE}))", "rejected {{reason}}"),
            (f"sum by (layer) (rate(p2b_shuffler_duplicates_total{RATE}))", "duplicate {{layer}}"),
        ]),
        ("Delivery to the analyzer", "ops", [
            (f"rate(p2b_shuffler_forwarded_total{RATE})", "records {{instance}}"),
            (f"rate(p2b_shuffler_batches_total{RATE})", "batches {{instance}}"),
            (f"rate(p2b_shuffler_forward_failures_total{RATE})", "failures {{instance}}"),
        ]),
        ("Spool", "short", [
            ("p2b_shuffler_spool_depth", "records {{instance}}"),
            ("p2b_shuffler_unacknowledged_batches", "unacknowledged batches {{instance}}"),
        ]),
        ("Oldest unacknowledged batch", "s", [
            ("p2b_shuffler_oldest_unacknowledged_age_seconds", "{{instance}}"),
        ]),
        ("Spool disk free", "bytes", [("p2b_shuffler_disk_free_bytes", "{{instance}}")]),
        ("Failing states (1 = on)", "short", [
            ("p2b_shuffler_delivery_failing", "delivery failing {{instance}}"),
            ("p2b_shuffler_delivery_misconfigured", "delivery misconfigured {{instance}}"),
            ("p2b_shuffler_batch_close_failing", "batch close failing {{instance}}"),
            ("p2b_shuffler_disk_low", "disk low {{instance}}"),
            ("p2b_shuffler_store_failed", "store failed {{instance}}"),
        ]),
    ]),
    ("p2b-analyzer", "p2b_analyzer", [
        ("Records", "ops", [
            (f"rate(p2b_analyzer_records_applied_total{RATE})", "applied {{instance}}"),
            (f"sum by (reason) (rate(p2b_analyzer_records_rejected_total{RATE}))", "rejected {{reason}}"),
            (f"sum by (reason) (rate(p2b_analyzer_records_quarantined_total{RATE}))", "quarantined {{reason}}"),
        ]),
        ("Batches", "ops", [
            (f"rate(p2b_analyzer_batches_applied_total{RATE})", "applied {{instance}}"),
            (f"rate(p2b_analyzer_batches_duplicate_total{RATE})", "duplicate {{instance}}"),
            (f"sum by (reason) (rate(p2b_analyzer_batches_refused_total{RATE}))", "refused {{reason}}"),
        ]),
        ("Model version", "short", [
            ("p2b_analyzer_model_version", "model {{instance}}"),
            ("p2b_analyzer_raw_model_version", "raw model {{instance}}"),
        ]),
        ("Central-DP releases left", "short", [
            ("p2b_analyzer_central_dp_releases_left", "{{instance}}"),
        ]),
        ("Quarantine", "short", [("p2b_analyzer_quarantine_records", "{{instance}}")]),
    ]),
    ("p2b-relay", "p2b_relay", [
        ("Postings", "ops", [
            (f"rate(p2b_relay_postings_accepted_total{RATE})", "accepted {{instance}}"),
            (f"sum by (reason) (rate(p2b_relay_refused_by_reason_total{RATE}))", "refused {{reason}}"),
            (f"rate(p2b_relay_postings_served_total{RATE})", "served {{instance}}"),
        ]),
        ("Fetches", "ops", [
            (f"rate(p2b_relay_fetches_total{RATE})", "fetches {{instance}}"),
            (f"rate(p2b_relay_fetches_refused_total{RATE})", "refused {{instance}}"),
            (f"rate(p2b_relay_fetches_forbidden_total{RATE})", "forbidden {{instance}}"),
        ]),
        ("Stored postings", "short", [
            ("p2b_relay_stored", "stored {{instance}}"),
            ("p2b_relay_quarantine", "quarantine {{instance}}"),
        ]),
    ]),
    ("p2b-fclub-global", "p2b_fclub_global", [
        ("Phase and clusters", "short", [
            ("p2b_fclub_global_phase", "phase {{instance}}"),
            ("p2b_fclub_global_clusters", "clusters {{instance}}"),
        ]),
        ("Uploads", "ops", [
            (f"sum by (server) (rate(p2b_fclub_global_accepted_by_server_total{RATE}))", "accepted from {{server}}"),
            (f"sum by (reason) (rate(p2b_fclub_global_refused_by_reason_total{RATE}))", "refused {{reason}}"),
        ]),
        ("Downloads", "short", [
            ("p2b_fclub_global_downloads_pending", "pending {{instance}}"),
            (f"rate(p2b_fclub_global_downloads_acked_total{RATE})", "acked/s {{instance}}"),
        ]),
    ]),
    ("p2b-fclub-local", "p2b_fclub_local", [
        ("Phase, clusters and outbox", "short", [
            ("p2b_fclub_local_phase", "phase {{instance}}"),
            ("p2b_fclub_local_clusters", "clusters {{instance}}"),
            ("p2b_fclub_local_outbox", "outbox {{instance}}"),
        ]),
        ("Users", "ops", [
            (f"rate(p2b_fclub_local_recommends_total{RATE})", "recommends {{instance}}"),
            (f"rate(p2b_fclub_local_rewards_total{RATE})", "rewards {{instance}}"),
        ]),
        ("Exchange with the global", "ops", [
            (f"rate(p2b_fclub_local_uploads_sent_total{RATE})", "uploads sent {{instance}}"),
            (f"rate(p2b_fclub_local_uploads_refused_total{RATE})", "uploads refused {{instance}}"),
            (f"rate(p2b_fclub_local_downloads_applied_total{RATE})", "downloads applied {{instance}}"),
            (f"rate(p2b_fclub_local_downloads_refused_total{RATE})", "downloads refused {{instance}}"),
        ]),
        ("CDP ledger: nodes charged", "short", [
            ("p2b_fclub_local_cdp_nodes_charged_total", "{{instance}}"),
        ]),
    ]),
    ("p2b-vfl-ap", "p2b_vfl_ap", [
        ("Decisions", "ops", [
            (f"rate(p2b_vfl_ap_decisions_total{RATE})", "answered {{instance}}"),
            (f"rate(p2b_vfl_ap_decisions_partial_total{RATE})", "partial {{instance}}"),
            (f"rate(p2b_vfl_ap_decisions_refused_total{RATE})", "refused {{instance}}"),
        ]),
        ("Mean decision time", "s", [
            (f"rate(p2b_vfl_ap_decide_seconds_total{RATE}) / rate(p2b_vfl_ap_decisions_total{RATE})", "{{instance}}"),
        ]),
        ("Party messages", "ops", [
            (f"sum by (party) (rate(p2b_vfl_ap_party_messages_total{RATE}))", "party {{party}}"),
        ]),
        ("Rewards", "ops", [
            (f"rate(p2b_vfl_ap_rewards_total{RATE})", "received {{instance}}"),
            (f"rate(p2b_vfl_ap_rewards_applied_total{RATE})", "applied {{instance}}"),
        ]),
        ("Mask epoch", "short", [("p2b_vfl_ap_mask_epoch", "{{instance}}")]),
    ]),
    ("p2b-vfl-party", "p2b_vfl_party", [
        ("Masked requests", "ops", [
            (f"rate(p2b_vfl_party_answered_total{RATE})", "answered {{instance}}"),
            (f"rate(p2b_vfl_party_refused_total{RATE})", "refused {{instance}}"),
        ]),
        ("Busy time", "percentunit", [
            (f"rate(p2b_vfl_party_busy_seconds_total{RATE})", "busy {{instance}}"),
            (f"rate(p2b_vfl_party_persist_seconds_total{RATE})", "persisting {{instance}}"),
        ]),
        ("Mask epoch", "short", [("p2b_vfl_party_mask_epoch", "{{instance}}")]),
    ]),
]


def shared_panels(job, prefix):
    """The panels every service gets, from the families service_metrics.*
    adds to every /metrics."""
    http = f"{prefix}_http_request_duration_seconds"
    sel = f'{{job="{job}"}}'
    return [
        ("Up", "short", [(f"up{sel}", "{{instance}}")]),
        ("Requests by code", "reqps", [
            (f"sum by (code) (rate({http}_count{RATE}))", "{{code}}"),
        ]),
        ("Request time", "s", [
            (f"histogram_quantile({q}, sum by (le) (rate({http}_bucket{RATE})))", f"p{round(q * 100)}")
            for q in (0.5, 0.9, 0.99)
        ]),
        ("HTTP layer", "short", [
            (f"{prefix}_http_connections", "open connections {{instance}}"),
            (f"sum by (reason) (rate({prefix}_http_refused_total{RATE}))", "refused/s {{reason}}"),
        ]),
        ("Resident memory", "bytes", [(f"process_resident_memory_bytes{sel}", "{{instance}}")]),
        ("CPU", "percentunit", [(f"rate(process_cpu_seconds_total{sel}{RATE})", "{{instance}}")]),
    ]


def panel(ident, title, unit, queries, x, y):
    return {
        "id": ident,
        "type": "timeseries",
        "title": title,
        "datasource": {"type": "prometheus", "uid": "${datasource}"},
        "gridPos": {"h": 8, "w": 8, "x": x, "y": y},
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {"legend": {"displayMode": "list", "placement": "bottom"}},
        "targets": [
            {"refId": chr(ord("A") + i), "expr": expr, "legendFormat": legend}
            for i, (expr, legend) in enumerate(queries)
        ],
    }


def dashboard():
    panels, y, ident = [], 0, 1
    for job, prefix, own in SERVICES:
        panels.append({"id": ident, "type": "row", "title": job, "collapsed": False,
                       "gridPos": {"h": 1, "w": 24, "x": 0, "y": y}, "panels": []})
        ident, y = ident + 1, y + 1
        for n, (title, unit, queries) in enumerate(shared_panels(job, prefix) + own):
            if n and n % 3 == 0:
                y += 8
            panels.append(panel(ident, title, unit, queries, 8 * (n % 3), y))
            ident += 1
        y += 8
    return {
        "uid": "p2b-services",
        "title": "p2b services",
        "description": "Every p2b service's /metrics, one row per service "
                       "(docs/operations.md, Monitoring). Generated by "
                       "packaging/monitoring/make_dashboard.py.",
        "tags": ["p2b"],
        "timezone": "utc",
        "schemaVersion": 38,
        "version": 1,
        "editable": True,
        "refresh": "30s",
        "time": {"from": "now-6h", "to": "now"},
        "templating": {"list": [{
            "name": "datasource", "label": "Prometheus", "type": "datasource",
            "query": "prometheus", "current": {}, "hide": 0,
        }]},
        "annotations": {"list": []},
        "panels": panels,
    }


def queries_as_rules():
    """The committed dashboard's queries as a rules file (JSON is YAML)."""
    panels = json.loads(OUT.read_text())["panels"]
    rules = [
        {"record": f"dashboard:panel_{p['id']}_{t['refId']}:query",
         "expr": t["expr"].replace("$__rate_interval", "5m")}
        for p in panels for t in p.get("targets", [])
    ]
    return json.dumps({"groups": [{"name": "p2b-dashboard-queries", "rules": rules}]}, indent=2)


def main():
    if sys.argv[1:] == ["--as-rules"]:
        print(queries_as_rules())
        return
    text = json.dumps(dashboard(), indent=2) + "\n"
    if sys.argv[1:] == ["--check"]:
        if OUT.read_text() != text:
            sys.exit(f"FAIL: {OUT} is stale: run /usr/bin/python3 {pathlib.Path(__file__).name}")
        print(f"ok: {OUT.name} is current")
        return
    OUT.write_text(text)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
