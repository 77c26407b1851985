#!/usr/bin/env python3
"""Plots of p2b-sim --protocol pfcb (docs/simulator.md#p-fcb).

Reads OUT/curves.csv, OUT/summary.csv and OUT/ratios.csv and writes
  regret.png        average regret per agent against rounds, one panel per
                    distribution, mean over instances x runs with a band of
                    +-1 standard error of that mean (seed 004's Fig. 3; a
                    +-1 sd band of the normal instances is one block: one
                    instance's agent breaks the constraint every round);
  frr_epsilon.png   FRR (regret / non-federated regret) against epsilon, when
                    the run has 3 or more epsilons (Fig. 4);
  regret_agents.png regret per agent against n, when the run has 3 or more
                    n (Fig. 5);
  sharing.png       acceptance rate, constraint fraction and bytes per agent;
  regret_median.png the median and interquartile band over instances x runs
                    (from curves_runs.csv): robust to one instance whose agent
                    breaks the quality constraint in every round.
Run with Debian's python3 (numpy, matplotlib): /usr/bin/python3 tools/plot_pfcb.py OUT
"""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import figstyle  # noqa: E402

ORDER = ["nf", "pfcb", "pfcb-aligned", "pfcb-accept-all", "fcb"]
COLOURS = {name: figstyle.PALETTE[i] for i, name in enumerate(ORDER)}
MARKERS = {name: figstyle.MARKERS[i] for i, name in enumerate(ORDER)}
DIST_STYLE = {"uniform": {"color": figstyle.PALETTE[0], "marker": "o"},
              "normal": {"color": figstyle.PALETTE[5], "marker": "s"}}
LABELS = {"nf": "non-federated", "fcb": "FCB (non-private)", "pfcb": "P-FCB",
          "pfcb-aligned": "P-FCB aligned", "pfcb-accept-all": "P-FCB accept-all"}


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def label(alg, eps):
    if alg in ("nf", "fcb"):
        return LABELS[alg]
    return f"{LABELS.get(alg, alg)} eps={eps}"


def style(alg, eps, all_eps):
    # Smaller epsilons of one algorithm dash more.
    dashes = ["-", "--", ":", "-."]
    if alg in ("nf", "fcb") or eps not in all_eps:
        return "-"
    return dashes[all_eps.index(eps) % len(dashes)]


def curve(ax, t, y, alg, eps, all_eps, label):
    """One algorithm's line: its colour and marker, dashed by epsilon."""
    ax.plot(t, y, style(alg, eps, all_eps), color=COLOURS.get(alg), marker=MARKERS.get(alg),
            markevery=max(1, len(t) // 8), markersize=5, label=label)


def plot_regret(rows, out):
    dists = sorted({r["dist"] for r in rows})
    agents = sorted({int(r["agents"]) for r in rows})
    n = 10 if 10 in agents else agents[0]
    all_eps = sorted({r["epsilon"] for r in rows if r["algorithm"] not in ("nf", "fcb")},
                     key=lambda e: -float(e))
    fig, axes = plt.subplots(1, len(dists), figsize=(6.5 * len(dists), 4.5), squeeze=False)
    for ax, dist in zip(axes[0], dists):
        series = defaultdict(list)
        for r in rows:
            if r["dist"] == dist and int(r["agents"]) == n:
                series[(r["algorithm"], r["epsilon"])].append(
                    (int(r["round"]), float(r["regret_mean"]), float(r["regret_sd"]),
                     int(r["count"])))
        keys = sorted(series, key=lambda k: (ORDER.index(k[0]) if k[0] in ORDER else 99,
                                             -float(k[1]) if k[1] != "inf" else 0))
        for alg, eps in keys:
            pts = sorted(series[(alg, eps)])
            t = np.array([p[0] for p in pts])
            m = np.array([p[1] for p in pts])
            se = np.array([p[2] / np.sqrt(p[3]) for p in pts])
            note = f", {m[-1]:.0f} at T, off scale" if alg == "pfcb-accept-all" else ""
            curve(ax, t, m, alg, eps, all_eps, f"{label(alg, eps)} ({pts[0][3]} runs{note})")
            ax.fill_between(t, m - se, m + se, alpha=0.15, color=COLOURS.get(alg))
        # Accept-all's regret runs off any useful scale: cap the axis at the
        # others' and say so in its label.
        tops = [max(p[1] + p[2] / np.sqrt(p[3]) for p in v) for k, v in series.items()
                if k[0] != "pfcb-accept-all"]
        if tops:
            ax.set_ylim(0, 1.15 * max(tops))
        ax.set_title(f"{dist}: q, c ~ " + ("U[0,1]" if dist == "uniform" else
                                           "N(0.4, 0.2) clipped") + f", n={n}")
        ax.set_xlabel("round")
        ax.set_ylabel("average regret per agent (mean +-1 s.e.)")
        ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    figstyle.save(fig, os.path.join(out, "regret.png"), dpi=110)
    plt.close(fig)


def medians(out):
    """Median regret per (dist, n, algorithm, epsilon) from runs.csv."""
    path = os.path.join(out, "runs.csv")
    if not os.path.exists(path):
        return {}
    groups = defaultdict(list)
    for r in read(path):
        groups[(r["dist"], int(r["agents"]), r["algorithm"], r["epsilon"])].append(
            float(r["regret"]))
    return {k: float(np.median(v)) for k, v in groups.items()}


def ratios_from(summary):
    """ratios.csv's FRR column from summary.csv's means (the same ratio the
    simulator writes, at the summary's printed precision): docs/results
    keeps summaries only."""
    nf = {(r["dist"], r["agents"]): float(r["regret_mean"]) for r in summary
          if r["algorithm"] == "nf"}
    return [dict(r, frr=float(r["regret_mean"]) / nf[(r["dist"], r["agents"])])
            for r in summary if r["algorithm"] != "nf" and (r["dist"], r["agents"]) in nf]


def plot_frr(ratios, out):
    groups = defaultdict(list)
    for r in ratios:
        if r["algorithm"] in ("fcb",) or str(r["frr"]) in ("", "nan"):
            continue
        groups[(r["dist"], int(r["agents"]), r["algorithm"])].append(
            (float(r["epsilon"]), float(r["frr"])))
    groups = {k: sorted(v) for k, v in groups.items() if len(v) >= 3}
    if not groups:
        return
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for (dist, n, alg), pts in sorted(groups.items()):
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "-", **DIST_STYLE.get(dist, {}),
                label=f"{LABELS.get(alg, alg)}, {dist}, n={n}, means")
    # Medians too: one agent that breaks the constraint every round moves
    # the normal means (docs/results.md section 11), not the medians.
    med = medians(out)
    for (dist, n, alg), pts in sorted(groups.items()):
        nf = med.get((dist, n, "nf", "0"))
        ys = [(e, med.get((dist, n, alg, f"{e:g}"))) for e, _ in pts]
        if nf and all(y is not None for _, y in ys):
            # Same colour and marker as the dist's means, hollow and dotted.
            ax.plot([e for e, _ in ys], [y / nf for _, y in ys], ":", **DIST_STYLE.get(dist, {}),
                    markerfacecolor="white",
                    label=f"{LABELS.get(alg, alg)}, {dist}, n={n}, medians")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_xlabel("epsilon")
    ax.set_ylabel("FRR = regret / non-federated regret")
    figstyle.legend_outside(ax, fontsize=8)
    fig.tight_layout()
    figstyle.save(fig, os.path.join(out, "frr_epsilon.png"), dpi=110)
    plt.close(fig)


def plot_agents(summary, out):
    groups = defaultdict(list)
    for r in summary:
        groups[(r["dist"], r["algorithm"], r["epsilon"])].append(
            (int(r["agents"]), float(r["regret_mean"]), float(r["regret_sd"])))
    groups = {k: sorted(v) for k, v in groups.items() if len(v) >= 3}
    if not groups:
        return
    med = medians(out)
    dists = sorted({k[0] for k in groups})
    fig, axes = plt.subplots(1, len(dists), figsize=(6.5 * len(dists), 4.5), squeeze=False)
    for ax, dist in zip(axes[0], dists):
        for (d, alg, eps), pts in sorted(groups.items()):
            if d != dist:
                continue
            x = [p[0] for p in pts]
            # Log scale: one constraint-breaking agent can put the mean 30x
            # above the median (docs/results.md section 11).
            ax.plot(x, [p[1] for p in pts], "-", color=COLOURS.get(alg), marker=MARKERS.get(alg),
                    label=f"{label(alg, eps)}, mean")
            ys = [med.get((dist, n, alg, eps)) for n in x]
            if all(y is not None for y in ys):
                ax.plot(x, ys, ":", color=COLOURS.get(alg), marker=MARKERS.get(alg),
                        markerfacecolor="white", label=f"{label(alg, eps)}, median")
        lo, hi = ax.get_ylim()
        if hi > 3 * lo:  # a narrow range reads better linear
            ax.set_yscale("log")
            figstyle.plain_log_ticks(ax.yaxis)
        ax.set_title(dist)
        ax.set_xlabel("agents n")
        ax.set_ylabel("regret per agent at T")
        ax.legend(fontsize=8)
    fig.tight_layout()
    figstyle.save(fig, os.path.join(out, "regret_agents.png"), dpi=110)
    plt.close(fig)


def plot_sharing(summary, out):
    rows = [r for r in summary if r["algorithm"] not in ("nf",)]
    if not rows:
        return
    names = [f"{r['dist']}, n={r['agents']}: {label(r['algorithm'], r['epsilon'])}"
             for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(15, max(3.5, 0.3 * len(rows) + 1)))
    y = np.arange(len(rows))
    for ax, key, title in zip(axes, ["acceptance", "constraint_met", "bytes_sent"],
                              ["producer reports accepted / received",
                               "agent-rounds meeting the quality constraint",
                               "bytes posted per agent (one posting per release)"]):
        ax.barh(y, [float(r[key]) for r in rows],
                color=[COLOURS.get(r["algorithm"], "C9") for r in rows])
        ax.set_yticks(y)
        ax.set_yticklabels(names if ax is axes[0] else [], fontsize=7)
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    figstyle.save(fig, os.path.join(out, "sharing.png"), dpi=110)
    plt.close(fig)


def plot_median(rows, out):
    dists = sorted({r["dist"] for r in rows})
    agents = sorted({int(r["agents"]) for r in rows})
    n = 10 if 10 in agents else agents[0]
    all_eps = sorted({r["epsilon"] for r in rows if r["algorithm"] not in ("nf", "fcb")},
                     key=lambda e: -float(e))
    fig, axes = plt.subplots(1, len(dists), figsize=(6.5 * len(dists), 4.5), squeeze=False)
    for ax, dist in zip(axes[0], dists):
        series = defaultdict(lambda: defaultdict(list))
        for r in rows:
            if r["dist"] == dist and int(r["agents"]) == n:
                series[(r["algorithm"], r["epsilon"])][int(r["round"])].append(float(r["regret"]))
        keys = sorted(series, key=lambda k: (ORDER.index(k[0]) if k[0] in ORDER else 99,
                                             -float(k[1]) if k[1] != "inf" else 0))
        tops = []
        for alg, eps in keys:
            t = np.array(sorted(series[(alg, eps)]))
            v = [np.array(series[(alg, eps)][x]) for x in t]
            med = np.array([np.median(a) for a in v])
            lo = np.array([np.percentile(a, 25) for a in v])
            hi = np.array([np.percentile(a, 75) for a in v])
            if alg != "pfcb-accept-all":
                tops.append(hi.max())
            curve(ax, t, med, alg, eps, all_eps, f"{label(alg, eps)} ({len(v[0])} runs)")
            ax.fill_between(t, lo, hi, alpha=0.15, color=COLOURS.get(alg))
        if tops:
            ax.set_ylim(0, 1.15 * max(tops))
        ax.set_title(f"{dist}, n={n}: median and interquartile range")
        ax.set_xlabel("round")
        ax.set_ylabel("regret per agent")
        ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    figstyle.save(fig, os.path.join(out, "regret_median.png"), dpi=110)
    plt.close(fig)


def main():
    if len(sys.argv) != 2:
        print("usage: plot_pfcb.py OUT_DIR", file=sys.stderr)
        return 2
    out = sys.argv[1]
    # Each figure needs its own file; docs/results keeps summaries, not
    # always curves (tools/regen_figures.py).
    if os.path.exists(os.path.join(out, "curves.csv")):
        plot_regret(read(os.path.join(out, "curves.csv")), out)
    summary = read(os.path.join(out, "summary.csv"))
    ratios = os.path.join(out, "ratios.csv")
    plot_frr(read(ratios) if os.path.exists(ratios) else ratios_from(summary), out)
    plot_agents(summary, out)
    plot_sharing(summary, out)
    runs = os.path.join(out, "curves_runs.csv")
    if os.path.exists(runs):
        plot_median(read(runs), out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
