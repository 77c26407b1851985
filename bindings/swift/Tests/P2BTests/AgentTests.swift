import Foundation
import XCTest

@testable import P2B

// The agent without a deployment: arbitrary public keys (sealing works with
// any 32-byte X25519 key; the verify key is only used when a model is
// applied). AgentDeploymentTests runs it against the fixture's signed files.
private let shufflerKey = Data([1, 2, 3, 4, 5, 6, 7, 8, 9] + [UInt8](repeating: 0, count: 23))
private let analyzerKey = Data([9, 8, 7, 6, 5, 4, 3, 2, 1] + [UInt8](repeating: 0, count: 23))
private let verifyKey = Data([UInt8](repeating: 0x42, count: 32))

/// Four codes in d = 3: the corners of the simplex and its centre.
private let codebook: [Float] = [1, 0, 0, 0, 1, 0, 0, 0, 1, 0.3, 0.3, 0.4]

private func configuration(seed: UInt64 = 7) -> AgentConfiguration {
  var c = AgentConfiguration(dimension: 3, actions: 2, codebook: codebook, shufflerKey: shufflerKey,
                             analyzerKey: analyzerKey, analyzerVerifyKey: verifyKey)
  c.seed = seed
  c.window = 1
  c.participation = 0.99
  return c
}

final class AgentTests: XCTestCase {
  func testTheWrapperAndTheLibraryHaveOneVersion() {
    XCTAssertEqual(P2B.libraryVersion, P2B.headerVersion)
  }

  func testErrorsCarryTheCStatusAndItsText() {
    XCTAssertEqual(P2BError.badConfig.code, -2)
    XCTAssertEqual(P2BError.replayed.code, -35)
    XCTAssertFalse(P2BError.badConfig.name.isEmpty)
    XCTAssertNotEqual(P2BError.badConfig.name, P2BError.corruptState.name)
    let asError: Error = P2BError.badConfig
    XCTAssert(asError.localizedDescription.contains(P2BError.badConfig.name))
    XCTAssert(asError.localizedDescription.contains("-2"))
  }

  func testDecideRewardLearnsAndTheSameSeedGivesTheSameDecisions() throws {
    let a = try Agent(configuration())
    let b = try Agent(configuration())
    let x: [Float] = [0.9, 0.05, 0.05]
    for _ in 0..<20 {
      let d = try a.decide(x)
      let e = try b.decide(x)
      XCTAssertEqual(d, e)
      XCTAssert((0..<2).contains(d.action))
      try a.reward(d, d.action == 1 ? 1 : 0)
      try b.reward(e, e.action == 1 ? 1 : 0)
    }
    let (mean, width) = try a.scores(x)
    XCTAssertEqual(mean.count, 2)
    XCTAssertGreaterThan(mean[1], mean[0])  // only action 1 was ever rewarded
    XCTAssert(width.allSatisfy { $0 > 0 })
  }

  func testBadInputThrowsItsStatusAndChangesNothing() throws {
    let agent = try Agent(configuration())
    let before = try agent.save(key: stateKey)
    XCTAssertThrowsError(try agent.decide([0.5, 0.5])) { XCTAssertEqual($0 as? P2BError, .dimensionMismatch) }
    XCTAssertThrowsError(try agent.decide([-1, 0, 0])) { XCTAssertEqual($0 as? P2BError, .negativeContext) }
    XCTAssertThrowsError(try agent.decide([.nan, 0, 0])) { XCTAssertEqual($0 as? P2BError, .nonFinite) }
    let d = try agent.decide([0.2, 0.3, 0.5])
    let afterDecide = try agent.save(key: stateKey)
    XCTAssertThrowsError(try agent.reward(d, 2)) { XCTAssertEqual($0 as? P2BError, .rewardOutOfRange) }
    XCTAssertEqual(try agent.save(key: stateKey), afterDecide)
    XCTAssertThrowsError(try agent.reward(Decision(action: 0, id: 999_999), 1)) {
      XCTAssertEqual($0 as? P2BError, .unknownDecision)
    }
    XCTAssertNotEqual(before, afterDecide)  // the decision itself is state
  }

  func testSaveAndRestoreRoundTripAndTheWrongKeyIsRefused() throws {
    let agent = try Agent(configuration())
    let x: [Float] = [0.1, 0.8, 0.1]
    for _ in 0..<10 { try agent.reward(try agent.decide(x), 1) }
    let plain = try agent.save(key: stateKey)
    let sealed = try agent.saveEncrypted(key: stateKey)
    XCTAssertGreaterThan(sealed.count, plain.count)

    let fresh = try Agent(configuration())
    XCTAssertThrowsError(try fresh.restore(plain, key: otherStateKey)) {
      XCTAssertEqual($0 as? P2BError, .corruptState)
    }
    XCTAssertThrowsError(try fresh.restoreEncrypted(sealed, key: otherStateKey)) {
      XCTAssertEqual($0 as? P2BError, .corruptState)
    }
    try fresh.restoreEncrypted(sealed, key: stateKey)
    XCTAssertEqual(try fresh.save(key: stateKey), plain)
    XCTAssertEqual(try fresh.scores(x).mean, try agent.scores(x).mean)
  }

  func testForgetReturnsToThePrior() throws {
    let agent = try Agent(configuration())
    let x: [Float] = [0.3, 0.3, 0.4]
    let prior = try agent.scores(x)
    for _ in 0..<5 { try agent.reward(try agent.decide(x), 1) }
    XCTAssertNotEqual(try agent.scores(x).mean, prior.mean)
    try agent.forget()
    XCTAssertEqual(try agent.scores(x).mean, prior.mean)
  }

  func testEnvelopesHaveOneLengthAndTheLedgerCountsThem() throws {
    let agent = try Agent(configuration())
    var envelopes: [Data] = []
    for _ in 0..<40 {
      try agent.reward(try agent.decide([0.9, 0.05, 0.05]), 1)
      while let e = try agent.pollEnvelope() { envelopes.append(e) }
    }
    XCTAssertFalse(envelopes.isEmpty)
    XCTAssert(envelopes.allSatisfy { $0.count == P2B.envelopeBytes })
    let p = try agent.privacy()
    XCTAssertEqual(p.reports, UInt64(envelopes.count))  // drained every round: none dropped
    XCTAssertEqual(p.epsilonSpent, Double(p.reports) * p.epsilonPerReport, accuracy: 1e-12)
    XCTAssertEqual(p.epsilonPerReport, try P2B.epsilonPerReport(participation: 0.99), accuracy: 1e-12)
  }

  func testEncoderAndFingerprints() throws {
    let agent = try Agent(configuration())
    XCTAssertEqual(try agent.encode([0.05, 0.05, 0.9]), 2)
    XCTAssertEqual(try agent.centroid(3), [0.3, 0.3, 0.4])
    XCTAssertThrowsError(try agent.centroid(4)) { XCTAssertEqual($0 as? P2BError, .codeOutOfRange) }
    let f = try agent.fingerprints()
    XCTAssertEqual(f.shuffler, try P2B.fingerprint(ofKey: shufflerKey))
    XCTAssertEqual(f.codebook.count, P2B.fingerprintBytes)
  }

  func testMalformedInputsAreRefused() throws {
    XCTAssertThrowsError(try Codebook.parse(Data("not a codebook".utf8))) {
      XCTAssertEqual($0 as? P2BError, .malformedInput)
    }
    let agent = try Agent(configuration())
    XCTAssertThrowsError(try agent.applyModel(Data(repeating: 0xAB, count: 300))) {
      XCTAssertNotNil($0 as? P2BError)
    }
    XCTAssertEqual(try agent.modelVersion(), 0)
    var bad = configuration()
    bad.shufflerKey = Data([1, 2, 3])
    XCTAssertThrowsError(try Agent(bad)) { XCTAssertEqual($0 as? P2BError, .badConfig) }
  }
}
