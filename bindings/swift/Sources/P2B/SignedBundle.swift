import CP2B
import Foundation

/// A signed warm start through one of the C API's pairs of calls (the
/// agent's and the shared model's): with a time, the `_at` form, which also
/// checks the bundle's not-after time; without one, the plain form.
func applySignedBundle(
  _ bundle: Data, now: Date?, at: (UnsafePointer<UInt8>?, Int, UInt64) -> p2b_status,
  plain: (UnsafePointer<UInt8>?, Int) -> p2b_status
) throws {
  try check(bundle.withBytes { bytes -> p2b_status in
    if let now = now { return at(bytes, bundle.count, now.unixSeconds) }
    return plain(bytes, bundle.count)
  })
}
