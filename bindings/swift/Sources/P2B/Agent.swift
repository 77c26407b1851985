import CP2B
import Foundation

/// One decision: the action to take and the id to reward it by.
public struct Decision: Equatable {
  public let action: Int
  public let id: UInt64
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

/// A P2B device agent: LinUCB or LinTS on the device, reporting now and then
/// one (code, action, reward) tuple in a sealed envelope of fixed length.
///
/// The agent lives in memory this object allocates once, sized by
/// `p2b_agent_footprint`; no call allocates after that. A call that throws
/// leaves the agent as it was. Not thread-safe: use one agent from one
/// thread, or serialise the calls.
public final class Agent {
  private let arena: UnsafeMutableRawPointer
  private let arenaBytes: Int
  private let handle: OpaquePointer
  /// d and K, as configured.
  public let dimension: Int
  public let actions: Int

  public init(_ configuration: AgentConfiguration) throws {
    var cfg = try configuration.cConfig()
    var bytes = 0
    try check(p2b_agent_footprint(&cfg, &bytes))
    let memory = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: p2b_arena_align())
    var made: OpaquePointer?
    let status = configuration.codebook.withUnsafeBufferPointer { centroids in
      configuration.shufflerKey.withBytes { shuffler in
        configuration.analyzerKey.withBytes { analyzer in
          configuration.analyzerVerifyKey.withBytes { verify -> p2b_status in
            cfg.centroids = centroids.baseAddress
            cfg.shuffler_public_key = shuffler
            cfg.analyzer_public_key = analyzer
            cfg.analyzer_verify_key = verify
            return p2b_agent_init(memory, bytes, &cfg, &made)
          }
        }
      }
    }
    guard status == P2B_OK, let agent = made else {
      memory.deallocate()
      throw P2BError(status)
    }
    arena = memory
    arenaBytes = bytes
    handle = agent
    dimension = configuration.dimension
    actions = configuration.actions
  }

  deinit {
    // The arena holds what the user taught the agent: wipe it before it goes back.
    arena.initializeMemory(as: UInt8.self, repeating: 0, count: arenaBytes)
    arena.deallocate()
  }

  /// Bytes of the agent's memory.
  public var footprint: Int { arenaBytes }

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

  /// Applies a signed warm-start model from the analyzer; `now` checks its
  /// not-after time (nil: the device clock, as `p2b_agent_apply_model`).
  public func applyModel(_ bundle: Data, now: Date? = nil) throws {
    try check(bundle.withBytes { bytes -> p2b_status in
      if let now = now {
        return p2b_agent_apply_model_at(handle, bytes, bundle.count,
                                        UInt64(max(0, now.timeIntervalSince1970)))
      }
      return p2b_agent_apply_model(handle, bytes, bundle.count)
    })
  }

  /// The version of the last private model applied (0: none).
  public func modelVersion() throws -> UInt64 {
    var version: UInt64 = 0
    try check(p2b_agent_model_version(handle, &version))
    return version
  }

  /// Applies a signed shuffler-key list (key rotation).
  public func applyKeyList(_ list: Data, now: Date) throws {
    try check(list.withBytes {
      p2b_agent_apply_key_list(handle, $0, list.count, UInt64(max(0, now.timeIntervalSince1970)))
    })
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

  /// The learned state, MAC'd under `key` (`P2B.stateKeyBytes`, one per
  /// device, from the platform keystore). Not secret: see `saveEncrypted`.
  public func save(key: Data) throws -> Data {
    try persist(key: key, size: p2b_agent_save_size, write: p2b_agent_save)
  }

  /// The learned state, sealed (XChaCha20-Poly1305) under `key`.
  public func saveEncrypted(key: Data) throws -> Data {
    try persist(key: key, size: p2b_agent_save_encrypted_size, write: p2b_agent_save_encrypted)
  }

  /// Restores what `save(key:)` wrote; all or nothing.
  public func restore(_ state: Data, key: Data) throws {
    guard key.count == p2b_state_key_bytes() else { throw P2BError.badConfig }
    try check(key.withBytes { k in
      state.withUnsafeBytes { p2b_agent_restore(handle, k, $0.baseAddress, state.count) }
    })
  }

  /// Restores what `saveEncrypted(key:)` wrote; all or nothing.
  public func restoreEncrypted(_ sealed: Data, key: Data) throws {
    guard key.count == p2b_state_key_bytes() else { throw P2BError.badConfig }
    var scratch = [UInt8](sealed)  // the C call decrypts in place
    defer { _ = scratch.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
    let len = scratch.count
    try check(key.withBytes { p2b_agent_restore_encrypted(handle, $0, &scratch, len) })
  }

  private func persist(
    key: Data, size: (OpaquePointer?, UnsafeMutablePointer<Int>?) -> p2b_status,
    write: (OpaquePointer?, UnsafePointer<UInt8>?, UnsafeMutableRawPointer?, Int,
            UnsafeMutablePointer<Int>?) -> p2b_status
  ) throws -> Data {
    guard key.count == p2b_state_key_bytes() else { throw P2BError.badConfig }
    var bytes = 0
    try check(size(handle, &bytes))
    var out = [UInt8](repeating: 0, count: bytes)
    var written = 0
    try check(key.withBytes { k in out.withUnsafeMutableBytes { write(handle, k, $0.baseAddress, bytes, &written) } })
    return Data(out.prefix(written))
  }
}
