"""The P-FCB agent: procurement, observation, shares between agents."""

import numpy as np
import pytest

import p2b

COST = np.array([0.1, 0.2, 0.3, 0.4])
CAPACITY = np.array([5, 5, 5, 5])
QUALITY = np.array([0.9, 0.7, 0.5, 0.3])


def make(seed, **kw):
    kw.setdefault("schedule", "every_round")
    kw.setdefault("window_start", 1)
    kw.setdefault("window_stop", 1000)
    return p2b.CmabAgent(COST, CAPACITY, seed=seed, max_peers=2, agents=2, **kw)


def play(agent, rounds, rng):
    seen = np.zeros(len(COST))
    good_total = np.zeros(len(COST))
    for _ in range(rounds):
        units = agent.decide()
        assert units.dtype == np.uint32 and (units <= CAPACITY).all()
        good = rng.binomial(units, QUALITY)
        agent.observe(good)
        seen += units
        good_total += good
    return seen, good_total


def test_estimates_are_the_counts():
    agent = make(1)
    seen, good = play(agent, 30, np.random.default_rng(0))
    units_seen, quality = agent.estimates()
    np.testing.assert_array_equal(units_seen, seen)
    np.testing.assert_allclose(quality, good / np.maximum(seen, 1), rtol=1e-12)


def test_round_protocol_is_enforced():
    agent = make(2)
    with pytest.raises(p2b.UnknownDecisionError):
        agent.observe(np.zeros(4, dtype=np.int64))
    units = agent.decide()
    with pytest.raises(p2b.RewardOutOfRangeError):
        agent.observe(units.astype(np.int64) + 1)
    with pytest.raises(p2b.DimensionMismatchError):
        agent.observe(np.zeros(3, dtype=np.int64))
    with pytest.raises(TypeError):
        agent.observe(np.zeros(4))  # float counts
    agent.observe(units)  # the round can still end


def test_shares_move_between_agents():
    a, b = make(3), make(4)
    play(a, 20, np.random.default_rng(1))
    share = a.poll_share()
    assert share is not None and a.poll_share() is None  # handed out once
    accepted, rejected = b.apply_share(0, share)
    assert accepted + rejected == len(COST)
    f = a.privacy()
    assert f["releases"] >= 1 and 0 < f["paper_epsilon"] <= 1.0 + 1e-12


def test_same_seed_same_units():
    runs = [play(make(5), 25, np.random.default_rng(2)) for _ in range(2)]
    np.testing.assert_array_equal(runs[0][0], runs[1][0])


def test_bad_config():
    with pytest.raises(ValueError):
        p2b.CmabAgent(COST, CAPACITY[:3])
    with pytest.raises(p2b.BadConfigError):
        p2b.CmabAgent(COST, np.zeros(4, dtype=np.int64))  # capacity 0


def test_a_restart_keeps_the_ledger_and_the_replay_counters():
    key = bytes(range(32))
    a, b = make(6), make(7)
    play(a, 12, np.random.default_rng(3))
    share = a.poll_share()
    assert share is not None
    b.apply_share(1, share)
    spent = b.privacy()
    state = b.save(key)
    assert len(state) == 296 + 56 * len(COST) + 4 * 2

    restarted = make(7)
    assert restarted.privacy()["releases"] == 0
    restarted.restore(state, key)
    assert restarted.privacy() == spent
    assert spent["vector_mu"] == pytest.approx(spent["element_mu"] * 2.0)
    with pytest.raises(p2b.ReplayedError):
        restarted.apply_share(1, share)
    # The two go on identically.
    rng_b, rng_r = np.random.default_rng(9), np.random.default_rng(9)
    np.testing.assert_array_equal(play(b, 15, rng_b)[0], play(restarted, 15, rng_r)[0])
    assert restarted.save(key) == b.save(key)


def test_a_restore_refuses_other_keys_edits_and_configurations():
    key = bytes(32)
    agent = make(8)
    play(agent, 5, np.random.default_rng(4))
    state = agent.save(key)
    fresh = make(8)
    before = fresh.save(key)
    with pytest.raises(p2b.CorruptStateError):
        fresh.restore(state, bytes([1]) * 32)
    edited = bytearray(state)
    edited[200] ^= 1
    with pytest.raises(p2b.CorruptStateError):
        fresh.restore(bytes(edited), key)
    with pytest.raises(p2b.StateMismatchError):
        make(8, alpha=0.5).restore(state, key)
    with pytest.raises(ValueError):
        fresh.restore(state, b"short key")
    assert fresh.save(key) == before
