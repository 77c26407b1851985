"""Shared fixtures: one deployment's keys, a small codebook and agents on them."""

import numpy as np
import pytest

import p2b

DIM = 4
ACTIONS = 3
STATE_KEY = bytes(range(32))


@pytest.fixture(scope="session")
def keys():
    return p2b.keygen()


@pytest.fixture(scope="session")
def codebook():
    return p2b.train_codebook(DIM, 16, seed=3)["centroids"]


@pytest.fixture
def make_agent(keys, codebook):
    def make(**kw):
        kw.setdefault("seed", 7)
        return p2b.Agent(codebook, ACTIONS, **keys.agent_keys(), **kw)

    return make


def contexts(n, seed=0):
    """n contexts on the simplex, float32, as the agent expects."""
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.ones(DIM), size=n).astype(np.float32)
