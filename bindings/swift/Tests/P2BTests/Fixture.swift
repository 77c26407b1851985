import Foundation
import XCTest

@testable import P2B

/// The deployment tests/binding_fixture.cpp writes (scripts/swift-test.sh
/// runs it and names its directory in P2B_BINDING_FIXTURE): fresh keys, a
/// 4-d codebook of 4 codes for an agent of 3 actions, signed warm starts
/// (model.bundle makes action 1 the best everywhere; shared.bundle gives a
/// 3-d shared model theta = (1, 0, 0)), the same signed by a stranger, and
/// shuffler-key lists.
struct Fixture {
  let directory: URL
  let dimension: Int
  let actions: Int
  let codebook: [Float]

  /// The fixture, or a test failure that says how to make one: a test that
  /// needs signed bundles must not pass without them.
  static func load(file: StaticString = #filePath, line: UInt = #line) throws -> Fixture {
    guard let path = ProcessInfo.processInfo.environment["P2B_BINDING_FIXTURE"] else {
      XCTFail("P2B_BINDING_FIXTURE is not set: run bash scripts/swift-test.sh", file: file,
              line: line)
      throw P2BError.notInitialized
    }
    let directory = URL(fileURLWithPath: path)
    let shape = try Data(contentsOf: directory.appendingPathComponent("shape.bin"))
    func le32(_ offset: Int) -> UInt32 {
      shape[shape.startIndex + offset..<shape.startIndex + offset + 4].reversed()
        .reduce(0) { $0 << 8 | UInt32($1) }
    }
    let floats = (8..<shape.count).striding(by: 4).map { Float(bitPattern: le32($0)) }
    return Fixture(directory: directory, dimension: Int(le32(0)), actions: Int(le32(4)),
                   codebook: floats)
  }

  func bytes(_ name: String) throws -> Data {
    try Data(contentsOf: directory.appendingPathComponent(name))
  }

  /// The fixture's agent: its shape, codebook and keys, window 2, seeded.
  func agentConfiguration(seed: UInt64 = 42) throws -> AgentConfiguration {
    var c = AgentConfiguration(dimension: dimension, actions: actions, codebook: codebook,
                               shufflerKey: try bytes("shuffler.pk"),
                               analyzerKey: try bytes("analyzer.pk"),
                               analyzerVerifyKey: try bytes("verify.pk"))
    c.window = 2
    c.seed = seed
    return c
  }
}

extension Range where Bound == Int {
  func striding(by step: Int) -> StrideTo<Int> { stride(from: lowerBound, to: upperBound, by: step) }
}

/// The app's state keys; a real app keeps one per device in the keystore.
let stateKey = Data([0xC0, 0xFF, 0xEE, 7] + [UInt8](repeating: 0, count: 28))
let otherStateKey = Data([0xC0, 0xFF, 0xEE, 8] + [UInt8](repeating: 0, count: 28))

/// Asserts that `body` throws exactly `status`.
func XCTAssertThrowsStatus<T>(
  _ status: P2BError, _ body: @autoclosure () throws -> T, _ what: String = "",
  file: StaticString = #filePath, line: UInt = #line
) {
  XCTAssertThrowsError(try body(), what, file: file, line: line) {
    XCTAssertEqual($0 as? P2BError, status, what, file: file, line: line)
  }
}
