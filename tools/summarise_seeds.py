#!/usr/bin/python3
"""Summarise p2b-sim runs that differ only in --seed: per (mode, mapping, |A|, u),
the mean and the range over seeds of every reward, and whether the reference's
Fig. 4 shape holds (warm non-private >= 1.8x cold, private >= 0.8x non-private).

  /usr/bin/python3 tools/summarise_seeds.py out/results/paper-seeds-*/results.csv
Prints a Markdown table (docs/results.md section 2 is made from it).
"""
import csv
import sys
from collections import defaultdict

NP_OVER_COLD, P_OVER_NP = 1.8, 0.8


def rows(paths):
    for path in paths:
        with open(path, newline="") as f:
            yield from csv.DictReader(f)


def spread(values):
    mean = sum(values) / len(values)
    return f"{mean:.5f} ({min(values):.5f}–{max(values):.5f})"


def main(paths):
    if not paths:
        sys.exit("usage: summarise_seeds.py RESULTS.csv...")
    groups = defaultdict(list)
    for r in rows(paths):
        key = (r["mode"], r["mapping"], r["contexts"], int(r["actions"]), int(r["users"]))
        groups[key].append(r)
    print("| mode | map | contexts | \\|A\\| | u | seeds | cold | warm non-private | warm private "
          "| best fixed arm | oracle | np/cold | p/np | shape |")
    print("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|")
    for key in sorted(groups):
        g = groups[key]
        seeds = sorted({int(r["seed"]) for r in g})
        if len(seeds) != len(g):
            sys.exit(f"{key}: a seed appears twice; give each run once")
        col = lambda name: [float(r[name]) for r in g]
        np_cold = [float(r["warm_nonprivate"]) / float(r["cold"]) for r in g]
        p_np = [float(r["warm_private"]) / float(r["warm_nonprivate"]) for r in g]
        holds = sum(a >= NP_OVER_COLD and b >= P_OVER_NP for a, b in zip(np_cold, p_np))
        mode, mapping, contexts, actions, users = key
        print(f"| {mode} | {mapping} | {contexts} | {actions} | {users:,} | {len(seeds)} "
              f"| {spread(col('cold'))} | {spread(col('warm_nonprivate'))} "
              f"| {spread(col('warm_private'))} | {spread(col('best_fixed_arm'))} "
              f"| {sum(col('oracle')) / len(g):.5f} "
              f"| {min(np_cold):.2f}–{max(np_cold):.2f} | {min(p_np):.2f}–{max(p_np):.2f} "
              f"| {holds}/{len(g)} |")


if __name__ == "__main__":
    main(sys.argv[1:])
