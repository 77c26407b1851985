import Foundation
import XCTest

@testable import P2B

/// The agent against a deployment (Fixture): signed warm starts, hostile
/// bundles, key rotation, sealed reports and the codebook file, as
/// tests/c_api_test.c drives them from C.
final class AgentDeploymentTests: XCTestCase {
  private func context(_ step: Int, _ dim: Int) -> [Float] {
    (0..<dim).map { 0.1 + Float((step * 7 + $0 * 3) % 10) / 10 }
  }

  func testASignedModelWarmStartsAndHostileBundlesChangeNothing() throws {
    let fixture = try Fixture.load()
    let agent = try Agent(try fixture.agentConfiguration())
    for step in 0..<30 { try agent.reward(try agent.decide(context(step, fixture.dimension)), 0) }
    let before = try agent.save(key: stateKey)

    let model = try fixture.bytes("model.bundle")
    var flipped = model
    flipped[flipped.startIndex + flipped.count / 2] ^= 1
    let hostile: [(String, Data, P2BError)] = [
      ("a stranger's signature", try fixture.bytes("foreign.bundle"), .badSignature),
      ("one flipped bit", flipped, .badSignature),
      ("truncated", model.prefix(16), .malformedInput),
      ("empty", Data(), .malformedInput),
      ("a raw baseline", try fixture.bytes("raw.bundle"), .modelKind),
      ("a shared model's", try fixture.bytes("shared.bundle"), .modelShapeMismatch),
    ]
    for (what, bundle, status) in hostile {
      XCTAssertThrowsStatus(status, try agent.applyModel(bundle), what)
      XCTAssertEqual(try agent.save(key: stateKey), before, "\(what) changed the agent")
    }
    let expiring = try fixture.bytes("expiring.bundle")
    XCTAssertThrowsStatus(.modelExpired,
                          try agent.applyModel(expiring, now: Date(timeIntervalSince1970: 1_795_003_601)))
    XCTAssertEqual(try agent.save(key: stateKey), before)
    XCTAssertEqual(try agent.modelVersion(), 0)
    XCTAssertEqual(try agent.modelVersion(of: .rawBaseline), 0)

    try agent.applyModel(model)
    XCTAssertEqual(try agent.modelVersion(), 1)
    for step in 0..<20 {
      let d = try agent.decide(context(step, fixture.dimension))
      XCTAssertEqual(d.action, 1, "the model's preferred action")
      try agent.reward(d, 1)
    }
    XCTAssertThrowsStatus(.modelRollback, try agent.applyModel(model))

    // The version survives a restart, so the same bundle cannot roll it back.
    let twin = try Agent(try fixture.agentConfiguration())
    try twin.restore(try agent.save(key: stateKey), key: stateKey)
    XCTAssertEqual(try twin.modelVersion(), 1)
    XCTAssertThrowsStatus(.modelRollback, try twin.applyModel(model))

    // The version floor: a fresh device refuses an older signed model.
    var floor = try fixture.agentConfiguration()
    floor.minModelVersion = 2
    XCTAssertThrowsStatus(.modelRollback, try Agent(floor).applyModel(model))
  }

  func testABaselineModelAppliesOnlyWhenTheExperimentAsks() throws {
    let fixture = try Fixture.load()
    var config = try fixture.agentConfiguration()
    config.acceptBaselineModels = true
    let agent = try Agent(config)
    try agent.applyModel(try fixture.bytes("raw.bundle"))
    XCTAssertEqual(try agent.modelVersion(of: .rawBaseline), 2)
    XCTAssertEqual(try agent.modelVersion(of: .private), 0)
  }

  /// The fixture's agent, reporting after nearly every interaction.
  private func reportingAgent(_ fixture: Fixture) throws -> Agent {
    var config = try fixture.agentConfiguration()
    config.window = 1
    config.participation = 0.99
    return try Agent(config)
  }

  /// Rewards decisions until one report comes out (at most 10).
  private func nextEnvelope(_ agent: Agent, _ fixture: Fixture) throws -> Data {
    for step in 0..<10 {
      try agent.reward(try agent.decide(context(step, fixture.dimension)), 1)
      if let e = try agent.pollEnvelope() { return e }
    }
    throw NoReport()  // at p = 0.99, 1e-20: a failure, never chance
  }

  private struct NoReport: Error {}

  func testSealedReportsHaveOneLengthAndNameTheShufflersKey() throws {
    let fixture = try Fixture.load()
    let agent = try reportingAgent(fixture)
    let shufflerFingerprint = try P2B.fingerprint(ofKey: try fixture.bytes("shuffler.pk"))
    var envelopes: [Data] = []
    for step in 0..<20 {
      try agent.reward(try agent.decide(context(step, fixture.dimension)), 1)
      while let e = try agent.pollEnvelope() { envelopes.append(e) }
    }
    XCTAssertGreaterThan(envelopes.count, 10)
    for e in envelopes {
      XCTAssertEqual(e.count, P2B.envelopeBytes)
      XCTAssertEqual(e.prefix(P2B.fingerprintBytes), shufflerFingerprint)
      XCTAssertNoThrow(try agent.checkEnvelopeKey(e))
    }
    XCTAssertEqual(Set(envelopes).count, envelopes.count, "every seal is fresh")
    XCTAssertEqual(try agent.privacy().reports, UInt64(envelopes.count))
  }

  func testKeyListsRotateTheShufflerKeyAndRetireTheOldOne() throws {
    let fixture = try Fixture.load()
    let agent = try reportingAgent(fixture)
    let sealedToOld = try nextEnvelope(agent, fixture)
    let now = Date()
    let before = try agent.save(key: stateKey)
    XCTAssertThrowsStatus(.badSignature, try agent.applyKeyList(try fixture.bytes("keylist-foreign.bin"), now: now))
    XCTAssertThrowsStatus(.malformedInput,
                          try agent.applyKeyList(try fixture.bytes("keylist1.bin").dropLast(), now: now))
    XCTAssertEqual(try agent.save(key: stateKey), before, "refused lists change nothing")
    XCTAssertEqual(try agent.keyListVersion(), 0)

    try agent.applyKeyList(try fixture.bytes("keylist1.bin"), now: now)
    XCTAssertEqual(try agent.keyListVersion(), 1)
    let next = try P2B.fingerprint(ofKey: try fixture.bytes("shuffler2.pk"))
    XCTAssertEqual(try agent.fingerprints().shuffler, next)
    XCTAssertNoThrow(try agent.checkEnvelopeKey(sealedToOld), "the old key is still accepted")
    XCTAssertThrowsStatus(.keyListRollback, try agent.applyKeyList(try fixture.bytes("keylist1.bin"), now: now))

    try agent.applyKeyList(try fixture.bytes("keylist2.bin"), now: now)
    XCTAssertThrowsStatus(.keyRetired, try agent.checkEnvelopeKey(sealedToOld))
    XCTAssertEqual(try nextEnvelope(agent, fixture).prefix(P2B.fingerprintBytes), next)
  }

  func testTheCodebookFileIsTheAgentsCodebook() throws {
    let fixture = try Fixture.load()
    let book = try Codebook.parse(try fixture.bytes("codebook.p2bc"))
    XCTAssertEqual(book.codes, 4)
    XCTAssertEqual(book.dimension, fixture.dimension)
    XCTAssertEqual(book.centroids, fixture.codebook)
    let agent = try Agent(try fixture.agentConfiguration())
    XCTAssertEqual(try agent.fingerprints().codebook, book.fingerprint)
    var edited = try fixture.bytes("codebook.p2bc")
    edited[edited.endIndex - 1] ^= 1
    XCTAssertThrowsError(try Codebook.parse(edited))
  }

  func testStatisticsExportAndImportRoundTrip() throws {
    let fixture = try Fixture.load()
    let taught = try Agent(try fixture.agentConfiguration())
    for step in 0..<25 {
      let d = try taught.decide(context(step, fixture.dimension))
      try taught.reward(d, d.action == 2 ? 1 : 0)
    }
    let stats = try taught.exportStatistics()
    let fresh = try Agent(try fixture.agentConfiguration())
    let before = try fresh.save(key: stateKey)
    var notPositive = stats.a
    notPositive[0] = -1
    XCTAssertThrowsStatus(.notPositiveDefinite, try fresh.importStatistics(a: notPositive, b: stats.b))
    XCTAssertThrowsStatus(.dimensionMismatch, try fresh.importStatistics(a: stats.a, b: [1]))
    XCTAssertEqual(try fresh.save(key: stateKey), before)
    try fresh.importStatistics(a: stats.a, b: stats.b)
    let x = context(3, fixture.dimension)
    let want = try taught.scores(x)
    let got = try fresh.scores(x)
    for k in 0..<fixture.actions {
      XCTAssertEqual(got.mean[k], want.mean[k], accuracy: 1e-5)
      XCTAssertEqual(got.width[k], want.width[k], accuracy: 1e-5)
    }
  }
}
