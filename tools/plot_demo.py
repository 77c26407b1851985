#!/usr/bin/python3
"""Plots p2b-demo's results.csv: average reward of the late users per
setting, with 95% error bars, and the oracle as the ceiling. The y axis
starts at 0 so bar heights compare as ratios (each bar is also labelled
with its fraction of the oracle)."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import figstyle  # noqa: E402


def main(path_in: str, path_out: str) -> None:
    with open(path_in, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{path_in}: no rows")
    names = [r["setting"] for r in rows]
    means = [float(r["reward"]) for r in rows]
    errs = [1.96 * float(r["stderr"]) for r in rows]
    colors = ["#999999"] + [figstyle.PALETTE[i] for i in (1, 0, 4)]
    colors = colors[: len(rows)]
    hatches = ["", "//", "..", "xx"][: len(rows)]
    oracle = means[-1]
    fig, ax = plt.subplots(figsize=(7.0, 4.0), dpi=120)
    bars = ax.bar(range(len(rows)), means, yerr=errs, capsize=6, color=colors,
                  hatch=hatches, edgecolor="white")
    for bar, m in zip(bars, means):
        # Beside the error bar, not on it; the ratio is what the bars show.
        ax.annotate(f"{m:.4f}\n{m / oracle:.2f}x oracle",
                    (bar.get_x() + bar.get_width() / 2, m),
                    xytext=(8, 2), textcoords="offset points", ha="left", fontsize=8)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([n.replace(" (", "\n(") for n in names], fontsize=8)
    # From 0: a truncated axis made cold look 1/20 of the oracle at 0.57.
    ax.set_ylim(0, max(m + e for m, e in zip(means, errs)) * 1.12)
    ax.set_ylabel("average reward of late users")
    ax.set_title("P2B through the real shuffler and analyzer (95% CI)")
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    figstyle.save(fig, path_out)
    print(f"plot: {path_out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_demo.py results.csv out.png")
    main(sys.argv[1], sys.argv[2])
