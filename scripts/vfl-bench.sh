#!/usr/bin/env bash
# Bytes and time per decision of the vertical-federation programs as real
# processes on loopback (docs/vertical-services.md, "Figures"): p2b-keygen
# --vfl, p2b-vfl-pmg, M-1 p2b-vfl-party processes and a p2b-vfl-ap, then
# ROUNDS decide/reward rounds over l2-normalised Gaussian contexts split by
# columns, driven by bench/vfl_round, which times each round beside a
# central LinUCB decide + update at the same d and K and one loopback round
# trip, interleaved in the same run (issue #30's goal: round <= 2.5 x
# central + one round trip). Prints one line per figure.
#
#   bash scripts/vfl-bench.sh [--build DIR] [--dim D] [--items K] [--parties M] [--rounds N]
#
# Defaults: build-release (cmake --preset release, then build p2b-keygen,
# p2b-vfl-pmg, p2b-vfl-party, p2b-vfl-ap and vfl_round), d = 100, K = 10,
# M = 5, 500 rounds (the paper's synthetic setting). The stores go to
# TMPDIR: keep it off tmpfs, or fsyncs cost nothing. Needs python3
# (standard library only).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-release dim=100 items=10 parties=5 rounds=500
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --dim) dim=$2; shift 2 ;;
    --items) items=$2; shift 2 ;;
    --parties) parties=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--dim D] [--items K] [--parties M] [--rounds N]" >&2; exit 2 ;;
  esac
done
for b in tools/p2b-keygen server/vfl/p2b-vfl-pmg server/vfl/p2b-vfl-party server/vfl/p2b-vfl-ap \
  bench/vfl_round; do
  [ -x "$build/$b" ] || { echo "missing $build/$b: build the vfl targets first" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/p2b-vfl-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 - "$build" "$work" "$dim" "$items" "$parties" "$rounds" <<'PY'
import json, math, os, random, subprocess, sys, urllib.request

build, work, d, K, M, T = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:7])
bins = {n: os.path.join(build, p) for n, p in [
    ("keygen", "tools/p2b-keygen"), ("pmg", "server/vfl/p2b-vfl-pmg"),
    ("party", "server/vfl/p2b-vfl-party"), ("ap", "server/vfl/p2b-vfl-ap"),
    ("round", "bench/vfl_round")]}
part = [d // M + (1 if j < d % M else 0) for j in range(M)]
names = ["ap"] + [f"party{j}" for j in range(1, M)]
for n in names + ["pmg"]:
    subprocess.run([bins["keygen"], "--vfl", "--out", f"{work}/{n}"], check=True,
                   stdout=subprocess.DEVNULL)
argv = [bins["pmg"], "--partition", ",".join(map(str, part)), "--sign-key",
        f"{work}/pmg/vfl.sign.sk", "--epoch", "1", "--out-dir", work]
for n in names:
    argv += ["--party-key", f"{work}/{n}/vfl.box.pk"]
subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)

rng = random.Random(2026)
users = ["%032x" % rng.getrandbits(128) for _ in range(T)]
files = [open(f"{work}/features-{j}.csv", "w") for j in range(M)]
for u in users:
    for i in range(K):
        x = [rng.gauss(0, 1) for _ in range(d)]
        n = math.sqrt(sum(v * v for v in x))
        off = 0
        for j in range(M):
            files[j].write(u + "," + str(i) + "".join("," + repr(v / n) for v in x[off:off + part[j]]) + "\n")
            off += part[j]
for f in files:
    f.close()
with open(f"{work}/users.txt", "w") as f:
    f.write("\n".join(users) + "\n")

procs = []
def start(args, log):
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=open(log, "w"), text=True)
    procs.append(p)
    line = p.stdout.readline()
    if not line.startswith("listening on "):
        sys.exit(f"{args[0]} did not start; see {log}")
    return int(line.rsplit(":", 1)[1])

def post(port, path, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())

def get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as r:
        return json.loads(r.read())

try:
    ports = []
    for j in range(1, M):
        ports.append(start([bins["party"], "--listen", "127.0.0.1:0", "--keys", f"{work}/party{j}",
                            "--store", f"{work}/party{j}.state", "--party-index", str(j), "--dim", str(d),
                            "--bundle", f"{work}/party-{j}.p2bq", "--features", f"{work}/features-{j}.csv",
                            "--pmg-key", f"{work}/pmg/vfl.sign.pk", "--ap-key", f"{work}/ap/vfl.box.pk",
                            "--log-level", "warn"], f"{work}/party{j}.log"))
    args = [bins["ap"], "--listen", "127.0.0.1:0", "--keys", f"{work}/ap", "--store", f"{work}/ap.state",
            "--dim", str(d), "--bundle", f"{work}/party-0.p2bq", "--features", f"{work}/features-0.csv",
            "--pmg-key", f"{work}/pmg/vfl.sign.pk", "--max-items", str(K), "--log-level", "warn"]
    for j in range(1, M):
        args += ["--party", f"http://127.0.0.1:{ports[j - 1]},{work}/party{j}/vfl.box.pk"]
    ap = start(args, f"{work}/ap.log")
    print(f"vfl bench: d={d} K={K} M={M} partition={part} rounds={T} "
          f"load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cpus")
    sys.stdout.flush()
    subprocess.run([bins["round"], "--port", str(ap), "--users", f"{work}/users.txt",
                    "--dim", str(d), "--items", str(K), "--rounds", str(T)], check=True)
    s = get(ap, "/v1/stats")
    n = s["decisions"]
    per_party = s["party_bytes"][1] / s["party_messages"][1]
    print(f"P2BV bytes per decision per party: {per_party:.0f} (100 + 8*K*d = {100 + 8 * K * d})")
    print(f"P2BR bytes per decision per party: {72 + 4 * K} (72 + 4*K)")
    print(f"active party, per decision: {s['decide_ns'] / 1e6 / n:.3f} ms in /v1/decide (mean), "
          f"of which {s.get('exchange_ns', 0) / 1e6 / n:.3f} ms asking the parties (answers opened) "
          f"and {s.get('store_ns', 0) / 1e6 / n:.3f} ms committing the decision")
    for j in range(1, M):
        p = get(ports[j - 1], "/v1/stats")
        print(f"party {j}, per decision: {p['busy_ns'] / 1e6 / p['answered']:.3f} ms "
              f"(reserving rounds on disk {p['persist_ns'] / 1e6 / p['answered']:.3f} ms)")
finally:
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait(timeout=15)
PY
