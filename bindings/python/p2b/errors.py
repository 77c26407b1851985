"""The p2b status codes as exceptions.

Every non-OK status a C call returns is raised as the subclass of P2BError
for that status, carrying the status code (.status) and its C name (.name),
e.g. DimensionMismatchError with .name == "P2B_ERR_DIMENSION_MISMATCH" and
.status == -3. The names and codes are those of c_api/p2b.h (a test checks
that they agree).
"""

from __future__ import annotations

from typing import Dict, Type


class P2BError(Exception):
    """A p2b call returned a status other than P2B_OK.

    Attributes:
        status: the p2b_status code (negative for errors).
        name: its C name, e.g. "P2B_ERR_BAD_CONFIG".
    """

    name = "P2B_UNKNOWN"

    def __init__(self, status: int, message: str = "") -> None:
        super().__init__(message or STATUS_NAMES.get(status, "unknown status"))
        self.status = status
        self.name = STATUS_NAMES.get(status, "P2B_UNKNOWN")


class NoReportError(P2BError):
    """P2B_NO_REPORT (1): poll: nothing to send right now."""


class BudgetExhaustedError(P2BError):
    """P2B_BUDGET_EXHAUSTED (2): poll: privacy budget spent; no more reports ever."""


class NullPointerError(P2BError):
    """P2B_ERR_NULL_POINTER (-1): a required pointer was NULL."""


class BadConfigError(P2BError, ValueError):
    """P2B_ERR_BAD_CONFIG (-2): a config field or option is out of range.

    Raised by the constructors before the C API is called, naming the field
    and its range ("n_actions = 0: must be in [1, 1024]"); also a ValueError.
    """


class DimensionMismatchError(P2BError):
    """P2B_ERR_DIMENSION_MISMATCH (-3): array length != configured dim / n_actions."""


class NonFiniteError(P2BError):
    """P2B_ERR_NON_FINITE (-4): NaN or Inf in the input."""


class NegativeContextError(P2BError):
    """P2B_ERR_NEGATIVE_CONTEXT (-5): context entry < 0."""


class RewardOutOfRangeError(P2BError):
    """P2B_ERR_REWARD_OUT_OF_RANGE (-6): reward outside [0, 1]."""


class ActionOutOfRangeError(P2BError):
    """P2B_ERR_ACTION_OUT_OF_RANGE (-7): action >= n_actions."""


class BufferTooSmallError(P2BError):
    """P2B_ERR_BUFFER_TOO_SMALL (-8): output capacity too small."""


class NotInitializedError(P2BError):
    """P2B_ERR_NOT_INITIALIZED (-9): handle not set up by p2b_agent_init."""


class ArenaTooSmallError(P2BError):
    """P2B_ERR_ARENA_TOO_SMALL (-10): arena smaller than the footprint."""


class ArenaMisalignedError(P2BError):
    """P2B_ERR_ARENA_MISALIGNED (-11): arena not P2B_ARENA_ALIGN-aligned."""


class UnknownDecisionError(P2BError):
    """P2B_ERR_UNKNOWN_DECISION (-12): id never issued by this agent."""


class ExpiredDecisionError(P2BError):
    """P2B_ERR_EXPIRED_DECISION (-13): id fell out of the pending ring."""


class AlreadyRewardedError(P2BError):
    """P2B_ERR_ALREADY_REWARDED (-14): id already rewarded."""


class CorruptStateError(P2BError):
    """P2B_ERR_CORRUPT_STATE (-15): saved state truncated or corrupted."""


class UnsupportedVersionError(P2BError):
    """P2B_ERR_UNSUPPORTED_VERSION (-16): state, model or file of an unknown format."""


class StateMismatchError(P2BError):
    """P2B_ERR_STATE_MISMATCH (-17): saved state of another config/codebook."""


class NotPositiveDefiniteError(P2BError):
    """P2B_ERR_NOT_POSITIVE_DEFINITE (-18): imported matrix not SPD."""


class BadCodebookError(P2BError):
    """P2B_ERR_BAD_CODEBOOK (-19): codebook has non-finite values."""


class RandomFailureError(P2BError):
    """P2B_ERR_RANDOM_FAILURE (-20): the random source failed."""


class CodeOutOfRangeError(P2BError):
    """P2B_ERR_CODE_OUT_OF_RANGE (-21): code >= n_codes."""


class CryptoFailureError(P2BError):
    """P2B_ERR_CRYPTO_FAILURE (-22): the crypto port failed."""


class MalformedInputError(P2BError):
    """P2B_ERR_MALFORMED_INPUT (-23): not a well-formed p2b message or file."""


class BadSignatureError(P2BError):
    """P2B_ERR_BAD_SIGNATURE (-24): model signature fails the pinned key."""


class ModelShapeMismatchError(P2BError):
    """P2B_ERR_MODEL_SHAPE_MISMATCH (-25): model's dim or n_actions differ."""


class CodebookMismatchError(P2BError):
    """P2B_ERR_CODEBOOK_MISMATCH (-26): model built for another codebook."""


class ModelRollbackError(P2BError):
    """P2B_ERR_MODEL_ROLLBACK (-27): model version <= the applied one, or < the minimum."""


class NumericRangeError(P2BError):
    """P2B_ERR_NUMERIC_RANGE (-28): update would leave the savable range."""


class ModelKindError(P2BError):
    """P2B_ERR_MODEL_KIND (-29): raw-baseline model not accepted, or unknown kind."""


class ModelExpiredError(P2BError):
    """P2B_ERR_MODEL_EXPIRED (-30): model past its not-after time."""


class KeyListRollbackError(P2BError):
    """P2B_ERR_KEY_LIST_ROLLBACK (-31): key list version <= the applied one."""


class KeyListExpiredError(P2BError):
    """P2B_ERR_KEY_LIST_EXPIRED (-32): key list past its not-after time."""


class KeyRetiredError(P2BError):
    """P2B_ERR_KEY_RETIRED (-33): envelope sealed to a key the key list dropped."""


class ItemCountError(P2BError):
    """P2B_ERR_ITEM_COUNT (-34): shared model: 0 items, or more than max_items."""


class ReplayedError(P2BError):
    """P2B_ERR_REPLAYED (-35): P-FCB: a share not newer than the last applied from its sender."""


#: Every status code of c_api/p2b.h and its C name.
STATUS_NAMES: Dict[int, str] = {
    0: "P2B_OK",
    1: "P2B_NO_REPORT",
    2: "P2B_BUDGET_EXHAUSTED",
    -1: "P2B_ERR_NULL_POINTER",
    -2: "P2B_ERR_BAD_CONFIG",
    -3: "P2B_ERR_DIMENSION_MISMATCH",
    -4: "P2B_ERR_NON_FINITE",
    -5: "P2B_ERR_NEGATIVE_CONTEXT",
    -6: "P2B_ERR_REWARD_OUT_OF_RANGE",
    -7: "P2B_ERR_ACTION_OUT_OF_RANGE",
    -8: "P2B_ERR_BUFFER_TOO_SMALL",
    -9: "P2B_ERR_NOT_INITIALIZED",
    -10: "P2B_ERR_ARENA_TOO_SMALL",
    -11: "P2B_ERR_ARENA_MISALIGNED",
    -12: "P2B_ERR_UNKNOWN_DECISION",
    -13: "P2B_ERR_EXPIRED_DECISION",
    -14: "P2B_ERR_ALREADY_REWARDED",
    -15: "P2B_ERR_CORRUPT_STATE",
    -16: "P2B_ERR_UNSUPPORTED_VERSION",
    -17: "P2B_ERR_STATE_MISMATCH",
    -18: "P2B_ERR_NOT_POSITIVE_DEFINITE",
    -19: "P2B_ERR_BAD_CODEBOOK",
    -20: "P2B_ERR_RANDOM_FAILURE",
    -21: "P2B_ERR_CODE_OUT_OF_RANGE",
    -22: "P2B_ERR_CRYPTO_FAILURE",
    -23: "P2B_ERR_MALFORMED_INPUT",
    -24: "P2B_ERR_BAD_SIGNATURE",
    -25: "P2B_ERR_MODEL_SHAPE_MISMATCH",
    -26: "P2B_ERR_CODEBOOK_MISMATCH",
    -27: "P2B_ERR_MODEL_ROLLBACK",
    -28: "P2B_ERR_NUMERIC_RANGE",
    -29: "P2B_ERR_MODEL_KIND",
    -30: "P2B_ERR_MODEL_EXPIRED",
    -31: "P2B_ERR_KEY_LIST_ROLLBACK",
    -32: "P2B_ERR_KEY_LIST_EXPIRED",
    -33: "P2B_ERR_KEY_RETIRED",
    -34: "P2B_ERR_ITEM_COUNT",
    -35: "P2B_ERR_REPLAYED",
}

_CLASSES: Dict[int, Type[P2BError]] = {
    1: NoReportError,
    2: BudgetExhaustedError,
    -1: NullPointerError,
    -2: BadConfigError,
    -3: DimensionMismatchError,
    -4: NonFiniteError,
    -5: NegativeContextError,
    -6: RewardOutOfRangeError,
    -7: ActionOutOfRangeError,
    -8: BufferTooSmallError,
    -9: NotInitializedError,
    -10: ArenaTooSmallError,
    -11: ArenaMisalignedError,
    -12: UnknownDecisionError,
    -13: ExpiredDecisionError,
    -14: AlreadyRewardedError,
    -15: CorruptStateError,
    -16: UnsupportedVersionError,
    -17: StateMismatchError,
    -18: NotPositiveDefiniteError,
    -19: BadCodebookError,
    -20: RandomFailureError,
    -21: CodeOutOfRangeError,
    -22: CryptoFailureError,
    -23: MalformedInputError,
    -24: BadSignatureError,
    -25: ModelShapeMismatchError,
    -26: CodebookMismatchError,
    -27: ModelRollbackError,
    -28: NumericRangeError,
    -29: ModelKindError,
    -30: ModelExpiredError,
    -31: KeyListRollbackError,
    -32: KeyListExpiredError,
    -33: KeyRetiredError,
    -34: ItemCountError,
    -35: ReplayedError,
}


def error_class(status: int) -> Type[P2BError]:
    """The exception class raised for a status code (P2BError if unknown)."""
    return _CLASSES.get(status, P2BError)
