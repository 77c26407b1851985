#!/usr/bin/python3
"""Issue #30's goals as one Markdown table, from the raw outputs that
bench/speed_goals.sh left in DIR:

  speed_goals.py DIR [--only decide,ingest,vfl,sim,apply,oracle] [--docs docs/benchmarks.md]

Each row: goal | p2b measured | beside it (peer or floor, same run) | ratio |
met | where the time goes. A figure that a benchmark did not print is "not
measured" with the reason (the step's exit and stderr, or the line that was
looked for), never a guess. Google Benchmark figures are CPU time.
"""
import argparse
import json
import os
import re
import statistics

ROWS = ["decide", "ingest", "vfl", "sim", "apply", "oracle"]


def read(out, name):
    try:
        with open(os.path.join(out, name), encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def why_missing(out, step, what):
    """The reason a figure is absent: the step's failure, or the missing line."""
    failed = read(out, step + ".failed")
    if failed:
        return f"not measured: {step} failed ({failed.strip()})"
    if read(out, step + ".log") is None:
        return f"not measured: {step} did not run"
    return f"not measured: {step} printed no {what}"


def load_at(out, step):
    """The machine's 1-minute load average as the step started."""
    text = (read(out, step + ".load") or "").strip()
    return f"1-min load {text} at its start" if text else "load not recorded"


def us(v):
    """Microseconds with three significant figures."""
    if v is None:
        return "—"
    return f"{v:,.0f} µs" if v >= 100 else f"{v:.3g} µs"


def ns(v):
    return f"{v / 1000:.3g} µs" if v >= 1000 else f"{v:.3g} ns"


def times(r):
    return f"{r:.2f}×" if r < 10 else f"{r:,.0f}×"


def met(ok):
    return "met" if ok else "**not met**"


class Table:
    def __init__(self):
        self.rows = []

    def add(self, goal, measured="", beside="", ratio="", ok=None, where=""):
        verdict = ok if isinstance(ok, str) else ("not measured" if ok is None else met(ok))
        # A met goal needs no account of its remaining time.
        self.rows.append([goal, measured, beside, ratio, verdict, where if verdict != "met" else ""])

    def missing(self, goal, reason):
        self.add(goal, reason, "", "", None, "")

    def print(self):
        print("| goal | p2b measured | beside it (same run) | ratio | met | where the time goes |")
        print("|---|---|---|---|---|---|")
        for r in self.rows:
            print("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in r) + " |")


def gbench(out, name):
    """Google Benchmark JSON: name -> dict with cpu_ns and the counters."""
    text = read(out, name)
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    found = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration" or "cpu_time" not in b:
            continue
        row = dict(b)
        row["cpu_ns"] = b["cpu_time"] * scale.get(b.get("time_unit", "ns"), 1.0)
        found[b["name"]] = row
    return found


# --- decide+reward -------------------------------------------------------


def decide_rows(t, out):
    raw = read(out, "decide.raw") or ""
    rates, isa, figures = [], "", {}
    for line in raw.splitlines():
        f = line.split()
        try:
            if len(f) == 3 and f[0] == "fma":
                isa = f[1]
                rates.append(float(f[2]))
            elif len(f) == 4 and f[3] != "absent":
                figures.setdefault((f[0], int(f[1]), int(f[2])), []).append(float(f[3]))
        except ValueError:
            continue
    med = {k: statistics.median(v) for k, v in figures.items()}
    rate = statistics.median(rates) if rates else None
    rounds = len(figures.get(("p2b", 10, 10), []))
    kernel = gbench(out, "kernel.json")

    def split(d, k):
        """Decide alone and reward (pair − decide) from p2b_bench, same build."""
        tag = f"d:{d}/K:{k}/k:1024"
        dec, pair = kernel.get(f"BM_DecideLinUCB/{tag}"), kernel.get(f"BM_DecideRewardPair/{tag}")
        if not dec or not pair:
            return "split not measured: " + why_missing(out, "kernel", f"BM_DecideLinUCB/{tag}")
        dn, pn = dec["cpu_ns"], pair["cpu_ns"]
        return (f"p2b_bench: decide {ns(dn)} ({100 * dn / pn:.0f} %), reward {ns(pn - dn)} "
                f"({100 * (pn - dn) / pn:.0f} %) of a {ns(pn)} pair")

    def floor_us(d, k):
        return k * d * d / rate * 1e6 if rate else None

    goal = "decide+reward (d, K, k) = (10, 10, 1024) ≤ 0.5 µs"
    p2b = med.get(("p2b", 10, 10))
    if p2b is None:
        t.missing(goal, why_missing(out, "decide-round1", "'p2b 10 10 us' line"))
    else:
        fl = floor_us(10, 10)
        beside = f"plain C LinUCB {us(med.get(('plain', 10, 10)))}; K·d² floor {us(fl)}"
        if rate:
            beside += f" ({isa}, {rate / 1e9:.1f} G madds/s)"
        # On a loaded machine wall time runs past CPU time: the goal is judged on
        # p2b_bench's CPU time when it ran, peer_decide's wall time otherwise.
        pair = kernel.get("BM_DecideRewardPair/d:10/K:10/k:1024")
        judged = pair["cpu_ns"] / 1000 if pair else p2b
        measured = f"{us(p2b)} wall (peer_decide, median of {rounds})"
        if pair:
            measured = f"{us(judged)} CPU (p2b_bench pair); " + measured
        ratio = f"{times(judged / 0.5)} the goal"
        if fl:
            ratio += f"; peer_decide {times(p2b / fl)} the floor"
        t.add(goal, measured, beside, ratio, judged <= 0.5, split(10, 10))
    shapes = sorted({(d, k) for (n, d, k) in med if n == "p2b"})
    if not shapes:
        t.missing("decide+reward faster than the plain C LinUCB at every (d, K)",
                  why_missing(out, "decide-round1", "'p2b d K us' line"))
    for d, k in shapes:
        p, plain = med[("p2b", d, k)], med.get(("plain", d, k))
        goal = f"decide+reward ({d}, {k}) faster than the plain C LinUCB"
        if plain is None:
            t.missing(goal, why_missing(out, "decide-round1", f"'plain {d} {k} us' line"))
            continue
        t.add(goal, us(p), f"plain C LinUCB {us(plain)}", f"p2b/plain {times(p / plain)}",
              p < plain, split(d, k) if (d, k) in ((10, 10), (20, 50)) else "")
    goal = "decide+reward (20, 50) within 3× of the K·d² floor"
    p = med.get(("p2b", 20, 50))
    if p is None or not rate:
        t.missing(goal, why_missing(out, "decide-round1", "'p2b 20 50' or 'fma' line"))
    else:
        fl = floor_us(20, 50)
        t.add(goal, us(p), f"K·d² floor {us(fl)} ({isa})", f"{times(p / fl)} the floor", p / fl <= 3,
              split(20, 50))
    goal = "Vowpal Wabbit and MABWiser decide+learn beside p2b, (10, 10) (item 6; no numeric goal)"
    absent = read(out, "peers.absent")
    if absent:
        t.add(goal, "absent", absent.strip(), "", "absent", "")
        return
    p = med.get(("p2b", 10, 10))
    # VW prints one line per exploration ("vw-egreedy", "vw-regcbopt"; "vw" before issue #30).
    peers = sorted((n, v) for (n, d, k), v in med.items()
                   if (d, k) == (10, 10) and (n == "mabwiser" or n.startswith("vw")))
    if p is None or not peers:
        t.add(goal, "absent", why_missing(out, "peers-round1", "'vw… 10 10' or 'mabwiser 10 10' line"),
              "", "absent", "")
        return
    t.add(goal, us(p), "; ".join(f"{n} {us(v)}" for n, v in peers),
          "; ".join(f"{n}/p2b {times(v / p)}" for n, v in peers), "—", "")


# --- shuffler ingest and its scaling ----------------------------------------


def ingest_rows(t, out):
    try:
        points = json.loads(read(out, "ingest.json") or "")["points"]
    except (ValueError, KeyError, TypeError):
        points = []
    # scale_out times the opening on its own pool (outer_open_floor_us); before
    # that, p2b_wire_bench's BM_OpenOuter of the same build stands in.
    own = [p["outer_open_floor_us"] for p in points if isinstance(p.get("outer_open_floor_us"), (int, float))]
    floor = gbench(out, "open_floor.json").get("BM_OpenOuter")
    if own:
        floor_us = statistics.median(own)
        floor_text = f"X25519 opening (scale_out, its pool) {us(floor_us)}"
    elif floor:
        floor_us = floor["cpu_ns"] / 1000
        floor_text = f"X25519 opening (BM_OpenOuter) {us(floor_us)}"
    else:
        floor_us = None
        floor_text = "floor " + why_missing(out, "open-floor", "BM_OpenOuter")
    reason = why_missing(out, "ingest", "scale_out_ingest.json")

    def point(backend, n=1):
        for p in points:
            if p.get("backend") == backend and p.get("ingest_processes") == n:
                return p
        return None

    def cpu(p, who):
        v = (p or {}).get("cpu_us_per_envelope", {}).get(who)
        return v if isinstance(v, (int, float)) and v > 0 else None

    for backend, label in (("sqlite", "SQLite"), ("postgresql", "PostgreSQL")):
        goal = (f"shuffler ingest CPU per envelope, {label}, 1 ingest process ≤ 45 µs "
                "(≥ 20k envelopes/s per ingest core)")
        p = point(backend)
        v = cpu(p, "shuffler ingest")
        if v is None:
            t.missing(goal, reason if p is None else "not measured: no 'shuffler ingest' CPU in the point")
            continue
        where = f"{us(v - floor_us)} beyond the opening: HTTP, replay check, store" if floor_us else ""
        rate = f"{1e6 / v / 1000:.1f}k env/s per ingest core; {p['envelopes_per_s']:,.0f} env/s"
        t.add(goal, f"{us(v)} ({rate})",
              floor_text, f"{times(v / floor_us)} the opening" if floor_us else "", v <= 45, where)
    goal = "CPU per envelope inside PostgreSQL ≤ 15 µs"
    p = point("postgresql")
    v = cpu(p, "postgres")
    if v is None:
        t.missing(goal, reason if p is None else "not measured: no 'postgres' CPU in the point")
    else:
        wal = p.get("postgres_wal_bytes_per_envelope")
        commits = p.get("postgres_commits_per_s")
        where = ""
        if wal is not None and commits is not None:
            where = f"{wal:,.0f} WAL bytes per envelope, {commits:,.0f} commits/s"
        ratio = f"{times(v / floor_us)} the opening" if floor_us else ""
        t.add(goal, us(v), floor_text, ratio, v <= 15, where)
    goal = ("envelopes/s for 1..N ingest processes on PostgreSQL: near-linear (≥ 0.8 N× one process) "
            "until its cores run out")
    pg = sorted((p for p in points if p.get("backend") == "postgresql"), key=lambda p: p["ingest_processes"])
    if not pg or pg[0]["ingest_processes"] != 1:
        t.missing(goal, reason)
        return
    one = pg[0]["envelopes_per_s"]
    last = pg[-1]
    n = last["ingest_processes"]
    speedup = last["envelopes_per_s"] / one if one else 0
    rates = ", ".join(f"{p['ingest_processes']}: {p['envelopes_per_s'] / 1000:.1f}k" for p in pg)
    busy = last.get("cpu_cores_busy", {})
    where = ""
    if busy:
        total = sum(v for v in busy.values() if isinstance(v, (int, float)))
        parts = ", ".join(f"{k} {v:.2f}" for k, v in busy.items()
                          if isinstance(v, (int, float)) and v >= 0.05)
        where = f"at N = {n}: {total:.2f} cores busy of {cores(out) or '?'} ({parts})"
        n_cores = cores(out) or 0
        # scale_out's machine_cores_busy counts every process, other tenants' too.
        machine = last.get("machine_cores_busy")
        if isinstance(machine, (int, float)):
            where += f"; the machine's cores busy, every process counted: {machine:.2f}"
            if n_cores and machine >= 0.9 * n_cores:
                where += f", so other work took {machine - total:.2f} and the curve bends here"
        elif n_cores and total >= 0.9 * n_cores:
            where += ": every core is busy, so it bends here"
        elif isinstance(last.get("load_average_1m"), (int, float)):
            where += f"; 1-min load {last['load_average_1m']:.2f}: other work took the rest"
    t.add(goal, f"N: env/s {rates}", f"linear: {n} × {one / 1000:.1f}k = {n * one / 1000:.1f}k",
          f"{times(speedup)} on {n} ({speedup / n:.0%} of linear)", speedup >= 0.8 * n, where)


def cores(out):
    m = re.search(r"^cores: (\d+)", read(out, "machine.txt") or "", re.M)
    return int(m.group(1)) if m else None


# --- VFL ----------------------------------------------------------------


def vfl_rows(t, out):
    goal = "VFL round, d = 100, K = 10, 5 parties, loopback ≤ 2.5× central LinUCB + one loopback round trip"
    log = read(out, "vfl.log") or ""
    # bench/vfl_round's median round; before it, the script's mean client round trip.
    m = (re.search(r"^vfl round: median ([0-9.]+) ms, p90 ([0-9.]+) ms", log, re.M)
         or re.search(r"active party, per decision: ([0-9.]+) ms client round trip", log))
    if not m:
        t.missing(goal, why_missing(out, "vfl", "'vfl round: median X ms' line"))
        return
    round_ms = float(m.group(1))
    measured = f"{round_ms:.3f} ms"
    if m.lastindex == 2:
        measured += f" median, p90 {float(m.group(2)):.3f} ms"
    central = re.search(r"^central[^\n]*?([0-9.]+) ms", log, re.M | re.I)
    rtt = re.search(r"^loopback round trip[^\n]*?([0-9.]+) ms", log, re.M | re.I)
    where = []
    ap = re.search(r"([0-9.]+) ms in /v1/decide[^,]*, of which ([0-9.]+) ms asking the parties", log)
    if ap:
        where.append(f"the active party's /v1/decide {ap.group(1)} ms, "
                     f"{ap.group(2)} ms of it asking the parties")
    busy = [float(x) for x in re.findall(r"^party \d+, per decision: ([0-9.]+) ms", log, re.M)]
    disk = [float(x) for x in
            re.findall(r"^party \d+, per decision: [0-9.]+ ms \([^)]*?([0-9.]+) ms\)", log, re.M)]
    if busy:
        text = f"each party {min(busy):.3f}–{max(busy):.3f} ms busy"
        if disk:
            text += f", {min(disk):.3f}–{max(disk):.3f} ms of it on disk"
        where.append(text)
    where.append(load_at(out, "vfl"))
    if not central or not rtt:
        t.add(goal, measured,
              "not measured: scripts/vfl-bench.sh printed no 'central … ms' and "
              "'loopback round trip … ms' lines",
              "", None, "; ".join(where))
        return
    c, r = float(central.group(1)), float(rtt.group(1))
    bound = 2.5 * c + r
    t.add(goal, measured, f"central LinUCB decide + update {c:.3f} ms, loopback round trip {r:.3f} ms",
          f"{times(round_ms / bound)} the bound ({bound:.3f} ms)", round_ms <= bound, "; ".join(where))


# --- simulator ------------------------------------------------------------


def sim_run(out, name):
    """wall s (from /usr/bin/time), CPU s, users/s per core, crypto floor s, points s."""
    log = read(out, f"sim_{name}.log")
    tm = (read(out, f"sim_{name}.time") or "").split()
    if not log or read(out, f"sim_{name}.failed"):
        return None
    r = {}
    try:
        r["wall"] = float(tm[-2])
    except (IndexError, ValueError):
        pass
    m = re.search(r"^speed: ([0-9.]+) s wall, ([0-9.]+) s CPU on (\d+) threads: ([0-9.]+) users/s", log, re.M)
    if m:
        r.setdefault("wall", float(m.group(1)))
        r["cpu"], r["threads"], r["users_per_core"] = float(m.group(2)), int(m.group(3)), float(m.group(4))
    m = re.search(r"^crypto floor: ([0-9.]+) s .*the points took ([0-9.]+) s, ([0-9.]+)x", log, re.M)
    if m:
        r["floor"], r["points"] = float(m.group(1)), float(m.group(2))
    if "wall" not in r:
        return None
    # Wall time past CPU / threads is time the run waited for a core.
    r["note"] = load_at(out, "sim_" + name)
    if "cpu" in r and r["wall"] > 0:
        plural = "s" if r["threads"] != 1 else ""
        # CPU / threads: the wall time had the run had its threads' cores to itself.
        r["alone"] = r["cpu"] / r["threads"]
        r["note"] = (f"{r['cpu']:.1f} s CPU on {r['threads']} thread{plural} in {r['wall']:.1f} s wall "
                     f"({r['cpu'] / r['wall']:.2f} cores used, CPU / threads {r['alone']:.1f} s; "
                     f"{r['note']})")
    return r


def sim_rows(t, out):
    settings = read(out, "sim.settings") or ""
    m = re.search(r"users: (\d+)", settings)
    users = int(m.group(1)) if m else 1000000
    scale = users / 1e6
    note = "" if users == 1000000 else f" (quick: u = {users:,}, goal scaled)"
    a10, a50, sealed, t1 = (sim_run(out, n) for n in ("a10", "a50", "sealed", "t1"))
    n = cores(out) or 1
    tall = sim_run(out, "tall") if n > 2 else a10
    goal = f"p2b-sim u = 10^6, |A| = 10, no crypto ≤ {20 * scale:g} s on 2 threads{note}"
    if not a10:
        t.missing(goal, why_missing(out, "sim_a10", "'speed:' line"))
    else:
        beside = f"{a10.get('users_per_core', 0):,.0f} users/s per core (the reference code: ≈ 350)"
        t.add(goal, f"{a10['wall']:.1f} s", beside, f"{times(a10['wall'] / (20 * scale))} the goal",
              a10["wall"] <= 20 * scale, a10["note"])
    goal = "p2b-sim |A| = 50 against |A| = 10 (no crypto) ≤ 2×"
    if not a10 or not a50:
        t.missing(goal, why_missing(out, "sim_a50" if a10 else "sim_a10", "'speed:' line"))
    else:
        r = a50["wall"] / a10["wall"]
        where = f"the 40 extra arms: {a50['wall'] - a10['wall']:.1f} s, {1 - 1 / r:.0%} of the |A| = 50 run"
        if a10.get("cpu") and a50.get("cpu"):
            where += (f"; in CPU time {a50['cpu']:.1f} s against {a10['cpu']:.1f} s, "
                      f"{a50['cpu'] / a10['cpu']:.2f}×")
        t.add(goal, f"{a50['wall']:.1f} s", f"|A| = 10: {a10['wall']:.1f} s", times(r), r <= 2, where)
    goal = "p2b-sim sealed against its crypto floor ≤ 1.3×"
    if not sealed or "floor" not in sealed:
        t.missing(goal, why_missing(out, "sim_sealed", "'crypto floor:' line"))
    else:
        # Wall against the floor, as bench/sim_speed.sh states the goal.
        r = sealed["wall"] / sealed["floor"]
        where = (f"{sealed['wall'] - sealed['floor']:.1f} s above the floor (the points alone: "
                 f"{sealed['points']:.1f} s)")
        if "alone" in sealed:
            where += f"; CPU / threads is {sealed['alone'] / sealed['floor']:.2f}× the floor"
        if a10:
            where += f"; the same point without crypto: {a10['wall']:.1f} s"
        t.add(goal, f"{sealed['wall']:.1f} s", f"crypto floor {sealed['floor']:.1f} s (p2b-sim, same run)",
              times(r), r <= 1.3, where + "; " + sealed["note"])
    goal = f"p2b-sim speed-up 1 → {n} threads ≥ 13/16 of linear (issue: ≥ 13× on 16)"
    if n < 2:
        t.add(goal, "one core", "", "", "n/a", "")
    elif not t1 or not tall:
        t.missing(goal, why_missing(out, "sim_t1" if not t1 else "sim_tall", "'speed:' line"))
    else:
        s = t1["wall"] / tall["wall"]
        t.add(goal, f"{tall['wall']:.1f} s on {n} threads", f"1 thread: {t1['wall']:.1f} s",
              f"{times(s)} ({s / n:.0%} of linear)", s >= 13 / 16 * n,
              f"{n} threads: {tall['note']}; 1 thread: {t1['note']}")


# --- model apply and the P-FCB oracle --------------------------------------


def apply_rows(t, out):
    # The goal is structural: src/model_apply.cpp parses the bundle once and
    # factors each arm once (tests/test_model.cpp pins the result to an
    # import's). No time threshold follows from it: the issue's "70 % of it a
    # second parse and factorisation" measured 38 % when both builds ran side
    # by side, so the row shows the time beside the signature check instead.
    goal = "model apply d = 20, K = 50: parse and factor once"
    runs = gbench(out, "apply.json")
    row = runs.get("BM_ApplyModel/d:20/K:50")
    if not row:
        t.missing(goal, why_missing(out, "apply", "BM_ApplyModel/d:20/K:50"))
        return
    v = row["cpu_ns"] / 1000
    # The Ed25519 check of the same bundle, which apply must do first: its floor.
    verify = runs.get("BM_VerifyModelBundle/d:20/K:50")
    beside = "issue #30: 750 µs (another run)"
    where = "not split: this build's p2b_wire_bench has no BM_VerifyModelBundle"
    if verify:
        vv = verify["cpu_ns"] / 1000
        beside = f"Ed25519 check of the bundle alone {us(vv)} (same run); " + beside
        where = (f"{us(v - vv)} past the signature check: nanopb's decode of the packed "
                 "doubles, then the 50 factorisations and refreshes")
    t.add(goal, us(v), beside, f"{times(v / 750)} the issue's figure",
          "met: one parse, one factorisation per arm", where)


def docs_oracle(path):
    """docs/benchmarks.md's cmab_select rows, in ns, keyed slack/binding."""
    found = {}
    try:
        text = open(path, encoding="utf-8").read()
    except (OSError, TypeError):
        return found
    for line in text.splitlines():
        if "`cmab_select`" not in line or not line.startswith("|"):
            continue
        kind = "slack" if "slack" in line else "binding" if "binding" in line else None
        vals = re.findall(r"([0-9][0-9.,]*) (ns|µs)", line)
        if kind and len(vals) >= 3:
            found[kind] = [float(v.replace(",", "")) * (1000 if u == "µs" else 1) for v, u in vals[:3]]
    return found


def oracle_rows(t, out, docs):
    runs = gbench(out, "oracle.json")
    documented = docs_oracle(docs)
    kinds = (("paper", "slack", "constraint slack"), ("binding", "binding", "constraint binding"))
    for capture, kind, label in kinds:
        goal = f"P-FCB oracle `cmab_select`, {label}, m = 8 / 30 / 64: within 1.2× of docs/benchmarks.md"
        got = [runs.get(f"BM_Select/{capture}/{m}") for m in (8, 30, 64)]
        if not all(got):
            t.missing(goal, why_missing(out, "oracle", f"BM_Select/{capture}/8,30,64"))
            continue
        got = [g["cpu_ns"] for g in got]
        doc = documented.get(kind)
        measured = " / ".join(ns(v) for v in got)
        # The floors bench_cmab_oracle times beside it on the same pools, when it has them.
        floor_name = "ScanFloor" if capture == "paper" else "SortFloor"
        floors = [runs.get(f"BM_{floor_name}/{capture}/{m}") for m in (8, 30, 64)]
        floor_text = ""
        if all(floors):
            floor_text = f"{floor_name}: " + " / ".join(ns(f["cpu_ns"]) for f in floors)
        if not doc:
            t.add(goal, measured, "not measured: no `cmab_select` row in docs/benchmarks.md",
                  "", None, floor_text)
            continue
        r = [g / d for g, d in zip(got, doc)]
        where = "see docs/pfcb-oracle.md"
        beside = "docs: " + " / ".join(ns(v) for v in doc)
        if floor_text:
            over = " / ".join(times(g / f["cpu_ns"]) for g, f in zip(got, floors))
            where = f"{floor_text}, so {over} the floor; docs/pfcb-oracle.md"
            beside += f"; {floor_text} (same run)"
        t.add(goal, measured, beside, " / ".join(times(x) for x in r), max(r) <= 1.2, where)


def header(out):
    m = dict(re.findall(r"^(\w+): (.*)$", read(out, "machine.txt") or "", re.M))
    print(f"Machine: {m.get('cores', '?')} cores, {m.get('cpu', '?')}, {m.get('memory', '?')}; load average "
          f"(1, 5, 15 min) {m.get('load_start', '?')} at start, {m.get('load_end', '?')} at end.")
    print(f"Tree: {m.get('commit', '?')}, {m.get('date', '?')}"
          + ("; --quick (smoke figures, not the goals')" if m.get("quick") == "1" else "") + ".")
    failed = [line.strip() for line in (read(out, "build.failed") or "").splitlines() if line.strip()]
    if failed:
        names = ", ".join(failed[:4]) + (", …" if len(failed) > 4 else "")
        print(f"Build: {len(failed)} object(s) did not compile ({names}); "
              "the rows that need them ran an earlier build's binaries.")
    print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--only", default=",".join(ROWS))
    ap.add_argument("--docs", default=os.path.join(os.path.dirname(__file__), "..", "docs", "benchmarks.md"))
    args = ap.parse_args()
    only = args.only.split(",")
    t = Table()
    for name, fill in (("decide", decide_rows), ("ingest", ingest_rows), ("vfl", vfl_rows),
                       ("sim", sim_rows), ("apply", apply_rows)):
        if name in only:
            fill(t, args.out)
    if "oracle" in only:
        oracle_rows(t, args.out, args.docs)
    header(args.out)
    t.print()


if __name__ == "__main__":
    main()
