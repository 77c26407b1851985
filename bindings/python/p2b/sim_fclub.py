"""p2b.simulate_fclub: federated clustering of bandits (FCLUB), p2b-sim --protocol fclub.

simulate_fclub() and ``p2b-sim --protocol fclub`` run the same C++ function
(tools/fclub_sim/fclub_run.hpp) on the same options type, bound here as
``p2b.FclubOptions``: each keyword is a long flag of ``p2b-sim --protocol
fclub --help`` with '-' written '_' (``--split-alpha`` -> ``split_alpha``),
lists are Python lists (or one value, or the CLI's "a,b"), and the defaults
are p2b-sim's (100000 rounds, 10 seeds, every algorithm of the mode), but
``out=''``: nothing is written unless ``out`` names a directory.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, List, Optional, Tuple

from . import _run
from ._p2b import FclubOptions, _run_fclub

SIMULATOR = "fclub"


def _old_keywords(flags: Dict[str, Any]) -> Tuple[Dict[str, Any], bool]:
    """(`flags` without p2b 0.1's all_tables= and as_pandas=, all_tables), warning once each."""
    out = dict(flags)
    all_tables = bool(out.pop("all_tables", False))
    if all_tables:
        warnings.warn("simulate_fclub(all_tables=) is deprecated; use tables=", FutureWarning,
                      stacklevel=3)
    if out.pop("as_pandas", None) is not None:
        warnings.warn("simulate_fclub(as_pandas=) is deprecated: results are DataFrames",
                      FutureWarning, stacklevel=3)
    return out, all_tables


def simulate_fclub(
    options: Optional[FclubOptions] = None,
    *,
    progress: Optional[bool] = None,
    tables: bool = False,
    **flags: Any,
) -> Any:
    """Every FCLUB-family algorithm on the same users, items and coins per seed.

    Returns the summary as a DataFrame: one row per (algorithm, dim,
    epsilon), with regret_mean and regret_sd over seeds, uploads_mean,
    downloads_mean, events_mean, bytes_mean, clusters_mean,
    epsilon_spent_max and us_per_round_mean (p2b-sim's summary.csv).
    tables=True returns {"runs", "curves", "summary": DataFrame}.

    options: an FclubOptions to start from (not modified); keywords then set
    its fields by their CLI names. progress: a tqdm bar (None: when tqdm is
    installed; False: never). The lines p2b-sim prints go to the logger
    "p2b.fclub" at INFO. A misspelt keyword raises TypeError naming the
    nearest flag; a value out of range raises ValueError naming the flag and
    its range. The same seed gives the same tables but for us_per_round.
    """
    new_flags, all_tables = _old_keywords(flags)
    _, frames = _run.run_simulator(
        SIMULATOR, FclubOptions, _run_fclub, options, progress, new_flags
    )
    return frames if tables or all_tables else frames["summary"]


def flags() -> List[str]:
    """p2b-sim --protocol fclub's long flags, as its command line parses them."""
    from ._p2b import _fclub_sim_flags

    return list(_fclub_sim_flags())


def _row_label(row: Any) -> str:
    eps = float(row["epsilon"])
    return f'{row["algorithm"]} d={row["dim"]}' + (f" e={eps:g}" if eps > 0 else "")


def plot(df: Any, ax: Any = None) -> Any:
    """The summary as tools/plot_fclub.py's communication.png draws it, with
    the final regret beside it: per (algorithm, d, epsilon), the mean
    regret (+-1 sd over seeds) and the messages sent; returns the Figure."""
    import matplotlib.pyplot as plt

    if "regret_mean" not in df.columns:
        raise ValueError("plot() draws simulate_fclub's summary table")
    labels = [_row_label(r) for _, r in df.iterrows()]
    messages = (df["uploads_mean"] + df["downloads_mean"]).to_numpy()
    if ax is not None:
        fig, axes = ax.figure, [ax, ax.twiny()]
    else:
        fig, grid = plt.subplots(1, 2, figsize=(10, 0.45 * len(df) + 1.8), squeeze=False)
        axes = list(grid.flat)
    axes[0].barh(labels, df["regret_mean"], xerr=df["regret_sd"], color="C0", capsize=3)
    axes[0].set_xlabel("final cumulative regret (mean +-1 sd over seeds)")
    axes[1].barh(labels, messages, color="C1")
    if (messages > 0).any():
        axes[1].set_xscale("log")
    axes[1].set_xlabel("messages (uploads + downloads), mean over seeds")
    if ax is None:
        axes[1].set_yticks([])
    for a in axes:
        a.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    return fig


_run.register_plot(SIMULATOR, plot)

__all__: List[str] = ["FclubOptions", "simulate_fclub", "flags", "plot"]
