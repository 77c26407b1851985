"""p2b.simulate_p2b: the P2B paper's experiment, p2b-sim's default protocol.

simulate_p2b() and ``p2b-sim`` run the same C++ function (tools/sim/run.hpp)
on the same options type, bound here as ``p2b.P2BOptions``: each keyword is
a long flag of ``p2b-sim --help`` with '-' written '_' (``--neg-rate`` ->
``neg_rate``, ``--no-crypto`` -> ``no_crypto``), lists are Python lists,
and the defaults are p2b-sim's (but ``threads=2`` and ``out=''``: nothing is
written, trained codebooks stay in memory).
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, List, Optional

from . import _run
from ._p2b import P2BOptions, _run_p2b

SIMULATOR = "p2b"

# p2b 0.1's keyword names, accepted for one release with a FutureWarning.
_RENAMED = {"modes": "mode", "dims": "dim", "participation": "p", "cache_dir": "out"}


def _old_keywords(flags: Dict[str, Any]) -> Dict[str, Any]:
    """`flags` with p2b 0.1's keywords spelt as the CLI's flags (warning once each)."""
    out: Dict[str, Any] = {}
    for key, value in flags.items():
        if key in _RENAMED:
            new = _RENAMED[key]
            warnings.warn(f"simulate_p2b({key}=) is deprecated; use {new}=", FutureWarning,
                          stacklevel=3)
            out[new] = value
        elif key == "crypto":
            warnings.warn("simulate_p2b(crypto=) is deprecated; use no_crypto=", FutureWarning,
                          stacklevel=3)
            out["no_crypto"] = not value
        elif key == "as_pandas":
            warnings.warn("simulate_p2b(as_pandas=) is deprecated: results are DataFrames",
                          FutureWarning, stacklevel=3)
        else:
            out[key] = value
    return out


def simulate_p2b(
    options: Optional[P2BOptions] = None,
    *,
    progress: Optional[bool] = None,
    tables: bool = False,
    **flags: Any,
) -> Any:
    """The P2B paper's experiment (section 5): one DataFrame row per (seed, grid point).

    For each point of the grid users x actions x dim x interactions x mode x
    central_epsilon, early users run cold agents and share through P2B; late
    users then run cold, warm from a non-private model and warm from the
    private one. The columns are p2b-sim's results.csv (cold,
    warm_nonprivate, warm_private, oracle, best_fixed_arm, reports, kept,
    codes_released, epsilon_per_user, ..., early, model_bundle_bytes).

    options: a P2BOptions to start from (not modified); keywords then set
    its fields by their CLI names. env="multilabel" with data="FILE.arff"
    runs the section 5.2 experiment, as p2b-sim --env multilabel does.
    progress: a tqdm bar (None: when tqdm is installed; False: never).
    The lines p2b-sim prints go to the logger "p2b.p2b" at INFO.
    tables=True returns {"results": DataFrame}. A misspelt keyword raises
    TypeError naming the nearest flag; a value out of range raises
    ValueError naming the flag and its range, as does an unusable data file.
    The same seed gives the same table but for the timing columns.
    """
    _, frames = _run.run_simulator(
        SIMULATOR, P2BOptions, _run_p2b, options, progress, _old_keywords(flags)
    )
    return frames if tables else frames["results"]


def flags() -> List[str]:
    """p2b-sim's long flags for this experiment, as its command line parses them."""
    from ._p2b import _p2b_sim_flags

    return list(_p2b_sim_flags())


_KEYS = (("mode", "{} mode"), ("mapping", "{} map"), ("actions", "|A|={}"), ("dim", "d={}"),
         ("interactions", "t={}"), ("users", "u={:,}"))


def _panels(df: Any, x: str) -> Dict[str, Any]:
    """{title: rows sorted by x} for each setting of the columns other than x."""
    keys = [k for k, _ in _KEYS if k != x]
    formats = dict(_KEYS)
    out: Dict[str, Any] = {}
    for values, group in df.groupby(keys, sort=True):
        title = ", ".join(formats[k].format(v) for k, v in zip(keys, values) if v != "")
        out[title] = group.sort_values(x)
    return out


_SETTINGS = (("cold", "cold (local only)", "--"),
             ("warm_nonprivate", "warm, non-private", "o-"),
             ("warm_private", "warm, private (P2B)", "s-"))


def _draw_panel(ax: Any, pts: Any, x: str) -> None:
    xs = pts[x].to_numpy()
    ax.plot(xs, pts["oracle"], ":", color="grey", label="oracle")
    ax.plot(xs, pts["best_fixed_arm"], "-.", label="best fixed arm")
    for key, label, style in _SETTINGS:
        (line,) = ax.plot(xs, pts[key], style, label=label)
        se = 1.96 * pts[key + "_se"].to_numpy()
        ax.fill_between(xs, pts[key] - se, pts[key] + se, color=line.get_color(), alpha=0.12)
    ax.set_ylim(bottom=0)  # rewards compare as ratios: the axis starts at 0
    ax.set_ylabel("average reward, late users")
    ax.grid(True, alpha=0.3)


def plot(df: Any, ax: Any = None, x: Optional[str] = None) -> Any:
    """Late-user reward against `x` (users, as tools/plot_sim.py's fig4; or
    whichever of users, dim, interactions varies), one panel per remaining
    setting; returns the matplotlib Figure."""
    import matplotlib.pyplot as plt

    if x is None:
        varying = [c for c in ("users", "dim", "interactions") if df[c].nunique() > 1]
        x = varying[0] if varying else "users"
    panels = _panels(df, x)
    if ax is not None:
        axes = [ax] * len(panels)
        fig = ax.figure
    else:
        fig, grid = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 3.8), squeeze=False)
        axes = list(grid.flat)
    for a, (title, pts) in zip(axes, panels.items()):
        _draw_panel(a, pts, x)
        if x == "users":
            a.set_xscale("log")
        a.set_xlabel({"users": "early (sharing) users u", "dim": "context dimension d",
                      "interactions": "interactions per user t"}[x])
        a.set_title(title, fontsize="medium")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize="small",
               frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


_run.register_plot(SIMULATOR, plot)

__all__: List[str] = ["P2BOptions", "simulate_p2b", "flags", "plot"]
