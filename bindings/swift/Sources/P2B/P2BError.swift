import CP2B
import Foundation

/// A p2b status other than success, thrown by every call that fails.
///
/// `code` is the C API's `p2b_status` value and `name` its text from
/// `p2b_status_str`, so a log line names the same status a C caller sees.
/// Compare with the constants below: `catch let e as P2BError where e == .badConfig`.
public struct P2BError: Error, Equatable, Hashable, CustomStringConvertible {
  /// The `p2b_status` value (negative for errors).
  public let code: Int32

  public init(code: Int32) { self.code = code }
  init(_ status: p2b_status) { self.code = status.rawValue }

  /// The status text of the C library, e.g. "bad config".
  public var name: String { String(cString: p2b_status_str(p2b_status(rawValue: code))) }
  public var description: String { "p2b error \(code): \(name)" }

  public static let nullPointer = P2BError(P2B_ERR_NULL_POINTER)
  public static let badConfig = P2BError(P2B_ERR_BAD_CONFIG)
  public static let dimensionMismatch = P2BError(P2B_ERR_DIMENSION_MISMATCH)
  public static let nonFinite = P2BError(P2B_ERR_NON_FINITE)
  public static let negativeContext = P2BError(P2B_ERR_NEGATIVE_CONTEXT)
  public static let rewardOutOfRange = P2BError(P2B_ERR_REWARD_OUT_OF_RANGE)
  public static let actionOutOfRange = P2BError(P2B_ERR_ACTION_OUT_OF_RANGE)
  public static let bufferTooSmall = P2BError(P2B_ERR_BUFFER_TOO_SMALL)
  public static let notInitialized = P2BError(P2B_ERR_NOT_INITIALIZED)
  public static let arenaTooSmall = P2BError(P2B_ERR_ARENA_TOO_SMALL)
  public static let arenaMisaligned = P2BError(P2B_ERR_ARENA_MISALIGNED)
  public static let unknownDecision = P2BError(P2B_ERR_UNKNOWN_DECISION)
  public static let expiredDecision = P2BError(P2B_ERR_EXPIRED_DECISION)
  public static let alreadyRewarded = P2BError(P2B_ERR_ALREADY_REWARDED)
  public static let corruptState = P2BError(P2B_ERR_CORRUPT_STATE)
  public static let unsupportedVersion = P2BError(P2B_ERR_UNSUPPORTED_VERSION)
  public static let stateMismatch = P2BError(P2B_ERR_STATE_MISMATCH)
  public static let notPositiveDefinite = P2BError(P2B_ERR_NOT_POSITIVE_DEFINITE)
  public static let badCodebook = P2BError(P2B_ERR_BAD_CODEBOOK)
  public static let randomFailure = P2BError(P2B_ERR_RANDOM_FAILURE)
  public static let codeOutOfRange = P2BError(P2B_ERR_CODE_OUT_OF_RANGE)
  public static let cryptoFailure = P2BError(P2B_ERR_CRYPTO_FAILURE)
  public static let malformedInput = P2BError(P2B_ERR_MALFORMED_INPUT)
  public static let badSignature = P2BError(P2B_ERR_BAD_SIGNATURE)
  public static let modelShapeMismatch = P2BError(P2B_ERR_MODEL_SHAPE_MISMATCH)
  public static let codebookMismatch = P2BError(P2B_ERR_CODEBOOK_MISMATCH)
  public static let modelRollback = P2BError(P2B_ERR_MODEL_ROLLBACK)
  public static let numericRange = P2BError(P2B_ERR_NUMERIC_RANGE)
  public static let modelKind = P2BError(P2B_ERR_MODEL_KIND)
  public static let modelExpired = P2BError(P2B_ERR_MODEL_EXPIRED)
  public static let keyListRollback = P2BError(P2B_ERR_KEY_LIST_ROLLBACK)
  public static let keyListExpired = P2BError(P2B_ERR_KEY_LIST_EXPIRED)
  public static let keyRetired = P2BError(P2B_ERR_KEY_RETIRED)
  public static let itemCount = P2BError(P2B_ERR_ITEM_COUNT)
  public static let replayed = P2BError(P2B_ERR_REPLAYED)
}

/// Throws unless `status` is P2B_OK; informational statuses (no report,
/// budget spent) are handled by the callers that can return them.
@inline(__always)
func check(_ status: p2b_status) throws {
  if status != P2B_OK { throw P2BError(status) }
}

extension P2BError: LocalizedError {
  /// The same text as `description`, so `error.localizedDescription` names
  /// the status wherever the app only sees an `Error`.
  public var errorDescription: String? { description }
}
