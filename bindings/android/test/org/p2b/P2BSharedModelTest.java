package org.p2b;

import static org.p2b.Checks.check;
import static org.p2b.Checks.expectStatus;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/** P2BSharedModel: decide/reward/learn, scores, theta, signed warm starts, save/restore. */
final class P2BSharedModelTest {
  private P2BSharedModelTest() {}

  private static final byte[] KEY = new byte[32];

  static {
    KEY[0] = 3;
  }

  static void run(Path dir) throws Exception {
    P2BSharedModel.Config cfg = new P2BSharedModel.Config();
    check(cfg.precision == P2BSharedModel.PRECISION_F64 && cfg.pendingCapacity == 16
            && cfg.alpha == 1.0 && cfg.analyzerVerifyKey == null,
        "Config() carries p2b_shared_config_default's values");
    cfg.dim = 3;
    cfg.maxItems = 4;
    cfg.seeded = true;
    cfg.seed = 9;
    cfg.analyzerVerifyKey = Files.readAllBytes(dir.resolve("verify.pk"));
    final double[] items = {1, 0, 0, 0, 1, 0};

    try (P2BSharedModel model = new P2BSharedModel(cfg); P2BSharedModel twin =
             new P2BSharedModel(cfg)) {
      check(Arrays.equals(model.theta(), new double[3]), "theta starts at 0");
      // Rewarding only item 0's direction teaches theta[0] alone: n / (lambda + n).
      for (int i = 0; i < 9; ++i) model.learn(new double[] {1, 0, 0}, 1.0);
      double[] theta = model.theta();
      check(Math.abs(theta[0] - 0.9) < 1e-12 && theta[1] == 0 && theta[2] == 0,
          "theta = (0.9, 0, 0), got " + Arrays.toString(theta));
      P2BSharedModel.Scores s = model.scores(items);
      check(s.mean.length == 2 && Math.abs(s.mean[0] - 0.9) < 1e-12 && s.mean[1] == 0,
          "scores: mean is theta.x");
      check(Math.abs(s.width[1] - 1.0) < 1e-12 && s.width[0] < s.width[1], "scores: width");
      check(Math.abs(s.total[0] - (s.mean[0] + cfg.alpha * s.width[0])) < 1e-12,
          "scores: total = mean + alpha * width");
      P2BSharedModel.Decision d = model.decide(items);
      check(d.item == 0, "LinUCB picks item 0 (0.9 + sqrt(0.1) > 0 + 1)");
      model.reward(d.id, 0.5);
      expectStatus(P2BStatus.ERR_ALREADY_REWARDED, "reward twice", () -> model.reward(d.id, 0.5));
      expectStatus(P2BStatus.ERR_UNKNOWN_DECISION, "reward(unknown id)",
          () -> model.reward(d.id + 100, 0.5));

      // Bad input is refused and changes nothing.
      final double[] thetaBefore = model.theta();
      expectStatus(P2BStatus.ERR_DIMENSION_MISMATCH, "decide(ragged items)",
          () -> model.decide(new double[] {1, 0, 0, 1}));
      expectStatus(P2BStatus.ERR_ITEM_COUNT, "decide(5 items > maxItems)",
          () -> model.decide(new double[15]));
      expectStatus(P2BStatus.ERR_DIMENSION_MISMATCH, "learn(2 values)",
          () -> model.learn(new double[] {1, 0}, 1.0));
      expectStatus(P2BStatus.ERR_NON_FINITE, "learn(context NaN)",
          () -> model.learn(new double[] {1, Double.NaN, 0}, 1.0));
      expectStatus(P2BStatus.ERR_REWARD_OUT_OF_RANGE, "learn(reward NaN)",
          () -> model.learn(new double[] {1, 0, 0}, Double.NaN));
      check(Arrays.equals(thetaBefore, model.theta()), "refused calls change nothing");

      // Save/restore: the twin takes the state and decides the same.
      byte[] state = model.save(KEY);
      check(state.length == model.saveSize(), "save writes saveSize bytes");
      byte[] other = KEY.clone();
      other[1] = 1;
      expectStatus(P2BStatus.ERR_CORRUPT_STATE, "restore(another key)",
          () -> twin.restore(other, state));
      check(Arrays.equals(twin.theta(), new double[3]), "refused restore changes nothing");
      twin.restore(KEY, state);
      check(Arrays.equals(model.theta(), twin.theta()), "restored theta");
      for (int i = 0; i < 10; ++i) {
        double[] xs = {i % 3, 1, 0.5, 0, (i * 7) % 5, 1};
        P2BSharedModel.Decision a = model.decide(xs);
        P2BSharedModel.Decision b = twin.decide(xs);
        check(a.item == b.item && a.id == b.id, "the restored twin decides the same");
        model.reward(a.id, 1.0);
        twin.reward(b.id, 1.0);
      }

      // Warm starts: only the pinned key's bundle applies, once; it replaces A and b.
      byte[] foreign = Files.readAllBytes(dir.resolve("shared-foreign.bundle"));
      byte[] agentBundle = Files.readAllBytes(dir.resolve("model.bundle"));
      expectStatus(P2BStatus.ERR_BAD_SIGNATURE, "applyModel(stranger's)",
          () -> model.applyModel(foreign));
      expectStatus(P2BStatus.ERR_MODEL_SHAPE_MISMATCH, "applyModel(an agent's 4-d bundle)",
          () -> model.applyModel(agentBundle));
      check(model.modelVersion() == 0, "no warm start yet");
      byte[] bundle = Files.readAllBytes(dir.resolve("shared.bundle"));
      model.applyModelAt(bundle, 1795000000L);
      check(model.modelVersion() == 1, "warm start version 1");
      double[] warm = model.theta();
      check(Math.abs(warm[0] - 1.0) < 1e-12 && warm[1] == 0 && warm[2] == 0,
          "the bundle's theta (1, 0, 0), got " + Arrays.toString(warm));
      expectStatus(P2BStatus.ERR_MODEL_ROLLBACK, "applyModel(same version)",
          () -> model.applyModel(bundle));
      twin.restore(KEY, model.save(KEY));
      check(twin.modelVersion() == 1, "the version survives save/restore");
    }

    // Without a pinned key every warm start is refused; a state of another shape is too.
    P2BSharedModel.Config open = new P2BSharedModel.Config();
    open.dim = 2;
    open.maxItems = 2;
    byte[] bundle = Files.readAllBytes(dir.resolve("shared.bundle"));
    try (P2BSharedModel keyless = new P2BSharedModel(open); P2BSharedModel three =
             new P2BSharedModel(cfg)) {
      try {
        keyless.applyModel(bundle);
        check(false, "a model without a verify key refuses warm starts");
      } catch (P2BException e) {
        check(e.status() < 0 && keyless.modelVersion() == 0, "refused: " + e.getMessage());
      }
      expectStatus(P2BStatus.ERR_STATE_MISMATCH, "restore(a 3-d state into a 2-d model)",
          () -> keyless.restore(KEY, three.save(KEY)));
    }
    open.dim = 0;
    expectStatus(P2BStatus.ERR_BAD_CONFIG, "dim 0", () -> new P2BSharedModel(open).close());

    P2BSharedModel closed = new P2BSharedModel(cfg);
    closed.close();
    closed.close();
    Checks.expectClosed("theta after close", closed::theta);
  }
}
