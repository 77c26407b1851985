"""The agent: decisions and learning match LinUCB's algebra, bad input changes nothing."""

import numpy as np
import pytest

import p2b
from conftest import ACTIONS, DIM, STATE_KEY, contexts


def play(agent, xs, seed=1):
    """Decide on each context, reward with a fixed rule; returns (actions, rewards)."""
    rng = np.random.default_rng(seed)
    actions, rewards = [], []
    for x in xs:
        a, d = agent.decide(x)
        r = float(rng.random() < 0.2 + 0.3 * a)
        agent.reward(d, r)
        actions.append(a)
        rewards.append(r)
    return actions, rewards


def test_learning_is_ridge_regression_per_action(make_agent):
    agent = make_agent(ridge_lambda=0.5, alpha=0.7)
    xs = contexts(60)
    actions, rewards = play(agent, xs)
    a_mat, b_vec = agent.export_stats()
    assert a_mat.shape == (ACTIONS, DIM, DIM) and b_vec.shape == (ACTIONS, DIM)
    for k in range(ACTIONS):
        rows = [i for i, a in enumerate(actions) if a == k]
        X = xs[rows].astype(np.float64)
        y = np.array([rewards[i] for i in rows])
        np.testing.assert_allclose(a_mat[k], 0.5 * np.eye(DIM) + X.T @ X, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(b_vec[k], X.T @ y, rtol=1e-4, atol=1e-5)
    # scores are theta.x and sqrt(x^T A^-1 x); LinUCB adds alpha * width
    x = contexts(1, seed=9)[0].astype(np.float64)
    mean, width = agent.scores(x.astype(np.float32))
    assert mean.dtype == np.float32 and width.shape == (ACTIONS,)
    for k in range(ACTIONS):
        theta = np.linalg.solve(a_mat[k], b_vec[k])
        assert mean[k] == pytest.approx(theta @ x, abs=1e-4)
        assert width[k] == pytest.approx(np.sqrt(x @ np.linalg.solve(a_mat[k], x)), abs=1e-4)
    # LinUCB picks the highest upper bound
    a, _ = agent.decide(x.astype(np.float32))
    assert a == int(np.argmax(mean + 0.7 * width))


def test_same_seed_same_decisions(make_agent):
    xs = contexts(80)
    first = play(make_agent(policy="lints", seed=11), xs)
    second = play(make_agent(policy="lints", seed=11), xs)
    assert first == second


@pytest.mark.parametrize(
    "bad, exc",
    [
        (lambda a, x: a.decide(x.astype(np.float64)), TypeError),
        (lambda a, x: a.decide(list(x)), TypeError),
        (lambda a, x: a.decide(x.reshape(1, DIM)), ValueError),
        (lambda a, x: a.decide(x[:-1]), p2b.DimensionMismatchError),
        (lambda a, x: a.decide(np.full(DIM, np.inf, dtype=np.float32)), p2b.NonFiniteError),
        (lambda a, x: a.learn(x, 0, -0.1), p2b.RewardOutOfRangeError),
        (lambda a, x: a.learn(np.zeros(DIM + 2, dtype=np.float32), 0, 1.0),
         p2b.DimensionMismatchError),
        (lambda a, x: a.reward(999, 1.0), p2b.UnknownDecisionError),
        (lambda a, x: a.restore(b"\x00" * 40, STATE_KEY), p2b.P2BError),
        (lambda a, x: a.save(b"short"), ValueError),
        (lambda a, x: a.import_stats(np.zeros((ACTIONS, DIM, DIM)), np.zeros((ACTIONS, DIM))),
         p2b.NotPositiveDefiniteError),
    ],
)
def test_bad_input_raises_and_changes_nothing(make_agent, bad, exc):
    agent = make_agent()
    play(agent, contexts(30))
    before = agent.save(STATE_KEY)
    assert agent.save(STATE_KEY) == before  # the comparison below means something
    with pytest.raises(exc):
        bad(agent, contexts(1, seed=5)[0])
    assert agent.save(STATE_KEY) == before


def test_non_contiguous_context_is_accepted(make_agent):
    a1, a2 = make_agent(), make_agent()
    wide = np.repeat(contexts(1)[0], 2)  # every other value is the context
    assert a1.decide(wide[::2]) == a2.decide(np.ascontiguousarray(wide[::2]))


def test_save_restore_round_trip(make_agent):
    agent = make_agent()
    play(agent, contexts(40))
    state = agent.save(STATE_KEY)
    sealed = agent.save_encrypted(STATE_KEY)
    assert len(sealed) == len(state) + p2b.STATE_ENCRYPTION_OVERHEAD
    x = contexts(1, seed=3)[0]
    for restore, blob in (("restore", state), ("restore_encrypted", sealed)):
        fresh = make_agent()
        getattr(fresh, restore)(blob, STATE_KEY)
        assert fresh.save(STATE_KEY) == state
        np.testing.assert_array_equal(fresh.scores(x)[0], agent.scores(x)[0])
    wrong = bytes(32)
    with pytest.raises(p2b.CorruptStateError):
        make_agent().restore(state, wrong)
    with pytest.raises(p2b.CorruptStateError):
        make_agent().restore_encrypted(sealed, wrong)
    tampered = bytearray(state)
    tampered[len(tampered) // 2] ^= 1
    with pytest.raises(p2b.CorruptStateError):
        make_agent().restore(bytes(tampered), STATE_KEY)


def test_forget_resets_the_statistics(make_agent):
    agent = make_agent(ridge_lambda=2.0)
    play(agent, contexts(20))
    agent.forget()
    a_mat, b_vec = agent.export_stats()
    np.testing.assert_allclose(a_mat, np.broadcast_to(2.0 * np.eye(DIM), a_mat.shape))
    assert not b_vec.any()


def test_privacy_figures(make_agent):
    agent = make_agent(window=5, participation=0.5, epsilon_budget=10.0)
    play(agent, contexts(50))
    f = agent.privacy()
    assert f["windows_closed"] == 10
    assert f["epsilon_per_report"] == pytest.approx(p2b.epsilon_per_report(0.5))
    assert f["epsilon_spent"] == pytest.approx(f["reports"] * f["epsilon_per_report"])
    assert f["epsilon_budget"] == 10.0 and not f["exhausted"]
    assert agent.footprint > 0 and agent.config["window"] == 5


def test_codes_and_centroids(make_agent, codebook):
    agent = make_agent()
    for x in contexts(10):
        code = agent.encode(x)
        # the nearest centroid (the agent encodes after rounding to q digits)
        assert 0 <= code < codebook.shape[0]
        np.testing.assert_array_equal(agent.centroid(code), codebook[code])
