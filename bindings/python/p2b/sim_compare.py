"""p2b.simulate_compare: every seed protocol on one world, p2b-sim --protocol compare.

simulate_compare() and ``p2b-sim --protocol compare`` run the same C++
function (tools/compare_sim/run.hpp) on the same options type, bound here as
``p2b.CompareOptions``: each keyword is a long flag of ``p2b-sim --protocol
compare --help`` with '-' written '_' (``--early-fraction`` ->
``early_fraction``; ``--no-nonprivate-variants`` ->
``no_nonprivate_variants=True``), lists are Python lists (or one value, or
the CLI's "a,b"), and the defaults are p2b-sim's (both environments, 2000
users, d = |A| = 8, 5 seeds), but ``out=''``: nothing is written unless
``out`` names a directory. The multi-label environment needs ``data=``
(e.g. yeast.arff); pass ``envs="synthetic"`` without one.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Dict, List, Optional, Tuple

from . import _run
from ._p2b import CompareOptions, _run_compare

SIMULATOR = "compare"


def _old_keywords(flags: Dict[str, Any]) -> Tuple[Dict[str, Any], bool]:
    """(`flags` without p2b 0.1's all_tables= and as_pandas=, all_tables), warning once each."""
    out = dict(flags)
    all_tables = bool(out.pop("all_tables", False))
    if all_tables:
        warnings.warn("simulate_compare(all_tables=) is deprecated; use tables=", FutureWarning,
                      stacklevel=3)
    if out.pop("as_pandas", None) is not None:
        warnings.warn("simulate_compare(as_pandas=) is deprecated: results are DataFrames",
                      FutureWarning, stacklevel=3)
    return out, all_tables


def simulate_compare(
    options: Optional[CompareOptions] = None,
    *,
    progress: Optional[bool] = None,
    tables: bool = False,
    **flags: Any,
) -> Any:
    """Local-only, P2B, FCLUB-style, P-FCB-style, O3M and pooled LinUCB side by side.

    Returns p2b-sim's summary.csv as a DataFrame: one row per (env,
    protocol, knob or --spends target) with reward_all and reward_late (mean
    and sd over seeds), epsilon and delta with their unit and adversary,
    user_epsilon (per user over the horizon), msgs_up/down and
    bytes_up/down per user. tables=True returns {"runs", "summary":
    DataFrame} (runs: one row per run).

    options: a CompareOptions to start from (not modified); keywords then
    set its fields by their CLI names. progress: a tqdm bar (None: when tqdm
    is installed; False: never). The lines p2b-sim prints go to the logger
    "p2b.compare" at INFO. A misspelt keyword raises TypeError naming the
    nearest flag; a value out of range raises ValueError naming the flag and
    its range. The same seed gives the same tables but for seconds.
    """
    new_flags, all_tables = _old_keywords(flags)
    _, frames = _run.run_simulator(
        SIMULATOR, CompareOptions, _run_compare, options, progress, new_flags
    )
    return frames if tables or all_tables else frames["summary"]


def flags() -> List[str]:
    """p2b-sim --protocol compare's long flags, as its command line parses them."""
    from ._p2b import _compare_sim_flags

    return list(_compare_sim_flags())


def _panel(ax: Any, rows: Any) -> None:
    """One environment of reward_vs_eps.png: the private axes as lines, the
    references as flat lines, non-private variants at the right edge."""
    finite = rows[rows["epsilon"].map(lambda e: 0 < e < math.inf)]
    right = max(finite["epsilon"].max() * 3 if len(finite) else 10.0, 1.0)
    for protocol, r in finite.groupby("protocol", sort=False):
        r = r.sort_values("epsilon")
        ax.errorbar(r["epsilon"], r["reward_all"], yerr=r["reward_all_sd"], marker="o",
                    capsize=3, label=protocol)
    for _, r in rows[~rows.index.isin(finite.index)].iterrows():
        if r["protocol"] in ("local", "pooled"):
            ax.axhline(r["reward_all"], ls=":", color="0.45" if r["protocol"] == "local" else "C5",
                       label=f'{r["protocol"]} (eps {r["epsilon"]:g})')
        else:
            ax.plot([right], [r["reward_all"]], marker="*", ls="none",
                    label=f'{r["protocol"]} at eps = inf')
    ax.set_xscale("log")
    ax.set_xlabel("epsilon each protocol states (log; see unit and adversary)")
    ax.set_ylabel("mean reward per step (all users)")
    ax.legend(fontsize="small")


def plot(df: Any, ax: Any = None) -> Any:
    """The summary as tools/plot_compare.py's reward_vs_eps.png draws it: mean
    reward against each protocol's stated epsilon, one panel per environment;
    returns the Figure."""
    import matplotlib.pyplot as plt

    if "reward_all_sd" not in df.columns:
        raise ValueError("plot() draws simulate_compare's summary table")
    envs = list(dict.fromkeys(df["env"]))
    if ax is not None:
        fig, axes = ax.figure, [ax]
    else:
        fig, grid = plt.subplots(1, len(envs), figsize=(6.5 * len(envs), 4.5), squeeze=False)
        axes = list(grid.flat)
    for a, env in zip(axes, envs):
        _panel(a, df[df["env"] == env])
        a.set_title(f"{env}: reward against privacy")
    fig.tight_layout()
    return fig


_run.register_plot(SIMULATOR, plot)

__all__: List[str] = ["CompareOptions", "simulate_compare", "flags", "plot"]
