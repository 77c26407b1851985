import CP2B
import Foundation

/// A codebook file (from p2b-codebook), parsed and checked.
public struct Codebook: Equatable {
  /// k: the number of codes.
  public let codes: Int
  /// d: the context length.
  public let dimension: Int
  /// q: decimal digits kept when encoding.
  public let digits: Int
  /// k x d floats, row-major: `AgentConfiguration.codebook`.
  public let centroids: [Float]
  /// Binds k, d, q and every centroid bit; the analyzer's models carry it.
  public let fingerprint: Data

  /// Parses a codebook file; throws `P2BError.malformedInput` for anything
  /// that is not one, or whose fingerprint does not match its content.
  public static func parse(_ file: Data) throws -> Codebook {
    var info = p2b_codebook_info()
    // Every centroid value takes at least 4 bytes of the file.
    let cap = max(1, min(Int(p2b_max_codes()) * Int(p2b_max_dim()), file.count / 4))
    var centroids = [Float](repeating: 0, count: cap)
    try check(file.withBytes { p2b_codebook_parse($0, file.count, &centroids, cap, &info) })
    let used = Int(info.k) * Int(info.dim)
    return Codebook(codes: Int(info.k), dimension: Int(info.dim), digits: Int(info.digits),
                    centroids: Array(centroids.prefix(used)),
                    fingerprint: withUnsafeBytes(of: info.fingerprint) { Data($0) })
  }
}
