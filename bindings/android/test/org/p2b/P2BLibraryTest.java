package org.p2b;

import static org.p2b.Checks.check;
import static org.p2b.Checks.expectStatus;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/** The calls without an agent: version, statuses, limits, fingerprints, epsilon, codebook files. */
final class P2BLibraryTest {
  private P2BLibraryTest() {}

  static void run(Path dir) throws Exception {
    // The version: the number and the string agree, and match the header CMake read.
    String v = P2B.versionString();
    String[] parts = v.split("\\.");
    check(parts.length == 3, "versionString is major.minor.patch: " + v);
    int number = Integer.parseInt(parts[0]) * 10000 + Integer.parseInt(parts[1]) * 100
        + Integer.parseInt(parts[2]);
    check(P2B.version() == number, "version() " + P2B.version() + " is " + v);
    String expected = System.getProperty("p2b.version");
    check(expected != null && expected.equals(v), "version " + v + " is the header's " + expected);

    // Every status P2BStatus names is known to the library, errors exactly when negative; the
    // values are the header's 0..2 and -1..-35 with none missing.
    int statuses = 0;
    for (Field f : P2BStatus.class.getFields()) {
      if (!Modifier.isStatic(f.getModifiers()) || f.getType() != int.class) continue;
      int s = f.getInt(null);
      ++statuses;
      check(!P2B.statusText(s).equals("unknown status"), f.getName() + " is a library status");
      check(P2B.isError(s) == (s < 0), f.getName() + ": isError iff negative");
      check(s >= -35 && s <= 2, f.getName() + " in the header's range");
    }
    check(statuses == 38, "P2BStatus names all 38 statuses, got " + statuses);
    check(P2B.statusText(-36).equals("unknown status"), "an unknown value is named so");
    check(P2B.statusText(P2BStatus.ERR_REPLAYED)
              .equals(P2BAgent.statusText(P2BStatus.ERR_REPLAYED)),
        "P2BAgent.statusText is P2B.statusText");

    // Sizes and compiled limits: the header's defaults (p2b_build_config.h).
    check(P2B.arenaAlign() == 16, "arena align 16");
    check(P2B.maxDim() == 64 && P2B.maxActions() == 1024 && P2B.maxCodes() == 65536,
        "max dim, actions, codes");
    check(P2B.maxDigits() == 6 && P2B.maxWindow() == 4096 && P2B.maxPending() == 65536
            && P2B.maxOutbox() == 256,
        "max digits, window, pending, outbox");
    check(P2B.keyBytes() == 32 && P2B.fingerprintBytes() == 16, "key and fingerprint sizes");
    check(P2B.envelopeBytes() == P2BAgent.ENVELOPE_BYTES, "envelope bytes");
    check(P2B.stateKeyBytes() == P2BAgent.STATE_KEY_BYTES, "state key bytes");
    check(P2B.stateEncryptionOverhead() == 44 && P2B.keyListBytes() == 248,
        "encryption overhead and key list size");
    check(P2B.sharedMaxDim() == 1024 && P2B.sharedMaxItems() == 65536, "shared model limits");

    // epsilon of one report: ln(p(2-p)/(1-p) + (1-p)).
    check(Math.abs(P2B.epsilonPerReport(0.5) - Math.log(2.0)) < 1e-12, "epsilon(0.5) = ln 2");
    double p = 0.2;
    check(Math.abs(P2B.epsilonPerReport(p) - Math.log(p * (2 - p) / (1 - p) + (1 - p))) < 1e-12,
        "epsilon(0.2)");
    expectStatus(P2BStatus.ERR_BAD_CONFIG, "epsilonPerReport(1)", () -> P2B.epsilonPerReport(1.0));
    expectStatus(P2BStatus.ERR_BAD_CONFIG, "epsilonPerReport(0)", () -> P2B.epsilonPerReport(0.0));

    // Key fingerprints: 16 bytes, distinct per key; bad input refused.
    byte[] shuffler = Files.readAllBytes(dir.resolve("shuffler.pk"));
    byte[] fp = P2B.keyFingerprint(shuffler);
    check(fp.length == 16 && !Arrays.equals(fp, new byte[16]), "a fingerprint is written");
    check(Arrays.equals(fp, P2B.keyFingerprint(shuffler.clone())), "fingerprints are stable");
    check(!Arrays.equals(fp, P2B.keyFingerprint(Files.readAllBytes(dir.resolve("analyzer.pk")))),
        "another key, another fingerprint");
    expectStatus(P2BStatus.ERR_NULL_POINTER, "keyFingerprint(null)",
        () -> P2B.keyFingerprint(null));
    expectStatus(P2BStatus.ERR_BAD_CONFIG, "keyFingerprint(31 bytes)",
        () -> P2B.keyFingerprint(Arrays.copyOf(shuffler, 31)));

    // Codebook files: the fixture's parses to the raw codebook of shape.bin.
    byte[] file = Files.readAllBytes(dir.resolve("codebook.p2bc"));
    P2B.Codebook book = P2B.parseCodebook(file);
    P2BAgent.Config cfg = P2BAgentTest.fixtureConfig(dir);
    check(book.k == 4 && book.dim == cfg.dim && book.digits == 1, "codebook k, dim, digits");
    check(Arrays.equals(book.centroids, cfg.centroids), "codebook centroids round-trip");
    check(book.fingerprint.length == 16, "codebook fingerprint");
    try (P2BAgent agent = new P2BAgent(cfg)) {
      check(Arrays.equals(book.fingerprint, agent.fingerprints().codebook),
          "the file's fingerprint is the one an agent reports");
    }
    expectStatus(P2BStatus.ERR_MALFORMED_INPUT, "parseCodebook(truncated)",
        () -> P2B.parseCodebook(Arrays.copyOf(file, file.length - 3)));
    byte[] edited = file.clone();
    edited[edited.length - 2] ^= 0x40; // a centroid bit: the fingerprint no longer matches
    expectStatus(P2BStatus.ERR_MALFORMED_INPUT, "parseCodebook(edited)",
        () -> P2B.parseCodebook(edited));
    expectStatus(P2BStatus.ERR_NULL_POINTER, "parseCodebook(null)", () -> P2B.parseCodebook(null));
  }
}
