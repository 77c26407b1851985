"""Statuses become exceptions with the right class, name and code."""

import re
from pathlib import Path

import numpy as np
import pytest

import p2b
from conftest import DIM, contexts

HEADER = Path(__file__).resolve().parents[3] / "c_api" / "p2b_common.h"


def test_status_table_is_the_headers():
    text = HEADER.read_text()
    body = text[text.index("typedef enum p2b_status") : text.index("} p2b_status;")]
    header = {int(c): n for n, c in re.findall(r"(P2B_[A-Z_]+) = (-?\d+)", body)}
    assert header == p2b.STATUS_NAMES
    for code, name in header.items():
        if code != 0:
            cls = p2b.error_class(code)
            assert issubclass(cls, p2b.P2BError) and cls is not p2b.P2BError
            assert cls(code).name == name


def test_wrong_length_is_dimension_mismatch(make_agent):
    agent = make_agent()
    with pytest.raises(p2b.DimensionMismatchError) as e:
        agent.decide(np.ones(DIM + 1, dtype=np.float32))
    assert e.value.status == -3
    assert e.value.name == "P2B_ERR_DIMENSION_MISMATCH"
    assert p2b.status_str(-3) in str(e.value)
    assert isinstance(e.value, p2b.P2BError)


@pytest.mark.parametrize(
    "call, cls",
    [
        (lambda a, x: a.decide(np.full(DIM, np.nan, dtype=np.float32)), p2b.NonFiniteError),
        (lambda a, x: a.decide(-x), p2b.NegativeContextError),
        (lambda a, x: a.reward(a.decide(x)[1], 1.5), p2b.RewardOutOfRangeError),
        (lambda a, x: a.reward(12345, 1.0), p2b.UnknownDecisionError),
        (lambda a, x: a.learn(x, 99, 1.0), p2b.ActionOutOfRangeError),
        (lambda a, x: a.centroid(10_000), p2b.CodeOutOfRangeError),
    ],
)
def test_each_status_has_its_class(make_agent, call, cls):
    agent = make_agent()
    x = contexts(1)[0]
    with pytest.raises(cls) as e:
        call(agent, x)
    assert p2b.STATUS_NAMES[e.value.status] == e.value.name == cls(e.value.status).name


def test_rewarding_twice(make_agent):
    agent = make_agent()
    _, d = agent.decide(contexts(1)[0])
    agent.reward(d, 0.5)
    with pytest.raises(p2b.AlreadyRewardedError):
        agent.reward(d, 0.5)


def test_bad_config(keys, codebook):
    with pytest.raises(p2b.BadConfigError) as e:
        p2b.Agent(codebook, 3, participation=1.5, **keys.agent_keys())
    assert e.value.status == -2
    with pytest.raises(p2b.BadConfigError):
        p2b.Agent(codebook, 0, **keys.agent_keys())
    with pytest.raises(ValueError):
        p2b.Agent(codebook, 3, policy="greedy", **keys.agent_keys())


def test_epsilon_per_report_matches_formula():
    for p in (0.1, 0.5, 0.9):
        expected = np.log(p * (2 - p) / (1 - p) + (1 - p))
        assert p2b.epsilon_per_report(p) == pytest.approx(expected, rel=1e-12)
    with pytest.raises(p2b.BadConfigError):
        p2b.epsilon_per_report(1.0)
