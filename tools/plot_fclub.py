#!/usr/bin/env python3
"""Plots of p2b-sim --protocol fclub (docs/simulator.md#fclub).

Reads OUT/curves.csv and OUT/summary.csv and writes
  regret.png         cumulative regret against rounds, mean over seeds with a
                     +-1 sd band, one line per algorithm (seed 001's Fig. 2);
  communication.png  messages and bytes per algorithm (seed 001's Fig. 4);
  trends.png         final regret against d and against epsilon, when the
                     run has more than one of either (seed 001's Fig. 3);
  privacy.png        CDP-FCLUB-DC's final regret (mean, +-1 sd over seeds)
                     against epsilon, FCLUB-DC as a reference line with its
                     1.5x goal, and epsilon = inf (the private code path
                     without noise) as its own labelled point at the right.
Run with Debian's python3 (numpy, matplotlib):
  /usr/bin/python3 tools/plot_fclub.py OUT [--data "MovieLens thetas"]
--data names the users' thetas in regret.png's title when they are not the
synthetic ones. Without curves.csv, regret.png is skipped.
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import figstyle  # noqa: E402

ORDER = ["cdp-fclub-dc", "fclub-dc", "fclub", "sclub", "club", "linucb-ind", "homo-dc", "homo"]
# The same colour and marker for an algorithm in every panel and figure.
COLOURS = {name: figstyle.PALETTE[i] for i, name in enumerate(ORDER)}
MARKERS = {name: figstyle.MARKERS[i] for i, name in enumerate(ORDER)}


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def plot_regret(rows, out, mode, data):
    series = defaultdict(lambda: defaultdict(list))
    dims = sorted({int(r["dim"]) for r in rows})
    eps = sorted({float(r["epsilon"]) for r in rows if float(r["epsilon"]) > 0})
    dim = 10 if 10 in dims else dims[0]
    e0 = 1.0 if 1.0 in eps else (eps[0] if eps else 0.0)
    for r in rows:
        e = float(r["epsilon"])
        if int(r["dim"]) != dim or (e > 0 and e != e0):
            continue
        series[r["algorithm"]][int(r["seed"])].append((int(r["round"]), float(r["cum_regret"])))
    # Homo's linear regret dwarfs the rest: the right panel leaves it out.
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    names = [a for a in ORDER if a in series] + [a for a in series if a not in ORDER]
    for panel, ax in enumerate(axes):
        for name in names:
            if panel == 1 and name.startswith("homo"):
                continue
            runs = [sorted(v) for v in series[name].values()]
            n = min(len(r) for r in runs)
            t = np.array([p[0] for p in runs[0][:n]])
            y = np.array([[p[1] for p in r[:n]] for r in runs])
            m, s = y.mean(axis=0), y.std(axis=0)
            colour = COLOURS.get(name)
            ax.plot(t, m, label=f"{name} ({len(runs)} seeds)", color=colour,
                    marker=MARKERS.get(name), markevery=max(1, len(t) // 8), markersize=5)
            ax.fill_between(t, m - s, m + s, alpha=0.2, color=colour)
        ax.set_xlabel("round")
        ax.set_ylabel("cumulative regret")
        ax.legend(fontsize=8, loc="upper left")
        ax.grid(alpha=0.3)
    fig.suptitle(f"FCLUB on {data}, {mode} mode, d = {dim}" + (f", eps = {e0:g}" if eps else ""))
    axes[0].set_title("all algorithms", fontsize="medium")
    axes[1].set_title("without the single-cluster Homo variants", fontsize="medium")
    fig.tight_layout()
    figstyle.save(fig, os.path.join(out, "regret.png"), dpi=120)
    plt.close(fig)


def plot_comm(summary, out):
    rows = [r for r in summary if float(r["uploads_mean"]) + float(r["downloads_mean"]) > 0]
    if not rows:
        return
    names = [f'{r["algorithm"]} d={r["dim"]}' + (f' e={float(r["epsilon"]):g}' if float(r["epsilon"]) > 0 else "")
             for r in rows]
    msgs = [float(r["uploads_mean"]) + float(r["downloads_mean"]) for r in rows]
    kib = [float(r["bytes_mean"]) / 1024 for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 0.45 * len(rows) + 1.8))
    a.barh(names, msgs)
    a.set_xscale("log")
    figstyle.plain_log_ticks(a.xaxis)
    a.set_xlabel("messages (uploads + downloads), mean over seeds")
    b.barh(names, kib)
    b.set_xscale("log")
    figstyle.plain_log_ticks(b.xaxis)
    b.set_xlabel("KiB on the wire")
    b.set_yticks([])
    fig.tight_layout()
    figstyle.save(fig, os.path.join(out, "communication.png"), dpi=120)
    plt.close(fig)


def plot_trends(summary, out):
    # Regret against d at one epsilon, and against epsilon at one d.
    eps = sorted({float(r["epsilon"]) for r in summary if float(r["epsilon"]) > 0})
    e0 = 1.0 if 1.0 in eps else (eps[0] if eps else 0.0)
    dims = [int(r["dim"]) for r in summary if float(r["epsilon"]) > 0]
    d0 = 10 if 10 in dims else (max(set(dims), key=dims.count) if dims else 0)
    by_d = defaultdict(dict)
    by_e = defaultdict(dict)
    for r in summary:
        e = float(r["epsilon"])
        if e in (0.0, e0):
            by_d[r["algorithm"]][int(r["dim"])] = float(r["regret_mean"])
        if e > 0 and np.isfinite(e) and int(r["dim"]) == d0:  # inf: privacy.png
            by_e[r["algorithm"]][e] = float(r["regret_mean"])
    many_d = any(len(v) > 1 for v in by_d.values())
    many_e = any(len(v) > 1 for v in by_e.values())
    if not (many_d or many_e):
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for name, pts in by_d.items():
        if len(pts) > 1:
            xs = sorted(pts)
            axes[0].plot(xs, [pts[x] for x in xs], marker=MARKERS.get(name, "o"),
                         color=COLOURS.get(name), label=name)
    axes[0].set_xlabel("d" + (f" (epsilon = {e0:g})" if eps else ""))
    axes[0].set_ylabel("final cumulative regret (mean)")
    for name, pts in by_e.items():
        if len(pts) > 1:
            xs = sorted(pts)
            axes[1].plot(xs, [pts[x] for x in xs], marker=MARKERS.get(name, "o"),
                         color=COLOURS.get(name), label=name)
    axes[1].set_xscale("log")
    # One "10^0" was the only label: every epsilon run gets its own.
    figstyle.plain_log_ticks(axes[1].xaxis, {e for v in by_e.values() for e in v})
    axes[1].set_xlabel(f"epsilon (d = {d0})")
    for ax in axes:
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.tight_layout()
    figstyle.save(fig, os.path.join(out, "trends.png"), dpi=120)
    plt.close(fig)


def plot_privacy(summary, out):
    private = [r for r in summary if r["algorithm"] == "cdp-fclub-dc"]
    if len({r["epsilon"] for r in private}) < 2:
        return
    d0 = int(private[0]["dim"])
    private = [r for r in private if int(r["dim"]) == d0]
    finite = sorted((float(r["epsilon"]), float(r["regret_mean"]), float(r["regret_sd"]))
                    for r in private if np.isfinite(float(r["epsilon"])))
    infinite = [r for r in private if not np.isfinite(float(r["epsilon"]))]
    fig, ax = plt.subplots(figsize=(9.5, 4))  # wide: the legend sits right of the data
    colour = COLOURS["cdp-fclub-dc"]
    if finite:
        xs = [e for e, _, _ in finite]
        ax.errorbar(xs, [m for _, m, _ in finite], yerr=[sd for _, _, sd in finite], marker="o",
                    capsize=3, color=colour, label="CDP-FCLUB-DC (mean +-1 sd)")
    ax.set_xscale("log")
    # Infinity has no place on a log axis: one step right of the largest
    # finite epsilon, labelled, and not joined to the curve.
    top = finite[-1][0] if finite else 1.0
    x_inf = top * 4.0
    if infinite:
        r = infinite[0]
        ax.errorbar([x_inf], [float(r["regret_mean"])], yerr=[float(r["regret_sd"])], marker="s",
                    capsize=3, color=colour, linestyle="none", mfc="white",
                    label="CDP-FCLUB-DC, epsilon = inf (no noise)")
    ticks = [e for e, _, _ in finite] + ([x_inf] if infinite else [])
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{e:g}" for e, _, _ in finite] + (["\u221e"] if infinite else []))
    ax.minorticks_off()
    if infinite:
        # A break mark on the axis: the gap to "inf" is no distance.
        ax.text((top * x_inf) ** 0.5, 0, "//", transform=ax.get_xaxis_transform(),
                ha="center", va="center", fontsize=11, backgroundcolor="white")
    reference = [r for r in summary if r["algorithm"] == "fclub-dc" and int(r["dim"]) == d0]
    if reference:
        m, sd = float(reference[0]["regret_mean"]), float(reference[0]["regret_sd"])
        ax.axhline(m, color=COLOURS["fclub-dc"], label="FCLUB-DC (not private), +-1 sd")
        ax.axhspan(m - sd, m + sd, color=COLOURS["fclub-dc"], alpha=0.12)
        ax.axhline(1.5 * m, color=COLOURS["fclub-dc"], linestyle="--", label="1.5 x FCLUB-DC")
    ax.set_xlabel(f"epsilon (d = {d0})")
    ax.set_ylabel("final cumulative regret")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    figstyle.legend_outside(ax, fontsize=8)
    fig.tight_layout()
    figstyle.save(fig, os.path.join(out, "privacy.png"), dpi=120)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description="Plots of p2b-sim --protocol fclub")
    parser.add_argument("out", help="the run's output directory")
    parser.add_argument("--data", default="synthetic users",
                        help="what the users' thetas are, for regret.png's title")
    args = parser.parse_args()
    out = args.out
    summary = read(os.path.join(out, "summary.csv"))
    if os.path.exists(os.path.join(out, "curves.csv")):
        curves = read(os.path.join(out, "curves.csv"))
        if not curves:
            sys.exit(f"{out}/curves.csv has no rows")
        plot_regret(curves, out, curves[0]["mode"], args.data)
    plot_comm(summary, out)
    plot_trends(summary, out)
    plot_privacy(summary, out)


if __name__ == "__main__":
    main()
