#!/usr/bin/python3
"""Plots p2b-sim's results.csv (argument: the output directory).

fig4.png: late-user reward against early users, one panel per (mode, map,
          |A|, d, t), for cold, warm non-private and warm private (paper
          Fig. 4 style), with the oracle and the best fixed arm.
fig5.png: reward against d (paper Fig. 5 style), one panel per (mode, map,
          |A|, t) and one line per u and setting. Each d draws its own W (W is
          |A| x d), so neighbouring points are different environments.
fig6.png: reward (accuracy, on labelled data) against the local interactions
          t (paper Fig. 6 style), one panel per (mode, |A|, d, u), with the
          best fixed arm and, on labelled data, the majority label.
Only what the results contain is drawn; a missing figure is said so.
"""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

import figstyle  # noqa: E402

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


def key_text(mode, mapping):
    return f"{mode} mode" + (f", {mapping} map" if mapping else "")


def baselines(ax, xs, pts):
    """The oracle and the context-free baselines the rows hold."""
    ax.plot(xs, [float(r["oracle"]) for r in pts], ":", color="grey", label="oracle")
    if "best_fixed_arm" in pts[0]:
        ax.plot(xs, [float(r["best_fixed_arm"]) for r in pts], "-.", color=figstyle.PALETTE[3],
                label="best fixed arm")
    if pts[0].get("majority_label", "nan") not in ("nan", ""):
        ax.plot(xs, [float(r["majority_label"]) for r in pts], "--", color=figstyle.PALETTE[5],
                label="majority label")


def grid_of_panels(n):
    cols = min(3, n)
    nrows = (n + cols - 1) // cols
    return plt.subplots(nrows, cols, figsize=(5.2 * cols, 3.8 * nrows), dpi=110, squeeze=False)


def finish(fig, axes, used, out):
    for ax in list(axes.flat)[used:]:
        ax.axis("off")
    # One legend for all panels, below them: "best" still covered data.
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize="small",
               frameon=False)
    fig.tight_layout(rect=(0, 0.06 / axes.shape[0], 1, 1))
    figstyle.save(fig, out)
    plt.close(fig)


def fig4(rows, out):
    panels = defaultdict(list)
    for r in rows:
        panels[(r["mode"], r.get("mapping", ""), int(r["actions"]), int(r["dim"]),
                int(r["interactions"]))].append(r)
    panels = {k: sorted(v, key=lambda r: int(r["users"]))
              for k, v in panels.items() if len({r["users"] for r in v}) > 1}
    if not panels:
        return False
    keys = sorted(panels)
    fig, axes = grid_of_panels(len(keys))
    for ax, key in zip(axes.flat, keys):
        pts = panels[key]
        xs = [int(r["users"]) for r in pts]
        baselines(ax, xs, pts)
        for k, label, style in SETTINGS:
            band(ax, xs, pts, k, label, style)
        ax.set_xscale("log")
        ax.set_title(f"{key_text(key[0], key[1])}, |A|={key[2]}, d={key[3]}, t={key[4]}",
                     fontsize="medium")
        ax.set_xlabel("early (sharing) users u")
        ax.set_ylabel("average reward, late users")
        ax.grid(True, alpha=0.3)
    finish(fig, axes, len(keys), out)
    return True


def fig5(rows, out):
    panels = defaultdict(lambda: defaultdict(list))
    for r in rows:
        panels[(r["mode"], r.get("mapping", ""), int(r["actions"]), int(r["interactions"]))][
            int(r["users"])].append(r)
    panels = {k: {u: sorted(v, key=lambda r: int(r["dim"])) for u, v in by_u.items()
                  if len({r["dim"] for r in v}) > 1}
              for k, by_u in panels.items()}
    panels = {k: v for k, v in panels.items() if v}
    if not panels:
        return False
    keys = sorted(panels)
    fig, axes = grid_of_panels(len(keys))
    # A colour and marker per setting (as in fig4), a line style per u.
    looks = (("black", "v"), (figstyle.PALETTE[0], "o"), (figstyle.PALETTE[1], "s"))
    for ax, key in zip(axes.flat, keys):
        for n, (users, pts) in enumerate(sorted(panels[key].items())):
            xs = [int(r["dim"]) for r in pts]
            tag = f", u={users:,}" if len(panels[key]) > 1 else ""
            ax.plot(xs, [float(r["oracle"]) for r in pts], ":", color="grey",
                    label="oracle" + tag)
            for (k, label, _), (color, marker) in zip(SETTINGS, looks):
                ax.plot(xs, [float(r[k]) for r in pts], marker=marker, color=color,
                        linestyle=figstyle.LINESTYLES[n % len(figstyle.LINESTYLES)],
                        label=label + tag)
        users = ", ".join(f"{u:,}" for u in sorted(panels[key]))
        ax.set_title(f"{key_text(key[0], key[1])}, |A|={key[2]}, t={key[3]}, u={users}",
                     fontsize="medium")
        ax.set_xlabel("context dimension d (each d draws its own W)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel("average reward, late users")
        ax.grid(True, alpha=0.3)
    finish(fig, axes, len(keys), out)
    return True


def fig6(rows, out):
    panels = defaultdict(list)
    for r in rows:
        panels[(r["mode"], r.get("mapping", ""), int(r["actions"]), int(r["dim"]),
                int(r["users"]))].append(r)
    panels = {k: sorted(v, key=lambda r: int(r["interactions"]))
              for k, v in panels.items() if len({r["interactions"] for r in v}) > 1}
    if not panels:
        return False
    keys = sorted(panels)
    fig, axes = grid_of_panels(len(keys))
    labelled = rows[0]["env"] == "multilabel"
    for ax, key in zip(axes.flat, keys):
        pts = panels[key]
        xs = [int(r["interactions"]) for r in pts]
        baselines(ax, xs, pts)
        for k, label, style in SETTINGS:
            band(ax, xs, pts, k, label, style)
        ax.set_title(f"{key_text(key[0], key[1])}, |A|={key[2]}, d={key[3]}, u={key[4]:,}",
                     fontsize="medium")
        ax.set_xlabel("local interactions per user t")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel("accuracy, late users" if labelled else "average reward, late users")
        ax.grid(True, alpha=0.3)
    finish(fig, axes, len(keys), out)
    return True


def main(out_dir):
    path = os.path.join(out_dir, "results.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{path}: no rows")
    for name, draw in (("fig4.png", fig4), ("fig5.png", fig5), ("fig6.png", fig6)):
        out = os.path.join(out_dir, name)
        if draw(rows, out):
            print(f"plot: {out}")
        else:
            print(f"plot: {name} skipped (the results do not vary its x axis: u, d or t)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: plot_sim.py OUT_DIR (holding p2b-sim's results.csv)")
    main(sys.argv[1])
