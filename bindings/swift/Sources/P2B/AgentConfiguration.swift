import CP2B
import Foundation

/// How an agent or a shared model decides.
public enum Policy: UInt32 {
  /// LinUCB: theta.x + alpha * sqrt(x^T A^-1 x).
  case linUCB = 0
  /// Linear Thompson sampling: mu ~ N(theta, v^2 A^-1).
  case linTS = 1
}

/// Everything `Agent.init` needs. Every default is read from the C
/// library's `p2b_config_default`, so the two cannot drift; ranges are
/// checked by the library, which throws `P2BError.badConfig` for a value out
/// of range.
public struct AgentConfiguration {
  /// d: the context length.
  public var dimension: Int
  /// K: the number of actions.
  public var actions: Int
  /// The k-means codebook, k x d floats row-major (from `Codebook.parse`).
  public var codebook: [Float]
  /// The deployment's public keys, 32 bytes each (files from p2b-keygen).
  public var shufflerKey: Data
  public var analyzerKey: Data
  public var analyzerVerifyKey: Data

  public var policy: Policy
  public var alpha: Double
  public var ridgeLambda: Double
  public var tsScale: Double
  /// q: decimal digits kept when encoding.
  public var roundDigits: Int
  /// t: interactions per participation decision.
  public var window: Int
  /// p: the participation probability, in (0, 1).
  public var participation: Double
  public var negativeRate: Double
  /// The epsilon this agent may spend; infinity: unlimited.
  public var epsilonBudget: Double
  public var pendingCapacity: Int
  public var outboxCapacity: Int
  /// Models with a lower version are refused; raise it with each release.
  public var minModelVersion: UInt64
  /// Also apply raw-baseline models, which are NOT private. Experiments only.
  public var acceptBaselineModels: Bool
  /// nil: the platform CSPRNG (production). A seed: a deterministic
  /// generator, for tests and simulation only.
  public var seed: UInt64?

  public init(dimension: Int, actions: Int, codebook: [Float], shufflerKey: Data,
              analyzerKey: Data, analyzerVerifyKey: Data) {
    var d = p2b_config()
    precondition(p2b_config_default(&d) == P2B_OK)
    self.dimension = dimension
    self.actions = actions
    self.codebook = codebook
    self.shufflerKey = shufflerKey
    self.analyzerKey = analyzerKey
    self.analyzerVerifyKey = analyzerVerifyKey
    policy = Policy(rawValue: d.policy) ?? .linUCB
    alpha = d.alpha
    ridgeLambda = d.ridge_lambda
    tsScale = d.ts_scale
    roundDigits = Int(d.round_digits)
    window = Int(d.window)
    participation = d.participation
    negativeRate = d.neg_rate
    epsilonBudget = d.epsilon_budget
    pendingCapacity = Int(d.pending_capacity)
    outboxCapacity = Int(d.outbox_capacity)
    minModelVersion = d.min_model_version
    acceptBaselineModels = d.accept_baseline_models != 0
    seed = nil
  }

  /// The C configuration without its pointers (codebook, keys), which
  /// `Agent.init` sets only while the arrays are pinned. Throws for values
  /// the C types cannot hold, before the library sees them.
  func cConfig() throws -> p2b_config {
    var cfg = p2b_config()
    try check(p2b_config_default(&cfg))
    guard dimension > 0, actions > 0, !codebook.isEmpty, codebook.count % dimension == 0,
      let dim = UInt32(exactly: dimension), let nActions = UInt32(exactly: actions),
      let codes = UInt32(exactly: codebook.count / dimension),
      let digits = UInt32(exactly: roundDigits), let win = UInt32(exactly: window),
      let pending = UInt32(exactly: pendingCapacity), let outbox = UInt32(exactly: outboxCapacity)
    else { throw P2BError.badConfig }
    for key in [shufflerKey, analyzerKey, analyzerVerifyKey] where key.count != p2b_key_bytes() {
      throw P2BError.badConfig
    }
    cfg.dim = dim
    cfg.n_actions = nActions
    cfg.n_codes = codes
    cfg.policy = policy.rawValue
    cfg.alpha = alpha
    cfg.ridge_lambda = ridgeLambda
    cfg.ts_scale = tsScale
    cfg.round_digits = digits
    cfg.window = win
    cfg.participation = participation
    cfg.neg_rate = negativeRate
    cfg.epsilon_budget = epsilonBudget
    cfg.pending_capacity = pending
    cfg.outbox_capacity = outbox
    cfg.min_model_version = minModelVersion
    cfg.accept_baseline_models = acceptBaselineModels ? 1 : 0
    if let seed = seed {
      cfg.rng_mode = UInt32(P2B_RNG_SEEDED.rawValue)
      cfg.seed = seed
    }
    return cfg
  }
}
