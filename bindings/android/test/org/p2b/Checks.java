package org.p2b;

/** The assertions the host tests share; failures are counted, and AllTests exits non-zero. */
final class Checks {
  private Checks() {}

  static int failures = 0;

  static void check(boolean ok, String what) {
    if (!ok) {
      System.err.println("check failed: " + what);
      ++failures;
    }
  }

  interface Call {
    void run();
  }

  /** The call must throw P2BException with {@code status} and p2b_status_str's text. */
  static void expectStatus(int status, String what, Call call) {
    try {
      call.run();
      check(false, what + ": no exception, expected status " + status);
    } catch (P2BException e) {
      check(e.status() == status, what + ": status " + e.status() + ", expected " + status);
      check(e.getMessage().equals(P2B.statusText(status)), what + ": message " + e.getMessage());
    }
  }

  /** The call must throw IllegalStateException (a closed object). */
  static void expectClosed(String what, Call call) {
    try {
      call.run();
      check(false, what + ": no IllegalStateException");
    } catch (IllegalStateException expected) {
      // the handle is gone
    }
  }
}
