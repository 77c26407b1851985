package org.p2b;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Drives P2BAgent through the JNI shim on the host JVM: decide, reward, pollEnvelope, save/restore,
 * applyModel, close, and errors arriving as P2BException, in the directory p2b_binding_fixture wrote
 * (keys, codebook, signed bundles). P2BAgentApiTest covers the rest of the agent's calls.
 */
final class P2BAgentTest {
  private P2BAgentTest() {}
  // The app's state key; a real app keeps one per device in the Android Keystore.
  private static final byte[] STATE_KEY = new byte[P2BAgent.STATE_KEY_BYTES];
  private static final byte[] OTHER_STATE_KEY = new byte[P2BAgent.STATE_KEY_BYTES];

  static {
    STATE_KEY[0] = 1;
    OTHER_STATE_KEY[0] = 2;
  }

  private static void check(boolean ok, String what) {
    Checks.check(ok, what);
  }

  private static void expectStatus(int status, String what, Checks.Call call) {
    Checks.expectStatus(status, what, call);
  }

  static float[] context(int step, int dim) {
    float[] x = new float[dim];
    for (int i = 0; i < dim; ++i) x[i] = 0.1f + ((step * 7 + i * 3) % 10) / 10.0f;
    return x;
  }

  /** The fixture's agent settings: its shape, codebook and keys, window 2, seeded. */
  static P2BAgent.Config fixtureConfig(Path dir) throws java.io.IOException {
    ByteBuffer shape = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("shape.bin")))
                           .order(ByteOrder.LITTLE_ENDIAN);
    P2BAgent.Config cfg = new P2BAgent.Config();
    cfg.dim = shape.getInt();
    cfg.nActions = shape.getInt();
    cfg.centroids = new float[shape.remaining() / 4];
    shape.asFloatBuffer().get(cfg.centroids);
    cfg.shufflerPublicKey = Files.readAllBytes(dir.resolve("shuffler.pk"));
    cfg.analyzerPublicKey = Files.readAllBytes(dir.resolve("analyzer.pk"));
    cfg.analyzerVerifyKey = Files.readAllBytes(dir.resolve("verify.pk"));
    cfg.window = 2;
    cfg.seeded = true;
    cfg.seed = 42;
    return cfg;
  }

  static void run(Path dir) throws Exception {
    ByteBuffer shape = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("shape.bin")))
                           .order(ByteOrder.LITTLE_ENDIAN);
    P2BAgent.Config cfg = new P2BAgent.Config();
    check(cfg.window == 10 && cfg.participation == 0.5 && cfg.pendingCapacity == 16,
        "Config() carries p2b_config_default's values");
    cfg.dim = shape.getInt();
    cfg.nActions = shape.getInt();
    cfg.centroids = new float[shape.remaining() / 4];
    shape.asFloatBuffer().get(cfg.centroids);
    cfg.shufflerPublicKey = Files.readAllBytes(dir.resolve("shuffler.pk"));
    cfg.analyzerPublicKey = Files.readAllBytes(dir.resolve("analyzer.pk"));
    cfg.analyzerVerifyKey = Files.readAllBytes(dir.resolve("verify.pk"));
    cfg.window = 2;
    cfg.seeded = true;
    cfg.seed = 42;
    final int dim = cfg.dim;

    try (P2BAgent agent = new P2BAgent(cfg); P2BAgent twin = new P2BAgent(cfg)) {
      // Learn and report.
      byte[] envelope = new byte[P2BAgent.ENVELOPE_BYTES];
      int reports = 0;
      long lastId = 0;
      for (int step = 0; step < 200; ++step) {
        P2BAgent.Decision d = agent.decide(context(step, dim));
        check(d.action >= 0 && d.action < cfg.nActions, "action in range");
        agent.reward(d.id, d.action == 2 ? 1.0f : 0.0f);
        lastId = d.id;
        Arrays.fill(envelope, (byte) 0);
        while (agent.pollEnvelope(envelope) == P2BStatus.OK) {
          ++reports;
          check(!Arrays.equals(envelope, new byte[P2BAgent.ENVELOPE_BYTES]), "envelope written");
        }
      }
      check(reports > 20 && reports < 80, "about one report per two windows, got " + reports);

      // Errors reach Java as P2BException and leave the agent as it was.
      final long rewarded = lastId;
      expectStatus(P2BStatus.ERR_DIMENSION_MISMATCH, "decide(short context)",
          () -> agent.decide(new float[dim - 1]));
      expectStatus(P2BStatus.ERR_REWARD_OUT_OF_RANGE, "reward(1.5)",
          () -> agent.reward(rewarded, 1.5f));
      expectStatus(P2BStatus.ERR_ALREADY_REWARDED, "reward twice",
          () -> agent.reward(rewarded, 1.0f));
      expectStatus(P2BStatus.ERR_NULL_POINTER, "applyModel(null)", () -> agent.applyModel(null));
      check(P2BAgent.statusText(P2BStatus.ERR_NULL_POINTER)
                .equals("a required pointer argument is NULL"),
          "statusText is p2b_status_str");

      // Save, restore into the twin, and decide identically from there on.
      byte[] state = agent.save(STATE_KEY);
      expectStatus(P2BStatus.ERR_CORRUPT_STATE, "restore(another key)",
          () -> twin.restore(OTHER_STATE_KEY, state));
      twin.restore(STATE_KEY, state);
      for (int step = 0; step < 50; ++step) {
        P2BAgent.Decision a = agent.decide(context(step * 3, dim));
        P2BAgent.Decision b = twin.decide(context(step * 3, dim));
        check(a.action == b.action && a.id == b.id, "restored twin decides the same");
        agent.reward(a.id, 1.0f);
        twin.reward(b.id, 1.0f);
      }
      byte[] tampered = state.clone();
      tampered[tampered.length / 2] ^= 1;
      expectStatus(P2BStatus.ERR_CORRUPT_STATE, "restore(tampered)", () -> twin.restore(STATE_KEY, tampered));

      // Warm start: only the pinned analyzer key's bundle applies, once.
      byte[] model = Files.readAllBytes(dir.resolve("model.bundle"));
      byte[] foreign = Files.readAllBytes(dir.resolve("foreign.bundle"));
      expectStatus(P2BStatus.ERR_BAD_SIGNATURE, "applyModel(foreign key)",
          () -> agent.applyModel(foreign));
      expectStatus(P2BStatus.ERR_MALFORMED_INPUT, "applyModel(truncated)",
          () -> agent.applyModel(Arrays.copyOf(model, 16)));
      check(agent.modelVersion() == 0, "no model applied yet");
      // A raw-baseline model is refused and sets no version; an expired one too.
      byte[] raw = Files.readAllBytes(dir.resolve("raw.bundle"));
      byte[] expiring = Files.readAllBytes(dir.resolve("expiring.bundle"));
      expectStatus(P2BStatus.ERR_MODEL_KIND, "applyModel(raw baseline)", () -> agent.applyModel(raw));
      expectStatus(P2BStatus.ERR_MODEL_EXPIRED, "applyModelAt(after not-after)",
          () -> agent.applyModelAt(expiring, 1795003601L));
      check(agent.modelVersion() == 0, "no model applied by a refusal");
      agent.applyModel(model);
      check(agent.modelVersion() == 1, "model version 1 applied");
      for (int step = 0; step < 20; ++step) {
        P2BAgent.Decision d = agent.decide(context(step, dim));
        check(d.action == 1, "the model's preferred action is chosen, got " + d.action);
        agent.reward(d.id, 1.0f);
      }
      expectStatus(P2BStatus.ERR_MODEL_ROLLBACK, "applyModel(same version)",
          () -> agent.applyModel(model));
      twin.restore(STATE_KEY, agent.save(STATE_KEY));
      check(twin.modelVersion() == 1, "the applied version survives save/restore");
      expectStatus(P2BStatus.ERR_MODEL_ROLLBACK, "applyModel on restored twin",
          () -> twin.applyModel(model));
    }

    // After close every call is refused, and closing again is harmless.
    P2BAgent closed = new P2BAgent(cfg);
    closed.close();
    closed.close();
    Checks.expectClosed("decide after close", () -> closed.decide(context(0, dim)));
    Checks.expectClosed("forget after close", closed::forget);

    // A bad configuration fails in the constructor.
    P2BAgent.Config bad = new P2BAgent.Config();
    bad.dim = cfg.dim;
    bad.nActions = cfg.nActions;
    bad.centroids = cfg.centroids;
    bad.shufflerPublicKey = cfg.shufflerPublicKey;
    bad.analyzerPublicKey = Arrays.copyOf(cfg.analyzerPublicKey, 31);
    bad.analyzerVerifyKey = cfg.analyzerVerifyKey;
    expectStatus(P2BStatus.ERR_BAD_CONFIG, "31-byte key", () -> new P2BAgent(bad).close());
    bad.analyzerPublicKey = cfg.analyzerPublicKey;
    bad.participation = 1.5;
    expectStatus(P2BStatus.ERR_BAD_CONFIG, "participation 1.5", () -> new P2BAgent(bad).close());

    // The version floor: a fresh device refuses an older signed model.
    cfg.minModelVersion = 2;
    try (P2BAgent fresh = new P2BAgent(cfg)) {
      byte[] model = Files.readAllBytes(dir.resolve("model.bundle"));
      expectStatus(P2BStatus.ERR_MODEL_ROLLBACK, "applyModel(below minModelVersion)",
          () -> fresh.applyModel(model));
      check(fresh.modelVersion() == 0, "nothing applied below the floor");
    }

  }
}
