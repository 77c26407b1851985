import Foundation
import XCTest

@testable import P2B

/// The shared-parameter model: a decision round trip, signed warm starts
/// against hostile ones, and save/restore, as c_api_test.c's
/// check_shared_model and check_shared_warm_start do from C.
final class SharedModelTests: XCTestCase {
  private let items: [[Double]] = [[1, 0, 0], [0, 1, 0]]

  private func configuration(_ fixture: Fixture? = nil) throws -> SharedModelConfiguration {
    var c = SharedModelConfiguration(dimension: 3, maxItems: 4)
    c.seed = 9
    c.analyzerVerifyKey = try fixture?.bytes("verify.pk")
    return c
  }

  func testTheDefaultsAreTheCLibrarys() {
    let c = SharedModelConfiguration(dimension: 3, maxItems: 4)
    XCTAssertEqual(c.precision, .double)
    XCTAssertEqual(c.pendingCapacity, 16)
    XCTAssertEqual(c.alpha, 1.0)
    XCTAssertNil(c.analyzerVerifyKey)
  }

  func testDecideRewardLearnAndScores() throws {
    let model = try SharedModel(try configuration())
    XCTAssertEqual(try model.theta(), [0, 0, 0])
    // Rewarding only the first direction teaches theta[0] alone: n / (lambda + n).
    for _ in 0..<9 { try model.learn([1, 0, 0], reward: 1) }
    let theta = try model.theta()
    XCTAssertEqual(theta[0], 0.9, accuracy: 1e-12)
    XCTAssertEqual(Array(theta[1...]), [0, 0])
    let s = try model.scores(items)
    XCTAssertEqual(s.mean[0], 0.9, accuracy: 1e-12)
    XCTAssertEqual(s.width[1], 1.0, accuracy: 1e-12)
    XCTAssertEqual(s.total[0], s.mean[0] + s.width[0], accuracy: 1e-12)
    let d = try model.decide(items)
    XCTAssertEqual(d.item, 0, "0.9 + sqrt(0.1) beats 0 + 1")
    try model.reward(d, 0.5)
    XCTAssertThrowsStatus(.alreadyRewarded, try model.reward(d, 0.5))
    XCTAssertThrowsStatus(.unknownDecision,
                          try model.reward(SharedModel.Decision(item: 0, id: d.id + 100), 0.5))
  }

  func testBadInputThrowsItsStatusAndChangesNothing() throws {
    let model = try SharedModel(try configuration())
    try model.learn([1, 0.5, 0], reward: 1)
    let before = try model.save(key: stateKey)
    XCTAssertThrowsStatus(.dimensionMismatch, try model.decide([[1, 0, 0], [1]]))
    XCTAssertThrowsStatus(.itemCount, try model.decide(Array(repeating: [0, 0, 0], count: 5)))
    XCTAssertThrowsStatus(.itemCount, try model.decide([]))
    XCTAssertThrowsStatus(.dimensionMismatch, try model.learn([1, 0], reward: 1))
    XCTAssertThrowsStatus(.nonFinite, try model.learn([1, .nan, 0], reward: 1))
    XCTAssertThrowsStatus(.rewardOutOfRange, try model.learn([1, 0, 0], reward: .nan))
    XCTAssertThrowsStatus(.numericRange, try model.learn([1e7, 0, 0], reward: 1))
    XCTAssertEqual(try model.save(key: stateKey), before)
    var bad = try configuration()
    bad.dimension = 0
    XCTAssertThrowsStatus(.badConfig, try SharedModel(bad))
    bad = try configuration()
    bad.analyzerVerifyKey = Data([1, 2, 3])
    XCTAssertThrowsStatus(.badConfig, try SharedModel(bad))
  }

  func testSaveAndRestoreDecideTheSame() throws {
    let model = try SharedModel(try configuration())
    let twin = try SharedModel(try configuration())
    for i in 0..<6 { try model.learn([Double(i % 3), 1, 0.5], reward: Double(i % 2)) }
    let state = try model.save(key: stateKey)
    XCTAssertThrowsStatus(.corruptState, try twin.restore(state, key: otherStateKey))
    var edited = state
    edited[edited.startIndex + edited.count / 2] ^= 1
    XCTAssertThrowsStatus(.corruptState, try twin.restore(edited, key: stateKey))
    XCTAssertEqual(try twin.theta(), [0, 0, 0], "a refused restore changes nothing")
    try twin.restore(state, key: stateKey)
    for i in 0..<10 {
      let xs: [[Double]] = [[Double(i % 3), 1, 0.5], [0, Double((i * 7) % 5), 1]]
      let a = try model.decide(xs)
      let b = try twin.decide(xs)
      XCTAssertEqual(a, b)
      try model.reward(a, 1)
      try twin.reward(b, 1)
    }
    XCTAssertEqual(try model.save(key: stateKey), try twin.save(key: stateKey))
    let two = try SharedModel(SharedModelConfiguration(dimension: 2, maxItems: 2))
    XCTAssertThrowsStatus(.stateMismatch, try two.restore(state, key: stateKey))
  }

  func testASignedWarmStartAppliesOnceAndHostileOnesChangeNothing() throws {
    let fixture = try Fixture.load()
    let model = try SharedModel(try configuration(fixture))
    try model.learn([0, 1, 0], reward: 1)
    let before = try model.save(key: stateKey)
    let bundle = try fixture.bytes("shared.bundle")
    var flipped = bundle
    flipped[flipped.endIndex - 1] ^= 1
    let hostile: [(String, Data, P2BError)] = [
      ("a stranger's signature", try fixture.bytes("shared-foreign.bundle"), .badSignature),
      ("one flipped bit", flipped, .badSignature),
      ("an agent's 4-d bundle", try fixture.bytes("model.bundle"), .modelShapeMismatch),
      ("truncated", bundle.prefix(20), .malformedInput),
    ]
    for (what, b, status) in hostile {
      XCTAssertThrowsStatus(status, try model.applyModel(b), what)
      XCTAssertEqual(try model.save(key: stateKey), before, "\(what) changed the model")
    }
    XCTAssertEqual(try model.modelVersion(), 0)
    try model.applyModel(bundle, now: Date(timeIntervalSince1970: 1_795_000_000))
    XCTAssertEqual(try model.modelVersion(), 1)
    let warm = try model.theta()
    XCTAssertEqual(warm[0], 1, accuracy: 1e-12)
    XCTAssertEqual(Array(warm[1...]), [0, 0], "the bundle replaced what was learned")
    XCTAssertThrowsStatus(.modelRollback, try model.applyModel(bundle))
    let twin = try SharedModel(try configuration(fixture))
    try twin.restore(try model.save(key: stateKey), key: stateKey)
    XCTAssertEqual(try twin.modelVersion(), 1)

    // Without a pinned key every warm start is refused.
    let keyless = try SharedModel(try configuration())
    XCTAssertThrowsStatus(.badConfig, try keyless.applyModel(bundle))
    XCTAssertEqual(try keyless.modelVersion(), 0)
  }
}
