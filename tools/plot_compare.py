#!/usr/bin/env python3
"""Plots of p2b-sim --protocol compare (docs/simulator.md#compare).

Reads OUT/summary.csv and writes, one panel per environment,
  reward_vs_eps.png    mean reward per step (all users) against the epsilon (log x)
                       each protocol states per user, +-1 sd over seeds; P2B's
                       points vary p, FCLUB's and P-FCB-style's their budget;
                       local-only (eps 0) and pooled (eps infinite) are flat
                       references, and the non-private variants of FCLUB and
                       P-FCB-style are drawn as markers at the right edge;
  reward_vs_bytes.png  the same rewards against bytes per user (up + down,
                       log x); local-only sends nothing and is a flat line.
Epsilons are comparable only with their unit and adversary (summary.csv).
Run with Debian's python3 (matplotlib): /usr/bin/python3 tools/plot_compare.py OUT
"""
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {
    "p2b": "P2B (vary p)",
    "fclub": "FCLUB-style (vary eps)",
    "pfcb": "P-FCB-style (vary eps)",
    "local": "local-only (eps 0, 0 B)",
    "pooled": "pooled, non-private",
}
COLOURS = {"p2b": "C0", "fclub": "C1", "pfcb": "C2", "local": "C7", "pooled": "C3"}


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def value(text):
    return math.inf if text == "inf" else float(text)


def panel(ax, rows, xkey, logx):
    finite_x = [value(r[xkey]) for r in rows if math.isfinite(value(r[xkey])) and value(r[xkey]) > 0]
    right = max(finite_x) * (3 if logx else 1.15) if finite_x else 1.0
    for proto in ["p2b", "fclub", "pfcb"]:
        pts = [r for r in rows if r["protocol"] == proto]
        priv = [r for r in pts if math.isfinite(value(r["epsilon"]))]
        priv.sort(key=lambda r: value(r[xkey]))
        if priv:
            ax.errorbar([value(r[xkey]) for r in priv], [float(r["reward_all"]) for r in priv],
                        yerr=[float(r["reward_all_sd"]) for r in priv], marker="o", capsize=3,
                        color=COLOURS[proto], label=LABELS[proto])
        for r in pts:
            if not math.isfinite(value(r["epsilon"])):
                x = right if xkey == "epsilon" else value(r[xkey])
                ax.errorbar([x], [float(r["reward_all"])], yerr=[float(r["reward_all_sd"])],
                            marker="*", markersize=11, capsize=3, color=COLOURS[proto],
                            linestyle="none", label=f"{LABELS[proto].split(' (')[0]}, eps = inf")
    for proto in ["local", "pooled"]:
        for r in rows:
            if r["protocol"] == proto:
                m, s = float(r["reward_all"]), float(r["reward_all_sd"])
                ax.axhline(m, color=COLOURS[proto], linestyle="--", label=LABELS[proto])
                ax.axhspan(m - s, m + s, color=COLOURS[proto], alpha=0.12)
                if proto == "local":  # its detail column is the oracle's reward
                    ax.axhline(float(r["detail"]), color="k", linestyle=":", label="oracle")
    if logx:
        ax.set_xscale("log")


def main():
    out = sys.argv[1]
    rows = read(os.path.join(out, "summary.csv"))
    envs = sorted({r["env"] for r in rows}, reverse=True)
    for name, xkey, xlabel, logx in [
        ("reward_vs_eps.png", "epsilon",
         "epsilon per user (log; see summary.csv for unit and adversary)", True),
        ("reward_vs_bytes.png", "bytes_total", "bytes per user, up + down (log)", True),
    ]:
        fig, axes = plt.subplots(1, len(envs), figsize=(6.5 * len(envs), 4.6), squeeze=False)
        for ax, env in zip(axes[0], envs):
            sub = [r for r in rows if r["env"] == env]
            if xkey == "bytes_total":
                sub = [r for r in sub if r["protocol"] == "local" or float(r["bytes_total"]) > 0]
            panel(ax, sub, xkey, logx)
            seeds = sub[0]["seeds"] if sub else "?"
            ax.set_title(f"{env}: mean reward per step, +-1 sd over {seeds} seeds")
            ax.set_xlabel(xlabel)
            ax.set_ylabel("reward per step (all users)")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(out, name), dpi=110)
        plt.close(fig)
        print(f"wrote {os.path.join(out, name)}")


if __name__ == "__main__":
    main()
