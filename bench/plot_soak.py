#!/usr/bin/python3
"""Plots the soak benchmark's CSV (bench/soak.cpp): arguments soak.csv out.png.

Six panels against reports accepted: the services' RSS, each store's .db,
-wal and -shm sizes (one panel per service, so that one growing file does
not flatten the other), the backlog, bytes written per report so far, and
the rate over time.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# figstyle lives with the other plot scripts in tools/.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import figstyle  # noqa: E402

MB = 1e6


def main(src, out):
    with open(src, newline="") as f:
        rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]
    if len(rows) < 2:
        print(f"{src}: fewer than two samples, nothing to plot")
        return 1
    x = [r["reports_accepted"] / MB for r in rows]
    fig, axes = plt.subplots(2, 3, figsize=(15, 7.5), dpi=100)

    ax = axes[0][0]
    for key, label, style in (("shuffler_rss", "shuffler", "o-"), ("analyzer_rss", "analyzer", "s-")):
        ax.plot(x, [r[key] / MB for r in rows], style, markersize=3, label=label)
    ax.set_title("resident memory (VmRSS)", fontsize="medium")
    ax.set_ylabel("MB")

    for ax, svc in ((axes[0][1], "shuffler"), (axes[0][2], "analyzer")):
        for part, style in (("db", "o-"), ("wal", "s-"), ("shm", "^-")):
            ax.plot(x, [r[f"{svc}_{part}"] / MB for r in rows], style, markersize=3,
                    label=f"{svc}.db" + ("" if part == "db" else f"-{part}"))
        ax.set_title(f"{svc} store files", fontsize="medium")
        ax.set_ylabel("MB")

    ax = axes[1][0]
    ax.plot(x, [r["spool_depth"] for r in rows], "o-", markersize=3, label="spool depth")
    ax.plot(x, [r["reports_accepted"] - r["reports_applied"] for r in rows], ":",
            label="accepted - applied")
    ax.set_title("backlog", fontsize="medium")
    ax.set_ylabel("reports")

    # The first samples divide startup writes by a handful of reports.
    steady = [(xi, r) for xi, r in zip(x, rows) if r["reports_accepted"] >= 10000]
    ax = axes[1][1]
    for key, label, style in (("shuffler_writes", "shuffler", "o-"),
                              ("analyzer_writes", "analyzer", "s-")):
        ax.plot([p[0] for p in steady],
                [p[1][key] / p[1]["reports_accepted"] / 1024 for p in steady], style,
                markersize=3, label=label)
    ax.set_title("disk writes per report so far", fontsize="medium")
    ax.set_ylabel("KiB per report")

    ax = axes[1][2]
    rates = [(b["reports_applied"] - a["reports_applied"]) / max(b["seconds"] - a["seconds"], 1e-9)
             for a, b in zip(rows, rows[1:])]
    ax.plot(x[1:], rates, "o-", markersize=3, label="applied per second")
    ax.set_title("rate", fontsize="medium")
    ax.set_ylabel("reports / s")

    for ax in axes.flat:
        ax.set_xlabel("reports accepted (millions)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    fig.suptitle(f"soak: {rows[-1]['seconds']:.0f} s, {rows[-1]['reports_accepted']:.0f} reports")
    fig.tight_layout()
    figstyle.save(fig, out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
