import Foundation
import XCTest

@testable import P2B

/// P-FCB from Swift: rounds, shares between two agents, selective
/// acceptance, the privacy ledger, and a restart, as c_api_test.c's
/// check_cmab does from C.
final class CmabAgentTests: XCTestCase {
  private let quality = [0.9, 0.5, 0.2]

  private func configuration(seed: UInt64) -> CmabConfiguration {
    var c = CmabConfiguration(costs: [0.3, 0.2, 0.1], capacities: [5, 5, 5])
    c.schedule = .everyRound
    c.windowStart = 20
    c.windowStop = 1000
    c.epsilon = 50
    c.agents = 2
    c.maxPeers = 2
    c.seed = seed
    return c
  }

  /// One round with deterministic producers: floor(units * quality) good units.
  @discardableResult
  private func round(_ agent: CmabAgent) throws -> [Int] {
    let units = try agent.decide()
    XCTAssert(units.allSatisfy { (0...5).contains($0) })
    try agent.observe(good: zip(units, quality).map { Int((Double($0) * $1).rounded(.down)) })
    return units
  }

  func testTheDefaultsAreTheCLibrarys() {
    let c = CmabConfiguration(costs: [1], capacities: [1])
    XCTAssertEqual(c.alpha, 0.4)
    XCTAssertEqual(c.exploreRounds, 10)
    XCTAssertEqual(c.windowStart, 200)
    XCTAssertEqual(c.schedule, .paper)
    XCTAssertEqual(c.epsilon, 1.0)
    XCTAssertGreaterThan(CmabAgent.shareSize(producers: 3), 0)
    XCTAssertEqual(CmabAgent.shareSize(producers: 0), 0)
    XCTAssertEqual(CmabAgent.shareSize(producers: 65), 0)
  }

  func testSharesFlowBetweenAgentsWithinTheBudgetAndReplaysAreRefused() throws {
    var open = configuration(seed: 2)
    open.omega1 = .infinity  // b accepts every report
    let a = try CmabAgent(configuration(seed: 1))
    let b = try CmabAgent(open)
    XCTAssertThrowsStatus(.unknownDecision, try a.observe(good: [0, 0, 0]))
    var shares: [Data] = []
    var own = 0
    for t in 0..<40 {
      own += try round(a).reduce(0, +)
      try round(b)
      if let share = try a.pollShare() {
        XCTAssertGreaterThanOrEqual(t, 19, "no share before the window")
        shares.append(share)
      }
      _ = try b.pollShare()
    }
    // Every release spends at least eps / (2 log2 T): the budget stops them.
    XCTAssert((11...20).contains(shares.count), "\(shares.count) releases")
    XCTAssertNil(try a.pollShare())
    XCTAssert(shares.allSatisfy { $0.count == CmabAgent.shareSize(producers: 3) })
    let spent = try a.privacySpent()
    XCTAssertEqual(spent.releases, shares.count)
    XCTAssertLessThanOrEqual(spent.paperEpsilon, 50 + 1e-9)
    XCTAssertEqual(spent.basicEpsilon, 2 * spent.paperEpsilon)
    XCTAssertEqual(spent.vectorMu, spent.elementMu * 3.0.squareRoot(), accuracy: 1e-12)
    let mine = try a.estimates()
    XCTAssertEqual(mine.unitsSeen.reduce(0, +), Double(own))
    XCTAssert(mine.quality.allSatisfy { (0...1).contains($0) })

    let before = try b.estimates().unitsSeen.reduce(0, +)
    var accepted = 0
    for s in shares {
      let r = try b.applyShare(s, from: 0)
      XCTAssertEqual(r.accepted + r.rejected, 3)
      accepted += r.accepted
    }
    XCTAssertGreaterThan(accepted, shares.count)
    XCTAssertGreaterThan(try b.estimates().unitsSeen.reduce(0, +), before)

    let state = try b.save(key: stateKey)
    XCTAssertThrowsStatus(.replayed, try b.applyShare(shares[shares.count - 1], from: 0))
    XCTAssertThrowsStatus(.actionOutOfRange, try b.applyShare(shares[0], from: 2))
    XCTAssertThrowsStatus(.malformedInput, try b.applyShare(shares[0].dropLast(), from: 1))
    XCTAssertEqual(try b.save(key: stateKey), state, "refused shares change nothing")
  }

  func testARestartKeepsTheLedgerAndTheReplayChecks() throws {
    let a = try CmabAgent(configuration(seed: 1))
    let b = try CmabAgent(configuration(seed: 2))
    var last: Data?
    for _ in 0..<25 {
      try round(a)
      if let s = try a.pollShare() { last = s }
    }
    let share = try XCTUnwrap(last)
    _ = try b.applyShare(share, from: 0)
    let state = try b.save(key: stateKey)
    XCTAssertEqual(state.count, 296 + 56 * 3 + 4 * 2)
    let restarted = try CmabAgent(configuration(seed: 2))
    XCTAssertThrowsStatus(.corruptState, try restarted.restore(state, key: otherStateKey))
    XCTAssertEqual(try restarted.privacySpent().releases, 0)
    try restarted.restore(state, key: stateKey)
    XCTAssertEqual(try restarted.estimates().unitsSeen, try b.estimates().unitsSeen)
    XCTAssertThrowsStatus(.replayed, try restarted.applyShare(share, from: 0))
    XCTAssertEqual(try restarted.save(key: stateKey), state)

    let spentBefore = try a.privacySpent()
    let aState = try a.save(key: stateKey)
    let aRestarted = try CmabAgent(configuration(seed: 1))
    try aRestarted.restore(aState, key: stateKey)
    XCTAssertEqual(try aRestarted.privacySpent(), spentBefore, "the budget is not spent twice")
    var other = configuration(seed: 1)
    other.capacities = [5, 5, 4]
    XCTAssertThrowsStatus(.stateMismatch, try CmabAgent(other).restore(aState, key: stateKey))
  }

  func testBadInputThrowsItsStatusAndChangesNothing() throws {
    let a = try CmabAgent(configuration(seed: 3))
    let units = try a.decide()
    let before = try a.save(key: stateKey)
    var tooMany = units
    tooMany[0] += 1
    XCTAssertThrowsStatus(.rewardOutOfRange, try a.observe(good: tooMany))
    XCTAssertThrowsStatus(.rewardOutOfRange, try a.observe(good: [-1, 0, 0]))
    XCTAssertThrowsStatus(.dimensionMismatch, try a.observe(good: [0, 0]))
    XCTAssertEqual(try a.save(key: stateKey), before)
    try a.observe(good: [0, 0, 0])

    var bad = configuration(seed: 3)
    bad.capacities = [5, 5]
    XCTAssertThrowsStatus(.badConfig, try CmabAgent(bad))
    bad.capacities = [5, 5, 0]
    XCTAssertThrowsStatus(.badConfig, try CmabAgent(bad))
  }
}
