"""A bad constructor value raises BadConfigError naming the field and its range."""

import numpy as np
import pytest

import p2b
from conftest import DIM

AGENT_FIELDS = [
    ("n_actions", 0, "n_actions = 0: must be in [1, {MAX_ACTIONS}]"),
    ("n_actions", 10_000, "n_actions = 10000: must be in [1, {MAX_ACTIONS}]"),
    ("alpha", -1.0, "alpha = -1.0: must be in [0, 1e6]"),
    ("alpha", float("nan"), "alpha = nan: must be in [0, 1e6]"),
    ("ridge_lambda", 0.0, "ridge_lambda = 0.0: must be in [1e-6, 1e6]"),
    ("ts_scale", float("inf"), "ts_scale = inf: must be in [0, 1e6]"),
    ("round_digits", 0, "round_digits = 0: must be in [1, "),
    ("window", 0, "window = 0: must be in [1, "),
    ("participation", 1.0, "participation = 1.0: must be in (0, 1)"),
    ("participation", 0.0, "participation = 0.0: must be in (0, 1)"),
    ("neg_rate", 1.5, "neg_rate = 1.5: must be in [0, 1]"),
    ("epsilon_budget", 0.0, "epsilon_budget = 0.0: must be > 0 (inf: unlimited)"),
    ("pending_capacity", 0, "pending_capacity = 0: must be in [1, "),
    ("outbox_capacity", 0, "outbox_capacity = 0: must be in [1, "),
    ("policy", "greedy", "policy = 'greedy': must be 'linucb' or 'lints'"),
]


def expected(text):
    return text.replace("{MAX_ACTIONS}", str(p2b.MAX_ACTIONS))


@pytest.mark.parametrize("field, value, message", AGENT_FIELDS)
def test_agent_names_the_field(keys, codebook, field, value, message):
    kw = {"n_actions": 3, field: value}
    with pytest.raises(p2b.BadConfigError) as e:
        p2b.Agent(codebook, **kw, **keys.agent_keys())
    assert expected(message) in str(e.value)
    assert e.value.status == -2 and e.value.name == "P2B_ERR_BAD_CONFIG"
    assert isinstance(e.value, ValueError)  # BadConfigError is a ValueError too


def test_agent_names_the_codebook_shape(keys):
    wide = np.full((4, p2b.MAX_DIM + 1), 0.1, dtype=np.float32)
    with pytest.raises(p2b.BadConfigError, match=r"dim \(the centroids' columns\) = "):
        p2b.Agent(wide, 3, **keys.agent_keys())


def test_infinite_budget_is_allowed(make_agent):
    assert make_agent(epsilon_budget=float("inf")).privacy()["epsilon_budget"] == float("inf")


SHARED_FIELDS = [
    ("dim", 0, "dim = 0: must be in [1, "),
    ("max_items", 0, "max_items = 0: must be in [1, "),
    ("alpha", 2e6, "alpha = 2000000.0: must be in [0, 1e6]"),
    ("ridge_lambda", 1e-9, "ridge_lambda = 1e-09: must be in [1e-6, 1e6]"),
    ("ts_scale", -0.1, "ts_scale = -0.1: must be in [0, 1e6]"),
    ("tie_rel_tol", 0.5, "tie_rel_tol = 0.5: must be in [0, 0.01]"),
    ("pending_capacity", 0, "pending_capacity = 0: must be in [1, "),
    ("precision", "f16", "precision = 'f16': must be 'f64' or 'f32'"),
]


@pytest.mark.parametrize("field, value, message", SHARED_FIELDS)
def test_shared_model_names_the_field(field, value, message):
    kw = {"dim": DIM, "max_items": 4, field: value}
    with pytest.raises(p2b.BadConfigError) as e:
        p2b.SharedModel(**kw)
    assert message in str(e.value)


COST = np.array([0.1, 0.2])
CAPACITY = np.array([5, 5])

CMAB_FIELDS = [
    ("capacity", np.array([5, 0]), "capacity[1] = 0: must be in [1, "),
    ("cost", np.array([0.1, np.inf]), "cost[1] = inf: must be in [-1e6, 1e6]"),
    ("public_max_capacity", 3, "public_max_capacity = 3: must be in [5, "),
    ("rho", 0.0, "rho = 0.0: must be in (0, 1e6]"),
    ("alpha", 1.5, "alpha = 1.5: must be in [0, 1]"),
    ("quality_margin", -0.1, "quality_margin = -0.1: must be in [0, 1]"),
    ("ucb_scale", -1.0, "ucb_scale = -1.0: must be in [0, 1e6]"),
    ("horizon", 1, "horizon = 1: must be >= 2"),
    ("window_start", 0, "window_start = 0: must be >= 1"),
    ("window_stop", 5, "window_stop = 5: must be >= 200"),
    ("epsilon", -1.0, "epsilon = -1.0: must be >= 0 (inf: exact counts)"),
    ("delta", 1.0, "delta = 1.0: must be in (0, 1)"),
    ("delta_target", 0.0, "delta_target = 0.0: must be in (0, 1)"),
    ("omega1", float("nan"), "omega1 = nan: must be >= 0 (inf: accept all)"),
    ("omega2", 0.0, "omega2 = 0.0: must be in (0, 1e6]"),
    ("agents", 0, "agents = 0: must be >= 1"),
    ("max_peers", 0, "max_peers = 0: must be in [1, "),
    ("schedule", "weekly", "schedule = 'weekly': must be 'paper', 'aligned' or 'every_round'"),
    ("log_base", "10", "log_base = '10': must be '2' or 'e'"),
]


@pytest.mark.parametrize("field, value, message", CMAB_FIELDS)
def test_cmab_agent_names_the_field(field, value, message):
    kw = {"cost": COST, "capacity": CAPACITY, field: value}
    with pytest.raises(p2b.BadConfigError) as e:
        p2b.CmabAgent(**kw)
    assert message in str(e.value)
