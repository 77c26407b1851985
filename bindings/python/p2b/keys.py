"""Deployment keys and the server halves of the wire, for tests and notebooks.

keygen() makes the same eight key files p2b-keygen writes (docs/keys.md) and
load_keys() reads them back; open_envelope() opens a device's report as the
shuffler and the analyzer do; sign_model() builds the analyzer's signed
warm-start bundle that an Agent accepts. All of it is the services' own C++
code (server/common, server/wire), not a Python re-implementation.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Dict, Optional, TypedDict

import numpy as np
import numpy.typing as npt

from . import _p2b

#: p2b-keygen's file names, in the order it writes them.
KEY_FILES = (
    "shuffler.box.pk",
    "shuffler.box.sk",
    "analyzer.box.pk",
    "analyzer.box.sk",
    "analyzer.sign.pk",
    "analyzer.sign.sk",
    "shuffler.sign.pk",
    "shuffler.sign.sk",
)
_SIZES = {name: 64 if name.endswith("sign.sk") else 32 for name in KEY_FILES}


class AgentKeys(TypedDict):
    """The public keys an Agent is made with (Agent(..., **keys.agent_keys()))."""

    shuffler_public_key: bytes
    analyzer_public_key: bytes
    analyzer_verify_key: bytes


@dataclass(frozen=True)
class DeploymentKeys:
    """One deployment's keys, by p2b-keygen's file names (bytes each)."""

    files: Dict[str, bytes]

    def __getitem__(self, name: str) -> bytes:
        """The bytes of one key file, e.g. keys["analyzer.sign.pk"]."""
        return self.files[name]

    def agent_keys(self) -> AgentKeys:
        """The three public keys an Agent needs, as keyword arguments."""
        return {
            "shuffler_public_key": self.files["shuffler.box.pk"],
            "analyzer_public_key": self.files["analyzer.box.pk"],
            "analyzer_verify_key": self.files["analyzer.sign.pk"],
        }

    def fingerprints(self) -> Dict[str, str]:
        """The hex fingerprint p2b-keygen prints for each public key file."""
        return {n: _p2b.fingerprint_hex(b) for n, b in self.files.items() if n.endswith(".pk")}


#: p2b-keygen's key sets: its flag names (without --), "p2b" for the default.
KEY_SETS = ("p2b", "vfl", "fclub", "fclub-local", "pfcb-consortium", "pfcb-agent", "shuffler-spool")


def keygen(out_dir: Optional[str] = None, kind: str = "p2b") -> DeploymentKeys:
    """Makes a fresh key set, the one p2b-keygen makes for the same kind.

    kind "p2b" (the default) is a deployment's eight files; "vfl", "fclub",
    "fclub-local", "pfcb-consortium", "pfcb-agent" and "shuffler-spool" are
    p2b-keygen's --vfl ... --shuffler-spool sets (docs/keys.md), under the
    same file names.
    With out_dir, also writes the files there (secret keys 0600, public
    0644; an existing file is refused and nothing is written). An unknown
    kind raises ValueError.
    """
    if out_dir is not None:
        os.makedirs(out_dir, mode=0o700, exist_ok=True)
    return DeploymentKeys(dict(_p2b._keygen(out_dir, kind)))


def load_keys(directory: str) -> DeploymentKeys:
    """Reads p2b-keygen's eight key files from a directory (exact sizes checked)."""
    return DeploymentKeys(
        {n: _p2b._read_key_file(os.path.join(directory, n), _SIZES[n]) for n in KEY_FILES}
    )


def open_envelope(envelope: bytes, keys: DeploymentKeys) -> Dict[str, Any]:
    """Opens a sealed report with the shuffler's and the analyzer's secret keys.

    Returns crowd_id (what the shuffler sees) and code, action, reward,
    model_version (what the analyzer sees). Raises ValueError, naming the
    layer, for an envelope these keys cannot open or a malformed one.
    """
    return dict(
        _p2b._open_envelope(
            envelope,
            keys["shuffler.box.pk"],
            keys["shuffler.box.sk"],
            keys["analyzer.box.pk"],
            keys["analyzer.box.sk"],
        )
    )


def sign_model(
    agent: Any,
    keys: DeploymentKeys,
    a: npt.NDArray[np.float64],
    b: npt.NDArray[np.float64],
    version: int,
    *,
    not_after_unix: int = 0,
    created_unix: Optional[int] = None,
    raw_baseline: bool = False,
) -> bytes:
    """A warm-start model bundle signed with the analyzer's key, for `agent`.

    a is (K, d, d) float64 (each A_a, prior included, symmetric positive
    definite) and b is (K, d) float64, as Agent.export_stats() returns them.
    The bundle names the agent's codebook and policy settings, so the agent
    applies it; any edit to its bytes makes the agent refuse it.
    """
    cfg = agent.config
    return _p2b._sign_model(
        keys["analyzer.sign.sk"],
        agent.fingerprints()["codebook"],
        a,
        b,
        version,
        0 if cfg["policy"] == "linucb" else 1,
        cfg["alpha"],
        cfg["ridge_lambda"],
        cfg["ts_scale"],
        created_unix,
        not_after_unix,
        raw_baseline,
    )


def sign_shared_model(
    keys: DeploymentKeys,
    gram: npt.NDArray[np.float64],
    moment: npt.NDArray[np.float64],
    version: int,
    *,
    ridge_lambda: float = 1.0,
    not_after_unix: int = 0,
    created_unix: Optional[int] = None,
) -> bytes:
    """A SharedModel warm start signed with the analyzer's key (FCLUB's bundle).

    gram is a cluster's S = sum x x^T, (d, d) float64, and moment its
    u = sum r x, (d,) float64; the device's A becomes ridge_lambda I + S and
    its b becomes u. A SharedModel made with analyzer_verify_key =
    keys["analyzer.sign.pk"] accepts it.
    """
    return _p2b._sign_shared_model(
        keys["analyzer.sign.sk"], gram, moment, version, ridge_lambda, created_unix,
        not_after_unix,
    )
