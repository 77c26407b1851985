#!/usr/bin/python3
"""Plots p2b-demo's results.csv: average reward of the late users per
setting, with 95% error bars, and the oracle as the ceiling."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path_in: str, path_out: str) -> None:
    with open(path_in, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{path_in}: no rows")
    names = [r["setting"] for r in rows]
    means = [float(r["reward"]) for r in rows]
    errs = [1.96 * float(r["stderr"]) for r in rows]
    colors = ["#555555", "#dd8452", "#4c72b0", "#bbbbbb"][: len(rows)]
    fig, ax = plt.subplots(figsize=(7.0, 4.0), dpi=120)
    bars = ax.bar(range(len(rows)), means, yerr=errs, capsize=6, color=colors)
    for bar, m in zip(bars, means):
        # Beside the error bar, not on it.
        ax.annotate(f"{m:.4f}", (bar.get_x() + bar.get_width() / 2, m),
                    xytext=(8, 2), textcoords="offset points", ha="left", fontsize=9)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([n.replace(" (", "\n(") for n in names], fontsize=8)
    low = min(m - e for m, e in zip(means, errs))
    ax.set_ylim(low * 0.97, max(m + e for m, e in zip(means, errs)) * 1.02)
    ax.set_ylabel("average reward of late users")
    ax.set_title("P2B through the real shuffler and analyzer (95% CI)")
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path_out)
    print(f"plot: {path_out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_demo.py results.csv out.png")
    main(sys.argv[1], sys.argv[2])
