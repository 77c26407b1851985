"""Envelopes open with the deployment's keys; signed models apply, edited ones do not."""

import numpy as np
import pytest

import p2b
from conftest import ACTIONS, DIM, STATE_KEY, contexts


def test_envelope_carries_the_reported_tuple(make_agent, keys):
    # One interaction per window and no fake zero-reward reports, so every
    # report is the round just played.
    agent = make_agent(window=1, participation=0.9, neg_rate=0.0, outbox_capacity=1)
    opened = 0
    for i, x in enumerate(contexts(40, seed=2)):
        action, d = agent.decide(x)
        reward = float(i % 2)
        agent.reward(d, reward)
        env = agent.poll_envelope()
        if env is None:
            continue
        assert len(env) == p2b.ENVELOPE_BYTES
        t = p2b.open_envelope(env, keys)
        assert (t["code"], t["action"], t["reward"]) == (agent.encode(x), action, reward)
        assert t["crowd_id"] >= 0
        opened += 1
        assert agent.poll_envelope() is None
    assert opened > 20  # p = 0.9 of 40 rounds
    assert agent.privacy()["reports"] == opened


def test_other_keys_cannot_open(make_agent):
    agent = make_agent(window=1, participation=0.9, neg_rate=0.0)
    env = None
    for x in contexts(20):
        agent.reward(agent.decide(x)[1], 1.0)
        env = env or agent.poll_envelope()
    assert env is not None
    with pytest.raises(ValueError, match="outer layer"):
        p2b.open_envelope(env, p2b.keygen())
    with pytest.raises(ValueError):
        p2b.open_envelope(env[:-1], p2b.keygen())


def spd_model(seed=0):
    rng = np.random.default_rng(seed)
    m = rng.random((ACTIONS, DIM, DIM))
    a = np.einsum("kij,klj->kil", m, m) + np.eye(DIM)
    b = rng.random((ACTIONS, DIM))
    return a, b


def test_signed_model_applies(make_agent, keys):
    agent = make_agent()
    a, b = spd_model()
    bundle = p2b.sign_model(agent, keys, a, b, version=3)
    agent.apply_model(bundle)
    assert agent.model_version() == 3
    got_a, got_b = agent.export_stats()
    np.testing.assert_allclose(got_a, a, rtol=1e-5)
    np.testing.assert_allclose(got_b, b, rtol=1e-5)
    with pytest.raises(p2b.ModelRollbackError):
        agent.apply_model(bundle)


def test_edited_or_foreign_model_is_refused(make_agent, keys):
    agent = make_agent()
    agent.reward(agent.decide(contexts(1)[0])[1], 1.0)
    before = agent.save(STATE_KEY)
    a, b = spd_model()
    bundle = bytearray(p2b.sign_model(agent, keys, a, b, version=1))
    bundle[len(bundle) // 2] ^= 0x10
    with pytest.raises(p2b.P2BError) as e:
        agent.apply_model(bytes(bundle))
    assert e.value.name in ("P2B_ERR_BAD_SIGNATURE", "P2B_ERR_MALFORMED_INPUT")
    with pytest.raises(p2b.BadSignatureError):  # signed by another analyzer
        agent.apply_model(p2b.sign_model(agent, p2b.keygen(), a, b, version=1))
    with pytest.raises(p2b.ModelExpiredError):
        agent.apply_model(p2b.sign_model(agent, keys, a, b, version=1, not_after_unix=10), now=20)
    assert agent.save(STATE_KEY) == before
    assert agent.model_version() == 0


def test_budget_stops_reports(make_agent):
    eps = p2b.epsilon_per_report(0.9)
    agent = make_agent(window=1, participation=0.9, epsilon_budget=2.5 * eps)
    sent = 0
    for x in contexts(60, seed=4):
        agent.reward(agent.decide(x)[1], 1.0)
        while agent.poll_envelope() is not None:
            sent += 1
    f = agent.privacy()
    assert sent == f["reports"] == 2  # a third report would overspend
    assert f["exhausted"] and f["epsilon_spent"] == pytest.approx(2 * eps)
