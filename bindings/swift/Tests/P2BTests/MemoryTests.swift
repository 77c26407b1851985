import Foundation
import XCTest

@testable import P2B

/// Each object's memory is wiped before it goes back: it holds what the user
/// taught it (as Java's NativeArena.close and Python's Arena do).
final class MemoryTests: XCTestCase {
  private var released: [[UInt8]] = []

  override func setUp() {
    released = []
    NativeArena.releaseObserver = { [unowned self] bytes in self.released.append(Array(bytes)) }
  }

  override func tearDown() { NativeArena.releaseObserver = nil }

  private func assertOneWipedRelease(of footprint: Int, _ what: String) {
    XCTAssertEqual(released.count, 1, what)
    XCTAssertEqual(released.first?.count, footprint, what)
    XCTAssert(released.first?.allSatisfy { $0 == 0 } ?? false, "\(what): arena not wiped")
    released = []
  }

  func testAnAgentsArenaIsWipedWhenItGoes() throws {
    var footprint = 0
    do {
      let c = AgentConfiguration(
        dimension: 2, actions: 2, codebook: [1, 0, 0, 1], shufflerKey: Data(repeating: 1, count: 32),
        analyzerKey: Data(repeating: 2, count: 32), analyzerVerifyKey: Data(repeating: 3, count: 32))
      let agent = try Agent(c)
      for _ in 0..<5 { try agent.reward(try agent.decide([0.7, 0.3]), 1) }
      footprint = agent.footprint
    }
    assertOneWipedRelease(of: footprint, "agent")
  }

  func testASharedModelsArenaIsWipedWhenItGoes() throws {
    var footprint = 0
    do {
      let model = try SharedModel(SharedModelConfiguration(dimension: 2, maxItems: 2))
      try model.learn([0.5, -0.5], reward: 1)
      footprint = model.footprint
    }
    assertOneWipedRelease(of: footprint, "shared model")
  }

  func testACmabAgentsArenaIsWipedWhenItGoes() throws {
    var footprint = 0
    do {
      let agent = try CmabAgent(CmabConfiguration(costs: [0.1, 0.2], capacities: [3, 3]))
      try agent.observe(good: try agent.decide().map { $0 / 2 })
      footprint = agent.footprint
    }
    assertOneWipedRelease(of: footprint, "P-FCB agent")
  }
}
