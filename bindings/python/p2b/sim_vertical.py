"""p2b.simulate_vertical: seed 003's O3M vertical federation, p2b-sim --protocol vertical.

simulate_vertical() and ``p2b-sim --protocol vertical`` run the same C++
function (tools/vertical/run.hpp) on the same options type, bound here as
``p2b.VerticalOptions``: each keyword is a long flag of ``p2b-sim --protocol
vertical --help`` with '-' written '_' (``--ts-scale`` -> ``ts_scale``),
lists are Python lists (or one value, or the CLI's "a,b"), and the defaults
are p2b-sim's (d = 100 in five blocks of 20, 5000 rounds, 5 seeds, both
policies), but ``out=''``: nothing is written unless ``out`` names a
directory.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, List, Optional, Tuple

from . import _run
from ._p2b import VerticalOptions, _run_vertical

SIMULATOR = "vertical"


def _old_keywords(flags: Dict[str, Any]) -> Tuple[Dict[str, Any], bool]:
    """(`flags` without p2b 0.1's all_tables=, as_pandas= and repeats=, all_tables)."""
    out = dict(flags)
    all_tables = bool(out.pop("all_tables", False))
    if all_tables:
        warnings.warn("simulate_vertical(all_tables=) is deprecated; use tables=", FutureWarning,
                      stacklevel=3)
    if out.pop("as_pandas", None) is not None:
        warnings.warn("simulate_vertical(as_pandas=) is deprecated: results are DataFrames",
                      FutureWarning, stacklevel=3)
    if "repeats" in out:
        warnings.warn("simulate_vertical(repeats=) is deprecated; use seeds=", FutureWarning,
                      stacklevel=3)
        out.setdefault("seeds", out.pop("repeats"))
    return out, all_tables


def simulate_vertical(
    options: Optional[VerticalOptions] = None,
    *,
    progress: Optional[bool] = None,
    tables: bool = False,
    **flags: Any,
) -> Any:
    """Central, federated (O3M, masked) and partial models on the same draws.

    Returns p2b-sim's results.csv as a DataFrame: one row per (policy,
    seed, series) with regret, mean_reward, same_actions (rounds where
    federated took central's action), central_us, active_us, party_us and
    bytes_per_party. tables=True returns {"results", "curves": DataFrame}
    (curves: mean and sd of the cumulative regret over seeds at 100
    checkpoints); with cost=True the one table is "cost" (time and bytes per
    decision over the (cost_dims, cost_actions) grid), returned as the
    DataFrame.

    options: a VerticalOptions to start from (not modified); keywords then
    set its fields by their CLI names. progress: a tqdm bar (None: when tqdm
    is installed; False: never). The lines p2b-sim prints go to the logger
    "p2b.vertical" at INFO. A misspelt keyword raises TypeError naming the
    nearest flag; a value out of range raises ValueError naming the flag and
    its range. The same seed gives the same tables but for the *_us columns.
    """
    new_flags, all_tables = _old_keywords(flags)
    o, frames = _run.run_simulator(
        SIMULATOR, VerticalOptions, _run_vertical, options, progress, new_flags
    )
    if tables or all_tables:
        return frames
    return frames["cost"] if o.cost else frames["results"]


def flags() -> List[str]:
    """p2b-sim --protocol vertical's long flags, as its command line parses them."""
    from ._p2b import _vertical_sim_flags

    return list(_vertical_sim_flags())


def _plot_curves(df: Any, axes: List[Any]) -> None:
    """curves: cumulative regret per series, one panel per policy (regret.png)."""
    for ax, (policy, rows) in zip(axes, df.groupby("policy", sort=False)):
        for series, s in rows.groupby("series", sort=False):
            line = ax.plot(s["round"], s["regret_mean"], label=series)[0]
            ax.fill_between(s["round"], s["regret_mean"] - s["regret_sd"],
                            s["regret_mean"] + s["regret_sd"], alpha=0.15,
                            color=line.get_color())
        ax.set_title(f"{policy}: cumulative regret (mean ± sd)")
        ax.set_xlabel("round")
        ax.set_ylabel("cumulative regret")
        ax.legend(loc="upper left")


def _plot_results(df: Any, axes: List[Any]) -> None:
    """results: final regret per model (mean ± sd over seeds), one panel per policy."""
    for ax, (policy, rows) in zip(axes, df.groupby("policy", sort=False)):
        names = rows["series"] + rows["columns"].map(lambda c: f" ({c} columns)" if c else "")
        stats = rows.assign(model=names).groupby("model", sort=False)["regret"]
        mean, sd = stats.mean(), stats.std().fillna(0.0)
        ax.barh(list(mean.index), mean.to_numpy(), xerr=sd.to_numpy(), capsize=3)
        ax.set_title(f"{policy}: final cumulative regret")
        ax.set_xlabel("cumulative regret (mean ± sd over seeds)")
        ax.grid(alpha=0.3, axis="x")


def _plot_cost(df: Any, ax: Any) -> None:
    """cost: time per round against d, central and federated, one line pair per K."""
    for k, rows in df.sort_values("d").groupby("k"):
        line = ax.plot(rows["d"], rows["central_us"], marker="o", label=f"central, K={k}")[0]
        ax.plot(rows["d"], rows["round_us"], marker="x", ls="--", color=line.get_color(),
                label=f"federated, K={k}")
    ax.set_xlabel("d")
    ax.set_ylabel("µs per round")
    ax.set_yscale("log")
    ax.legend()


def plot(df: Any, ax: Any = None) -> Any:
    """What tools/plot_vertical.py draws, for one of simulate_vertical's tables:
    results (final regret per model), curves (regret.png) or cost
    (cost.png's left panel). Returns the Figure."""
    import matplotlib.pyplot as plt

    if "regret" not in df.columns and "regret_mean" not in df.columns \
            and "round_us" not in df.columns:
        raise ValueError("plot() draws simulate_vertical's results, curves or cost table")
    if "round_us" in df.columns:
        fig, ax = (ax.figure, ax) if ax is not None else plt.subplots(figsize=(6, 4.2))
        _plot_cost(df, ax)
        fig.tight_layout()
        return fig
    n = df["policy"].nunique()
    if ax is not None:
        fig, axes = ax.figure, [ax]
    else:
        fig, grid = plt.subplots(1, n, figsize=(6 * n, 4.2), squeeze=False)
        axes = list(grid.flat)
    (_plot_curves if "regret_mean" in df.columns else _plot_results)(df, axes)
    fig.tight_layout()
    return fig


_run.register_plot(SIMULATOR, plot)

__all__: List[str] = ["VerticalOptions", "simulate_vertical", "flags", "plot"]
