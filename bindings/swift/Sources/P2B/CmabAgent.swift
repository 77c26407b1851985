import CP2B
import Foundation

/// When a P-FCB agent releases (`p2b_cmab_schedule`).
public enum CmabSchedule: UInt32 {
  /// Alg. 2 as printed: tau = 1, doubling.
  case paper = 0
  /// tau starts at the window's start.
  case aligned = 1
  /// Every round of the window (non-private FCB when epsilon is infinite).
  case everyRound = 2
}

/// The log in the budget split's log T (`p2b_cmab_log_base`).
public enum CmabLogBase: UInt32 {
  /// Base 2: the split sums to at most epsilon.
  case two = 0
  /// Natural: overspends; the agent stops at epsilon.
  case e = 1
}

/// Everything `CmabAgent.init` needs. Every default is read from the C
/// library's `p2b_cmab_config_default`; ranges are checked by the library.
public struct CmabConfiguration {
  /// One cost per unit for each of the m producers.
  public var costs: [Double]
  /// One capacity (units per round) for each of the m producers.
  public var capacities: [Int]
  /// Revenue per unit of quality.
  public var rho: Double
  /// The quality threshold.
  public var alpha: Double
  /// gamma: the oracle aims at alpha + gamma.
  public var qualityMargin: Double
  /// Rounds procuring one unit of each producer.
  public var exploreRounds: Int
  public var ucbScale: Double
  /// T of the budget split.
  public var horizon: UInt64
  public var schedule: CmabSchedule
  public var windowStart: UInt64
  public var windowStop: UInt64
  public var logBase: CmabLogBase
  /// The total budget; infinity: exact counts; 0: never shares.
  public var epsilon: Double
  /// Per-release delta of the calibration.
  public var delta: Double
  /// The delta the accountant states its epsilons at.
  public var deltaTarget: Double
  /// Noise sensitivity: 0, each producer's capacity; else a public bound.
  public var publicMaxCapacity: Int
  /// Acceptance band weight; infinity accepts every report.
  public var omega1: Double
  /// Weight of an accepted report.
  public var omega2: Double
  /// n, in the acceptance radius ln(n t).
  public var agents: Int
  /// Senders tracked: `applyShare`'s sender is below it.
  public var maxPeers: Int
  /// nil: the platform CSPRNG (production). A seed: tests and simulation only.
  public var seed: UInt64?

  public init(costs: [Double], capacities: [Int]) {
    var d = p2b_cmab_config()
    precondition(p2b_cmab_config_default(&d) == P2B_OK)
    self.costs = costs
    self.capacities = capacities
    rho = d.rho
    alpha = d.alpha
    qualityMargin = d.quality_margin
    exploreRounds = Int(d.explore_rounds)
    ucbScale = d.ucb_scale
    horizon = d.horizon
    schedule = CmabSchedule(rawValue: d.schedule) ?? .paper
    windowStart = d.window_start
    windowStop = d.window_stop
    logBase = CmabLogBase(rawValue: d.log_base) ?? .two
    epsilon = d.epsilon
    delta = d.delta
    deltaTarget = d.delta_target
    publicMaxCapacity = Int(d.public_max_capacity)
    omega1 = d.omega1
    omega2 = d.omega2
    agents = Int(d.agents)
    maxPeers = Int(d.max_peers)
    seed = nil
  }

  /// The C configuration without its two arrays, which `CmabAgent.init`
  /// sets only while they are pinned.
  func cConfig() throws -> (p2b_cmab_config, [UInt32]) {
    var cfg = p2b_cmab_config()
    try check(p2b_cmab_config_default(&cfg))
    guard costs.count == capacities.count, let m = UInt32(exactly: costs.count),
      let explore = UInt32(exactly: exploreRounds),
      let publicMax = UInt32(exactly: publicMaxCapacity), let n = UInt32(exactly: agents),
      let peers = UInt32(exactly: maxPeers)
    else { throw P2BError.badConfig }
    var caps: [UInt32] = []
    for c in capacities {
      guard let v = UInt32(exactly: c) else { throw P2BError.badConfig }
      caps.append(v)
    }
    cfg.producers = m
    cfg.rho = rho
    cfg.alpha = alpha
    cfg.quality_margin = qualityMargin
    cfg.explore_rounds = explore
    cfg.ucb_scale = ucbScale
    cfg.horizon = horizon
    cfg.schedule = schedule.rawValue
    cfg.window_start = windowStart
    cfg.window_stop = windowStop
    cfg.log_base = logBase.rawValue
    cfg.epsilon = epsilon
    cfg.delta = delta
    cfg.delta_target = deltaTarget
    cfg.public_max_capacity = publicMax
    cfg.omega1 = omega1
    cfg.omega2 = omega2
    cfg.agents = n
    cfg.max_peers = peers
    if let seed = seed {
      cfg.rng_mode = UInt32(P2B_RNG_SEEDED.rawValue)
      cfg.seed = seed
    }
    return (cfg, caps)
  }
}

/// What a P-FCB agent has spent (`p2b_cmab_privacy`); the exact figures are
/// stated at `deltaTarget`.
public struct CmabPrivacy: Equatable {
  public let releases: Int
  /// The paper's claim: the sum of eps_z, at `paperDelta`.
  public let paperEpsilon: Double
  public let paperDelta: Double
  /// Basic composition over both noisy values.
  public let basicEpsilon: Double
  public let basicDelta: Double
  /// One procurement element, worst release (exact, Gaussian DP).
  public let elementEpsilon: Double
  /// One element charged every release (exact).
  public let sequentialEpsilon: Double
  /// One round's whole procurement vector (exact).
  public let vectorEpsilon: Double
  public let deltaTarget: Double
  public let elementMu: Double
  public let sequentialMu: Double
  public let vectorMu: Double
}

/// A P-FCB agent (Solanki et al., ECML PKDD 2022): it buys units from m
/// producers each round, learns their qualities by UCB, and shares noisy
/// increments of its counts with competing agents through the relay. The
/// same memory discipline as `Agent`: one allocation, wiped when the agent
/// goes; a call that throws changes nothing. Not thread-safe.
public final class CmabAgent {
  /// What `applyShare` did with each producer's report.
  public struct Applied: Equatable {
    public let accepted: Int
    public let rejected: Int
  }

  private let arena: NativeArena
  private let handle: OpaquePointer
  /// m, as configured.
  public let producers: Int

  public init(_ configuration: CmabConfiguration) throws {
    var (cfg, caps) = try configuration.cConfig()
    var made: OpaquePointer?
    let (status, memory) = configuration.costs.withUnsafeBufferPointer { cost in
      caps.withUnsafeBufferPointer { capacity -> (p2b_status, NativeArena?) in
        cfg.cost = cost.baseAddress
        cfg.capacity = capacity.baseAddress
        var bytes = 0
        let sized = p2b_cmab_footprint(&cfg, &bytes)
        guard sized == P2B_OK else { return (sized, nil) }
        let memory = NativeArena(byteCount: bytes)
        return (p2b_cmab_init(memory.base, bytes, &cfg, &made), memory)
      }
    }
    try check(status)
    guard let agent = made, let arena = memory else { throw P2BError.notInitialized }
    self.arena = arena
    handle = agent
    producers = configuration.costs.count
  }

  /// Bytes of one share for `producers` (0 when out of range): fixed per m.
  public static func shareSize(producers: Int) -> Int {
    guard let m = UInt32(exactly: producers) else { return 0 }
    return p2b_cmab_share_size(m)
  }

  /// Bytes of the agent's memory.
  public var footprint: Int { arena.byteCount }

  /// The units to procure from each producer this round; `observe` next.
  public func decide() throws -> [Int] {
    var units = [UInt32](repeating: 0, count: producers)
    try check(p2b_cmab_decide(handle, &units, producers))
    return units.map { Int($0) }
  }

  /// Ends the round with the good units among those procured.
  public func observe(good: [Int]) throws {
    var counts: [UInt32] = []
    for g in good {
      guard let v = UInt32(exactly: g) else { throw P2BError.rewardOutOfRange }
      counts.append(v)
    }
    try check(p2b_cmab_observe(handle, counts, counts.count))
  }

  /// The share drawn at the last release round, once; nil when none waits
  /// (or the budget stopped releases). Seal and post it with the relay.
  public func pollShare() throws -> Data? {
    var out = [UInt8](repeating: 0, count: CmabAgent.shareSize(producers: producers))
    var written = 0
    let cap = out.count
    let status = p2b_cmab_poll_share(handle, &out, cap, &written)
    if status == P2B_NO_REPORT || status == P2B_BUDGET_EXHAUSTED { return nil }
    try check(status)
    return Data(out.prefix(written))
  }

  /// Learns from a peer's share by the paper's selective acceptance. Verify
  /// the sender first: this trusts who sent it, never what it says.
  public func applyShare(_ share: Data, from sender: Int) throws -> Applied {
    guard let s = UInt32(exactly: sender) else { throw P2BError.actionOutOfRange }
    var accepted: UInt32 = 0
    var rejected: UInt32 = 0
    try check(share.withUnsafeBytes {
      p2b_cmab_apply_share(handle, s, $0.baseAddress, share.count, &accepted, &rejected)
    })
    return Applied(accepted: Int(accepted), rejected: Int(rejected))
  }

  /// What the agent has spent so far.
  public func privacySpent() throws -> CmabPrivacy {
    var p = p2b_cmab_privacy()
    try check(p2b_cmab_privacy_spent(handle, &p))
    return CmabPrivacy(
      releases: Int(p.releases), paperEpsilon: p.paper_epsilon, paperDelta: p.paper_delta,
      basicEpsilon: p.basic_epsilon, basicDelta: p.basic_delta,
      elementEpsilon: p.element_epsilon, sequentialEpsilon: p.sequential_epsilon,
      vectorEpsilon: p.vector_epsilon, deltaTarget: p.delta_target, elementMu: p.element_mu,
      sequentialMu: p.sequential_mu, vectorMu: p.vector_mu)
  }

  /// Units seen (own plus accepted) and the quality estimate of each producer.
  public func estimates() throws -> (unitsSeen: [Double], quality: [Double]) {
    var seen = [Double](repeating: 0, count: producers)
    var quality = seen
    try check(p2b_cmab_estimates(handle, &seen, &quality, producers))
    return (seen, quality)
  }

  /// Everything learned and spent (ledger and replay counters included),
  /// MAC'd under `key`. Not encrypted: store it as the app stores secrets.
  public func save(key: Data) throws -> Data {
    try SavedState.save(key: key, size: { p2b_cmab_save_size(handle, $0) },
                        write: { p2b_cmab_save(handle, $0, $1, $2, $3) })
  }

  /// Restores what `save(key:)` wrote into an agent of the same
  /// configuration; all or nothing.
  public func restore(_ state: Data, key: Data) throws {
    try SavedState.restore(key: key, state: state) { p2b_cmab_restore(handle, $0, $1, $2) }
  }
}
