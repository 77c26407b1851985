import CP2B
import Foundation

/// Library-wide facts: versions, compiled limits and fixed sizes.
public enum P2B {
  /// The version of the linked C library (`p2b_version_string`).
  public static var libraryVersion: String { String(cString: p2b_version_string()) }

  /// The version of the header this wrapper was compiled against, from its
  /// P2B_VERSION_* macros: the project's single version source.
  public static let headerVersion = "\(P2B_VERSION_MAJOR).\(P2B_VERSION_MINOR).\(P2B_VERSION_PATCH)"

  /// Bytes of every sealed envelope (`P2B_ENVELOPE_BYTES`): one length, so
  /// the length leaks nothing.
  public static var envelopeBytes: Int { p2b_envelope_bytes() }
  /// Bytes of each deployment public key.
  public static var keyBytes: Int { p2b_key_bytes() }
  /// Bytes of the per-device state key for save and restore.
  public static var stateKeyBytes: Int { p2b_state_key_bytes() }
  /// Bytes of a key or codebook fingerprint.
  public static var fingerprintBytes: Int { p2b_fingerprint_bytes() }
  /// The largest context dimension, number of actions and codebook size compiled in.
  public static var maxDimension: Int { Int(p2b_max_dim()) }
  public static var maxActions: Int { Int(p2b_max_actions()) }
  public static var maxCodes: Int { Int(p2b_max_codes()) }

  /// Epsilon of one report for participation probability `p` in (0, 1).
  public static func epsilonPerReport(participation p: Double) throws -> Double {
    var epsilon = 0.0
    try check(p2b_epsilon_per_report(p, &epsilon))
    return epsilon
  }

  /// The fingerprint (BLAKE2b-128) of a 32-byte public key, as p2b-keygen prints it.
  public static func fingerprint(ofKey key: Data) throws -> Data {
    guard key.count == keyBytes else { throw P2BError.badConfig }
    var out = [UInt8](repeating: 0, count: fingerprintBytes)
    try check(key.withBytes { p2b_key_fingerprint($0, &out) })
    return Data(out)
  }
}
