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
                       log x); local-only sends nothing and is a flat line;
and, after a --spends run (equal privacy),
  reward_vs_spent_eps.png  reward, as a fraction of the oracle's in the same
                       world (seeds draw different worlds, whose reward scales
                       differ far more than the protocols do), against the
                       epsilon per user over the horizon that every private
                       protocol's own ledger reports (log x, every target
                       labelled), one line per protocol, +-1 sd over seeds;
                       each protocol's non-private reference, O3M (no DP) and
                       pooled are points at the right edge, labelled infinity.
The reward_vs_eps epsilons are comparable only with their unit and adversary
(summary.csv); the spent epsilons share one unit (a user, whole horizon).
Run with Debian's python3 (matplotlib): /usr/bin/python3 tools/plot_compare.py OUT
"""
import csv
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

import figstyle  # noqa: E402

LABELS = {
    "p2b": "P2B (vary p)",
    "fclub": "FCLUB-style (vary eps)",
    "pfcb": "P-FCB-style (vary eps)",
    "local": "local-only (eps 0, 0 B)",
    "pooled": "pooled, non-private",
}
P = figstyle.PALETTE
COLOURS = {"p2b": P[0], "fclub": P[1], "pfcb": P[2], "local": "0.45", "pooled": P[5],
           "o3m": P[3]}
MARKERS = {"p2b": "o", "fclub": "s", "pfcb": "^"}
LINESTYLES = {"p2b": "-", "fclub": "--", "pfcb": "-."}


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
                        yerr=[float(r["reward_all_sd"]) for r in priv], marker=MARKERS[proto],
                        capsize=3, color=COLOURS[proto], linestyle=LINESTYLES[proto],
                        label=LABELS[proto])
        for r in pts:
            if not math.isfinite(value(r["epsilon"])):
                x = right if xkey == "epsilon" else value(r[xkey])
                ax.errorbar([x], [float(r["reward_all"])], yerr=[float(r["reward_all_sd"])],
                            marker=MARKERS[proto], markersize=9, markerfacecolor="white",
                            capsize=3, color=COLOURS[proto], linestyle="none",
                            label=f"{LABELS[proto].split(' (')[0]}, eps = inf (no noise)")
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
        # Bytes span five decades: one label per decade.
        figstyle.plain_log_ticks(ax.xaxis, steps=(1.0, 2.0, 5.0) if xkey == "epsilon" else (1.0,))
    if xkey == "epsilon" and finite_x:
        # Infinity is no number on the axis: its own tick, after a break.
        ticks = [t for t in ax.get_xticks() if min(finite_x) / 2 <= t <= max(finite_x) * 1.2]
        ax.set_xticks(ticks + [right])
        ax.set_xticklabels([figstyle.short_number(t) for t in ticks] + ["\u221e"])
        ax.set_xlim(min(finite_x) / 1.6, right * 1.5)
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.text(max(finite_x) * 1.7, 0, "//", transform=ax.get_xaxis_transform(),
                ha="center", va="center", fontsize=11, backgroundcolor="white")


# Equal privacy: colour, marker and line style all differ, so the lines
# read apart in grey print too.
SPEND_STYLE = {
    "p2b": ("P2B (p, l)", COLOURS["p2b"], "o", "-"),
    "fclub": ("FCLUB (tree privatizer)", COLOURS["fclub"], "s", "--"),
    "pfcb": ("P-FCB-style (Gaussian postings)", COLOURS["pfcb"], "^", "-."),
}


def oracle_fractions(runs):
    """Rows of runs.csv grouped as summary.csv groups them, each with the
    mean and sd over seeds of reward_all / the oracle's reward (local's
    check column) in the same environment and seed."""
    oracle = {(r["env"], r["seed"]): float(r["check"]) for r in runs if r["protocol"] == "local"}
    groups = {}
    for r in runs:
        target = value(r["target"])
        key = (r["env"], r["protocol"], target, 0.0 if target > 0 else value(r["knob"]))
        groups.setdefault(key, []).append(r)
    out = []
    for (env, proto, target, _), rs in groups.items():
        ys = [float(r["reward_all"]) / oracle[(env, r["seed"])] for r in rs]
        mean = sum(ys) / len(ys)
        sd = math.sqrt(sum((y - mean) ** 2 for y in ys) / (len(ys) - 1)) if len(ys) > 1 else 0.0
        out.append({"env": env, "protocol": proto, "target": target, "seeds": len(ys),
                    "user_epsilon": max(value(r["user_epsilon"]) for r in rs), "y": mean,
                    "sd": sd})
    return out


def spend_panel(ax, rows):
    targets = sorted({r["target"] for r in rows if r["target"] > 0})
    inf_x = targets[-1] * 2.8
    ax.axvline(targets[-1] * 1.65, color="0.6", linewidth=0.8)
    for proto, (label, colour, marker, style) in SPEND_STYLE.items():
        pts = sorted((r for r in rows if r["protocol"] == proto and r["target"] > 0),
                     key=lambda r: r["user_epsilon"])
        if pts:
            ax.errorbar([r["user_epsilon"] for r in pts], [r["y"] for r in pts],
                        yerr=[r["sd"] for r in pts], color=colour, marker=marker,
                        linestyle=style, capsize=3, label=label)
    # The right edge: every reference without DP, spread a little so that
    # their error bars stay apart.
    edge = [(proto, SPEND_STYLE[proto][0].split(" (")[0] + ", non-private", SPEND_STYLE[proto][1],
             SPEND_STYLE[proto][2]) for proto in SPEND_STYLE]
    edge += [("o3m", "O3M: masks, no DP", COLOURS["o3m"], "D"),
             ("pooled", "pooled LinUCB, no DP", COLOURS["pooled"], "*")]
    for i, (proto, label, colour, marker) in enumerate(edge):
        for r in rows:
            if r["protocol"] == proto and math.isinf(r["user_epsilon"]):
                x = inf_x * (0.84 + 0.065 * i)
                ax.errorbar([x], [r["y"]], yerr=[r["sd"]],
                            color=colour, marker=marker, markerfacecolor="white", markersize=8,
                            linestyle="none", capsize=3, label=label + " (at inf)")
    for r in rows:
        if r["protocol"] == "local":
            ax.axhline(r["y"], color=COLOURS["local"], linestyle=":",
                       label="local-only (eps 0)")
        if r["protocol"] == "fclub-alone":
            ax.axhline(r["y"], color=COLOURS["fclub"], linestyle=(0, (1, 3)), linewidth=1,
                       label="FCLUB, every server alone")
    ax.set_xscale("log")
    ticks = targets + [inf_x]
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}" for t in targets] + ["\u221e"])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_xlim(targets[0] / 1.5, inf_x * 1.35)


def plot_spends(out, envs):
    rows = oracle_fractions(read(os.path.join(out, "runs.csv")))
    envs = [e for e in envs if any(r["env"] == e and r["target"] > 0 for r in rows)]
    if not envs:
        return
    with open(os.path.join(out, "results.json")) as f:
        delta = json.load(f)["delta"]
    fig, axes = plt.subplots(1, len(envs), figsize=(8.5 * len(envs), 4.8), squeeze=False)
    for ax, env in zip(axes[0], envs):
        sub = [r for r in rows if r["env"] == env]
        spend_panel(ax, sub)
        ax.set_title(f"{env}: equal privacy, +-1 sd over {sub[0]['seeds']} seeds")
        ax.set_xlabel(f"epsilon spent per user over the horizon at delta = {delta:g} "
                      "(own ledgers; log)")
        ax.set_ylabel("reward per step / the oracle's (all users)")
        ax.grid(alpha=0.3)
    axes[0][-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    fig.tight_layout()
    name = os.path.join(out, "reward_vs_spent_eps.png")
    figstyle.save(fig, name, dpi=110)
    plt.close(fig)
    print(f"wrote {name}")


def main():
    out = sys.argv[1]
    rows = read(os.path.join(out, "summary.csv"))
    envs = sorted({r["env"] for r in rows}, reverse=True)
    if "target" in rows[0]:
        plot_spends(out, envs)
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
        figstyle.legend_outside(axes[0][-1], fontsize=7)
        fig.tight_layout()
        figstyle.save(fig, os.path.join(out, name), dpi=110)
        plt.close(fig)
        print(f"wrote {os.path.join(out, name)}")


if __name__ == "__main__":
    main()
