"""p2b for Python: privacy-preserving on-device contextual bandits.

    import numpy as np, p2b
    keys = p2b.keygen()
    cb = p2b.train_codebook(dim=4, codes=16)["centroids"]
    agent = p2b.Agent(cb, n_actions=3, seed=1, **keys.agent_keys())
    action, decision = agent.decide(np.array([0.1, 0.2, 0.3, 0.4], dtype=np.float32))
    agent.reward(decision, 1.0)
    actions, decisions = agent.decide_many(np.random.dirichlet(np.ones(4), 100))

The package wraps the C library (c_api/p2b.h) and the project's tools:
Agent (the device agent), the codebook trainer, keys and the server-side
envelope and model helpers (for tests), and p2b-sim's simulators, which
return Tables (dicts of numpy columns; .to_pandas()). Every error status of
the C API is raised as a P2BError subclass carrying .status and .name; a
constructor's bad value as BadConfigError (also a ValueError) naming the
field and its range. Native output goes to the logger "p2b" and its
children (p2b.codebook), never to stdout.
docs/python.md is the guide.
"""

import logging as _logging
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _distribution_version

from . import _p2b
from ._p2b import (
    ENVELOPE_BYTES,
    FINGERPRINT_BYTES,
    KEY_BYTES,
    MAX_ACTIONS,
    MAX_CODES,
    MAX_DIM,
    STATE_ENCRYPTION_OVERHEAD,
    STATE_KEY_BYTES,
    encode_codebook,
    epsilon_per_report,
    fingerprint_hex,
    parse_codebook,
    status_str,
    version,
    version_string,
)
from .agents import Agent, CmabAgent, SharedModel
from .codebook import train_codebook
from .errors import (
    STATUS_NAMES,
    P2BError,
    NoReportError,
    BudgetExhaustedError,
    NullPointerError,
    BadConfigError,
    DimensionMismatchError,
    NonFiniteError,
    NegativeContextError,
    RewardOutOfRangeError,
    ActionOutOfRangeError,
    BufferTooSmallError,
    NotInitializedError,
    ArenaTooSmallError,
    ArenaMisalignedError,
    UnknownDecisionError,
    ExpiredDecisionError,
    AlreadyRewardedError,
    CorruptStateError,
    UnsupportedVersionError,
    StateMismatchError,
    NotPositiveDefiniteError,
    BadCodebookError,
    RandomFailureError,
    CodeOutOfRangeError,
    CryptoFailureError,
    MalformedInputError,
    BadSignatureError,
    ModelShapeMismatchError,
    CodebookMismatchError,
    ModelRollbackError,
    NumericRangeError,
    ModelKindError,
    ModelExpiredError,
    KeyListRollbackError,
    KeyListExpiredError,
    KeyRetiredError,
    ItemCountError,
    ReplayedError,
    error_class,
)
from .keys import (
    AgentKeys,
    DeploymentKeys,
    keygen,
    load_keys,
    open_envelope,
    sign_model,
    sign_shared_model,
)
from .simulate import (
    simulate_compare,
    simulate_fclub,
    simulate_p2b,
    simulate_pfcb,
    simulate_vertical,
)
from .sim_p2b import P2BOptions
from .sim_fclub import FclubOptions
from .sim_pfcb import PfcbOptions
from .sim_vertical import VerticalOptions
from .sim_compare import CompareOptions
from .table import Table


__all__ = [
    "__version__",
    "ENVELOPE_BYTES",
    "FINGERPRINT_BYTES",
    "CompareOptions",
    "FclubOptions",
    "KEY_BYTES",
    "MAX_ACTIONS",
    "MAX_CODES",
    "MAX_DIM",
    "STATE_ENCRYPTION_OVERHEAD",
    "STATE_KEY_BYTES",
    "STATUS_NAMES",
    "ActionOutOfRangeError",
    "Agent",
    "AgentKeys",
    "AlreadyRewardedError",
    "ArenaMisalignedError",
    "ArenaTooSmallError",
    "BadCodebookError",
    "BadConfigError",
    "BadSignatureError",
    "BudgetExhaustedError",
    "BufferTooSmallError",
    "CmabAgent",
    "CodeOutOfRangeError",
    "CodebookMismatchError",
    "CorruptStateError",
    "CryptoFailureError",
    "DeploymentKeys",
    "DimensionMismatchError",
    "ExpiredDecisionError",
    "ItemCountError",
    "KeyListExpiredError",
    "KeyListRollbackError",
    "KeyRetiredError",
    "MalformedInputError",
    "ModelExpiredError",
    "ModelKindError",
    "ModelRollbackError",
    "ModelShapeMismatchError",
    "NegativeContextError",
    "NoReportError",
    "NonFiniteError",
    "NotInitializedError",
    "NotPositiveDefiniteError",
    "NullPointerError",
    "NumericRangeError",
    "P2BError",
    "P2BOptions",
    "PfcbOptions",
    "VerticalOptions",
    "RandomFailureError",
    "ReplayedError",
    "RewardOutOfRangeError",
    "SharedModel",
    "StateMismatchError",
    "Table",
    "UnknownDecisionError",
    "UnsupportedVersionError",
    "encode_codebook",
    "epsilon_per_report",
    "error_class",
    "fingerprint_hex",
    "keygen",
    "load_keys",
    "open_envelope",
    "parse_codebook",
    "sign_model",
    "sign_shared_model",
    "simulate_compare",
    "simulate_fclub",
    "simulate_p2b",
    "simulate_pfcb",
    "simulate_vertical",
    "status_str",
    "train_codebook",
    "version",
    "version_string",
]

# A library logs and lets the application decide what is shown: without
# logging configured, nothing the package logs reaches the terminal.
_logging.getLogger("p2b").addHandler(_logging.NullHandler())

try:
    # The distribution's version, which scikit-build-core read from c_api/p2b.h (pyproject.toml).
    __version__ = _distribution_version("p2b")
except PackageNotFoundError:  # imported from a source tree, not installed
    __version__ = "0+unknown"
