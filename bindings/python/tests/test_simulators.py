"""Each protocol's simulator returns a table with its columns, the same under a seed."""

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
