#!/usr/bin/python3
"""Run the FCLUB authors' Python code (github.com/ZhaoHaoRu/Federated-Clustering-of-Bandits,
UAI'22) as the peer of our `reference` mode, on fixed seeds.

  fclub_peer_patch.py patch SRC          edit a COPY of their checkout in place
  fclub_peer_patch.py run SRC --seed N --out DIR [--algos A,B,...]
  fclub_peer_patch.py summarise DIR      DIR/seed_*/ -> DIR/results.csv, DIR/summary.csv

Their code is never committed here; `patch` edits their files at run time and
changes only what keeps it from running on numpy >= 1.24 or from being seeded:
  - `np.int` (removed in numpy 1.24) -> `int`, in experiment/*.py;
  - experiment/main.py: the seed comes from the command line (argv[1]) instead
    of int(time.time()*100) % 399, and every output file name carries the seed.
Their algorithm parameters are left as they are.

`run` sets up the synthetic experiment of their main.py (raw_data/synthetic_data/
m_theta.npy: 40 users, 5 local servers of 8, d = 10, 10 items a round, T = 1e5
for the synchronous methods, phases 1..16 = 2^17 - 1 rounds for the phase-based
ones) and calls their main_* functions one by one, seeding numpy and `random`
with N before EACH algorithm (their main() seeds once and runs all methods on
one stream; per-algorithm seeding makes each (seed, algorithm) reproducible on
its own). Their per-round "beta" prints are dropped from stdout.
Algorithms: LinUCB, CLUB, SCLUB, HomoDC, FCLUB_DC, CDP_FCLUB_DC (default), and
the slow synchronous FCLUB, Homo (> 50 min a seed each; only on request).
"""
import argparse
import glob
import os
import re
import sys
import time

DEFAULT_ALGOS = ["LinUCB", "CLUB", "SCLUB", "HomoDC", "FCLUB_DC", "CDP_FCLUB_DC"]
ALL_ALGOS = DEFAULT_ALGOS + ["FCLUB", "Homo"]
CHECKPOINTS = (10000, 50000, 100000)
CURVE_STEP = 1000
CURVE_END = 100000


def patch(src):
    exp = os.path.join(src, "experiment")
    main_py = os.path.join(exp, "main.py")
    if not os.path.isfile(main_py):
        sys.exit(f"{src}: no experiment/main.py; not a checkout of their repository")
    for path in sorted(glob.glob(os.path.join(exp, "*.py"))):
        with open(path) as f:
            text = f.read()
        new = re.sub(r"\bnp\.int\b(?!\d|_)", "int", text)
        if path == main_py:
            old_seed = "seed = int(time.time() * 100) % 399"
            if old_seed in new:
                new = new.replace(
                    old_seed,
                    "seed = int(sys.argv[1])  # patched: seed from the command line\n"
                    "    npzname = (npzname or 'run') + '_seed%d' % seed  # patched: per-seed files")
                new = new.replace("import time\n", "import time\nimport sys\n", 1)
            elif "seed = int(sys.argv[1])" not in new:
                sys.exit(f"{main_py}: seed line not found; their main.py has changed")
        if new != text:
            with open(path, "w") as f:
                f.write(new)
    for cache in glob.glob(os.path.join(exp, "__pycache__")):
        for pyc in glob.glob(os.path.join(cache, "*")):
            os.remove(pyc)


class _DropBeta:
    """stdout filter: their recommend() prints beta every round."""

    def __init__(self, out):
        self.out = out
        self.pending = ""

    def write(self, s):
        self.pending += s
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            if not line.startswith("beta"):
                self.out.write(line + "\n")

    def flush(self):
        self.out.flush()


def run(src, seed, out, algos):
    import random
    import numpy as np

    exp = os.path.join(os.path.abspath(src), "experiment")
    sys.path.insert(0, exp)
    sys.argv = [sys.argv[0], str(seed)]
    import main as their  # their experiment/main.py (patched); only its main_* functions are called

    captured = {}

    def capture(cls):
        orig = cls.run

        def wrapped(self, *a, **kw):
            captured["server"] = self
            return orig(self, *a, **kw)
        cls.run = wrapped

    for mod in (their.CLUB, their.SCLUB, their.LinUCB, their.DC_homogenenous_version,
                their.LDP_FCLUB_DC, their.CDP_FCLUB_DC, their.FCLUB, their.homogeneous_version):
        capture(mod.Global_server)

    theta_file = os.path.join(os.path.abspath(src), "raw_data", "synthetic_data", "m_theta.npy")
    # the synthetic call of their main.py (commented out there, next to the movielens one):
    # main(number, num_users=40, d=10, m=4, L=10, l_server_num=5, T=100000, filename='m_theta.npy')
    num_users, d, m, items, servers, T = 40, 10, 4, 10, 5, 100000
    theta = np.load(theta_file)
    user_list = [num_users // servers] * servers  # 40 % 5 == 0: 8 users per local server
    kw = dict(num_users=num_users, d=d, m=m, L=items, l_server_num=servers, theta=theta, T=T,
              filename=theta_file, seed=seed, userList=user_list)
    calls = {
        "LinUCB": lambda n: their.main_LinUCB(seed, num_users=num_users, d=d, theta=theta, T=T, L=items,
                                              seed=seed, filename=theta_file, npzname=n),
        "CLUB": lambda n: their.main_CLUB(seed, npzname=n, **kw),
        "SCLUB": lambda n: their.main_SCLUB(seed, npzname=n, **kw),
        "HomoDC": lambda n: their.main_DC_Homogenenous(seed, npzname=n, **kw),
        "FCLUB_DC": lambda n: their.main_FCLUB_DC(seed, npzname=n, **kw),
        "CDP_FCLUB_DC": lambda n: their.main_CDP_FCLUB_DC(seed, npzname=n, **kw),
        "FCLUB": lambda n: their.main_FCLUB(seed, npzname=n, **kw),
        "Homo": lambda n: their.main_Homogeneous(seed, npzname=n, **kw),
    }
    seed_dir = os.path.join(out, f"seed_{seed}")
    os.makedirs(seed_dir, exist_ok=True)
    os.chdir(seed_dir)  # their main_* write their .npz into the working directory
    real_stdout = sys.stdout
    for algo in algos:
        np.random.seed(seed)
        random.seed(seed)
        captured.clear()
        t0 = time.time()
        sys.stdout = _DropBeta(real_stdout)
        try:
            calls[algo](f"{algo}_seed{seed}")
        finally:
            sys.stdout.flush()
            sys.stdout = real_stdout
        wall = time.time() - t0
        server = captured.get("server")
        if hasattr(server, "l_server_list") and algo in ("CLUB", "SCLUB"):
            # SCLUB keeps clusters whose users all split off (empty); count those with users
            clusters = sum(1 for ls in server.l_server_list for c in ls.clusters.values() if c.users)
        elif hasattr(server, "clusters"):
            clusters = len(server.clusters)  # global clusters, as their main saves
        else:
            clusters = ""
        local = ""
        if hasattr(server, "l_server_list") and algo not in ("CLUB", "SCLUB"):
            local = sum(len(ls.clusters) for ls in server.l_server_list)
        with open(os.path.join(seed_dir, f"{algo}.meta"), "w") as f:
            f.write(f"clusters={clusters}\nlocal_clusters={local}\nwall_s={wall:.1f}\n")
        print(f"seed {seed} {algo}: {wall:.0f} s", flush=True)


def _npz_for(seed_dir, algo, seed):
    prefix = {"LinUCB": "LinUCB_", "CLUB": "CLUB_", "SCLUB": "SCLUB_", "HomoDC": "homo_DC_",
              "FCLUB_DC": "LDP_FCLUB_DC_", "CDP_FCLUB_DC": "CDP_FCLUB_DC_", "FCLUB": "FCLUB_",
              "Homo": "Homo_"}[algo]
    return os.path.join(seed_dir, f"{prefix}{algo}_seed{seed}.npz")


def summarise(out):
    import numpy as np

    rows, curves = [], []
    for seed_dir in sorted(glob.glob(os.path.join(out, "seed_*")),
                           key=lambda p: int(p.rsplit("_", 1)[1])):
        seed = int(seed_dir.rsplit("_", 1)[1])
        for algo in ALL_ALGOS:
            npz, meta = _npz_for(seed_dir, algo, seed), os.path.join(seed_dir, f"{algo}.meta")
            if not (os.path.isfile(npz) and os.path.isfile(meta)):
                continue
            z = np.load(npz, allow_pickle=True)
            cum = np.cumsum(z["G_server_regret"])
            info = dict(line.strip().split("=", 1) for line in open(meta) if "=" in line)
            comm = ""
            if "comu_cost" in z.files and len(z["comu_cost"]) >= CURVE_END:
                comm = int(z["comu_cost"][CURVE_END - 1])  # cumulative count after round 1e5
            rows.append([seed, algo] + [f"{cum[r - 1]:.3f}" for r in CHECKPOINTS] +
                        [comm, info.get("clusters", ""), f"{float(z['run_time']):.1f}"])
            curves += [[seed, algo, r, f"{cum[r - 1]:.3f}"]
                       for r in range(CURVE_STEP, CURVE_END + 1, CURVE_STEP)]
    with open(os.path.join(out, "summary.csv"), "w") as f:
        f.write("seed,algorithm,regret_1e4,regret_5e4,regret_1e5,comm_1e5,clusters,wall_s\n")
        for r in rows:
            f.write(",".join(map(str, r)) + "\n")
    with open(os.path.join(out, "results.csv"), "w") as f:
        f.write("seed,algorithm,round,cum_regret\n")
        for r in curves:
            f.write(",".join(map(str, r)) + "\n")
    print(f"{'algorithm':14s} {'seeds':>5s} {'regret_1e5 mean':>15s} {'std':>8s} "
          f"{'comm_1e5 mean':>13s} {'clusters mean':>13s}")
    for algo in ALL_ALGOS:
        sel = [r for r in rows if r[1] == algo]
        if not sel:
            continue
        reg = np.array([float(r[4]) for r in sel])
        comm = [float(r[5]) for r in sel if r[5] != ""]
        clus = [float(r[6]) for r in sel if r[6] != ""]
        sd = reg.std(ddof=1) if len(reg) > 1 else float("nan")
        print(f"{algo:14s} {len(sel):5d} {reg.mean():15.1f} {sd:8.1f} "
              f"{(np.mean(comm) if comm else float('nan')):13.1f} "
              f"{(np.mean(clus) if clus else float('nan')):13.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("patch")
    p.add_argument("src")
    r = sub.add_parser("run")
    r.add_argument("src")
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--algos", default=",".join(DEFAULT_ALGOS))
    s = sub.add_parser("summarise")
    s.add_argument("out")
    a = ap.parse_args()
    if a.cmd == "patch":
        patch(a.src)
    elif a.cmd == "run":
        algos = [x for x in a.algos.split(",") if x]
        bad = [x for x in algos if x not in ALL_ALGOS]
        if bad:
            sys.exit(f"unknown algorithm(s) {bad}; choose from {ALL_ALGOS}")
        run(a.src, a.seed, os.path.abspath(a.out), algos)
    else:
        summarise(os.path.abspath(a.out))


if __name__ == "__main__":
    main()
