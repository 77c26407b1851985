"""p2b.simulate_fclub and p2b-sim --protocol fclub share FclubOptions: names, checks, tables."""

import logging

import pytest

import p2b
from p2b import sim_fclub

pd = pytest.importorskip("pandas")

TINY = dict(rounds=600, every=200, users=8, servers=2, clusters=2, dims=4, items=4, seeds=2,
            seed=3, threads=1, algorithms=["linucb-ind", "fclub-dc"])
# Flags of p2b-sim that are not experiment options.
NOT_OPTIONS = {"--help", "--version", "--config", "--protocol"}


def test_keywords_are_the_cli_long_flags():
    flags = set(sim_fclub.flags()) - NOT_OPTIONS
    assert {"--rounds", "--split-alpha", "--seeds", "--threads", "--out", "--quiet"} <= flags
    names = set(p2b._run.option_names(p2b.FclubOptions()))
    assert names == {f[2:].replace("-", "_") for f in flags}


def test_misspelt_keyword_suggests_the_flag():
    with pytest.raises(TypeError, match="did you mean 'split_alpha'"):
        p2b.simulate_fclub(splitalpha=1.0, **TINY)


@pytest.mark.parametrize("keyword,value,message", [
    ("rounds", 0, r"--rounds = 0: must be in \[1, 1073741824\]"),
    ("dims", [4, 65], r"--dims = 65: must be in \[2, 64\]"),
    ("delta", 0.9, r"--delta = 0.9: must be in \[1e-12, 0.5\]"),
    ("seeds", 0, r"--seeds = 0: must be in \[1, 1000000\]"),
    ("mode", "paper", r"--mode = paper: must be one of default, reference"),
    ("algorithms", "linucb-ind,fancy", r"--algorithms = fancy: must be one of"),
    ("servers", 9, r"--users = 8: must be at least --servers \(9\)"),
])
def test_bad_value_names_the_field_and_range(keyword, value, message):
    with pytest.raises(ValueError, match=message):
        p2b.simulate_fclub(progress=False, **{**TINY, keyword: value})


def test_result_is_the_summary_dataframe():
    df = p2b.simulate_fclub(progress=False, **TINY)
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == [
        "mode", "algorithm", "dim", "epsilon", "seeds", "regret_mean", "regret_sd",
        "uploads_mean", "downloads_mean", "events_mean", "bytes_mean", "clusters_mean",
        "epsilon_spent_max", "us_per_round_mean"]
    assert list(df["algorithm"]) == ["linucb-ind", "fclub-dc"]
    assert (df["seeds"] == 2).all()
    tables = p2b.simulate_fclub(progress=False, tables=True, **TINY)
    assert set(tables) == {"runs", "curves", "summary"}
    assert len(tables["runs"]) == 4 and len(tables["curves"]) == 4 * 3
    assert df.attrs["p2b.simulator"] == "fclub"


def test_same_seed_same_tables_but_for_timing():
    keep = lambda df: df.drop(columns=[c for c in df.columns if c.startswith("us_per_round")])  # noqa: E731
    a = p2b.simulate_fclub(progress=False, tables=True, **TINY)
    b = p2b.simulate_fclub(progress=False, tables=True, **{**TINY, "threads": 2})
    for name in a:
        pd.testing.assert_frame_equal(keep(a[name]), keep(b[name]))
    c = p2b.simulate_fclub(progress=False, **{**TINY, "seed": 4})
    assert not a["summary"]["regret_mean"].equals(c["regret_mean"])


def test_options_object_is_a_starting_point():
    o = p2b.FclubOptions()
    assert o.rounds == 100000 and o.seeds == 10 and o.out == "" and o.dims == [10]
    for k, v in TINY.items():
        setattr(o, k, v)
    assert o.dims == [4]  # one value for a list field
    df = p2b.simulate_fclub(o, algorithms="linucb-ind", progress=False)
    assert list(df["algorithm"]) == ["linucb-ind"]
    assert o.algorithms == ["linucb-ind", "fclub-dc"]  # the caller's options are unchanged


def test_out_writes_the_cli_files(tmp_path):
    p2b.simulate_fclub(progress=False, out=str(tmp_path), **TINY)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curves.csv", "runs.csv", "summary.csv"]


def test_plot_returns_a_figure():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    df = p2b.simulate_fclub(progress=False, **TINY)
    fig = df.p2b.plot()
    assert isinstance(fig, matplotlib.figure.Figure)
    assert len(fig.axes) == 2
    matplotlib.pyplot.close(fig)


def test_quiet_run_prints_nothing_and_logs_go_to_logging(capfd, caplog):
    with caplog.at_level(logging.INFO, logger="p2b.fclub"):
        p2b.simulate_fclub(progress=False, **TINY)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    lines = [r.getMessage() for r in caplog.records if r.name == "p2b.fclub"]
    assert any(line.startswith("fclub default mode: 8 users on 2 servers") for line in lines)
    assert any(line.startswith("wire: P2BU ") for line in lines)


def test_progress_reaches_the_end():
    seen = []
    native = p2b._p2b._run_fclub(
        _tiny_options(), lambda stage, done, total: seen.append((stage, done, total)), None)
    assert set(native) == {"runs", "curves", "summary"}
    assert seen and seen[-1] == ("fclub runs", 600 * 4, 600 * 4)


def _tiny_options():
    o = p2b.FclubOptions()
    for k, v in TINY.items():
        setattr(o, k, v)
    return o


def test_old_keywords_warn_and_still_work():
    with pytest.warns(FutureWarning, match=r"all_tables=\) is deprecated; use tables="):
        tables = p2b.simulate_fclub(all_tables=True, progress=False, **TINY)
    assert set(tables) == {"runs", "curves", "summary"}
