import CP2B
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The caller memory one C object lives in (the C API's arena discipline):
/// allocated once at the library's alignment, and wiped before it goes back,
/// because it holds what the user taught the object. Java's NativeArena and
/// Python's Arena do the same.
final class NativeArena {
  let base: UnsafeMutableRawPointer
  let byteCount: Int

  /// Tests only: sees the arena's bytes after the wipe, before they are
  /// freed, so a test can prove that deinit wipes.
  static var releaseObserver: ((UnsafeRawBufferPointer) -> Void)?

  init(byteCount: Int) {
    self.byteCount = byteCount
    base = UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1),
                                            alignment: p2b_arena_align())
  }

  deinit {
    NativeArena.wipe(base, byteCount)
    NativeArena.releaseObserver?(UnsafeRawBufferPointer(start: base, count: byteCount))
    base.deallocate()
  }

  /// Zeroes `count` bytes with a call the optimiser may not drop as a dead
  /// store before the free (explicit_bzero, memset_s).
  static func wipe(_ pointer: UnsafeMutableRawPointer, _ count: Int) {
    guard count > 0 else { return }
    #if canImport(Darwin)
      _ = memset_s(pointer, count, 0, count)
    #else
      explicit_bzero(pointer, count)
    #endif
  }
}

extension Array where Element == UInt8 {
  /// Wipes a scratch buffer that held saved state or a decrypted copy.
  mutating func wipe() {
    withUnsafeMutableBytes { raw in
      if let base = raw.baseAddress { NativeArena.wipe(base, raw.count) }
    }
  }
}
