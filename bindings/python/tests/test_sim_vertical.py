"""p2b.simulate_vertical and p2b-sim --protocol vertical share VerticalOptions: names, checks, tables."""

import logging

import pytest

import p2b
from p2b import sim_vertical

pd = pytest.importorskip("pandas")

TINY = dict(dim=8, actions=4, partition=[3, 5], rounds=60, seeds=2, seed=7, threads=1,
            policies="linucb")
# Flags of p2b-sim that are not experiment options.
NOT_OPTIONS = {"--help", "--version", "--config", "--protocol"}


def test_keywords_are_the_cli_long_flags():
    flags = set(sim_vertical.flags()) - NOT_OPTIONS
    assert {"--rounds", "--ts-scale", "--cost-actions", "--seeds", "--threads", "--out"} <= flags
    assert "--repeats" not in flags  # a hidden deprecated alias
    names = set(p2b._run.option_names(p2b.VerticalOptions()))
    assert names == {f[2:].replace("-", "_") for f in flags}


def test_misspelt_keyword_suggests_the_flag():
    with pytest.raises(TypeError, match="did you mean 'ts_scale'"):
        p2b.simulate_vertical(tsscale=1.0, **TINY)


@pytest.mark.parametrize("keyword,value,message", [
    ("rounds", 0, r"--rounds = 0: must be in \[1, 100000000\]"),
    ("dim", 1, r"--dim = 1: must be in \[2, 1024\]"),
    ("noise_sd", 11.0, r"--noise-sd = 11: must be in \[0, 10\]"),
    ("seeds", 0, r"--seeds = 0: must be in \[1, 1000000\]"),
    ("env", "tabular", r"--env = tabular: must be one of synthetic, multilabel"),
    ("policies", "linucb,ucb", r"--policies = ucb: must be one of linucb, lints"),
    ("partition", [3, 4], r"--partition sums to 7 in 2 blocks: must be 2 or more blocks summing "
                          r"to --dim \(8\)"),
])
def test_bad_value_names_the_field_and_range(keyword, value, message):
    with pytest.raises(ValueError, match=message):
        p2b.simulate_vertical(progress=False, **{**TINY, keyword: value})


def test_result_is_the_results_dataframe():
    df = p2b.simulate_vertical(progress=False, **TINY)
    assert isinstance(df, pd.DataFrame)
    for col in ("env", "policy", "seed", "series", "columns", "regret", "mean_reward",
                "same_actions", "bytes_per_party"):
        assert col in df.columns, col
    # What the old simulate_vertical test asserted: central and federated are there,
    # and federated LinUCB is central, action for action.
    regret = df.groupby("series")["regret"].mean()
    assert {"central", "federated", "partial"} <= set(regret.index)
    assert regret["federated"] == pytest.approx(regret["central"])
    assert (df["same_actions"] == 60).all()
    assert (df["bytes_per_party"] == 100 + 8 * 4 * 8).all()
    tables = p2b.simulate_vertical(progress=False, tables=True, **TINY)
    assert set(tables) == {"results", "curves"}
    assert df.attrs["p2b.simulator"] == "vertical"


def test_same_seed_same_tables_but_for_timing():
    keep = lambda df: df.drop(columns=[c for c in df.columns if c.endswith("_us")])  # noqa: E731
    a = p2b.simulate_vertical(progress=False, tables=True, **TINY)
    b = p2b.simulate_vertical(progress=False, tables=True, **{**TINY, "threads": 2})
    for name in a:
        pd.testing.assert_frame_equal(keep(a[name]), keep(b[name]))
    c = p2b.simulate_vertical(progress=False, **{**TINY, "seed": 8})
    assert not a["results"]["regret"].equals(c["regret"])


def test_cost_grid_is_one_table():
    df = p2b.simulate_vertical(progress=False, cost=True, cost_dims=6, cost_actions=3,
                               cost_parties=3, cost_rounds=2)
    assert list(df[["d", "k", "parties"]].iloc[0]) == [6, 3, 3]
    assert (df["message_bytes"] == df["formula_bytes"]).all()


def test_options_object_is_a_starting_point():
    o = p2b.VerticalOptions()
    assert o.rounds == 5000 and o.seeds == 5 and o.out == "" and o.policies == ["linucb", "lints"]
    for k, v in TINY.items():
        setattr(o, k, v)
    assert o.policies == ["linucb"]  # one value for a list field
    df = p2b.simulate_vertical(o, policies="lints", progress=False)
    assert set(df["policy"]) == {"lints"}
    assert o.policies == ["linucb"]  # the caller's options are unchanged


def test_out_writes_the_cli_files(tmp_path):
    p2b.simulate_vertical(progress=False, out=str(tmp_path), **TINY)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curves.csv", "results.csv"]


def test_plot_returns_a_figure():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    tables = p2b.simulate_vertical(progress=False, tables=True, **TINY)
    for name in ("results", "curves"):
        fig = tables[name].p2b.plot()
        assert isinstance(fig, matplotlib.figure.Figure)
        assert len(fig.axes) == 1  # one policy
        matplotlib.pyplot.close(fig)


def test_quiet_run_prints_nothing_and_logs_go_to_logging(capfd, caplog):
    with caplog.at_level(logging.INFO, logger="p2b.vertical"):
        p2b.simulate_vertical(progress=False, **TINY)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    lines = [r.getMessage() for r in caplog.records if r.name == "p2b.vertical"]
    assert any(line.startswith("p2b-sim --protocol vertical: synthetic") for line in lines)
    assert any("federated took central's action in 120 of 120 rounds" in line for line in lines)


def test_progress_reaches_the_end():
    o = p2b.VerticalOptions()
    for k, v in TINY.items():
        setattr(o, k, v)
    seen = []
    native = p2b._p2b._run_vertical(o, lambda stage, done, total: seen.append((stage, done, total)),
                                    None)
    assert set(native) == {"results", "curves"}
    assert seen and seen[-1] == ("vertical runs", 2, 2)


def test_old_keywords_warn_and_still_work():
    with pytest.warns(FutureWarning, match="repeats"):
        df = p2b.simulate_vertical(progress=False, repeats=1,
                                   **{k: v for k, v in TINY.items() if k != "seeds"})
    assert set(df["seed"]) == {7}
    with pytest.warns(FutureWarning, match="all_tables"):
        tables = p2b.simulate_vertical(progress=False, all_tables=True, **TINY)
    assert set(tables) == {"results", "curves"}
