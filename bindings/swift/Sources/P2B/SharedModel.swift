import CP2B
import Foundation

/// The arithmetic a shared model keeps its statistics in (`p2b_precision`).
public enum Precision: UInt32 {
  /// float: half the memory, for devices.
  case single = 0
  /// double: for servers and exact comparisons.
  case double = 1
}

/// Everything `SharedModel.init` needs. Every default is read from the C
/// library's `p2b_shared_config_default`; ranges are checked by the library.
public struct SharedModelConfiguration {
  /// d: the length of each item's context.
  public var dimension: Int
  /// The most items one decision may score.
  public var maxItems: Int
  public var policy: Policy
  public var alpha: Double
  public var ridgeLambda: Double
  public var tsScale: Double
  /// Scores within this relative distance of the best tie; the lowest index wins.
  public var tieRelativeTolerance: Double
  public var pendingCapacity: Int
  public var precision: Precision
  /// The Ed25519 key signed warm starts must verify under (32 bytes); nil:
  /// every warm start is refused.
  public var analyzerVerifyKey: Data?
  /// Warm starts with a lower version are refused.
  public var minModelVersion: UInt64
  /// nil: the platform CSPRNG (production). A seed: tests and simulation only.
  public var seed: UInt64?

  public init(dimension: Int, maxItems: Int) {
    var d = p2b_shared_config()
    precondition(p2b_shared_config_default(&d) == P2B_OK)
    self.dimension = dimension
    self.maxItems = maxItems
    policy = Policy(rawValue: d.policy) ?? .linUCB
    alpha = d.alpha
    ridgeLambda = d.ridge_lambda
    tsScale = d.ts_scale
    tieRelativeTolerance = d.tie_rel_tol
    pendingCapacity = Int(d.pending_capacity)
    precision = Precision(rawValue: d.precision) ?? .double
    analyzerVerifyKey = nil
    minModelVersion = d.min_model_version
    seed = nil
  }

  /// The C configuration without the verify key's pointer.
  func cConfig() throws -> p2b_shared_config {
    var cfg = p2b_shared_config()
    try check(p2b_shared_config_default(&cfg))
    guard let dim = UInt32(exactly: dimension), let items = UInt32(exactly: maxItems),
      let pending = UInt32(exactly: pendingCapacity)
    else { throw P2BError.badConfig }
    if let key = analyzerVerifyKey, key.count != p2b_key_bytes() { throw P2BError.badConfig }
    cfg.dim = dim
    cfg.max_items = items
    cfg.policy = policy.rawValue
    cfg.alpha = alpha
    cfg.ridge_lambda = ridgeLambda
    cfg.ts_scale = tsScale
    cfg.tie_rel_tol = tieRelativeTolerance
    cfg.pending_capacity = pending
    cfg.precision = precision.rawValue
    cfg.min_model_version = minModelVersion
    if let seed = seed {
      cfg.rng_mode = UInt32(P2B_RNG_SEEDED.rawValue)
      cfg.seed = seed
    }
    return cfg
  }
}

/// One ridge model theta over per-item contexts, shared by every item (the
/// O3M and FCLUB model): it scores K contexts and picks one. Contexts are
/// raw (signed, not encoded) and nothing is reported. The same memory
/// discipline as `Agent`: one allocation, wiped when the model goes; a call
/// that throws changes nothing. Not thread-safe.
public final class SharedModel {
  /// One decision: the item picked and the id to reward it by.
  public struct Decision: Equatable {
    public let item: Int
    public let id: UInt64
  }

  /// Each item's theta.x, sqrt(x^T A^-1 x), and their LinUCB total.
  public struct Scores: Equatable {
    public let mean: [Double]
    public let width: [Double]
    public let total: [Double]
  }

  private let arena: NativeArena
  private let handle: OpaquePointer
  public let dimension: Int
  public let maxItems: Int

  public init(_ configuration: SharedModelConfiguration) throws {
    var cfg = try configuration.cConfig()
    var made: OpaquePointer?
    let key = configuration.analyzerVerifyKey
    let (status, memory) = key.withOptionalBytes { verify -> (p2b_status, NativeArena?) in
      cfg.analyzer_verify_key = verify
      var bytes = 0
      let sized = p2b_shared_model_footprint(&cfg, &bytes)
      guard sized == P2B_OK else { return (sized, nil) }
      let memory = NativeArena(byteCount: bytes)
      return (p2b_shared_model_init(memory.base, bytes, &cfg, &made), memory)
    }
    try check(status)
    guard let model = made, let arena = memory else { throw P2BError.notInitialized }
    self.arena = arena
    handle = model
    dimension = configuration.dimension
    maxItems = configuration.maxItems
  }

  /// Bytes of the model's memory.
  public var footprint: Int { arena.byteCount }

  /// Scores `items` (each `dimension` long) and picks one.
  public func decide(_ items: [[Double]]) throws -> Decision {
    let flat = try flatten(items)
    var item: UInt32 = 0
    var id: UInt64 = 0
    try check(p2b_shared_model_decide(handle, flat, items.count, dimension, &item, &id))
    return Decision(item: Int(item), id: id)
  }

  /// Learns the reward of a decision: A += x x^T, b += r x for its item.
  public func reward(_ decision: Decision, _ reward: Double) throws {
    try check(p2b_shared_model_reward(handle, decision.id, reward))
  }

  /// Learns a logged (context, reward) that no decision produced.
  public func learn(_ context: [Double], reward: Double) throws {
    try check(p2b_shared_model_learn(handle, context, context.count, reward))
  }

  /// The LinUCB parts of each item's score, without deciding.
  public func scores(_ items: [[Double]]) throws -> Scores {
    let flat = try flatten(items)
    var mean = [Double](repeating: 0, count: items.count)
    var width = mean
    var total = mean
    try check(p2b_shared_model_scores(handle, flat, items.count, dimension, &mean, &width, &total))
    return Scores(mean: mean, width: width, total: total)
  }

  /// theta = A^-1 b.
  public func theta() throws -> [Double] {
    var out = [Double](repeating: 0, count: dimension)
    try check(p2b_shared_model_theta(handle, &out, dimension))
    return out
  }

  /// Verifies and applies a signed warm start (a cluster's statistics); `now`
  /// checks its not-after time (nil: not checked). All or nothing.
  public func applyModel(_ bundle: Data, now: Date? = nil) throws {
    try applySignedBundle(
      bundle, now: now, at: { p2b_shared_model_apply_model_at(handle, $0, $1, $2) },
      plain: { p2b_shared_model_apply_model(handle, $0, $1) })
  }

  /// The version of the warm start applied last (0: none).
  public func modelVersion() throws -> UInt64 {
    var version: UInt64 = 0
    try check(p2b_shared_model_model_version(handle, &version))
    return version
  }

  /// The state (statistics, pending decisions, random stream), MAC'd under `key`.
  public func save(key: Data) throws -> Data {
    try SavedState.save(key: key, size: { p2b_shared_model_save_size(handle, $0) },
                        write: { p2b_shared_model_save(handle, $0, $1, $2, $3) })
  }

  /// Restores what `save(key:)` wrote into a model of the same
  /// configuration; all or nothing.
  public func restore(_ state: Data, key: Data) throws {
    try SavedState.restore(key: key, state: state) { p2b_shared_model_restore(handle, $0, $1, $2) }
  }

  /// Items row-major, as the C API takes them. A ragged row is the caller's
  /// dimension error, found before the library reads past it.
  private func flatten(_ items: [[Double]]) throws -> [Double] {
    guard items.allSatisfy({ $0.count == dimension }) else { throw P2BError.dimensionMismatch }
    return items.flatMap { $0 }
  }
}

extension Optional where Wrapped == Data {
  /// The bytes as the `const uint8_t*` the C API takes, or NULL for nil.
  func withOptionalBytes<R>(_ body: (UnsafePointer<UInt8>?) throws -> R) rethrows -> R {
    switch self {
    case .some(let data): return try data.withBytes(body)
    case .none: return try body(nil)
    }
  }
}
