#!/usr/bin/env python3
"""Plots of p2b-sim --protocol vertical (docs/simulator.md#vertical).

Reads OUT/curves.csv (regret runs) and/or OUT/cost.csv (--cost) and writes
  regret.png  cumulative regret: central, federated and the active party alone
              (seed 003's Fig. 4), one panel per policy;
  partial.png central against partial ratios (seed 003's Fig. 6a/b);
  cost.png    time per round against d, one line per K, and the VF/central
              ratio (seed 003's Fig. 5).
Run with Debian's python3 (numpy, matplotlib): /usr/bin/python3 tools/plot_vertical.py OUT
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import figstyle  # noqa: E402


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def curves(rows):
    out = {}
    for r in rows:
        key = (r["policy"], r["series"])
        out.setdefault(key, ([], [], []))
        out[key][0].append(int(r["round"]))
        out[key][1].append(float(r["regret_mean"]))
        out[key][2].append(float(r["regret_sd"]))
    return out


def band(ax, xs, mean, sd, label, **kw):
    line = ax.plot(xs, mean, label=label, **kw)[0]
    lo = [m - s for m, s in zip(mean, sd)]
    hi = [m + s for m, s in zip(mean, sd)]
    ax.fill_between(xs, lo, hi, alpha=0.15, color=line.get_color())


def plot_regret(out_dir, rows):
    c = curves(rows)
    env = rows[0]["env"]
    policies = [p for p in ("linucb", "lints") if any(q == p for q, _ in c)]
    partials = sorted({s for _, s in c if s.startswith("partial-")}, key=lambda s: int(s[8:]))
    local = partials[0] if partials else None
    fig, axes = plt.subplots(1, len(policies), figsize=(6 * len(policies), 4.2), squeeze=False)
    for ax, pol in zip(axes[0], policies):
        for series, style in (("central", dict(lw=2.5)), ("federated", dict(ls="--", lw=1.5))):
            xs, m, s = c[(pol, series)]
            band(ax, xs, m, s, series, **style)
        if local:
            xs, m, s = c[(pol, local)]
            band(ax, xs, m, s, "active party alone (%s columns)" % local[8:])
        ax.set_title("%s, %s: cumulative regret (mean ± sd)" % (env, pol))
        ax.set_xlabel("round")
        ax.set_ylabel("cumulative regret")
        ax.legend(loc="upper left")  # regret grows to the right: keep clear of it
    fig.tight_layout()
    figstyle.save(fig, os.path.join(out_dir, "regret.png"), dpi=110)
    if len(partials) > 1:
        fig, axes = plt.subplots(1, len(policies), figsize=(6 * len(policies), 4.2), squeeze=False)
        for ax, pol in zip(axes[0], policies):
            xs, m, s = c[(pol, "central")]
            band(ax, xs, m, s, "all columns (central = federated)", lw=2.5)
            for p in partials:
                xs, m, s = c[(pol, p)]
                band(ax, xs, m, s, "first %s columns" % p[8:])
            ax.set_title("%s, %s: more features, less regret" % (env, pol))
            ax.set_xlabel("round")
            ax.set_ylabel("cumulative regret")
            ax.legend(loc="upper left")
        fig.tight_layout()
        figstyle.save(fig, os.path.join(out_dir, "partial.png"), dpi=110)


def plot_cost(out_dir, rows):
    ks = sorted({int(r["k"]) for r in rows})
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.2))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, k in enumerate(ks):
        c = colours[i % len(colours)]
        sel = sorted((r for r in rows if int(r["k"]) == k), key=lambda r: int(r["d"]))
        ds = [int(r["d"]) for r in sel]
        a.plot(ds, [float(r["central_us"]) for r in sel], marker="o", color=c,
               label="central, K=%d" % k)
        a.plot(ds, [float(r["round_us"]) for r in sel], marker="x", ls="--", color=c,
               label="federated, K=%d" % k)
        b.plot(ds, [float(r["ratio"]) for r in sel], marker="o", color=c,
               label="K=%d, sealed, opened one by one" % k)
        b.plot(ds, [float(r["parallel_ratio"]) for r in sel], marker="x", ls="--", color=c,
               label="K=%d, sealed, opened as they arrive" % k)
        b.plot(ds, [float(r["compute_ratio"]) for r in sel], marker=".", ls=":", color=c,
               label="K=%d, masking only" % k)
    a.set_xscale("log")
    a.set_yscale("log")
    figstyle.plain_log_ticks(a.xaxis, {int(r["d"]) for r in rows})
    figstyle.plain_log_ticks(a.yaxis, steps=(1.0,))
    a.set_xlabel("d")
    a.set_ylabel("microseconds per round")
    a.set_title("time per round (M = %s, parties in parallel)" % rows[0]["parties"])
    a.legend(fontsize=7)
    b.axhline(2.5, color="grey", ls="-.", label="goal: 2.5x")
    b.set_xscale("log")
    b.set_yscale("log")
    figstyle.plain_log_ticks(b.xaxis, {int(r["d"]) for r in rows})
    figstyle.plain_log_ticks(b.yaxis, steps=(1.0, 1.5, 2.0, 3.0, 4.0, 6.0))
    b.set_xlabel("d")
    b.set_ylabel("federated / central")
    b.set_title("relative cost of O3M")
    figstyle.legend_outside(b, fontsize=7)
    fig.tight_layout()
    figstyle.save(fig, os.path.join(out_dir, "cost.png"), dpi=110)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: plot_vertical.py OUT_DIR")
    out_dir = sys.argv[1]
    drew = False
    if os.path.exists(os.path.join(out_dir, "curves.csv")):
        plot_regret(out_dir, read(os.path.join(out_dir, "curves.csv")))
        drew = True
    if os.path.exists(os.path.join(out_dir, "cost.csv")):
        plot_cost(out_dir, read(os.path.join(out_dir, "cost.csv")))
        drew = True
    if not drew:
        sys.exit("plot_vertical.py: no curves.csv or cost.csv in " + out_dir)


if __name__ == "__main__":
    main()
