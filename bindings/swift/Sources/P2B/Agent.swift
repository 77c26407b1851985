import CP2B
import Foundation

/// One decision: the action to take and the id to reward it by.
public struct Decision: Equatable {
  public let action: Int
  public let id: UInt64
}

/// One report in plaintext (`p2b_tuple`): what a sealed envelope carries.
public struct Tuple: Equatable {
  public let code: Int
  public let action: Int
  public let reward: Float
}

/// The agent's privacy ledger (`p2b_privacy`).
public struct Privacy: Equatable {
  public let epsilonPerReport: Double
  public let epsilonSpent: Double
  public let epsilonBudget: Double
  public let reports: UInt64
  public let windowsClosed: UInt64
  /// Reports dropped unsent (and uncharged) because the outbox was full.
  public let droppedOutboxFull: UInt64
  /// True once no further report fits the budget.
  public let exhausted: Bool
}

/// Fingerprints of what an agent was set up with, 16 bytes each.
public struct Fingerprints: Equatable {
  public let shuffler: Data
  public let analyzer: Data
  public let analyzerVerify: Data
  public let codebook: Data
}

/// What a warm-start model was built from (`p2b_model_kind`).
public enum ModelKind: UInt32 {
  /// Shuffled, thresholded P2B reports: what devices apply.
  case `private` = 0
  /// Raw tuples, not private: experiments only.
  case rawBaseline = 1
}

/// How `Agent.importStatistics` reads its matrices (`p2b_stats_form`).
public enum StatisticsForm: UInt32 {
  /// A_a itself, symmetric positive definite.
  case gram = 0
  /// Lower L_a with A_a = L_a L_a^T.
  case cholesky = 1
}

/// A P2B device agent: LinUCB or LinTS on the device, reporting now and then
/// one (code, action, reward) tuple in a sealed envelope of fixed length.
///
/// The agent lives in memory this object allocates once, sized by
/// `p2b_agent_footprint`, and wipes when it goes; no call allocates inside
/// the library after that. A call that throws leaves the agent as it was.
/// Not thread-safe: use one agent from one thread, or serialise the calls.
public final class Agent {
  private let arena: NativeArena
  private let handle: OpaquePointer
  /// d and K, as configured.
  public let dimension: Int
  public let actions: Int

  public init(_ configuration: AgentConfiguration) throws {
    var cfg = try configuration.cConfig()
    var bytes = 0
    try check(p2b_agent_footprint(&cfg, &bytes))
    let memory = NativeArena(byteCount: bytes)
    var made: OpaquePointer?
    let status = configuration.codebook.withUnsafeBufferPointer { centroids in
      configuration.shufflerKey.withBytes { shuffler in
        configuration.analyzerKey.withBytes { analyzer in
          configuration.analyzerVerifyKey.withBytes { verify -> p2b_status in
            cfg.centroids = centroids.baseAddress
            cfg.shuffler_public_key = shuffler
            cfg.analyzer_public_key = analyzer
            cfg.analyzer_verify_key = verify
            return p2b_agent_init(memory.base, bytes, &cfg, &made)
          }
        }
      }
    }
    try check(status)
    guard let agent = made else { throw P2BError.notInitialized }
    arena = memory
    handle = agent
    dimension = configuration.dimension
    actions = configuration.actions
  }

  /// Bytes of the agent's memory.
  public var footprint: Int { arena.byteCount }

  /// Chooses an action for `context` (d non-negative finite floats).
  public func decide(_ context: [Float]) throws -> Decision {
    var action: UInt32 = 0
    var id: UInt64 = 0
    try check(context.withUnsafeBufferPointer {
      p2b_agent_decide(handle, $0.baseAddress, $0.count, &action, &id)
    })
    return Decision(action: Int(action), id: id)
  }

  /// Rewards a decision, in [0, 1].
  public func reward(_ decision: Decision, _ reward: Float) throws {
    try check(p2b_agent_reward(handle, decision.id, reward))
  }

  /// Learns from a logged (context, action, reward) without deciding.
  public func learn(_ context: [Float], action: Int, reward: Float) throws {
    guard let a = UInt32(exactly: action) else { throw P2BError.actionOutOfRange }
    try check(context.withUnsafeBufferPointer {
      p2b_agent_learn(handle, $0.baseAddress, $0.count, a, reward)
    })
  }

  /// Forgets everything learned locally (the user's right to erasure).
  public func forget() throws {
    try check(p2b_agent_forget(handle))
  }

  /// The mean and the confidence width of every action for `context`.
  public func scores(_ context: [Float]) throws -> (mean: [Float], width: [Float]) {
    var mean = [Float](repeating: 0, count: actions)
    var width = [Float](repeating: 0, count: actions)
    let cap = actions
    try check(context.withUnsafeBufferPointer {
      p2b_agent_scores(handle, $0.baseAddress, $0.count, &mean, &width, cap)
    })
    return (mean, width)
  }

  /// The codebook code of `context`.
  public func encode(_ context: [Float]) throws -> Int {
    var code: UInt32 = 0
    try check(context.withUnsafeBufferPointer {
      p2b_agent_encode(handle, $0.baseAddress, $0.count, &code)
    })
    return Int(code)
  }

  /// The centroid of `code`.
  public func centroid(_ code: Int) throws -> [Float] {
    guard let c = UInt32(exactly: code) else { throw P2BError.codeOutOfRange }
    var out = [Float](repeating: 0, count: dimension)
    let len = dimension
    try check(p2b_agent_centroid(handle, c, &out, len))
    return out
  }

  /// The next report to upload, sealed for the shuffler
  /// (`P2B.envelopeBytes` long), or nil when there is none right now or the
  /// budget is spent (see `privacy()`).
  public func pollEnvelope() throws -> Data? {
    var out = [UInt8](repeating: 0, count: p2b_envelope_bytes())
    var written = 0
    let cap = out.count
    let status = p2b_agent_poll_envelope(handle, &out, cap, &written)
    if status == P2B_NO_REPORT || status == P2B_BUDGET_EXHAUSTED { return nil }
    try check(status)
    return Data(out.prefix(written))
  }

  /// The next report in plaintext, for simulation and tests, or nil as for
  /// `pollEnvelope`. It is charged to the ledger like a sealed one.
  public func pollTuple() throws -> Tuple? {
    var t = p2b_tuple()
    let status = p2b_agent_poll_tuple(handle, &t)
    if status == P2B_NO_REPORT || status == P2B_BUDGET_EXHAUSTED { return nil }
    try check(status)
    return Tuple(code: Int(t.code), action: Int(t.action), reward: t.reward)
  }

  /// Applies a signed warm-start model from the analyzer; `now` checks its
  /// not-after time (nil: the device clock, as `p2b_agent_apply_model`).
  /// All or nothing: a refused bundle leaves the agent as it was.
  public func applyModel(_ bundle: Data, now: Date? = nil) throws {
    try applySignedBundle(bundle, now: now, at: { p2b_agent_apply_model_at(handle, $0, $1, $2) },
                          plain: { p2b_agent_apply_model(handle, $0, $1) })
  }

  /// The version of the last private model applied (0: none).
  public func modelVersion() throws -> UInt64 {
    try modelVersion(of: .private)
  }

  /// The version of the last model of `kind` applied (0: none).
  public func modelVersion(of kind: ModelKind) throws -> UInt64 {
    var version: UInt64 = 0
    try check(p2b_agent_model_version_of(handle, kind.rawValue, &version))
    return version
  }

  /// Applies a signed shuffler-key list (key rotation); `now` checks its
  /// not-after time. All or nothing.
  public func applyKeyList(_ list: Data, now: Date) throws {
    try check(list.withBytes {
      p2b_agent_apply_key_list(handle, $0, list.count, now.unixSeconds)
    })
  }

  /// The version of the last key list applied (0: none).
  public func keyListVersion() throws -> UInt64 {
    var version: UInt64 = 0
    try check(p2b_agent_key_list_version(handle, &version))
    return version
  }

  /// Whether the shuffler still takes `envelope`: sealed to the current key
  /// or to one the last key list still accepts. Throws `.keyRetired` when not.
  public func checkEnvelopeKey(_ envelope: Data) throws {
    try check(envelope.withBytes { p2b_agent_envelope_key_accepted(handle, $0, envelope.count) })
  }

  /// The privacy ledger.
  public func privacy() throws -> Privacy {
    var p = p2b_privacy()
    try check(p2b_agent_privacy(handle, &p))
    return Privacy(epsilonPerReport: p.epsilon_per_report, epsilonSpent: p.epsilon_spent,
                   epsilonBudget: p.epsilon_budget, reports: p.reports,
                   windowsClosed: p.windows_closed, droppedOutboxFull: p.dropped_outbox_full,
                   exhausted: p.exhausted != 0)
  }

  /// Fingerprints of the keys and the codebook in use.
  public func fingerprints() throws -> Fingerprints {
    var f = p2b_fingerprints()
    try check(p2b_agent_fingerprints(handle, &f))
    func bytes<T>(_ tuple: T) -> Data { withUnsafeBytes(of: tuple) { Data($0) } }
    return Fingerprints(shuffler: bytes(f.shuffler), analyzer: bytes(f.analyzer),
                        analyzerVerify: bytes(f.analyzer_verify), codebook: bytes(f.codebook))
  }

  /// Every arm's A_a (K matrices of d x d, column-major) and b_a (K vectors of d).
  public func exportStatistics() throws -> (a: [Double], b: [Double]) {
    let (k, d) = (UInt32(actions), UInt32(dimension))
    var a = [Double](repeating: 0, count: actions * dimension * dimension)
    var b = [Double](repeating: 0, count: actions * dimension)
    try check(p2b_agent_export(handle, &a, &b, k, d))
    return (a, b)
  }

  /// Replaces every arm's statistics, laid out as `exportStatistics` gives
  /// them; A_a includes the ridge prior. All or nothing.
  public func importStatistics(a: [Double], b: [Double], form: StatisticsForm = .gram) throws {
    guard a.count == actions * dimension * dimension, b.count == actions * dimension else {
      throw P2BError.dimensionMismatch
    }
    try check(p2b_agent_import(handle, a, b, UInt32(actions), UInt32(dimension), form.rawValue))
  }

  /// The learned state, MAC'd under `key` (`P2B.stateKeyBytes`, one per
  /// device, from the platform keystore). Not secret: see `saveEncrypted`.
  public func save(key: Data) throws -> Data {
    try SavedState.save(key: key, size: { p2b_agent_save_size(handle, $0) },
                        write: { p2b_agent_save(handle, $0, $1, $2, $3) })
  }

  /// The learned state, sealed (XChaCha20-Poly1305) under `key`.
  public func saveEncrypted(key: Data) throws -> Data {
    try SavedState.save(key: key, size: { p2b_agent_save_encrypted_size(handle, $0) },
                        write: { p2b_agent_save_encrypted(handle, $0, $1, $2, $3) })
  }

  /// Restores what `save(key:)` wrote; all or nothing.
  public func restore(_ state: Data, key: Data) throws {
    try SavedState.restore(key: key, state: state) { p2b_agent_restore(handle, $0, $1, $2) }
  }

  /// Restores what `saveEncrypted(key:)` wrote; all or nothing.
  public func restoreEncrypted(_ sealed: Data, key: Data) throws {
    try SavedState.checkStateKey(key)
    var scratch = [UInt8](sealed)  // the C call decrypts in place
    defer { scratch.wipe() }
    let len = scratch.count
    try check(key.withBytes { p2b_agent_restore_encrypted(handle, $0, &scratch, len) })
  }
}

extension Date {
  /// Seconds since the Unix epoch, as the C API's `now_unix` takes them
  /// (0 for dates before it).
  var unixSeconds: UInt64 { UInt64(max(0, timeIntervalSince1970)) }
}
