"""p2b.simulate_compare and p2b-sim --protocol compare share CompareOptions: names, checks, tables."""

import logging
import math

import pytest

import p2b
from p2b import sim_compare

pd = pytest.importorskip("pandas")

# What the old simulate_compare defaulted to, a little smaller: d x |A| = 16
# keeps FCLUB's per-item dimension small enough for a quick run.
TINY = dict(envs="synthetic", users=200, interactions=8, dim=4, actions=4, beta=1.0,
            mapping="linear", seeds=2, seed=2, servers=2, participations=[0.5, 0.9],
            epsilons=1.0, codes=8, threads=1)
# Flags of p2b-sim that are not experiment options.
NOT_OPTIONS = {"--help", "--version", "--config", "--protocol"}


def test_keywords_are_the_cli_long_flags():
    flags = set(sim_compare.flags()) - NOT_OPTIONS
    assert {"--users", "--early-fraction", "--no-nonprivate-variants", "--seeds", "--out"} <= flags
    names = set(p2b._run.option_names(p2b.CompareOptions()))
    assert names == {f[2:].replace("-", "_") for f in flags}


def test_misspelt_keyword_suggests_the_flag():
    with pytest.raises(TypeError, match="did you mean 'early_fraction'"):
        p2b.simulate_compare(earlyfraction=0.5, **TINY)


@pytest.mark.parametrize("keyword,value,message", [
    ("users", 5, r"--users = 5: must be in \[10, 1000000\]"),
    ("early_fraction", 0.99, r"--early-fraction = 0.99: must be in \[0.05, 0.95\]"),
    ("delta", 0.9, r"--delta = 0.9: must be in \[1e-12, 0.5\]"),
    ("seeds", 0, r"--seeds = 0: must be in \[1, 1000000\]"),
    ("protocols", "local,nope", r"--protocols = nope: must be one of local, p2b"),
    ("envs", "multilabel", r"--data is empty: --envs multilabel needs --data FILE.arff"),
    ("actions", 32, r"--dim x --actions = 128: must be at most 64"),
])
def test_bad_value_names_the_field_and_range(keyword, value, message):
    with pytest.raises(ValueError, match=message):
        p2b.simulate_compare(progress=False, **{**TINY, keyword: value})


def test_result_is_the_summary_dataframe():
    df = p2b.simulate_compare(progress=False, **TINY)
    assert isinstance(df, pd.DataFrame)
    for col in ("env", "protocol", "knob", "reward_all", "reward_all_sd", "epsilon", "unit",
                "adversary", "user_epsilon", "bytes_total"):
        assert col in df.columns, col
    # local, pooled, o3m, 2 x p2b, fclub and pfcb at eps 1 and inf
    assert len(df) == 9
    assert {"local", "pooled", "p2b", "fclub", "pfcb", "o3m"} <= set(df["protocol"])
    local = df[df["protocol"] == "local"].iloc[0]
    assert local["bytes_total"] == 0 and local["epsilon"] == 0
    assert math.isinf(df[df["protocol"] == "pooled"].iloc[0]["epsilon"])
    p2b_half = df[(df["protocol"] == "p2b") & (df["knob"] == 0.5)].iloc[0]
    assert p2b_half["epsilon"] == pytest.approx(math.log(2))
    tables = p2b.simulate_compare(progress=False, tables=True, **TINY)
    assert set(tables) == {"runs", "summary"}
    assert len(tables["runs"]) == 9 * 2
    assert df.attrs["p2b.simulator"] == "compare"


def test_same_seed_same_tables_but_for_timing():
    keep = lambda df: df.drop(columns=["seconds"])  # noqa: E731
    a = p2b.simulate_compare(progress=False, tables=True, **TINY)
    b = p2b.simulate_compare(progress=False, tables=True, **{**TINY, "threads": 2})
    for name in a:
        pd.testing.assert_frame_equal(keep(a[name]), keep(b[name]))
    c = p2b.simulate_compare(progress=False, **{**TINY, "seed": 3})
    assert not a["summary"]["reward_all"].equals(c["reward_all"])


def test_options_object_is_a_starting_point():
    o = p2b.CompareOptions()
    assert o.users == 2000 and o.seeds == 5 and o.out == "" and o.envs == ["synthetic", "multilabel"]
    assert not o.no_nonprivate_variants
    for k, v in TINY.items():
        setattr(o, k, v)
    assert o.epsilons == [1.0]  # one value for a list field
    df = p2b.simulate_compare(o, protocols="local,pooled", progress=False)
    assert list(df["protocol"]) == ["local", "pooled"]
    assert o.protocols == ["local", "p2b", "fclub", "pfcb", "o3m", "pooled"]  # unchanged


def test_no_nonprivate_variants_drops_the_inf_rows():
    df = p2b.simulate_compare(progress=False, no_nonprivate_variants=True,
                              **{**TINY, "protocols": "fclub,pfcb"})
    assert list(df["knob"]) == [1.0, 1.0]


def test_out_writes_the_cli_files(tmp_path):
    p2b.simulate_compare(progress=False, out=str(tmp_path), **{**TINY, "protocols": "local"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.csv", "summary.csv"]


def test_plot_returns_a_figure():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    df = p2b.simulate_compare(progress=False, **TINY)
    fig = df.p2b.plot()
    assert isinstance(fig, matplotlib.figure.Figure)
    assert len(fig.axes) == 1  # one environment
    matplotlib.pyplot.close(fig)


def test_quiet_run_prints_nothing_and_logs_go_to_logging(capfd, caplog):
    with caplog.at_level(logging.INFO, logger="p2b.compare"):
        p2b.simulate_compare(progress=False, **{**TINY, "protocols": "local,p2b"})
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    lines = [r.getMessage() for r in caplog.records if r.name == "p2b.compare"]
    assert any(line.startswith("p2b-sim --protocol compare: N=") for line in lines)
    gap = [line for line in lines if "local-only's late users: largest gap" in line]
    assert gap and float(gap[0].rsplit(" ", 1)[1]) < 1e-12  # common random numbers


def test_progress_reaches_the_end():
    o = p2b.CompareOptions()
    for k, v in {**TINY, "protocols": "local"}.items():
        setattr(o, k, v)
    seen = []
    native = p2b._p2b._run_compare(o, lambda stage, done, total: seen.append((stage, done, total)),
                                   None)
    assert set(native) == {"runs", "summary"}
    assert seen and seen[-1] == ("runs", 2, 2)


def test_old_keywords_warn_and_still_work():
    with pytest.warns(FutureWarning, match="all_tables"):
        tables = p2b.simulate_compare(progress=False, all_tables=True,
                                      **{**TINY, "protocols": "local"})
    assert set(tables) == {"runs", "summary"}
