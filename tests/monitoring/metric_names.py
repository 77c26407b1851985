#!/usr/bin/python3
"""Checks that packaging/monitoring's rules and dashboard use only metrics
the services expose, and that those are still what server/ emits:

    /usr/bin/python3 tests/monitoring/metric_names.py ROOT

- every unit in packaging/systemd has a scraped list,
  packaging/monitoring/metrics-SERVICE.txt (scripts/scrape-metrics.sh);
- every metric an alert, a recording rule or a dashboard panel names is in
  a list (a histogram family's _bucket, _count and _sum included), every
  __name__=~ regex matches a listed name, every recorded name (one with a
  colon) is recorded by a rule;
- every listed name is still in the service's sources: quoted whole, or,
  for the names a service builds from a prefix and a key (the shared
  PREFIX_http_*, PREFIX_store_* and the FCLUB and relay counters made from
  their /v1/stats keys), the prefix quoted and the key quoted, with or
  without its _total, in the service's directory or server/common;
- every alert has a summary and a runbook anchor that docs/operations.md
  has as a heading.
Each failure names what is missing; the exit status is 1 if any.
"""
import json
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(sys.argv[1]).resolve()
MON = ROOT / "packaging" / "monitoring"
# Where each service's metrics are rendered, besides server/common.
SOURCE_DIRS = {
    "shuffler": "shuffler", "analyzer": "analyzer", "relay": "pfcb",
    "fclub-global": "fclub", "fclub-local": "fclub", "vfl-ap": "vfl", "vfl-party": "vfl",
}
HISTOGRAM_SAMPLES = ("_bucket", "_count", "_sum")
failures = []


def fail(message):
    failures.append(message)
    print(f"FAIL: {message}", file=sys.stderr)


def read_lists():
    """service -> {family name: type}."""
    lists = {}
    for path in sorted(MON.glob("metrics-*.txt")):
        service = path.stem[len("metrics-"):]
        families = {}
        for line in path.read_text().splitlines():
            if line and not line.startswith("#"):
                name, kind = line.split()
                families[name] = kind
        if not families:
            fail(f"{path.name} lists no metric")
        lists[service] = families
    return lists


def sample_names(families):
    """The names a query may use for these families."""
    names = set()
    for name, kind in families.items():
        names.add(name)
        if kind == "histogram":
            names.update(name + s for s in HISTOGRAM_SAMPLES)
    return names


def read_queries():
    """[(where, expr)] of every rule and panel, and the recorded names."""
    queries, recorded = [], set()
    for path in sorted((MON / "rules").glob("*.rules.yml")):
        for group in yaml.safe_load(path.read_text())["groups"]:
            for rule in group["rules"]:
                name = rule.get("alert") or rule.get("record")
                queries.append((f"{path.name}: {name}", rule["expr"]))
                if "record" in rule:
                    recorded.add(rule["record"])
                else:
                    check_annotations(path.name, rule)
    for path in sorted((MON / "grafana").glob("*.json")):
        dashboard = json.loads(path.read_text())
        for panel in dashboard["panels"]:
            for target in panel.get("targets", []):
                queries.append((f"{path.name}: {panel['title']}", target["expr"]))
    if not queries:
        fail("no rule or panel found under packaging/monitoring")
    return queries, recorded


def heading_anchors(markdown):
    """GitHub's anchors of a page's headings."""
    anchors = set()
    for line in markdown.splitlines():
        match = re.match(r"#+ (.*)", line)
        if match:
            slug = re.sub(r"[^\w\- ]", "", match.group(1).strip().lower()).replace(" ", "-")
            anchors.add(slug)
    return anchors


OPERATIONS_ANCHORS = heading_anchors((ROOT / "docs" / "operations.md").read_text())


def check_annotations(where, rule):
    notes = rule.get("annotations", {})
    if not notes.get("summary"):
        fail(f"{where}: alert {rule['alert']} has no summary")
    runbook = notes.get("runbook", "")
    page, _, anchor = runbook.partition("#")
    if page != "docs/operations.md" or anchor not in OPERATIONS_ANCHORS:
        fail(f"{where}: alert {rule['alert']}'s runbook {runbook!r} is no heading of docs/operations.md")


def check_queries(queries, recorded, exposed):
    for where, expr in queries:
        for regex in re.findall(r'__name__\s*=~\s*"([^"]*)"', expr):
            if not any(re.fullmatch(regex, name) for name in exposed):
                fail(f"{where}: __name__=~\"{regex}\" matches no listed metric")
        bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # label values are no names
        for token in re.findall(r"[A-Za-z_:][A-Za-z0-9_:]*", bare):
            if ":" in token:
                if token not in recorded:
                    fail(f"{where}: {token} is recorded by no rule")
            elif token.startswith(("p2b_", "process_")) and token not in exposed:
                fail(f"{where}: {token} is in no scraped list")


def check_sources(lists):
    common = source_text(ROOT / "server" / "common")
    for service, families in lists.items():
        if service not in SOURCE_DIRS:
            fail(f"metrics-{service}.txt: no source directory known for {service}")
            continue
        text = common + source_text(ROOT / "server" / SOURCE_DIRS[service])
        prefix = "p2b_" + service.replace("-", "_")
        for name in families:
            if f'"{name}"' in text or built_from_prefix(text, prefix, name):
                continue
            fail(f"metrics-{service}.txt: {name} is no longer in server/'s sources")


def built_from_prefix(text, prefix, name):
    if not name.startswith(prefix + "_") or not re.search(f'"{prefix}_?"', text):
        return False
    key = name[len(prefix) + 1:]
    keys = {key, key[: -len("_total")] if key.endswith("_total") else key}
    return any(f'"{k}"' in text or f'"_{k}"' in text for k in keys)


def source_text(directory):
    # The code that renders /metrics, not its tests.
    return "".join(p.read_text(errors="replace") for p in sorted(directory.glob("*.[ch]pp")))


def main():
    lists = read_lists()
    for unit in sorted((ROOT / "packaging" / "systemd").glob("p2b-*.service.in")):
        service = unit.name[len("p2b-"):-len(".service.in")]
        if service not in lists:
            fail(f"{unit.name}: no packaging/monitoring/metrics-{service}.txt")
    exposed = set().union(*(sample_names(f) for f in lists.values())) if lists else set()
    queries, recorded = read_queries()
    check_queries(queries, recorded, exposed)
    check_sources(lists)
    if failures:
        sys.exit(1)
    names = sum(len(f) for f in lists.values())
    print(f"ok: {len(queries)} queries use only the {names} metrics scraped from "
          f"{len(lists)} services, and each is still in server/")


if __name__ == "__main__":
    main()
