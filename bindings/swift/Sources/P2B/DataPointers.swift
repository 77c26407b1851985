import Foundation

extension Data {
  /// The bytes as the `const uint8_t*` the C API takes, for the duration of
  /// `body`. An empty Data may give a non-NULL pointer: the length (0) is
  /// what the C API refuses, as malformed input.
  func withBytes<R>(_ body: (UnsafePointer<UInt8>?) throws -> R) rethrows -> R {
    try withUnsafeBytes { raw in try body(raw.bindMemory(to: UInt8.self).baseAddress) }
  }
}
