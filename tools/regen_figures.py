#!/usr/bin/python3
"""Regenerates every figure the docs show from data committed in the repo.

  /usr/bin/python3 tools/regen_figures.py DEST     draw them all into DEST
  /usr/bin/python3 tools/regen_figures.py --list   say what each is made from

Each figure is made by the same plot script the simulators run with --plot,
from a staging directory laid out as that simulator's output (its
results.csv, summary.csv, ... copied from docs/results or docs/img).
MISSING names the figures whose data is not committed, and why; they are
not checked. scripts/figures-check.sh compares DEST with docs/img.
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = "/usr/bin/python3"  # Debian's numpy and matplotlib, as CI has them

# docs/img name: (plot script, {staged name: committed file}, file the
# script writes). A script taking a directory gets the staging directory;
# those in FILE_TO_FILE take their one input's path and the output's.
FILE_TO_FILE = {"tools/plot_demo.py", "tools/plot_audit.py"}

RECIPES = {
    "demo.png": ("tools/plot_demo.py", {"results.csv": "docs/img/demo.csv"}, "results.png"),
    "privacy-audit.png": ("tools/plot_audit.py", {"audit.json": "docs/results/privacy-audit.json"},
                          "audit.png"),
    "sim-fig4-linear.png": ("tools/plot_sim.py", {"results.csv": "docs/results/fig4-linear.csv"},
                            "fig4.png"),
    "sim-fig4-softmax.png": ("tools/plot_sim.py",
                             {"results.csv": "docs/results/fig4-softmax.csv"}, "fig4.png"),
    "sim-fig5.png": ("tools/plot_sim.py", {"results.csv": "docs/results/fig5.csv"}, "fig5.png"),
    "sim-steep.png": ("tools/plot_sim.py", {"results.csv": "docs/results/steep.csv"},
                      "fig4.png"),
    "sim-fig6-yeast.png": ("tools/plot_sim.py", {"results.csv": "docs/results/yeast-fig6.csv"},
                           "fig6.png"),
    "vertical-regret.png": ("tools/plot_vertical.py",
                            {"curves.csv": "docs/results/vertical-synthetic-curves.csv"},
                            "regret.png"),
    "vertical-partial.png": ("tools/plot_vertical.py",
                             {"curves.csv": "docs/results/vertical-synthetic-curves.csv"},
                             "partial.png"),
    "vertical-yeast.png": ("tools/plot_vertical.py",
                           {"curves.csv": "docs/results/vertical-yeast-curves.csv"}, "regret.png"),
    "vertical-cost.png": ("tools/plot_vertical.py", {"cost.csv": "docs/results/vertical-cost.csv"},
                          "cost.png"),
    "fclub-communication.png": ("tools/plot_fclub.py",
                                {"summary.csv": "docs/results/fclub-default.csv"},
                                "communication.png"),
    "fclub-trends.png": ("tools/plot_fclub.py", {"summary.csv": "docs/results/fclub-trends.csv"},
                         "trends.png"),
    "fclub-privacy.png": ("tools/plot_fclub.py",
                          {"summary.csv": "docs/results/fclub-privacy.csv"}, "privacy.png"),
    "pfcb-frr-epsilon.png": ("tools/plot_pfcb.py",
                             {"summary.csv": "docs/results/pfcb-fig4.csv",
                              "runs.csv": "docs/results/pfcb-fig4-runs.csv"},
                             "frr_epsilon.png"),
    "pfcb-regret-agents.png": ("tools/plot_pfcb.py",
                               {"summary.csv": "docs/results/pfcb-fig5.csv",
                                "runs.csv": "docs/results/pfcb-fig5-runs.csv"},
                               "regret_agents.png"),
    "pfcb-sharing.png": ("tools/plot_pfcb.py", {"summary.csv": "docs/results/pfcb-variants.csv"},
                         "sharing.png"),
    "compare-reward-vs-eps.png": ("tools/plot_compare.py",
                                  {"summary.csv": "docs/results/compare-summary.csv"},
                                  "reward_vs_eps.png"),
    "compare-reward-vs-bytes.png": ("tools/plot_compare.py",
                                    {"summary.csv": "docs/results/compare-summary.csv"},
                                    "reward_vs_bytes.png"),
    "compare-reward-vs-spent-eps.png": ("tools/plot_compare.py",
                                        {"summary.csv": "docs/results/compare-spends-summary.csv",
                                         "runs.csv": "docs/results/compare-spends-runs.csv",
                                         "results.json": "docs/results/compare-spends.json"},
                                        "reward_vs_spent_eps.png"),
}

# Shown in the docs, not regenerable here: the data they were drawn from
# was never committed. Their scripts are fixed; the image changes when the
# run is repeated and its data committed (then move it to RECIPES).
MISSING = {
    "fclub-regret-reference.png": "FCLUB curves.csv (per round, per seed) not committed; the run "
                                  "needs the authors' m_theta.npy, not in the repo",
    "fclub-regret-default.png": "FCLUB curves.csv (per round, per seed) not committed; the run "
                                "is about 10 CPU-minutes in Release",
    "fclub-regret-movielens.png": "FCLUB curves.csv not committed; the run needs the authors' "
                                  "ml_1000user_d10.npy (redraw with --data 'MovieLens thetas')",
    "pfcb-regret.png": "P-FCB Fig. 3 curves.csv (mean, sd per round) not committed; the run "
                       "is about 30 CPU-minutes in Release",
    "pfcb-regret-median.png": "P-FCB Fig. 3 curves_runs.csv (per run, per round) not committed",
    "soak.png": "bench soak.csv (a 600 s service run) not committed",
    "scale_out.png": "bench scale_out.json (a PostgreSQL run) not committed",
}


def draw(name, dest):
    script, staged, produced = RECIPES[name]
    with tempfile.TemporaryDirectory() as stage:
        for staged_name, committed in staged.items():
            shutil.copyfile(os.path.join(ROOT, committed), os.path.join(stage, staged_name))
        if script in FILE_TO_FILE:
            (only_input,) = staged
            args = [os.path.join(stage, only_input), os.path.join(stage, produced)]
        else:
            args = [stage]
        subprocess.run([PYTHON, os.path.join(ROOT, script), *args], check=True,
                       stdout=subprocess.DEVNULL)
        shutil.copyfile(os.path.join(stage, produced), os.path.join(dest, name))


def main(argv):
    if argv[1:] == ["--list"]:
        for name, (script, staged, _) in sorted(RECIPES.items()):
            print(f"{name}: {script} from {', '.join(staged.values())}")
        for name, why in sorted(MISSING.items()):
            print(f"{name}: not regenerable: {why}")
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    os.makedirs(argv[1], exist_ok=True)
    for name in sorted(RECIPES):
        draw(name, argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
