#!/usr/bin/python3
"""Plots p2b-local-demo's results.csv: average late-user reward against the
number of early users, for cold, warm non-private and warm private (P2B)."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from plot_sim import band  # noqa: E402  (same directory)


def main(path_in: str, path_out: str) -> None:
    with open(path_in, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{path_in}: no rows")
    users = [int(r["users"]) for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=120)
    ax.plot(users, [float(r["oracle"]) for r in rows], ":", color="grey",
            label="oracle (best arm in expectation)")
    for key, label, style in (
        ("cold", "cold (local only)", "k--"),
        ("warm_nonprivate", "warm, non-private (raw pooled data)", "o-"),
        ("warm_private", "warm, private (P2B reports)", "s-"),
    ):
        band(ax, users, rows, key, label, style)
    ax.set_xscale("log")
    ax.set_xlabel("early (sharing) users")
    ax.set_ylabel("average reward of late users")
    ax.set_title("P2B synthetic benchmark (paper Eq. 4)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    fig.savefig(path_out)
    print(f"plot: {path_out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_local_demo.py results.csv out.png")
    main(sys.argv[1], sys.argv[2])
