"""decide_many: n decisions in one call, the same as n calls of decide."""

import numpy as np
import pytest

import p2b
from conftest import DIM, STATE_KEY, contexts


@pytest.mark.parametrize("policy", ["linucb", "lints"])
def test_same_as_decide_row_by_row(make_agent, policy):
    xs = contexts(50, seed=4)
    one_by_one = make_agent(policy=policy, seed=21)
    batch = make_agent(policy=policy, seed=21)
    # some learning first, so the decisions depend on the statistics
    for i, x in enumerate(contexts(20, seed=5)):
        for agent in (one_by_one, batch):
            agent.learn(x, i % 3, float(i % 2))
    expected = [one_by_one.decide(x) for x in xs]
    actions, ids = batch.decide_many(xs)
    assert actions.dtype == np.uint32 and ids.dtype == np.uint64
    assert actions.shape == ids.shape == (len(xs),)
    assert [(int(a), int(d)) for a, d in zip(actions, ids)] == expected
    assert batch.save(STATE_KEY) == one_by_one.save(STATE_KEY)
    # the ids are decide's: each can be rewarded once
    batch.reward(int(ids[-1]), 1.0)
    with pytest.raises(p2b.AlreadyRewardedError):
        batch.reward(int(ids[-1]), 1.0)


def test_float64_is_converted(make_agent):
    xs = contexts(10, seed=6)
    a32, _ = make_agent(seed=3).decide_many(xs)
    a64, _ = make_agent(seed=3).decide_many(xs.astype(np.float64))
    np.testing.assert_array_equal(a32, a64)


def test_no_rows_no_decisions(make_agent):
    actions, ids = make_agent().decide_many(np.zeros((0, DIM), dtype=np.float32))
    assert actions.shape == ids.shape == (0,)


@pytest.mark.parametrize(
    "contexts_of, exc, words",
    [
        (lambda xs: xs[0], ValueError, f"expected shape (n, {DIM}), got ({DIM},)"),
        (lambda xs: xs[:, :-1], ValueError, f"expected shape (n, {DIM}), got (5, {DIM - 1})"),
        (lambda xs: xs.reshape(5, DIM, 1), ValueError, "expected shape"),
        (lambda xs: xs.astype(np.int32), TypeError, "float32 or float64"),
        (lambda xs: xs.tolist(), TypeError, "numpy"),
    ],
)
def test_wrong_shape_or_dtype_is_refused(make_agent, contexts_of, exc, words):
    with pytest.raises(exc) as e:
        make_agent().decide_many(contexts_of(contexts(5)))
    assert words in str(e.value)


@pytest.mark.parametrize(
    "value, exc, words",
    [(np.nan, p2b.NonFiniteError, "contexts[3, 2] = nan"),
     (-0.5, p2b.NegativeContextError, "contexts[3, 2] = -0.5")],
)
def test_a_bad_row_raises_before_any_decision(make_agent, value, exc, words):
    agent = make_agent()
    before = agent.save(STATE_KEY)
    xs = contexts(6)
    xs[3, 2] = value
    with pytest.raises(exc) as e:
        agent.decide_many(xs)
    assert words in str(e.value)
    assert agent.save(STATE_KEY) == before


def test_shared_model_same_as_decide_in_order():
    rng = np.random.default_rng(8)
    batch = rng.random((30, 6, 5))
    one_by_one = p2b.SharedModel(5, 6, policy="lints", seed=4)
    many = p2b.SharedModel(5, 6, policy="lints", seed=4)
    for x in rng.random((10, 5)):  # the same history for both
        one_by_one.learn(x, 1.0)
        many.learn(x, 1.0)
    expected = [one_by_one.decide(x) for x in batch]
    items, ids = many.decide_many(batch)
    assert items.dtype == np.uint32 and ids.dtype == np.uint64
    assert [(int(i), int(d)) for i, d in zip(items, ids)] == expected
    assert many.save(STATE_KEY) == one_by_one.save(STATE_KEY)


@pytest.mark.parametrize(
    "edit, exc, words",
    [
        (lambda b: b[:, :, :-1], ValueError, "expected shape (n, n_items, 5)"),
        (lambda b: np.concatenate([b, b], axis=1), p2b.ItemCountError, "must be in [1, 6]"),
        (lambda b: np.where(np.arange(5) == 2, np.inf, b), p2b.NonFiniteError,
         "items[0, 0, 2] = inf"),
        (lambda b: np.where(np.arange(5) == 1, 2e6, b), p2b.NumericRangeError,
         "items[0, 0, 1] = 2000000.0"),
    ],
)
def test_shared_model_bad_batch_changes_nothing(edit, exc, words):
    m = p2b.SharedModel(5, 6, seed=4)
    before = m.save(STATE_KEY)
    with pytest.raises(exc) as e:
        m.decide_many(edit(np.random.default_rng(1).random((3, 6, 5))))
    assert words in str(e.value)
    assert m.save(STATE_KEY) == before
