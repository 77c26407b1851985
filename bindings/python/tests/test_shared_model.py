"""The shared-parameter model: one ridge theta over per-item contexts."""

import numpy as np
import pytest

import p2b

D, ITEMS = 5, 6
KEY = bytes(range(32))


def items(seed):
    return np.random.default_rng(seed).random((ITEMS, D))


def test_learning_is_one_ridge_regression():
    m = p2b.SharedModel(D, ITEMS, ridge_lambda=0.5, alpha=0.3, seed=1)
    chosen, rewards = [], []
    for t in range(40):
        x = items(t)
        i, d = m.decide(x)
        r = float(i % 2)
        m.reward(d, r)
        chosen.append(x[i])
        rewards.append(r)
    X, y = np.array(chosen), np.array(rewards)
    a = 0.5 * np.eye(D) + X.T @ X
    np.testing.assert_allclose(m.theta(), np.linalg.solve(a, X.T @ y), rtol=1e-9, atol=1e-12)
    x = items(99)
    mean, width, total = m.scores(x)
    np.testing.assert_allclose(mean, x @ np.linalg.solve(a, X.T @ y), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(width**2, np.einsum("ij,ij->i", x, np.linalg.solve(a, x.T).T),
                               rtol=1e-9)
    np.testing.assert_allclose(total, mean + 0.3 * width)
    assert m.decide(x)[0] == int(np.argmax(total))


def test_bad_input_and_state_round_trip():
    m = p2b.SharedModel(D, ITEMS, seed=2)
    m.learn(items(0)[0], 1.0)
    before = m.save(KEY)
    with pytest.raises(p2b.ItemCountError):
        m.decide(np.zeros((ITEMS + 1, D)))
    with pytest.raises(p2b.DimensionMismatchError):
        m.decide(np.zeros((ITEMS, D + 1)))
    with pytest.raises(TypeError):
        m.decide(items(1).astype(np.float32))
    with pytest.raises(p2b.RewardOutOfRangeError):
        m.learn(items(0)[0], float("nan"))  # any finite reward up to 1e6 is allowed
    assert m.save(KEY) == before
    fresh = p2b.SharedModel(D, ITEMS, seed=2)
    fresh.restore(before, KEY)
    np.testing.assert_array_equal(fresh.theta(), m.theta())
    with pytest.raises(p2b.CorruptStateError):
        fresh.restore(before, bytes(32))


def test_signed_warm_start(keys):
    m = p2b.SharedModel(D, ITEMS, ridge_lambda=2.0, seed=3,
                        analyzer_verify_key=keys["analyzer.sign.pk"])
    X = items(5)
    y = np.arange(ITEMS, dtype=np.float64) / ITEMS
    gram, moment = X.T @ X, X.T @ y
    m.apply_model(p2b.sign_shared_model(keys, gram, moment, version=4, ridge_lambda=2.0))
    assert m.model_version() == 4
    np.testing.assert_allclose(m.theta(), np.linalg.solve(2.0 * np.eye(D) + gram, moment),
                               rtol=1e-9)
    other = p2b.sign_shared_model(p2b.keygen(), gram, moment, version=5, ridge_lambda=2.0)
    with pytest.raises(p2b.BadSignatureError):
        m.apply_model(other)
    with pytest.raises(p2b.BadConfigError):  # no verify key configured: refuses all
        p2b.SharedModel(D, ITEMS).apply_model(other)
