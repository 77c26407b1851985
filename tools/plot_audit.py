#!/usr/bin/env python3
"""Plot of p2b-audit --json (docs/privacy-audit.md).

Reads the JSON report (a file, or - for stdin) and writes PNG: for every
row, the claimed epsilon (a horizontal tick; an arrow where none is claimed)
and the empirical lower bound with its 95 % interval up to the point
estimate. Shipped mechanisms are blue circles, broken variants red crosses:
a shipped circle must sit at or below its tick, a broken cross above it.
Run with Debian's python3 (matplotlib):
    /usr/bin/python3 tools/plot_audit.py audit.json docs/img/privacy-audit.png
"""
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import figstyle  # noqa: E402


def finite(value, cap):
    """A JSON null (infinite) or huge figure drawn at the plot's ceiling."""
    return cap if value is None or not math.isfinite(value) or value > cap else value


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: plot_audit.py REPORT.json|- OUT.png\n")
        return 2
    source = sys.stdin if argv[1] == "-" else open(argv[1], encoding="utf-8")
    with source:
        report = json.load(source)
    rows = report["rows"]
    bounds = [r["epsilon_lower_bound"] for r in rows]
    claims = [r["claimed_epsilon"] for r in rows if r["claimed_epsilon"] is not None]
    ceiling = 1.15 * max(bounds + claims + [1.0])

    fig, ax = plt.subplots(figsize=(max(6.0, 0.75 * len(rows) + 2), 4.5))
    for i, r in enumerate(rows):
        broken = r["broken"]
        colour = figstyle.PALETTE[5] if broken else figstyle.PALETTE[0]
        claim = r["claimed_epsilon"]
        if claim is None:
            ax.annotate("", xy=(i, ceiling), xytext=(i, ceiling * 0.85),
                        arrowprops={"arrowstyle": "->", "color": "grey"})
        else:
            ax.hlines(claim, i - 0.35, i + 0.35, colors="black", linewidth=2)
        lower = r["epsilon_lower_bound"]
        point = finite(r["epsilon_point"], ceiling)
        ax.vlines(i, lower, max(lower, point), colors=colour, alpha=0.4, linewidth=4)
        raw = r["epsilon_point"]
        if raw is None or not math.isfinite(raw) or raw > ceiling:
            # Capped at the ceiling: print the real value, never a fake one.
            ax.annotate("\u221e" if raw is None or not math.isfinite(raw) else f"{raw:.3g}",
                        (i, ceiling), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7, color=colour)
        ax.plot(i, lower, "x" if broken else "o", color=colour, markersize=9,
                label="broken variant" if broken else "as shipped")
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    unique["claimed epsilon"] = plt.Line2D([], [], color="black", linewidth=2)
    figstyle.legend_outside(ax, handles=list(unique.values()), labels=list(unique.keys()))
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([f"{r['mechanism']}\n{r['variant']}" for r in rows], rotation=60,
                       ha="right", fontsize=7)
    ax.set_ylim(0, ceiling * 1.05)
    ax.set_ylabel("epsilon: lower bound (marker) to point estimate (bar)", fontsize=8)
    ax.set_title(f"p2b-audit: seed {report['seed']}, {report['runs_per_world']} runs per world")
    fig.tight_layout()
    figstyle.save(fig, argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
