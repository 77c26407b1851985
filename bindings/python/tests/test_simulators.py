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
    kw = dict(users=400, actions=4, dims=4, codes=16, interactions=5, modes=["paper", "default"],
              seed=3, threads=1)
    t = p2b.simulate_p2b(**kw)
    assert isinstance(t, p2b.Table) and t.n_rows == 2
    for col in ("mode", "users", "cold", "warm_nonprivate", "warm_private", "oracle",
                "best_fixed_arm", "reports", "kept", "codes_released", "epsilon_per_user"):
        assert col in t.columns, col
    assert list(t["mode"]) == ["paper", "default"]
    assert list(t["mapping"]) == ["linear", "softmax"]
    assert (t["reports"] > 0).all() and (t["kept"] <= t["reports"]).all()
    assert (t["oracle"] >= t["cold"]).all()
    # at most one report per user: epsilon(p) per window closed
    assert (t["epsilon_per_user"] > 0).all()
    assert_same(t, p2b.simulate_p2b(**kw))
    assert not np.array_equal(t["cold"], p2b.simulate_p2b(**{**kw, "seed": 4})["cold"])


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
    kw = dict(env="multilabel", data=str(data), users=60, dims=4, codes=8, interactions=3,
              modes=["paper", "default"], seed=5, threads=1, actions=[7, 9])
    t = p2b.simulate_p2b(**kw)
    assert t.n_rows == 2  # the actions list is ignored: the labels are the actions
    assert list(t["env"]) == ["multilabel", "multilabel"]
    assert (t["actions"] == 3).all()
    # The majority label is a fixed arm: never above the best fixed arm in hindsight.
    assert ((t["majority_label"] > 0) & (t["majority_label"] <= t["best_fixed_arm"])).all()
    assert (t["oracle"] >= t["cold"]).all()
    assert_same(t, p2b.simulate_p2b(**kw))
    with pytest.raises(ValueError):
        p2b.simulate_p2b(env="multilabel")  # no data
    bad = tmp_path / "bad.arff"
    bad.write_text("@relation nothing\n@data\n")
    with pytest.raises(ValueError):
        p2b.simulate_p2b(**{**kw, "data": str(bad)})
    with pytest.raises(ValueError):
        p2b.simulate_p2b(**{**kw, "env": "tabular"})


def test_vertical():
    t = p2b.simulate_vertical(seed=2)
    for col in ("series", "columns", "regret", "bytes_per_party"):
        assert col in t.columns, col
    regret = dict(zip(t["series"], t["regret"]))
    assert "central" in regret and "federated" in regret
    assert_same(t, p2b.simulate_vertical(seed=2))


def test_fclub():
    t = p2b.simulate_fclub(rounds=1000, seed=2)
    assert "algorithm" in t.columns
    assert set(t["algorithm"]) == {"linucb-ind", "fclub-dc", "cdp-fclub-dc"}
    assert_same(t, p2b.simulate_fclub(rounds=1000, seed=2))


def test_pfcb():
    tables = p2b.simulate_pfcb(all_tables=True, seed=2)
    assert {"summary", "runs", "curves"} <= set(tables)
    s = tables["summary"]
    for col in ("dist", "algorithm", "epsilon", "regret_mean", "postings_sent"):
        assert col in s.columns, col
    assert set(s["algorithm"]) == {"nf", "fcb", "pfcb"}
    assert_same(s, p2b.simulate_pfcb(seed=2))


def test_compare_and_pandas():
    t = p2b.simulate_compare(seed=2)
    for col in ("env", "protocol", "knob", "reward_all", "epsilon"):
        assert col in t.columns, col
    assert {"local", "pooled", "p2b"} <= set(t["protocol"])
    df = p2b.simulate_compare(seed=2, as_pandas=True)
    assert list(df.columns) == t.columns and len(df) == t.n_rows


def test_bad_option_fails():
    with pytest.raises(RuntimeError, match="exit 2"):
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
    row = p2b.simulate_p2b(users=10_000, actions=10, dims=10, codes=1024, modes="default",
                           mapping="linear", crypto=False, seed=1).row(0)
    cells = results_md_row("default", 10, 10_000)
    for i, name in enumerate(("cold", "warm_nonprivate", "warm_private", "best_fixed_arm",
                              "oracle"), start=3):
        assert f"{row[name]:.5f}" == cells[i].rstrip("*"), name
    assert f"{row['reports']:,}" == cells[10]
    assert f"{row['kept']:,}" == cells[11]
    assert str(row["codes_released"]) == cells[12]
