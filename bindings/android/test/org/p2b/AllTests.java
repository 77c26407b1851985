package org.p2b;

import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Runs every host test of the binding against the fixture directory p2b_binding_fixture wrote (the
 * only argument), under -Xcheck:jni in ctest. Exits non-zero on any failed check.
 */
public final class AllTests {
  private AllTests() {}

  public static void main(String[] args) throws Exception {
    Path dir = Paths.get(args[0]);
    P2BLibraryTest.run(dir);
    P2BAgentTest.run(dir);
    P2BAgentApiTest.run(dir);
    P2BSharedModelTest.run(dir);
    P2BCmabTest.run();
    if (Checks.failures != 0) {
      System.err.println("AllTests: " + Checks.failures + " check(s) failed");
      System.exit(1);
    }
    System.out.println("AllTests: all checks passed");
  }
}
