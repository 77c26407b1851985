package org.p2b;

import java.nio.ByteBuffer;

/**
 * What P2BAgent, P2BSharedModel and P2BCmab share: the direct buffer their native object lives in,
 * its handle, and a close that wipes the buffer. Subclasses synchronize their calls on themselves,
 * as close does, so no call runs on a closed object.
 */
abstract class NativeArena implements AutoCloseable {
  private ByteBuffer arena; // holds the native object; the handle points into it
  private long handle;

  /** A direct buffer of a footprint's size; ERR_BAD_CONFIG above what one buffer holds. */
  static ByteBuffer allocate(long bytes) {
    if (bytes > Integer.MAX_VALUE) {
      throw new P2BException(P2BStatus.ERR_BAD_CONFIG, P2B.statusText(P2BStatus.ERR_BAD_CONFIG));
    }
    return ByteBuffer.allocateDirect((int) bytes);
  }

  /** Takes the buffer once the native init has set the object up in it. */
  final void attach(ByteBuffer mem, long nativeHandle) {
    arena = mem;
    handle = nativeHandle;
  }

  /** The native handle; IllegalStateException once closed. */
  final long handle() {
    if (handle == 0) {
      throw new IllegalStateException(getClass().getSimpleName() + " is closed");
    }
    return handle;
  }

  /** Wipes and releases the native object; further calls throw IllegalStateException. Idempotent. */
  @Override
  public synchronized void close() {
    if (handle == 0) return;
    P2B.wipe(arena);
    handle = 0;
    arena = null;
  }
}
