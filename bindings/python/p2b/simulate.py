"""p2b-sim's experiments as functions that return tables.

simulate_p2b() runs the P2B paper's experiment (p2b-sim's default
protocol) point by point on tools/sim's code and returns one row per grid
point, with p2b-sim's results.csv column names. simulate_vertical(),
simulate_fclub(), simulate_pfcb() and simulate_compare() run p2b-sim's
other protocols in process: keyword arguments become that protocol's
command-line flags (``rounds=400`` -> ``--rounds 400``, lists are joined
with commas, True is a bare flag), and the CSVs it writes are read back.
Defaults are toy sizes that finish in seconds; docs/simulator.md has every
flag and the paper-sized settings.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from . import _p2b
from .table import Table

Result = Union[Table, Dict[str, Table], Any]


def _seq(v: Union[Any, Sequence[Any]]) -> List[Any]:
    return list(v) if isinstance(v, (list, tuple, np.ndarray)) else [v]


def _finish(tables: Dict[str, Table], primary: str, all_tables: bool, as_pandas: bool) -> Result:
    if all_tables:
        return {k: (t.to_pandas() if as_pandas else t) for k, t in tables.items()}
    t = tables[primary]
    return t.to_pandas() if as_pandas else t


def simulate_p2b(
    *,
    users: Union[int, Sequence[int]] = 1000,
    actions: Union[int, Sequence[int]] = 10,
    dims: Union[int, Sequence[int]] = 10,
    interactions: Union[int, Sequence[int]] = 10,
    modes: Union[str, Sequence[str]] = "default",
    codes: int = 64,
    digits: int = 1,
    participation: float = 0.5,
    threshold: int = 10,
    neg_rate: float = 0.05,
    alpha: float = 1.0,
    early_fraction: float = 0.7,
    beta: float = 0.1,
    noise_sd: float = 0.001,
    mapping: str = "auto",
    contexts: str = "simplex",
    crypto: bool = True,
    central_epsilon: float = 0.0,
    central_delta: float = 1e-6,
    central_horizon: int = 1 << 20,
    seed: int = 1,
    threads: int = 2,
    codebook: Optional[npt.NDArray[np.float32]] = None,
    cache_dir: Optional[str] = None,
    env: str = "synthetic",
    data: Optional[str] = None,
    labels: str = "auto",
    as_pandas: bool = False,
) -> Result:
    """The P2B paper's experiment (p2b-sim's default protocol), one row per point.

    For each point of the grid users x actions x dims x interactions x modes,
    early users run cold agents and share through P2B; late users then run
    cold, warm from a non-private model and warm from the private one. The
    columns are those of p2b-sim's results.csv (cold, warm_nonprivate,
    warm_private, oracle, best_fixed_arm, reports, kept, ...) plus early
    (the sharing users' own reward) and model_bundle_bytes.

    Differences from the p2b-sim command line, to keep calls quick: one mode
    ("default") instead of both, 1,000 early users instead of 10,000 and 64
    codes instead of 1,024. mapping "auto" is linear in paper mode and
    softmax in default mode, as in p2b-sim. codebook: k x d float32
    centroids to use instead of training (one d only). cache_dir keeps the
    trained codebooks (p2b-sim's out/codebooks) between calls. The same seed
    gives the same table.

    env="multilabel" runs the paper's section 5.2 experiment instead, as
    p2b-sim --env multilabel does: data is a multi-label ARFF file whose rows
    become the users' contexts (reduced to each d) and whose labels are the
    actions (labels: "auto", "first:N", "last:N" or "prefix:NAME", see
    docs/data.md); the actions argument is then ignored, the row's actions
    column is the label count, and majority_label is the reward of always
    choosing the most frequent label. A file that is not such a data set
    raises ValueError.
    """
    if env == "multilabel" and data is None:
        raise ValueError("env='multilabel' needs data= (a multi-label ARFF file)")
    dims_l = [int(d) for d in _seq(dims)]
    if codebook is not None and len(dims_l) != 1:
        raise ValueError("codebook= fixes d: give one value in dims")
    tmp = None
    if cache_dir is None:
        tmp = tempfile.mkdtemp(prefix="p2b-sim-")
        cache_dir = tmp
    rows: List[Dict[str, Any]] = []
    try:
        for dim in dims_l:
            cb = (
                codebook
                if codebook is not None
                else _p2b._sim_codebook(dim, digits, codes, seed, threads, cache_dir)
            )
            # A multi-label set fixes the actions (its labels): one pass.
            for a in _seq(actions) if env == "synthetic" else [0]:
                for u in _seq(users):
                    for t in _seq(interactions):
                        for mode in _seq(modes):
                            r = _p2b._sim_p2b_point(
                                cb, int(a), int(u), int(t), mode, mapping, contexts, beta,
                                noise_sd, seed, threads, digits, participation, threshold,
                                neg_rate, alpha, early_fraction, crypto, central_epsilon,
                                central_delta, central_horizon, env, data or "", labels,
                            )
                            row: Dict[str, Any] = {
                                "env": env,
                                "mode": mode,
                                "mapping": r.pop("mapping"),
                                "contexts": contexts if env == "synthetic" else "",
                                "users": int(u),
                                "actions": int(r.pop("actions")),
                                "dim": dim,
                                "codes": int(cb.shape[0]),
                                "digits": digits,
                                "interactions": int(t),
                                "p": participation,
                                "threshold": threshold,
                                "neg_rate": neg_rate,
                                "alpha": alpha,
                                "crypto": int(crypto),
                                "seed": seed,
                                "central_epsilon": central_epsilon,
                            }
                            row.update(r)
                            rows.append(row)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    t = Table.from_rows(rows)
    return t.to_pandas() if as_pandas else t


def _flags(options: Dict[str, Any]) -> List[str]:
    args: List[str] = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            args += [flag, ",".join(str(v) for v in value)]
        else:
            args += [flag, str(value)]
    return args


def _run(
    protocol: str,
    defaults: Dict[str, Any],
    options: Dict[str, Any],
    out: Optional[str],
    primary: str,
    all_tables: bool,
    as_pandas: bool,
) -> Result:
    merged = dict(defaults)
    merged.update(options)
    for reserved in ("out", "protocol", "plot"):
        merged.pop(reserved, None)
    merged["quiet"] = True
    directory = out or tempfile.mkdtemp(prefix=f"p2b-{protocol}-")
    try:
        rc = _p2b._sim_main(protocol, _flags(merged) + ["--out", directory])
        if rc != 0:
            raise RuntimeError(f"p2b-sim --protocol {protocol} failed (exit {rc}); see stderr")
        tables = {
            name[: -len(".csv")]: Table.from_csv(os.path.join(directory, name))
            for name in sorted(os.listdir(directory))
            if name.endswith(".csv")
        }
    finally:
        if out is None:
            shutil.rmtree(directory, ignore_errors=True)
    return _finish(tables, primary, all_tables, as_pandas)


def simulate_vertical(
    *, out: Optional[str] = None, all_tables: bool = False, as_pandas: bool = False, **options: Any
) -> Result:
    """p2b-sim --protocol vertical (O3M vertical federation): its results.csv.

    Defaults: dim=20, partition=[4, 6, 10], rounds=400, repeats=2,
    policies="linucb" (p2b-sim: 100, five parties of 20, 5000, 5, both).
    all_tables=True returns every CSV (results, curves) by name; out keeps
    the files in that directory.
    """
    defaults = {"dim": 20, "partition": [4, 6, 10], "rounds": 400, "repeats": 2,
                "policies": "linucb"}
    return _run("vertical", defaults, options, out, "results", all_tables, as_pandas)


def simulate_fclub(
    *, out: Optional[str] = None, all_tables: bool = False, as_pandas: bool = False, **options: Any
) -> Result:
    """p2b-sim --protocol fclub (federated clustering of bandits): its summary.csv.

    Defaults: rounds=3000, seeds=2, every=500,
    algorithms="linucb-ind,fclub-dc,cdp-fclub-dc" (p2b-sim: 100000 rounds,
    10 seeds, every algorithm). all_tables=True adds runs and curves.
    """
    defaults = {"rounds": 3000, "seeds": 2, "every": 500,
                "algorithms": "linucb-ind,fclub-dc,cdp-fclub-dc"}
    return _run("fclub", defaults, options, out, "summary", all_tables, as_pandas)


def simulate_pfcb(
    *, out: Optional[str] = None, all_tables: bool = False, as_pandas: bool = False, **options: Any
) -> Result:
    """p2b-sim --protocol pfcb (P-FCB, federated combinatorial bandits): its summary.csv.

    Defaults: producers=6, agents=3, rounds=3000, instances=1, runs=1,
    window_start=100, window_stop=2000, algorithms="nf,fcb,pfcb", epsilons=1
    (p2b-sim: 30 producers, 10 agents, 100000 rounds, 5 x 20 runs, every
    algorithm, epsilons 1 and 0.3). all_tables=True adds runs, curves,
    curves_runs and ratios.
    """
    defaults = {"producers": 6, "agents": 3, "rounds": 3000, "instances": 1, "runs": 1,
                "window_start": 100, "window_stop": 2000, "algorithms": "nf,fcb,pfcb",
                "epsilons": 1}
    return _run("pfcb", defaults, options, out, "summary", all_tables, as_pandas)


def simulate_compare(
    *, out: Optional[str] = None, all_tables: bool = False, as_pandas: bool = False, **options: Any
) -> Result:
    """p2b-sim --protocol compare (every protocol on one world): its summary.csv.

    Defaults: envs="synthetic", users=300, interactions=10, dim=4, actions=4,
    beta=1, mapping="linear", seeds=2, servers=2, participations=[0.5, 0.9],
    epsilons=1, codes=8 (p2b-sim: both environments, 2000 users, d = |A| = 8,
    5 seeds, wider axes). all_tables=True adds runs.
    """
    defaults = {"envs": "synthetic", "users": 300, "interactions": 10, "dim": 4, "actions": 4,
                "beta": 1, "mapping": "linear", "seeds": 2, "servers": 2,
                "participations": [0.5, 0.9], "epsilons": 1, "codes": 8}
    return _run("compare", defaults, options, out, "summary", all_tables, as_pandas)


def protocols() -> Iterable[str]:
    """The protocols p2b-sim simulates, by the names its --protocol takes."""
    return ("p2b", "vertical", "fclub", "pfcb", "compare")
