import Foundation

extension Data {
  /// The bytes as the `const uint8_t*` the C API takes, for the duration of `body`.
  /// An empty Data gives a NULL pointer, which the C API refuses.
  func withBytes<R>(_ body: (UnsafePointer<UInt8>?) throws -> R) rethrows -> R {
    try withUnsafeBytes { raw in try body(raw.bindMemory(to: UInt8.self).baseAddress) }
  }
}
