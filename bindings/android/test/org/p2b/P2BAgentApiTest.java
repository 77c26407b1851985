package org.p2b;

import static org.p2b.Checks.check;
import static org.p2b.Checks.expectStatus;
import static org.p2b.P2BAgentTest.context;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The agent's calls beyond decide/reward/save: learn, forget, scores, encode/centroid, tuples and
 * the privacy ledger, export/import, encrypted state, model versions by kind, and key lists. Each
 * bad input must give its status and leave the agent as it was.
 */
final class P2BAgentApiTest {
  private P2BAgentApiTest() {}

  private static final byte[] KEY = new byte[32];
  private static final byte[] OTHER_KEY = new byte[32];

  static {
    KEY[0] = 7;
    OTHER_KEY[0] = 8;
  }

  private static boolean sameStats(P2BAgent.Stats x, P2BAgent.Stats y) {
    return Arrays.equals(x.a, y.a) && Arrays.equals(x.b, y.b);
  }

  static void run(Path dir) throws Exception {
    P2BAgent.Config cfg = P2BAgentTest.fixtureConfig(dir);
    final int dim = cfg.dim;
    final int k = cfg.centroids.length / dim;
    check(cfg.envelopeSize() == P2BAgent.ENVELOPE_BYTES, "Config.envelopeSize()");
    check(!cfg.acceptBaselineModels, "raw baselines refused by default");

    try (P2BAgent agent = new P2BAgent(cfg); P2BAgent fresh = new P2BAgent(cfg)) {
      final P2BAgent.Stats prior = fresh.exportStats();
      check(prior.a.length == cfg.nActions * dim * dim && prior.b.length == cfg.nActions * dim,
          "exportStats sizes");
      check(prior.a[0] == cfg.ridgeLambda && prior.a[1] == 0 && prior.b[0] == 0,
          "a fresh agent's A is lambda I and b is 0");

      // Encoder: every centroid encodes to its own code.
      for (int c = 0; c < k; ++c) {
        float[] row = agent.centroid(c);
        check(Arrays.equals(row, Arrays.copyOfRange(cfg.centroids, c * dim, (c + 1) * dim)),
            "centroid " + c + " is the codebook's row");
        check(agent.encode(row) == c, "centroid " + c + " encodes to itself");
      }
      expectStatus(P2BStatus.ERR_CODE_OUT_OF_RANGE, "centroid(k)", () -> agent.centroid(k));
      expectStatus(P2BStatus.ERR_NEGATIVE_CONTEXT, "encode(negative)",
          () -> agent.encode(new float[] {1, -1, 0, 0}));

      // learn + scores: the learned arm's mean rises above the others.
      float[] x = context(3, dim);
      P2BAgent.Scores before = agent.scores(x);
      check(before.mean.length == cfg.nActions && before.width.length == cfg.nActions,
          "scores per action");
      check(before.mean[2] == 0 && before.width[2] > 0, "fresh arm: mean 0, width > 0");
      for (int i = 0; i < 20; ++i) agent.learn(x, 2, 1.0f);
      P2BAgent.Scores after = agent.scores(x);
      check(after.mean[2] > 0.5f && after.mean[0] == 0, "learned arm 2 scores higher");
      check(after.width[2] < before.width[2], "learning narrows the width");
      final P2BAgent.Stats learned = agent.exportStats();
      expectStatus(P2BStatus.ERR_ACTION_OUT_OF_RANGE, "learn(action n)",
          () -> agent.learn(x, cfg.nActions, 1.0f));
      expectStatus(P2BStatus.ERR_REWARD_OUT_OF_RANGE, "learn(reward 2)",
          () -> agent.learn(x, 0, 2f));
      expectStatus(P2BStatus.ERR_DIMENSION_MISMATCH, "scores(short)",
          () -> agent.scores(new float[dim - 1]));
      check(sameStats(learned, agent.exportStats()), "refused learn calls change nothing");

      // export -> import round-trip, and refused imports change nothing.
      fresh.importStats(learned.a, learned.b, P2BAgent.STATS_GRAM);
      check(sameStats(learned, fresh.exportStats()), "import(export) round-trips");
      P2BAgent.Scores imported = fresh.scores(x);
      for (int i = 0; i < cfg.nActions; ++i) {
        // The imported agent refactors A itself, so allow for rounding.
        check(Math.abs(imported.mean[i] - after.mean[i]) < 1e-5f
                && Math.abs(imported.width[i] - after.width[i]) < 1e-5f,
            "imported agent scores the same, action " + i);
      }
      double[] singular = new double[learned.a.length];
      expectStatus(P2BStatus.ERR_NOT_POSITIVE_DEFINITE, "import(zero matrices)",
          () -> fresh.importStats(singular, learned.b, P2BAgent.STATS_GRAM));
      expectStatus(P2BStatus.ERR_DIMENSION_MISMATCH, "import(short b)",
          () -> fresh.importStats(learned.a, Arrays.copyOf(learned.b, 1), P2BAgent.STATS_GRAM));
      expectStatus(P2BStatus.ERR_BAD_CONFIG, "import(form 7)",
          () -> fresh.importStats(learned.a, learned.b, 7));
      double[] nan = learned.b.clone();
      nan[0] = Double.NaN;
      expectStatus(P2BStatus.ERR_NON_FINITE, "import(NaN)",
          () -> fresh.importStats(learned.a, nan, P2BAgent.STATS_GRAM));
      check(sameStats(learned, fresh.exportStats()), "refused imports change nothing");

      // Tuples and the ledger: every report taken in plaintext is charged.
      int tuples = 0;
      for (int step = 0; step < 60; ++step) {
        P2BAgent.Decision d = agent.decide(context(step, dim));
        agent.reward(d.id, d.action == 1 ? 1.0f : 0.0f);
        for (P2BAgent.Tuple t = agent.pollTuple(); t != null; t = agent.pollTuple()) {
          ++tuples;
          check(t.code >= 0 && t.code < k && t.action >= 0 && t.action < cfg.nActions,
              "tuple code and action in range");
          check(t.reward == 0.0f || t.reward == 1.0f, "tuple reward observed or zero");
        }
      }
      P2BAgent.Privacy ledger = agent.privacy();
      check(tuples > 5 && ledger.reports == tuples, "ledger counts " + tuples + " tuples");
      check(ledger.windowsClosed == 30, "60 rewards close 30 windows of 2");
      check(ledger.epsilonPerReport == P2B.epsilonPerReport(cfg.participation),
          "epsilon per report is p2b_epsilon_per_report's");
      check(Math.abs(ledger.epsilonSpent - tuples * ledger.epsilonPerReport) < 1e-9,
          "epsilon spent = reports x epsilon per report");
      check(Double.isInfinite(ledger.epsilonBudget) && !ledger.exhausted, "no budget set");
      check(agent.pollTuple() == null, "no tuple waits");

      // Encrypted state: a fresh nonce each time, 44 bytes over the plain state.
      byte[] sealed = agent.saveEncrypted(KEY);
      check(sealed.length == agent.saveEncryptedSize()
              && sealed.length == agent.saveSize() + P2B.stateEncryptionOverhead(),
          "saveEncrypted size");
      check(!Arrays.equals(sealed, agent.saveEncrypted(KEY)), "a fresh nonce per save");
      byte[] copy = sealed.clone();
      final P2BAgent.Stats beforeRestore = fresh.exportStats();
      expectStatus(P2BStatus.ERR_CORRUPT_STATE, "restoreEncrypted(another key)",
          () -> fresh.restoreEncrypted(OTHER_KEY, sealed));
      byte[] tampered = sealed.clone();
      tampered[tampered.length / 2] ^= 1;
      expectStatus(P2BStatus.ERR_CORRUPT_STATE, "restoreEncrypted(tampered)",
          () -> fresh.restoreEncrypted(KEY, tampered));
      expectStatus(P2BStatus.ERR_CORRUPT_STATE, "restore(sealed bytes as plain)",
          () -> fresh.restore(KEY, sealed));
      check(sameStats(beforeRestore, fresh.exportStats()), "refused restores change nothing");
      fresh.restoreEncrypted(KEY, sealed);
      check(Arrays.equals(sealed, copy), "restoreEncrypted leaves the caller's bytes alone");
      check(sameStats(agent.exportStats(), fresh.exportStats()), "encrypted state round-trips");
      check(fresh.privacy().reports == ledger.reports, "the ledger travels with the state");

      // forget: statistics back to the prior, the ledger kept, pending ids expired.
      P2BAgent.Decision pending = agent.decide(context(1, dim));
      agent.forget();
      check(sameStats(prior, agent.exportStats()), "forget restores the prior");
      check(agent.privacy().reports == ledger.reports, "forget keeps the ledger");
      expectStatus(P2BStatus.ERR_EXPIRED_DECISION, "reward after forget",
          () -> agent.reward(pending.id, 1.0f));
    }

    // Model versions by kind: an agent that accepts raw baselines keeps them apart.
    P2BAgent.Config baseline = P2BAgentTest.fixtureConfig(dir);
    baseline.acceptBaselineModels = true;
    try (P2BAgent agent = new P2BAgent(baseline)) {
      agent.applyModel(Files.readAllBytes(dir.resolve("raw.bundle")));
      check(agent.modelVersion(P2BAgent.MODEL_RAW_BASELINE) == 2, "raw baseline version 2");
      check(agent.modelVersion(P2BAgent.MODEL_PRIVATE) == 0 && agent.modelVersion() == 0,
          "no private model yet");
      agent.applyModel(Files.readAllBytes(dir.resolve("model.bundle")));
      check(agent.modelVersion(P2BAgent.MODEL_PRIVATE) == 1, "private model version 1");
    }

    keyLists(dir, cfg);
  }

  // Key lists: only the pinned key's list applies, rotates the sealing key, and retires keys.
  private static void keyLists(Path dir, P2BAgent.Config cfg) throws Exception {
    byte[] list1 = Files.readAllBytes(dir.resolve("keylist1.bin"));
    byte[] list2 = Files.readAllBytes(dir.resolve("keylist2.bin"));
    byte[] foreign = Files.readAllBytes(dir.resolve("keylist-foreign.bin"));
    byte[] oldKeyFp = P2B.keyFingerprint(cfg.shufflerPublicKey);
    byte[] newKeyFp = P2B.keyFingerprint(Files.readAllBytes(dir.resolve("shuffler2.pk")));
    check(list1.length == P2B.keyListBytes(), "the fixture's list is key-list sized");
    try (P2BAgent agent = new P2BAgent(cfg)) {
      P2BAgent.Fingerprints fps = agent.fingerprints();
      check(Arrays.equals(fps.shuffler, oldKeyFp), "sealing to the configured shuffler key");
      check(Arrays.equals(fps.analyzer, P2B.keyFingerprint(cfg.analyzerPublicKey))
              && Arrays.equals(fps.analyzerVerify, P2B.keyFingerprint(cfg.analyzerVerifyKey)),
          "analyzer fingerprints");
      check(agent.keyListVersion() == 0, "no key list applied");

      byte[] old = new byte[P2BAgent.ENVELOPE_BYTES];
      for (int step = 0; agent.pollEnvelope(old) != P2BStatus.OK; ++step) {
        P2BAgent.Decision d = agent.decide(context(step, cfg.dim));
        agent.reward(d.id, 1.0f);
      }
      check(agent.envelopeKeyAccepted(old), "an envelope to the configured key is accepted");

      expectStatus(P2BStatus.ERR_BAD_SIGNATURE, "applyKeyList(stranger's)",
          () -> agent.applyKeyList(foreign, 0));
      expectStatus(P2BStatus.ERR_MALFORMED_INPUT, "applyKeyList(truncated)",
          () -> agent.applyKeyList(Arrays.copyOf(list1, 100), 0));
      check(agent.keyListVersion() == 0 && Arrays.equals(agent.fingerprints().shuffler, oldKeyFp),
          "refused lists change nothing");

      agent.applyKeyList(list1, 0);
      check(agent.keyListVersion() == 1, "list 1 applied");
      check(Arrays.equals(agent.fingerprints().shuffler, newKeyFp), "sealing to the list's key");
      check(agent.envelopeKeyAccepted(old), "list 1 still accepts the old key");
      expectStatus(P2BStatus.ERR_KEY_LIST_ROLLBACK, "applyKeyList(list 1 again)",
          () -> agent.applyKeyList(list1, 0));

      agent.applyKeyList(list2, 0);
      check(agent.keyListVersion() == 2, "list 2 applied");
      check(!agent.envelopeKeyAccepted(old), "list 2 retired the old key");
      byte[] fresh = new byte[P2BAgent.ENVELOPE_BYTES];
      for (int step = 0; agent.pollEnvelope(fresh) != P2BStatus.OK; ++step) {
        P2BAgent.Decision d = agent.decide(context(step, cfg.dim));
        agent.reward(d.id, 1.0f);
      }
      check(agent.envelopeKeyAccepted(fresh), "a new envelope is sealed to an accepted key");
      expectStatus(P2BStatus.ERR_MALFORMED_INPUT, "envelopeKeyAccepted(short)",
          () -> agent.envelopeKeyAccepted(new byte[10]));
    }
  }
}
