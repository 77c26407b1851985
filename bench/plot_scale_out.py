#!/usr/bin/python3
"""Draws the scale-out benchmark's results (scale_out.json) as a PNG.

    plot_scale_out.py scale_out.png scale_out.json [scale_out_ingest.json]

Left: accepted envelopes per second against the number of ingest processes,
one line per backend and mode (the whole pipeline, or ingest alone), with
the goal of 20k envelopes/s per ingest process. Dashed: the rate both cores would carry at the measured CPU per
envelope, were nothing else running. Right: CPU microseconds per
accepted envelope, stacked by component, one bar per point (the load
generator shares the machine and is drawn hatched).
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# figstyle lives with the other plot scripts in tools/.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import figstyle  # noqa: E402

COMPONENTS = ["shuffler ingest", "shuffler batcher", "analyzer", "postgres", "load generator"]
P = figstyle.PALETTE
COLOURS = [P[0], P[3], P[2], P[1], "#cccccc"]  # colour-blind safe, grey for the load


def main(dst, sources):
    points = []
    for src in sources:
        with open(src) as f:
            points += json.load(f)["points"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8))

    by_backend = {}
    for p in points:
        key = f'{p["backend"]}, {p.get("mode", "pipeline")}'
        by_backend.setdefault(key, []).append(p)
    for i, (backend, ps) in enumerate(by_backend.items()):
        ps = sorted(ps, key=lambda p: p["ingest_processes"])
        xs = [p["ingest_processes"] for p in ps]
        ys = [p["envelopes_per_s"] / 1000 for p in ps]
        look = figstyle.series(i)
        left.plot(xs, ys, marker=look["marker"], color=look["color"], label=backend)
        # What both cores would carry at the measured CPU per envelope.
        ceiling = [2e6 / sum(p["cpu_us_per_envelope"].values()) / 1000 for p in ps]
        left.plot(xs, ceiling, linestyle="--", color=left.lines[-1].get_color(), alpha=0.5)
    most = max(p["ingest_processes"] for p in points)
    goal = list(range(1, most + 1))
    left.axhline(20, linestyle=":", color="grey", label="goal for one ingest process: 20k/s")
    left.plot([], [], linestyle="--", color="grey", alpha=0.5,
              label="2 whole cores / measured CPU per envelope")
    left.set_xlabel("ingest processes")
    left.set_ylabel("accepted envelopes/s (thousands)")
    left.set_xticks(goal)
    left.set_ylim(bottom=0)
    left.set_title("Durable ingest throughput, 2 shared cores")
    figstyle.legend_below(left, fontsize=8)
    left.grid(alpha=0.3)

    short = {"pipeline": "pipeline", "ingest only": "ingest"}
    name = {"sqlite": "sqlite", "postgresql": "pg"}
    labels = [f'{name.get(p["backend"], p["backend"][:6])} {p["ingest_processes"]}\n'
              f'{short.get(p.get("mode"), "")}' for p in points]
    bottom = [0.0] * len(points)
    for name, colour in zip(COMPONENTS, COLOURS):
        values = [p["cpu_us_per_envelope"].get(name, 0.0) for p in points]
        right.bar(labels, values, bottom=bottom, color=colour, label=name,
                  hatch="//" if name == "load generator" else None)
        bottom = [b + v for b, v in zip(bottom, values)]
    right.set_ylabel("CPU µs per accepted envelope")
    right.set_title("CPU per envelope by component")
    figstyle.legend_below(right, ncol=3, fontsize=8)
    right.tick_params(axis="x", labelsize=7)
    right.grid(axis="y", alpha=0.3)

    fig.tight_layout()
    figstyle.save(fig, dst, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: plot_scale_out.py OUT.png RESULTS.json [RESULTS.json ...]")
    main(sys.argv[1], sys.argv[2:])
