package org.p2b;

import static org.p2b.Checks.check;
import static org.p2b.Checks.expectStatus;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** P2BCmab: rounds, shares between two agents, selective acceptance, privacy and estimates. */
final class P2BCmabTest {
  private P2BCmabTest() {}

  private static final double[] QUALITY = {0.9, 0.5, 0.2};

  private static P2BCmab.Config config(long seed) {
    P2BCmab.Config cfg = new P2BCmab.Config();
    cfg.cost = new double[] {0.3, 0.2, 0.1};
    cfg.capacity = new int[] {5, 5, 5};
    cfg.schedule = P2BCmab.SCHEDULE_EVERY_ROUND;
    cfg.windowStart = 20;
    cfg.windowStop = 1000;
    cfg.epsilon = 50;
    cfg.agents = 2;
    cfg.maxPeers = 2;
    cfg.seeded = true;
    cfg.seed = seed;
    return cfg;
  }

  // One round with deterministic producers: floor(units * quality) good units.
  private static int[] round(P2BCmab agent) {
    int[] units = agent.decide();
    int[] good = new int[units.length];
    for (int i = 0; i < units.length; ++i) {
      check(units[i] >= 0 && units[i] <= 5, "units within capacity");
      good[i] = (int) Math.floor(units[i] * QUALITY[i]);
    }
    agent.observe(good);
    return units;
  }

  static void run() {
    P2BCmab.Config defaults = new P2BCmab.Config();
    check(defaults.alpha == 0.4 && defaults.exploreRounds == 10 && defaults.windowStart == 200
            && defaults.schedule == P2BCmab.SCHEDULE_PAPER && defaults.epsilon == 1.0,
        "Config() carries p2b_cmab_config_default's values");
    int size = P2BCmab.shareSize(3);
    check(size > 0 && P2BCmab.shareSize(0) == 0 && P2BCmab.shareSize(65) == 0,
        "shareSize is fixed per m and 0 out of range");

    P2BCmab.Config open = config(2);
    open.omega1 = Double.POSITIVE_INFINITY; // b accepts every report
    try (P2BCmab a = new P2BCmab(config(1)); P2BCmab b = new P2BCmab(open)) {
      expectStatus(P2BStatus.ERR_UNKNOWN_DECISION, "observe before decide",
          () -> a.observe(new int[3]));
      List<byte[]> shares = new ArrayList<>();
      long own = 0;
      for (int t = 0; t < 40; ++t) {
        for (int u : round(a)) own += u;
        round(b);
        byte[] share = a.pollShare();
        check(share == null || t >= 19, "no share before the window");
        if (share != null) shares.add(share);
        b.pollShare(); // b's own shares are not needed here
      }
      // Rounds 20..40 may release, but each spends at least eps / (2 log2 T) = 50 / 33.2: the
      // budget stops releases before round 40, and nothing waits after.
      check(shares.size() > 10 && shares.size() < 21,
          "the budget stops releases: " + shares.size());
      check(a.pollShare() == null, "no share waits");
      for (byte[] s : shares) check(s.length == size, "share length is shareSize(3)");
      P2BCmab.Privacy spent = a.privacySpent();
      check(spent.releases == shares.size(), "releases counted: " + spent.releases);
      check(spent.paperEpsilon > 0 && spent.paperEpsilon <= 50 + 1e-9,
          "paper epsilon within budget");
      check(spent.basicEpsilon == 2 * spent.paperEpsilon, "basic composition doubles it");
      check(spent.deltaTarget == 0.01, "delta target");

      double[] seen = a.unitsSeen();
      double[] q = a.quality();
      check(seen.length == 3 && Arrays.stream(seen).sum() == own, "units seen = own units");
      for (int i = 0; i < 3; ++i) check(q[i] >= 0 && q[i] <= 1, "quality in [0, 1]");

      // b learns from a's shares, in order; a replay is refused and changes nothing.
      double[] before = b.unitsSeen();
      int accepted = 0;
      for (byte[] s : shares) {
        P2BCmab.Applied r = b.applyShare(0, s);
        check(r.accepted + r.rejected == 3, "every producer accepted or rejected");
        accepted += r.accepted;
      }
      // With no acceptance band only empty or noise-negative reports are rejected.
      check(accepted > shares.size(), "most reports accepted: " + accepted);
      check(Arrays.stream(b.unitsSeen()).sum() > Arrays.stream(before).sum(),
          "accepted reports add to units seen");
      double[] after = b.unitsSeen();
      expectStatus(P2BStatus.ERR_REPLAYED, "applyShare(replay)",
          () -> b.applyShare(0, shares.get(shares.size() - 1)));
      expectStatus(P2BStatus.ERR_ACTION_OUT_OF_RANGE, "applyShare(sender 2 >= maxPeers)",
          () -> b.applyShare(2, shares.get(0)));
      expectStatus(P2BStatus.ERR_MALFORMED_INPUT, "applyShare(truncated)",
          () -> b.applyShare(1, Arrays.copyOf(shares.get(0), size - 1)));
      expectStatus(P2BStatus.ERR_NULL_POINTER, "applyShare(null)", () -> b.applyShare(1, null));
      check(Arrays.equals(after, b.unitsSeen()), "refused shares change nothing");

      // A restart: b's state in a fresh agent keeps the ledger and the replay counters.
      byte[] key = new byte[32];
      Arrays.fill(key, (byte) 9);
      byte[] state = b.save(key);
      check(state.length == b.saveSize() && state.length == 296 + 56 * 3 + 4 * 2,
          "saved size 296 + 56 m + 4 P: " + state.length);
      check(spent.elementMu > 0 && spent.sequentialMu >= spent.elementMu
              && Math.abs(spent.vectorMu - spent.elementMu * Math.sqrt(3)) < 1e-12,
          "the mu figures");
      try (P2BCmab restarted = new P2BCmab(open)) {
        byte[] wrong = key.clone();
        wrong[0] ^= 1;
        expectStatus(P2BStatus.ERR_CORRUPT_STATE, "restore(wrong key)",
            () -> restarted.restore(wrong, state));
        expectStatus(P2BStatus.ERR_NULL_POINTER, "restore(null state)",
            () -> restarted.restore(key, null));
        restarted.restore(key, state);
        check(Arrays.equals(restarted.unitsSeen(), b.unitsSeen()), "the counts travel");
        expectStatus(P2BStatus.ERR_REPLAYED, "applyShare(replay after a restart)",
            () -> restarted.applyShare(0, shares.get(shares.size() - 1)));
        check(Arrays.equals(restarted.save(key), state), "save -> restore -> save is stable");
      }
      try (P2BCmab other = new P2BCmab(config(1))) {
        expectStatus(P2BStatus.ERR_STATE_MISMATCH, "restore(another configuration)",
            () -> other.restore(key, state));
      }

      // observe: too many good units or the wrong m are refused.
      int[] units = a.decide();
      int[] tooMany = units.clone();
      tooMany[0] += 1;
      expectStatus(P2BStatus.ERR_REWARD_OUT_OF_RANGE, "observe(good > units)",
          () -> a.observe(tooMany));
      expectStatus(P2BStatus.ERR_DIMENSION_MISMATCH, "observe(2 counts)",
          () -> a.observe(new int[2]));
      a.observe(new int[3]);
    }

    P2BCmab.Config bad = config(3);
    bad.capacity = new int[] {5, 5};
    expectStatus(P2BStatus.ERR_BAD_CONFIG, "capacity of another m", () -> new P2BCmab(bad).close());
    bad.capacity = new int[] {5, 5, 0};
    expectStatus(P2BStatus.ERR_BAD_CONFIG, "capacity 0", () -> new P2BCmab(bad).close());
    bad.cost = null;
    expectStatus(P2BStatus.ERR_NULL_POINTER, "no costs", () -> new P2BCmab(bad).close());

    P2BCmab closed = new P2BCmab(config(4));
    closed.close();
    Checks.expectClosed("decide after close", closed::decide);
  }
}
