"""A misspelt keyword names itself and the likely intent; the classes stay the compiled ones."""

import warnings

import numpy as np
import pytest

import p2b
from p2b import _p2b


def test_agent_suggests_the_keyword(keys, codebook):
    with pytest.raises(TypeError) as e:
        p2b.Agent(codebook, n_action=3, **keys.agent_keys())
    assert str(e.value) == (
        "Agent() got an unexpected keyword argument 'n_action'; did you mean 'n_actions'?"
    )


def test_no_suggestion_when_nothing_is_close(keys, codebook):
    with pytest.raises(TypeError) as e:
        p2b.Agent(codebook, 3, zzz=1, **keys.agent_keys())
    assert str(e.value) == "Agent() got an unexpected keyword argument 'zzz'"


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: p2b.SharedModel(4, 2, ridge_lamda=1.0), "SharedModel() got an unexpected "
         "keyword argument 'ridge_lamda'; did you mean 'ridge_lambda'?"),
        (lambda: p2b.CmabAgent(np.ones(2), np.ones(2, dtype=int), max_peer=2),
         "CmabAgent() got an unexpected keyword argument 'max_peer'; did you mean 'max_peers'?"),
    ],
)
def test_other_classes_suggest_too(make, message):
    with pytest.raises(TypeError) as e:
        make()
    assert str(e.value) == message


def test_every_keyword_is_known():
    # the names are read from pybind11's signature line: a change there must
    # not leave a class accepting nothing
    assert "n_actions" in p2b.Agent._keywords and "seed" in p2b.Agent._keywords
    assert "self" not in p2b.Agent._keywords
    assert set(p2b.SharedModel._keywords) >= {"dim", "max_items", "tie_rel_tol", "precision"}
    assert set(p2b.CmabAgent._keywords) >= {"cost", "capacity", "omega1", "max_peers"}


def test_the_classes_are_the_compiled_ones(make_agent):
    agent = make_agent()
    assert isinstance(agent, p2b.Agent) and isinstance(agent, _p2b.Agent)
    assert p2b.Agent.__doc__ == _p2b.Agent.__doc__


def test_codebook_keywords_are_the_cli_flags():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no deprecation on the new names
        a = p2b.train_codebook(3, 4, seed=1, no_refine=True, max_no_improvement=5, progress=False)
    with pytest.warns(DeprecationWarning, match="no_refine"):
        b = p2b.train_codebook(3, 4, seed=1, refine=False, progress=False)
    np.testing.assert_array_equal(a["centroids"], b["centroids"])
