"""p2b.simulate_p2b and p2b-sim share P2BOptions: the same names, checks and table."""

import logging

import pytest

import p2b
from p2b import sim_p2b

pd = pytest.importorskip("pandas")

TINY = dict(users=40, actions=3, dim=2, codes=4, interactions=4, mode="paper", threshold=2,
            no_crypto=True, seed=7, threads=1)
# Flags of p2b-sim that are not experiment options.
NOT_OPTIONS = {"--help", "--version", "--config", "--protocol"}


def test_keywords_are_the_cli_long_flags():
    flags = set(sim_p2b.flags()) - NOT_OPTIONS
    assert {"--users", "--neg-rate", "--no-crypto", "--seeds", "--out"} <= flags
    names = set(p2b._run.option_names(p2b.P2BOptions()))
    assert names == {f[2:].replace("-", "_") for f in flags}


def test_misspelt_keyword_suggests_the_flag():
    with pytest.raises(TypeError, match="did you mean 'neg_rate'"):
        p2b.simulate_p2b(negrate=0.1, **TINY)


@pytest.mark.parametrize("keyword,value,message", [
    ("users", 5, r"--users = 5: must be in \[10, 10\^8\]"),
    ("p", 1.0, r"--p = 1: must be in \[1e-6, 1 - 1e-6\]"),
    ("dim", [4, 65], r"--dim = 65: must be in \[2, 64\]"),
    ("seeds", 0, r"--seeds = 0: must be in \[1, 10\^6\]"),
])
def test_bad_value_names_the_field_and_range(keyword, value, message):
    with pytest.raises(ValueError, match=message):
        p2b.simulate_p2b(**{**TINY, keyword: value})


def test_bad_word_names_the_field():
    with pytest.raises(ValueError, match="mapping = 'cubic': must be auto, linear or softmax"):
        p2b.simulate_p2b(**{**TINY, "mapping": "cubic"})
    with pytest.raises(ValueError, match="mode = 'all'"):
        p2b.simulate_p2b(**{**TINY, "mode": "all"})


def test_result_is_a_dataframe_with_results_csv_columns():
    df = p2b.simulate_p2b(progress=False, **TINY)
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns[:3]) == ["env", "mode", "mapping"]
    for col in ("users", "cold", "warm_private", "oracle", "seed", "early", "model_bundle_bytes"):
        assert col in df.columns, col
    assert df.attrs["p2b.simulator"] == "p2b"
    tables = p2b.simulate_p2b(progress=False, tables=True, **TINY)
    assert set(tables) == {"results"}


def test_options_object_is_a_starting_point():
    o = p2b.P2BOptions()
    assert o.users == [10000] and o.mode == ["paper", "default"] and o.codes == 1024
    o.users = 40  # one value for a list field
    assert o.users == [40]
    for k, v in TINY.items():
        setattr(o, k, v)
    df = p2b.simulate_p2b(o, interactions=[4, 5], progress=False)
    assert list(df["interactions"]) == [4, 5]
    assert o.interactions == [4]  # the keywords did not change the caller's options


def test_seeds_repeat_the_grid():
    df = p2b.simulate_p2b(progress=False, **{**TINY, "seeds": 2})
    assert list(df["seed"]) == [7, 8]


def test_old_keywords_warn_and_still_work():
    old = {k: v for k, v in TINY.items() if k not in ("dim", "mode", "no_crypto")}
    with pytest.warns(FutureWarning, match=r"simulate_p2b\(modes=\) is deprecated; use mode="):
        df = p2b.simulate_p2b(dims=2, modes="paper", crypto=False, progress=False, **old)
    assert list(df["mode"]) == ["paper"] and list(df["crypto"]) == [0]


def test_plot_returns_a_figure():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    df = p2b.simulate_p2b(progress=False, **{**TINY, "users": [40, 80]})
    fig = df.p2b.plot()
    assert isinstance(fig, matplotlib.figure.Figure)
    assert fig.axes[0].get_xscale() == "log"
    assert fig.axes[0].get_ylim()[0] == 0
    matplotlib.pyplot.close(fig)


def test_quiet_run_prints_nothing_and_logs_go_to_logging(capfd, caplog):
    with caplog.at_level(logging.INFO, logger="p2b.p2b"):
        p2b.simulate_p2b(progress=False, **TINY)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    lines = [r.getMessage() for r in caplog.records if r.name == "p2b.p2b"]
    assert any(line.startswith("p2b-sim ") for line in lines)
    assert any(line.startswith("privacy per point") for line in lines)
