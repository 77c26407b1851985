"""p2b.simulate_pfcb and p2b-sim --protocol pfcb share PfcbOptions: names, checks, tables."""

import logging

import pytest

import p2b
from p2b import sim_pfcb

pd = pytest.importorskip("pandas")

TINY = dict(producers=6, agents=3, rounds=1000, instances=1, seeds=2, seed=5, window_start=100,
            window_stop=800, algorithms=["nf", "fcb", "pfcb"], dist="normal", epsilons=1,
            threads=1)
NOT_OPTIONS = {"--help", "--version", "--config", "--protocol"}


def test_keywords_are_the_cli_long_flags():
    flags = set(sim_pfcb.flags()) - NOT_OPTIONS
    assert {"--window-start", "--agents-grid", "--agents", "--seeds", "--out"} <= flags
    assert "--runs" not in flags  # the deprecated spelling is hidden
    names = set(p2b._run.option_names(p2b.PfcbOptions()))
    assert names == {f[2:].replace("-", "_") for f in flags}


def test_misspelt_keyword_suggests_the_flag():
    with pytest.raises(TypeError, match="did you mean 'window_start'"):
        p2b.simulate_pfcb(window_strat=100, **TINY)


@pytest.mark.parametrize("keyword,value,message", [
    ("producers", 65, r"--producers = 65: must be in \[1, 64\]"),
    ("alpha", 2.0, r"--alpha = 2: must be in \[0, 1\]"),
    ("epsilons", [1, 0], r"--epsilons = 0: must be in \[1e-06, 1e\+09\]"),
    ("window_start", 900, r"--window-start = 900: must not be after --window-stop \(800\)"),
    ("dist", "gamma", r"--dist = gamma: must be one of normal, uniform"),
    ("schedule", "weekly", r"--schedule = weekly: must be one of aligned, every-round, paper"),
    ("setting", "mixed", r"--setting = mixed: must be one of heterogeneous, homogeneous"),
])
def test_bad_value_names_the_field_and_range(keyword, value, message):
    with pytest.raises(ValueError, match=message):
        p2b.simulate_pfcb(progress=False, **{**TINY, keyword: value})


def test_result_is_the_summary_dataframe():
    tables = p2b.simulate_pfcb(progress=False, tables=True, **TINY)
    assert set(tables) == {"runs", "curves", "curves_runs", "summary", "ratios"}
    df = tables["summary"]
    assert isinstance(df, pd.DataFrame)
    for col in ("dist", "agents", "algorithm", "epsilon", "count", "regret_mean", "acceptance",
                "postings_sent", "paper_epsilon", "seconds_per_run"):
        assert col in df.columns, col
    assert list(df["algorithm"]) == ["nf", "fcb", "pfcb"]
    assert list(df["epsilon"]) == [0.0, float("inf"), 1.0]
    assert (df["count"] == 2).all()
    fcb = df.set_index("algorithm")["regret_mean"]
    assert 0 < fcb["fcb"] < fcb["nf"]
    assert df.attrs["p2b.simulator"] == "pfcb"


def test_same_seed_same_tables_but_for_timing():
    keep = lambda df: df.drop(columns=[c for c in df.columns if "seconds" in c])  # noqa: E731
    a = p2b.simulate_pfcb(progress=False, tables=True, **TINY)
    b = p2b.simulate_pfcb(progress=False, tables=True, **{**TINY, "threads": 2})
    for name in a:
        pd.testing.assert_frame_equal(keep(a[name]), keep(b[name]))


def test_options_words_and_lists():
    o = p2b.PfcbOptions()
    assert o.dist == ["uniform", "normal"] and o.schedule == "paper" and o.log_base == "2"
    assert o.seeds == 20 and o.agents == 10 and o.setting == "heterogeneous"
    o.dist = "uniform,normal"  # the CLI's spelling of a list
    o.agents = 4
    o.violation_cost = "max-regret"
    assert o.dist == ["uniform", "normal"] and o.agents_grid == [4]
    assert o.violation_cost == "max-regret"


def test_old_runs_keyword_warns_and_still_works():
    old = {k: v for k, v in TINY.items() if k != "seeds"}
    with pytest.warns(FutureWarning, match=r"runs=\) is deprecated; use seeds="):
        df = p2b.simulate_pfcb(runs=1, progress=False, **old)
    assert (df["count"] == 1).all()


def test_out_writes_the_cli_files(tmp_path):
    p2b.simulate_pfcb(progress=False, out=str(tmp_path), **TINY)
    assert {"runs.csv", "curves.csv", "summary.csv", "ratios.csv", "summary.json"} <= {
        p.name for p in tmp_path.iterdir()}


def test_plot_returns_a_figure():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    fig = p2b.simulate_pfcb(progress=False, **TINY).p2b.plot()
    assert isinstance(fig, matplotlib.figure.Figure)
    assert len(fig.axes) == 3
    matplotlib.pyplot.close(fig)


def test_quiet_run_prints_nothing_and_logs_go_to_logging(capfd, caplog):
    with caplog.at_level(logging.INFO, logger="p2b.pfcb"):
        p2b.simulate_pfcb(progress=False, **TINY)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    lines = [r.getMessage() for r in caplog.records if r.name == "p2b.pfcb"]
    assert any(line.startswith("pfcb: m=6, n=3") for line in lines)
    assert any(line.startswith("schedule paper: ") for line in lines)
