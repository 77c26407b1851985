#!/usr/bin/python3
"""Plots p2b-sim's results.csv (argument: the output directory).

fig4.png: late-user reward against early users, one panel per (mode, |A|),
          for cold, warm non-private and warm private (paper Fig. 4 style).
fig5.png: reward against d for each mode (paper Fig. 5 style), when the
          results hold more than one d.
Only what the results contain is drawn; a missing figure is said so.
"""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SETTINGS = (
    ("cold", "cold (local only)", "k--"),
    ("warm_nonprivate", "warm, non-private", "o-"),
    ("warm_private", "warm, private (P2B)", "s-"),
)


def band(ax, xs, rows, key, label, style):
    """A line of `key` and a shaded band of +- 1.96 standard errors."""
    mean = [float(r[key]) for r in rows]
    se = [float(r[key + "_se"]) for r in rows]
    (line,) = ax.plot(xs, mean, style, label=label)
    ax.fill_between(xs, [m - 1.96 * s for m, s in zip(mean, se)],
                    [m + 1.96 * s for m, s in zip(mean, se)],
                    color=line.get_color(), alpha=0.12)


def fig4(rows, out):
    panels = defaultdict(list)
    for r in rows:
        panels[(r["mode"], int(r["actions"]), int(r["dim"]))].append(r)
    panels = {k: sorted(v, key=lambda r: int(r["users"]))
              for k, v in panels.items() if len(v) > 1}
    if not panels:
        return False
    keys = sorted(panels)
    cols = min(3, len(keys))
    nrows = (len(keys) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(5.2 * cols, 3.8 * nrows), dpi=110,
                             squeeze=False)
    for ax, key in zip(axes.flat, keys):
        pts = panels[key]
        xs = [int(r["users"]) for r in pts]
        ax.plot(xs, [float(r["oracle"]) for r in pts], ":", color="grey", label="oracle")
        for k, label, style in SETTINGS:
            band(ax, xs, pts, k, label, style)
        ax.set_xscale("log")
        ax.set_title(f"{key[0]} mode, |A|={key[1]}, d={key[2]}", fontsize="medium")
        ax.set_xlabel("early (sharing) users u")
        ax.set_ylabel("average reward, late users")
        ax.grid(True, alpha=0.3)
    for ax in list(axes.flat)[len(keys):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize="small", loc="best")
    fig.tight_layout()
    fig.savefig(out)
    return True


def fig5(rows, out):
    by_mode = defaultdict(list)
    for r in rows:
        by_mode[r["mode"]].append(r)
    by_mode = {m: sorted(v, key=lambda r: int(r["dim"])) for m, v in by_mode.items()
               if len({r["dim"] for r in v}) > 1}
    if not by_mode:
        return False
    fig, axes = plt.subplots(1, len(by_mode), figsize=(5.2 * len(by_mode), 3.8), dpi=110,
                             squeeze=False)
    for ax, (mode, pts) in zip(axes.flat, sorted(by_mode.items())):
        xs = [int(r["dim"]) for r in pts]
        ax.plot(xs, [float(r["oracle"]) for r in pts], ":", color="grey", label="oracle")
        for k, label, style in SETTINGS:
            band(ax, xs, pts, k, label, style)
        ax.set_title(f"{mode} mode, |A|={pts[0]['actions']}, u={pts[0]['users']}",
                     fontsize="medium")
        ax.set_xlabel("context dimension d")
        ax.set_ylabel("average reward, late users")
        ax.grid(True, alpha=0.3)
    axes.flat[0].legend(fontsize="small", loc="best")
    fig.tight_layout()
    fig.savefig(out)
    return True


def main(out_dir):
    path = os.path.join(out_dir, "results.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{path}: no rows")
    for name, draw in (("fig4.png", fig4), ("fig5.png", fig5)):
        out = os.path.join(out_dir, name)
        if draw(rows, out):
            print(f"plot: {out}")
        else:
            print(f"plot: {name} skipped (the results vary neither u nor d enough)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: plot_sim.py OUT_DIR (holding p2b-sim's results.csv)")
    main(sys.argv[1])
