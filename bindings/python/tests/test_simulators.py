"""Each protocol's simulator returns a table with its columns, the same under a seed."""

from pathlib import Path

import numpy as np
import pytest

import p2b


def assert_same(t1, t2, skip=("seconds", "_us", "us_per_round")):
    """Equal tables but for the timing columns."""
    assert t1.columns == t2.columns
    for name in t1.columns:
        if any(s in name for s in skip):
            continue
        a, b = t1[name], t2[name]
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b, err_msg=name)
        else:
            assert a == b, name


def test_p2b():
    kw = dict(users=400, actions=4, dim=4, codes=16, interactions=5, mode=["paper", "default"],
              seed=3, threads=1, progress=False)
    df = p2b.simulate_p2b(**kw)
    assert len(df) == 2
    for col in ("mode", "users", "cold", "warm_nonprivate", "warm_private", "oracle",
                "best_fixed_arm", "reports", "kept", "codes_released", "epsilon_per_user",
                "early", "model_bundle_bytes"):
        assert col in df.columns, col
    assert list(df["mode"]) == ["paper", "default"]
    assert list(df["mapping"]) == ["linear", "softmax"]
    assert (df["reports"] > 0).all() and (df["kept"] <= df["reports"]).all()
    assert (df["oracle"] >= df["cold"]).all()
    # at most one report per user: epsilon(p) per window closed
    assert (df["epsilon_per_user"] > 0).all()
    assert_same_frame(df, p2b.simulate_p2b(**kw))
    assert not np.array_equal(df["cold"], p2b.simulate_p2b(**{**kw, "seed": 4})["cold"])


def assert_same_frame(a, b, skip=("seconds", "peak_rss_mb")):
    """Equal DataFrames but for the timing and memory columns."""
    assert list(a.columns) == list(b.columns)
    keep = [c for c in a.columns if not any(s in c for s in skip)]
    pd_testing = pytest.importorskip("pandas").testing
    pd_testing.assert_frame_equal(a[keep], b[keep])


def write_multilabel_arff(path, rows=300, seed=0):
    """A small multi-label data set: 5 features, 3 labels that depend on them."""
    rng = np.random.default_rng(seed)
    x = rng.random((rows, 5))
    y = np.stack([x[:, 0] > 0.5, x[:, 1] + x[:, 2] > 1.1, x[:, 4] < 0.2], axis=1).astype(int)
    with open(path, "w") as f:
        f.write("@relation toy\n")
        for i in range(5):
            f.write(f"@attribute f{i} numeric\n")
        for j in range(3):
            f.write(f"@attribute label{j} {{0,1}}\n")
        f.write("@data\n")
        for xi, yi in zip(x, y):
            f.write(",".join(f"{v:.4f}" for v in xi) + "," + ",".join(map(str, yi)) + "\n")


def test_p2b_multilabel(tmp_path):
    data = tmp_path / "toy.arff"
    write_multilabel_arff(data)
    kw = dict(env="multilabel", data=str(data), users=60, dim=4, codes=8, interactions=3,
              mode=["paper", "default"], seed=5, threads=1, actions=[7, 9], progress=False)
    df = p2b.simulate_p2b(**kw)
    assert len(df) == 2  # the actions list is ignored: the labels are the actions
    assert list(df["env"]) == ["multilabel", "multilabel"]
    assert (df["actions"] == 3).all()
    # The majority label is a fixed arm: never above the best fixed arm in hindsight.
    assert ((df["majority_label"] > 0) & (df["majority_label"] <= df["best_fixed_arm"])).all()
    assert (df["oracle"] >= df["cold"]).all()
    assert_same_frame(df, p2b.simulate_p2b(**kw))
    with pytest.raises(ValueError, match="--env multilabel needs --data"):
        p2b.simulate_p2b(env="multilabel", progress=False)  # no data
    bad = tmp_path / "bad.arff"
    bad.write_text("@relation nothing\n@data\n")
    with pytest.raises(ValueError):
        p2b.simulate_p2b(**{**kw, "data": str(bad)})
    with pytest.raises(ValueError, match="--env = tabular"):
        p2b.simulate_p2b(**{**kw, "env": "tabular"})


VERTICAL_SMALL = dict(dim=20, partition=[4, 6, 10], rounds=400, seeds=2, policies="linucb",
                      progress=False)


def test_vertical():
    t = p2b.simulate_vertical(seed=2, **VERTICAL_SMALL)
    for col in ("series", "columns", "regret", "bytes_per_party"):
        assert col in t.columns, col
    regret = dict(zip(t["series"], t["regret"]))
    assert "central" in regret and "federated" in regret
    assert_same_frame(t, p2b.simulate_vertical(seed=2, **VERTICAL_SMALL), skip=("_us",))


FCLUB_SMALL = dict(rounds=1000, seeds=2, every=500, algorithms="linucb-ind,fclub-dc,cdp-fclub-dc",
                   progress=False)


def test_fclub():
    t = p2b.simulate_fclub(seed=2, **FCLUB_SMALL)
    assert "algorithm" in t.columns
    assert set(t["algorithm"]) == {"linucb-ind", "fclub-dc", "cdp-fclub-dc"}
    assert_same_frame(t, p2b.simulate_fclub(seed=2, **FCLUB_SMALL), skip=("us_per_round",))


PFCB_SMALL = dict(producers=6, agents=3, rounds=3000, instances=1, seeds=1, window_start=100,
                  window_stop=2000, algorithms=["nf", "fcb", "pfcb"], epsilons=1, progress=False)


def test_pfcb():
    tables = p2b.simulate_pfcb(tables=True, seed=2, **PFCB_SMALL)
    assert {"summary", "runs", "curves"} <= set(tables)
    s = tables["summary"]
    for col in ("dist", "algorithm", "epsilon", "regret_mean", "postings_sent"):
        assert col in s.columns, col
    assert set(s["algorithm"]) == {"nf", "fcb", "pfcb"}
    assert_same_frame(s, p2b.simulate_pfcb(seed=2, **PFCB_SMALL))


COMPARE_SMALL = dict(envs="synthetic", users=300, interactions=10, dim=4, actions=4, beta=1,
                     mapping="linear", seeds=2, servers=2, participations=[0.5, 0.9], epsilons=1,
                     codes=8, progress=False)


def test_compare():
    df = p2b.simulate_compare(seed=2, **COMPARE_SMALL)
    for col in ("env", "protocol", "knob", "reward_all", "epsilon"):
        assert col in df.columns, col
    assert {"local", "pooled", "p2b"} <= set(df["protocol"])
    assert_same_frame(df, p2b.simulate_compare(seed=2, **COMPARE_SMALL), skip=("seconds",))


def test_bad_option_fails():
    with pytest.raises(ValueError, match="--dist = gamma"):
        p2b.simulate_pfcb(dist="gamma")


def results_md_row(mode, actions, users):
    """The row of docs/results.md's first Fig. 4 table (linear map) for a point."""
    doc = Path(__file__).resolve().parents[3] / "docs" / "results.md"
    text = doc.read_text()
    table = text[text.index("**Linear map**") : text.index("**Softmax map**")]
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[:3] == [mode, str(actions), f"{users:,}"]:
            return cells
    raise AssertionError("no such row in docs/results.md")


def test_fig4_point_matches_results_md():
    # The point examples/python/fig4_point.py prints; seed 1 as in results.md.
    row = p2b.simulate_p2b(users=10_000, actions=10, dim=10, codes=1024, mode="default",
                           mapping="linear", no_crypto=True, seed=1, progress=False).iloc[0]
    cells = results_md_row("default", 10, 10_000)
    for i, name in enumerate(("cold", "warm_nonprivate", "warm_private", "best_fixed_arm",
                              "oracle"), start=3):
        assert f"{row[name]:.5f}" == cells[i].rstrip("*"), name
    assert f"{row['reports']:,}" == cells[10]
    assert f"{row['kept']:,}" == cells[11]
    assert str(row["codes_released"]) == cells[12]
