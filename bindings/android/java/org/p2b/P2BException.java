package org.p2b;

/**
 * An error status from the native library. The message is p2b_status_str's text for the status,
 * so logs read the same from C and from Java.
 */
public final class P2BException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;

  P2BException(int status, String message) {
    super(message);
    this.status = status;
  }

  /** The p2b_status value, one of the negative {@link P2BStatus} constants. */
  public int status() {
    return status;
  }
}
