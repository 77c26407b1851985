import CP2B
import Foundation

/// Save and restore in one shape for the agent, the shared model and the
/// P-FCB agent: the state key's length is checked here, the C call writes
/// into a scratch buffer of the size it reports, and the scratch is wiped
/// once the bytes are copied out.
enum SavedState {
  static func save(
    key: Data, size: (UnsafeMutablePointer<Int>) -> p2b_status,
    write: (UnsafePointer<UInt8>?, UnsafeMutableRawPointer?, Int, UnsafeMutablePointer<Int>)
      -> p2b_status
  ) throws -> Data {
    try checkStateKey(key)
    var bytes = 0
    try check(size(&bytes))
    var scratch = [UInt8](repeating: 0, count: bytes)
    defer { scratch.wipe() }
    var written = 0
    try check(key.withBytes { k in
      scratch.withUnsafeMutableBytes { write(k, $0.baseAddress, bytes, &written) }
    })
    return Data(scratch.prefix(written))
  }

  static func restore(
    key: Data, state: Data, read: (UnsafePointer<UInt8>?, UnsafeRawPointer?, Int) -> p2b_status
  ) throws {
    try checkStateKey(key)
    try check(key.withBytes { k in state.withUnsafeBytes { read(k, $0.baseAddress, state.count) } })
  }

  /// The C API reads exactly P2B_STATE_KEY_BYTES; a shorter Data would be
  /// read past its end, so it never reaches the library.
  static func checkStateKey(_ key: Data) throws {
    guard key.count == p2b_state_key_bytes() else { throw P2BError.badConfig }
  }
}
