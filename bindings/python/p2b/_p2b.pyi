"""Type stubs of the compiled module p2b._p2b (bindings/python/src)."""

from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

KEY_BYTES: int
FINGERPRINT_BYTES: int
ENVELOPE_BYTES: int
STATE_KEY_BYTES: int
STATE_ENCRYPTION_OVERHEAD: int
MAX_DIM: int
MAX_ACTIONS: int
MAX_CODES: int

def version() -> int: ...
def version_string() -> str: ...
def status_str(status: int) -> str: ...
def epsilon_per_report(p: float) -> float: ...

class Agent:
    def __init__(
        self,
        centroids: npt.NDArray[np.float32],
        n_actions: int,
        *,
        shuffler_public_key: bytes,
        analyzer_public_key: bytes,
        analyzer_verify_key: bytes,
        policy: str = "linucb",
        alpha: Optional[float] = None,
        ridge_lambda: Optional[float] = None,
        ts_scale: Optional[float] = None,
        round_digits: Optional[int] = None,
        window: Optional[int] = None,
        participation: Optional[float] = None,
        neg_rate: Optional[float] = None,
        epsilon_budget: Optional[float] = None,
        pending_capacity: Optional[int] = None,
        outbox_capacity: Optional[int] = None,
        seed: Optional[int] = None,
        accept_baseline_models: bool = False,
        min_model_version: int = 0,
    ) -> None: ...
    def decide(self, context: npt.NDArray[np.float32]) -> Tuple[int, int]: ...
    def decide_many(
        self, contexts: npt.NDArray[np.floating[Any]]
    ) -> Tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint64]]: ...
    def reward(self, decision_id: int, reward: float) -> None: ...
    def learn(self, context: npt.NDArray[np.float32], action: int, reward: float) -> None: ...
    def forget(self) -> None: ...
    def scores(
        self, context: npt.NDArray[np.float32]
    ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]: ...
    def poll_envelope(self) -> Optional[bytes]: ...
    def poll_tuple(self) -> Optional[Tuple[int, int, float]]: ...
    def encode(self, context: npt.NDArray[np.float32]) -> int: ...
    def centroid(self, code: int) -> npt.NDArray[np.float32]: ...
    def fingerprints(self) -> Dict[str, bytes]: ...
    def privacy(self) -> Dict[str, Any]: ...
    def export_stats(self) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
    def import_stats(
        self, a: npt.NDArray[np.float64], b: npt.NDArray[np.float64], form: str = "gram"
    ) -> None: ...
    def apply_model(self, bundle: bytes, now: Optional[int] = None) -> None: ...
    def model_version(self, kind: Optional[str] = None) -> int: ...
    def apply_key_list(self, key_list: bytes, now: int) -> None: ...
    def key_list_version(self) -> int: ...
    def save(self, key: bytes) -> bytes: ...
    def restore(self, state: bytes, key: bytes) -> None: ...
    def save_encrypted(self, key: bytes) -> bytes: ...
    def restore_encrypted(self, state: bytes, key: bytes) -> None: ...
    @property
    def footprint(self) -> int: ...
    @property
    def dim(self) -> int: ...
    @property
    def n_actions(self) -> int: ...
    @property
    def config(self) -> Dict[str, Any]: ...

class SharedModel:
    def __init__(
        self,
        dim: int,
        max_items: int,
        *,
        policy: str = "linucb",
        alpha: Optional[float] = None,
        ridge_lambda: Optional[float] = None,
        ts_scale: Optional[float] = None,
        tie_rel_tol: Optional[float] = None,
        pending_capacity: Optional[int] = None,
        precision: str = "f64",
        seed: Optional[int] = None,
        analyzer_verify_key: Optional[bytes] = None,
        min_model_version: int = 0,
    ) -> None: ...
    def decide(self, items: npt.NDArray[np.float64]) -> Tuple[int, int]: ...
    def decide_many(
        self, items: npt.NDArray[np.float64]
    ) -> Tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint64]]: ...
    def reward(self, decision_id: int, reward: float) -> None: ...
    def learn(self, context: npt.NDArray[np.float64], reward: float) -> None: ...
    def scores(
        self, items: npt.NDArray[np.float64]
    ) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
    def theta(self) -> npt.NDArray[np.float64]: ...
    def apply_model(self, bundle: bytes, now: Optional[int] = None) -> None: ...
    def model_version(self) -> int: ...
    def save(self, key: bytes) -> bytes: ...
    def restore(self, state: bytes, key: bytes) -> None: ...
    @property
    def footprint(self) -> int: ...
    @property
    def dim(self) -> int: ...
    @property
    def max_items(self) -> int: ...

class CmabAgent:
    def __init__(
        self,
        cost: npt.NDArray[np.float64],
        capacity: npt.NDArray[np.integer[Any]],
        *,
        rho: Optional[float] = None,
        alpha: Optional[float] = None,
        quality_margin: Optional[float] = None,
        explore_rounds: Optional[int] = None,
        ucb_scale: Optional[float] = None,
        horizon: Optional[int] = None,
        schedule: str = "paper",
        window_start: Optional[int] = None,
        window_stop: Optional[int] = None,
        log_base: str = "2",
        epsilon: Optional[float] = None,
        delta: Optional[float] = None,
        delta_target: Optional[float] = None,
        public_max_capacity: Optional[int] = None,
        omega1: Optional[float] = None,
        omega2: Optional[float] = None,
        agents: Optional[int] = None,
        max_peers: Optional[int] = None,
        seed: Optional[int] = None,
    ) -> None: ...
    def decide(self) -> npt.NDArray[np.uint32]: ...
    def observe(self, good: npt.NDArray[np.integer[Any]]) -> None: ...
    def poll_share(self) -> Optional[bytes]: ...
    def apply_share(self, sender: int, share: bytes) -> Tuple[int, int]: ...
    def privacy(self) -> Dict[str, Any]: ...
    def save(self, key: bytes) -> bytes: ...
    def restore(self, state: bytes, key: bytes) -> None: ...
    def estimates(self) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
    @property
    def footprint(self) -> int: ...
    @property
    def producers(self) -> int: ...

def train_codebook(
    dim: int,
    codes: int,
    *,
    digits: int = 1,
    seed: int = 0,
    threads: int = 1,
    mini_batch: bool = False,
    no_refine: bool = False,
    batch_size: int = 4096,
    max_iterations: int = 1000,
    max_no_improvement: int = 10,
    on_status: Optional[Callable[[str], None]] = None,
) -> Dict[str, Any]: ...
def encode_codebook(centroids: npt.NDArray[np.float32], digits: int = 1) -> bytes: ...
def parse_codebook(data: bytes) -> Tuple[npt.NDArray[np.float32], Dict[str, Any]]: ...
def fingerprint_hex(public_key: bytes) -> str: ...
def _keygen(out_dir: Optional[str] = None, kind: str = "p2b") -> Dict[str, bytes]: ...
def _read_key_file(path: str, size: int) -> bytes: ...
def _open_envelope(
    envelope: bytes, shuffler_pk: bytes, shuffler_sk: bytes, analyzer_pk: bytes, analyzer_sk: bytes
) -> Dict[str, Any]: ...
def _sign_model(
    sign_sk: bytes,
    codebook_fp: bytes,
    a: npt.NDArray[np.float64],
    b: npt.NDArray[np.float64],
    version: int,
    policy: int,
    alpha: float,
    ridge_lambda: float,
    ts_scale: float,
    created_unix: Optional[int] = None,
    not_after_unix: int = 0,
    raw_baseline: bool = False,
) -> bytes: ...
def _sign_shared_model(
    sign_sk: bytes,
    gram: npt.NDArray[np.float64],
    moment: npt.NDArray[np.float64],
    version: int,
    ridge_lambda: float,
    created_unix: Optional[int] = None,
    not_after_unix: int = 0,
) -> bytes: ...
class P2BOptions:
    """p2b-sim's P2B experiment options; a list field also takes one value."""

    def __init__(self) -> None: ...
    seeds: int
    seed: int
    threads: int
    out: str
    plot: bool
    quiet: bool
    users: List[int]
    actions: List[int]
    dim: List[int]
    interactions: List[int]
    mode: List[str]
    central_epsilon: List[float]
    codes: int
    digits: int
    p: float
    threshold: int
    neg_rate: float
    alpha: float
    early_fraction: float
    no_crypto: bool
    central_delta: float
    central_horizon: int
    central_release: int
    codebook: str
    env: str
    beta: float
    noise_sd: float
    contexts: str
    mapping: str
    weights: str
    weights_layout: str
    data: str
    labels: str

def _run_p2b(
    options: P2BOptions,
    progress: Optional[Callable[[str, int, int], None]],
    log: Optional[Callable[[str], None]],
) -> Dict[str, Dict[str, Any]]: ...
def _p2b_sim_flags() -> List[str]: ...

class FclubOptions:
    """p2b-sim --protocol fclub's options; a list field also takes one value."""

    def __init__(self) -> None: ...
    seeds: int
    seed: int
    threads: int
    out: str
    plot: bool
    quiet: bool
    mode: str
    @property
    def algorithms(self) -> List[str]: ...
    @algorithms.setter
    def algorithms(self, value: Union[str, List[str]]) -> None: ...
    @property
    def dims(self) -> List[int]: ...
    @dims.setter
    def dims(self, value: Union[int, List[int]]) -> None: ...
    @property
    def epsilons(self) -> List[float]: ...
    @epsilons.setter
    def epsilons(self, value: Union[float, List[float]]) -> None: ...
    rounds: int
    every: int
    users: int
    servers: int
    clusters: int
    items: int
    thetas: str
    layout: str
    delta: float
    beta_scale: float
    split_alpha: float
    merge_alpha: float
    theta_gap: float
    upload_ratio: float
    download_ratio: float

def _run_fclub(
    options: FclubOptions,
    progress: Optional[Callable[[str, int, int], None]],
    log: Optional[Callable[[str], None]],
) -> Dict[str, Dict[str, Any]]: ...
def _fclub_sim_flags() -> List[str]: ...

class PfcbOptions:
    """p2b-sim --protocol pfcb's options; a list field also takes one value."""

    def __init__(self) -> None: ...
    seeds: int
    seed: int
    threads: int
    out: str
    plot: bool
    quiet: bool
    @property
    def algorithms(self) -> List[str]: ...
    @algorithms.setter
    def algorithms(self, value: Union[str, List[str]]) -> None: ...
    @property
    def dist(self) -> List[str]: ...
    @dist.setter
    def dist(self, value: Union[str, List[str]]) -> None: ...
    @property
    def epsilons(self) -> List[float]: ...
    @epsilons.setter
    def epsilons(self, value: Union[float, List[float]]) -> None: ...
    @property
    def agents_grid(self) -> List[int]: ...
    @agents_grid.setter
    def agents_grid(self, value: Union[int, List[int]]) -> None: ...
    agents: int
    producers: int
    instances: int
    rounds: int
    every: int
    setting: str
    max_capacity: int
    alpha: float
    violation_cost: str
    schedule: str
    log_base: str
    window_start: int
    window_stop: int
    delta: float
    omega1: float
    omega2: float
    explore_rounds: int
    ucb_scale: float
    quality_margin: float
    public_max_capacity: int

def _run_pfcb(
    options: PfcbOptions,
    progress: Optional[Callable[[str, int, int], None]],
    log: Optional[Callable[[str], None]],
) -> Dict[str, Dict[str, Any]]: ...
def _pfcb_sim_flags() -> List[str]: ...

class VerticalOptions:
    """p2b-sim --protocol vertical's options; a list field also takes one value."""

    def __init__(self) -> None: ...
    seeds: int
    seed: int
    threads: int
    out: str
    plot: bool
    quiet: bool
    @property
    def partition(self) -> List[int]: ...
    @partition.setter
    def partition(self, value: Union[int, List[int]]) -> None: ...
    @property
    def partial(self) -> List[float]: ...
    @partial.setter
    def partial(self, value: Union[float, List[float]]) -> None: ...
    @property
    def policies(self) -> List[str]: ...
    @policies.setter
    def policies(self, value: Union[str, List[str]]) -> None: ...
    @property
    def cost_dims(self) -> List[int]: ...
    @cost_dims.setter
    def cost_dims(self, value: Union[int, List[int]]) -> None: ...
    @property
    def cost_actions(self) -> List[int]: ...
    @cost_actions.setter
    def cost_actions(self, value: Union[int, List[int]]) -> None: ...
    env: str
    dim: int
    actions: int
    rounds: int
    beta: float
    ts_scale: float
    noise_sd: float
    tie: float
    data: str
    labels: str
    parties: int
    components: int
    cost: bool
    cost_parties: int
    cost_rounds: int

def _run_vertical(
    options: VerticalOptions,
    progress: Optional[Callable[[str, int, int], None]],
    log: Optional[Callable[[str], None]],
) -> Dict[str, Dict[str, Any]]: ...
def _vertical_sim_flags() -> List[str]: ...

class CompareOptions:
    """p2b-sim --protocol compare's options; a list field also takes one value."""

    def __init__(self) -> None: ...
    seeds: int
    seed: int
    threads: int
    out: str
    plot: bool
    quiet: bool
    @property
    def envs(self) -> List[str]: ...
    @envs.setter
    def envs(self, value: Union[str, List[str]]) -> None: ...
    @property
    def protocols(self) -> List[str]: ...
    @protocols.setter
    def protocols(self, value: Union[str, List[str]]) -> None: ...
    @property
    def participations(self) -> List[float]: ...
    @participations.setter
    def participations(self, value: Union[float, List[float]]) -> None: ...
    @property
    def epsilons(self) -> List[float]: ...
    @epsilons.setter
    def epsilons(self, value: Union[float, List[float]]) -> None: ...
    @property
    def spends(self) -> List[float]: ...
    @spends.setter
    def spends(self, value: Union[float, List[float]]) -> None: ...
    no_nonprivate_variants: bool
    users: int
    early_fraction: float
    interactions: int
    dim: int
    actions: int
    mapping: str
    beta: float
    noise_sd: float
    data: str
    labels: str
    ml_dim: int
    alpha: float
    codes: int
    threshold: int
    delta: float
    servers: int
    beta_scale: float
    omega1: float
    omega2: float

def _run_compare(
    options: CompareOptions,
    progress: Optional[Callable[[str, int, int], None]],
    log: Optional[Callable[[str], None]],
) -> Dict[str, Dict[str, Any]]: ...
def _compare_sim_flags() -> List[str]: ...
