"""p2b.simulate_pfcb: P-FCB, federated combinatorial bandits, p2b-sim --protocol pfcb.

simulate_pfcb() and ``p2b-sim --protocol pfcb`` run the same C++ function
(tools/pfcb_sim/pfcb_run.hpp) on the same options type, bound here as
``p2b.PfcbOptions``: each keyword is a long flag of ``p2b-sim --protocol pfcb
--help`` with '-' written '_' (``--window-start`` -> ``window_start``),
words as the CLI spells them (``dist="normal"``, ``schedule="aligned"``),
lists as Python lists (or one value, or the CLI's "a,b"), and the defaults
p2b-sim's (30 producers, 10 agents, 100000 rounds, 5 instances x 20 seeds),
but ``out=''``: nothing is written unless ``out`` names a directory.
``seeds`` is the runs (realisations) per instance, p2b 0.1's ``runs``.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, List, Optional, Tuple

from . import _run
from ._p2b import PfcbOptions, _run_pfcb

SIMULATOR = "pfcb"


def _old_keywords(flags: Dict[str, Any]) -> Tuple[Dict[str, Any], bool]:
    """(`flags` in the CLI's spelling, all_tables) from p2b 0.1's runs=,
    all_tables= and as_pandas=, with a FutureWarning for each."""
    out = dict(flags)
    if "runs" in out:
        warnings.warn("simulate_pfcb(runs=) is deprecated; use seeds=", FutureWarning,
                      stacklevel=3)
        out["seeds"] = out.pop("runs")
    all_tables = bool(out.pop("all_tables", False))
    if all_tables:
        warnings.warn("simulate_pfcb(all_tables=) is deprecated; use tables=", FutureWarning,
                      stacklevel=3)
    if out.pop("as_pandas", None) is not None:
        warnings.warn("simulate_pfcb(as_pandas=) is deprecated: results are DataFrames",
                      FutureWarning, stacklevel=3)
    return out, all_tables


def simulate_pfcb(
    options: Optional[PfcbOptions] = None,
    *,
    progress: Optional[bool] = None,
    tables: bool = False,
    **flags: Any,
) -> Any:
    """Each algorithm on the same instances and realisations.

    Returns the summary as a DataFrame: one row per (dist, agents,
    algorithm, epsilon), with regret_mean and regret_sd over instances x
    runs, constraint_met, acceptance, postings and bytes, releases, the
    privacy ledgers' epsilons and the run times (p2b-sim's summary.csv; nf
    has epsilon 0, fcb infinity). tables=True returns {"runs", "curves",
    "curves_runs", "summary", "ratios": DataFrame}.

    options: a PfcbOptions to start from (not modified); keywords then set
    its fields by their CLI names. progress: a tqdm bar (None: when tqdm is
    installed; False: never). The lines p2b-sim prints go to the logger
    "p2b.pfcb" at INFO. A misspelt keyword raises TypeError naming the
    nearest flag; a value out of range raises ValueError naming the flag and
    its range. The same seed gives the same tables but for the seconds.
    """
    new_flags, all_tables = _old_keywords(flags)
    _, frames = _run.run_simulator(
        SIMULATOR, PfcbOptions, _run_pfcb, options, progress, new_flags
    )
    return frames if tables or all_tables else frames["summary"]


def flags() -> List[str]:
    """p2b-sim --protocol pfcb's long flags, as its command line parses them."""
    from ._p2b import _pfcb_sim_flags

    return list(_pfcb_sim_flags())


_PANELS: Tuple[Tuple[str, str], ...] = (
    ("acceptance", "producer reports accepted / received"),
    ("constraint_met", "agent-rounds meeting the quality constraint"),
    ("bytes_sent", "bytes posted per agent"),
)


def plot(df: Any, ax: Any = None) -> Any:
    """The summary as tools/plot_pfcb.py's sharing.png draws it: acceptance,
    constraint met and bytes per agent for every group but the
    non-federated one; returns the matplotlib Figure."""
    import matplotlib.pyplot as plt

    if "acceptance" not in df.columns:
        raise ValueError("plot() draws simulate_pfcb's summary table")
    rows = df[df["algorithm"] != "nf"]
    names = [f"{r['dist']}, n={r['agents']}: {r['algorithm']} eps={float(r['epsilon']):g}"
             for _, r in rows.iterrows()]
    if ax is not None:
        fig, axes = ax.figure, [ax]
        panels = _PANELS[:1]
    else:
        fig, grid = plt.subplots(1, 3, figsize=(15, max(3.5, 0.3 * len(rows) + 1)), squeeze=False)
        axes, panels = list(grid.flat), _PANELS
    for i, (a, (key, title)) in enumerate(zip(axes, panels)):
        a.barh(range(len(rows)), rows[key], color=f"C{i}")
        a.set_yticks(range(len(rows)))
        a.set_yticklabels(names if i == 0 else [], fontsize=7)
        a.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


_run.register_plot(SIMULATOR, plot)

__all__: List[str] = ["PfcbOptions", "simulate_pfcb", "flags", "plot"]
