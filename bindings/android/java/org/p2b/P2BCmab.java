package org.p2b;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A P-FCB agent (p2b_cmab_*): buys units from m producers each round, learns their qualities, and
 * shares noisy counts with competing agents under a differential-privacy budget. Each round: {@link
 * #decide}, then {@link #observe}; after a release round {@link #pollShare} hands out one share to
 * relay, and {@link #applyShare} learns from a peer's. Same memory discipline as {@link P2BAgent}.
 */
public final class P2BCmab extends NativeArena {
  static {
    System.loadLibrary("p2b_jni");
  }

  /** p2b_cmab_schedule: Alg. 2 as printed. */
  public static final int SCHEDULE_PAPER = 0;
  /** p2b_cmab_schedule: tau starts at windowStart. */
  public static final int SCHEDULE_ALIGNED = 1;
  /** p2b_cmab_schedule: every round of the window. */
  public static final int SCHEDULE_EVERY_ROUND = 2;
  public static final int LOG2 = 0;
  public static final int LOG_E = 1;

  /** The settings of p2b_cmab_config, filled with the library's defaults; set cost and capacity. */
  public static final class Config {
    /** m costs per unit; m = cost.length. */
    public double[] cost;
    /** m capacities, each 1..2^20. */
    public int[] capacity;
    public double rho;
    public double alpha;
    public double qualityMargin;
    public long exploreRounds;
    public double ucbScale;
    public long horizon;
    public int schedule;
    public long windowStart;
    public long windowStop;
    public int logBase;
    /** Total budget; POSITIVE_INFINITY shares exact counts, 0 never shares. */
    public double epsilon;
    public double delta;
    public double deltaTarget;
    public long publicMaxCapacity;
    public double omega1;
    public double omega2;
    public long agents;
    public long maxPeers;
    public boolean seeded;
    public long seed;

    public Config() {
      long[] u = new long[U_FIELDS];
      double[] f = new double[F_FIELDS];
      P2B.check(nativeDefaults(u, f));
      exploreRounds = u[U_EXPLORE_ROUNDS];
      horizon = u[U_HORIZON];
      schedule = (int) u[U_SCHEDULE];
      windowStart = u[U_WINDOW_START];
      windowStop = u[U_WINDOW_STOP];
      logBase = (int) u[U_LOG_BASE];
      publicMaxCapacity = u[U_PUBLIC_MAX_CAPACITY];
      agents = u[U_AGENTS];
      maxPeers = u[U_MAX_PEERS];
      seeded = u[U_RNG_MODE] == 1;
      seed = u[U_SEED];
      rho = f[F_RHO];
      alpha = f[F_ALPHA];
      qualityMargin = f[F_MARGIN];
      ucbScale = f[F_UCB_SCALE];
      epsilon = f[F_EPSILON];
      delta = f[F_DELTA];
      deltaTarget = f[F_DELTA_TARGET];
      omega1 = f[F_OMEGA1];
      omega2 = f[F_OMEGA2];
    }

    long[] u() {
      long[] u = new long[U_FIELDS];
      u[U_EXPLORE_ROUNDS] = exploreRounds;
      u[U_HORIZON] = horizon;
      u[U_SCHEDULE] = schedule;
      u[U_WINDOW_START] = windowStart;
      u[U_WINDOW_STOP] = windowStop;
      u[U_LOG_BASE] = logBase;
      u[U_PUBLIC_MAX_CAPACITY] = publicMaxCapacity;
      u[U_AGENTS] = agents;
      u[U_MAX_PEERS] = maxPeers;
      u[U_RNG_MODE] = seeded ? 1 : 0;
      u[U_SEED] = seed;
      return u;
    }

    double[] f() {
      double[] f = new double[F_FIELDS];
      f[F_RHO] = rho;
      f[F_ALPHA] = alpha;
      f[F_MARGIN] = qualityMargin;
      f[F_UCB_SCALE] = ucbScale;
      f[F_EPSILON] = epsilon;
      f[F_DELTA] = delta;
      f[F_DELTA_TARGET] = deltaTarget;
      f[F_OMEGA1] = omega1;
      f[F_OMEGA2] = omega2;
      return f;
    }
  }

  /** What the agent has spent (p2b_cmab_privacy); exact figures are stated at deltaTarget. */
  public static final class Privacy {
    public final long releases;
    public final double paperEpsilon;
    public final double paperDelta;
    public final double basicEpsilon;
    public final double basicDelta;
    public final double elementEpsilon;
    public final double sequentialEpsilon;
    public final double vectorEpsilon;
    public final double deltaTarget;
    /** The mu (Gaussian DP) behind elementEpsilon, sequentialEpsilon and vectorEpsilon. */
    public final double elementMu;
    public final double sequentialMu;
    public final double vectorMu;

    Privacy(long releases, double[] f) {
      this.releases = releases;
      paperEpsilon = f[0];
      paperDelta = f[1];
      basicEpsilon = f[2];
      basicDelta = f[3];
      elementEpsilon = f[4];
      sequentialEpsilon = f[5];
      vectorEpsilon = f[6];
      deltaTarget = f[7];
      elementMu = f[8];
      sequentialMu = f[9];
      vectorMu = f[10];
    }
  }

  /** Producers whose reports a share added, and the others. */
  public static final class Applied {
    public final int accepted;
    public final int rejected;

    Applied(int accepted, int rejected) {
      this.accepted = accepted;
      this.rejected = rejected;
    }
  }

  private final int producers;
  private final long[] out = new long[2];

  /** Sets up an agent; costs and capacities are copied. */
  public P2BCmab(Config config) {
    producers = config.cost == null ? 0 : config.cost.length;
    long[] u = config.u();
    double[] f = config.f();
    P2B.check(nativeFootprint(u, f, config.cost, config.capacity, out));
    ByteBuffer mem = allocate(out[0]);
    P2B.check(nativeInit(mem, u, f, config.cost, config.capacity, out));
    attach(mem, out[0]);
  }

  /** p2b_cmab_share_size: bytes of one share for m producers (0 when m is out of range). */
  public static int shareSize(int producers) {
    return (int) nativeShareSize(producers);
  }

  /** The units to procure from each producer this round; call {@link #observe} next. */
  public synchronized int[] decide() {
    int[] units = new int[producers];
    P2B.check(nativeDecide(handle(), units));
    return units;
  }

  /** Ends the round with the good units among those procured (each at most the units decided). */
  public synchronized void observe(int[] good) {
    P2B.check(nativeObserve(handle(), good));
  }

  /** The share drawn at the last release round, once; null when none waits. */
  public synchronized byte[] pollShare() {
    byte[] share = new byte[shareSize(producers)];
    if (P2B.check(nativePollShare(handle(), share, out)) != P2BStatus.OK) return null;
    return out[0] == share.length ? share : Arrays.copyOf(share, (int) out[0]);
  }

  /**
   * Learns from a verified peer's share by selective acceptance; {@code sender} is its index,
   * below maxPeers. A share not newer than the last from that sender gives ERR_REPLAYED.
   */
  public synchronized Applied applyShare(int sender, byte[] share) {
    P2B.check(nativeApplyShare(handle(), sender, share, out));
    return new Applied((int) out[0], (int) out[1]);
  }

  /** What the agent has spent so far. */
  public synchronized Privacy privacySpent() {
    double[] f = new double[11];
    P2B.check(nativePrivacySpent(handle(), f, out));
    return new Privacy(out[0], f);
  }

  /** Bytes {@link #save} returns: a function of the configuration alone. */
  public synchronized int saveSize() {
    P2B.check(nativeSaveSize(handle(), out));
    return (int) out[0];
  }

  /**
   * Everything the agent learned and spent (counts, the privacy ledger, each sender's last
   * release, the random stream), MACed under the 32-byte state key. Not encrypted: it holds the
   * procurement history, so store it as the app stores secrets.
   */
  public synchronized byte[] save(byte[] stateKey) {
    long h = handle();
    P2B.check(nativeSaveSize(h, out));
    byte[] state = new byte[(int) out[0]];
    P2B.check(nativeSave(h, stateKey, state, out));
    return out[0] == state.length ? state : Arrays.copyOf(state, (int) out[0]);
  }

  /** Restores a saved state into an agent of the same configuration; all or nothing. */
  public synchronized void restore(byte[] stateKey, byte[] state) {
    P2B.check(nativeRestore(handle(), stateKey, state));
  }

  /** Units seen (own plus accepted) per producer. */
  public synchronized double[] unitsSeen() {
    double[] seen = new double[producers];
    P2B.check(nativeEstimates(handle(), seen, null));
    return seen;
  }

  /** Estimated quality per producer (0 for one never seen). */
  public synchronized double[] quality() {
    double[] q = new double[producers];
    P2B.check(nativeEstimates(handle(), null, q));
    return q;
  }

  // Keep these indices in step with p2b_jni_cmab.cpp.
  static final int U_EXPLORE_ROUNDS = 0;
  static final int U_HORIZON = 1;
  static final int U_SCHEDULE = 2;
  static final int U_WINDOW_START = 3;
  static final int U_WINDOW_STOP = 4;
  static final int U_LOG_BASE = 5;
  static final int U_PUBLIC_MAX_CAPACITY = 6;
  static final int U_AGENTS = 7;
  static final int U_MAX_PEERS = 8;
  static final int U_RNG_MODE = 9;
  static final int U_SEED = 10;
  static final int U_FIELDS = 11;
  static final int F_RHO = 0;
  static final int F_ALPHA = 1;
  static final int F_MARGIN = 2;
  static final int F_UCB_SCALE = 3;
  static final int F_EPSILON = 4;
  static final int F_DELTA = 5;
  static final int F_DELTA_TARGET = 6;
  static final int F_OMEGA1 = 7;
  static final int F_OMEGA2 = 8;
  static final int F_FIELDS = 9;

  private static native int nativeDefaults(long[] u, double[] f);

  private static native int nativeFootprint(long[] u, double[] f, double[] cost, int[] capacity,
      long[] out);

  private static native int nativeInit(ByteBuffer arena, long[] u, double[] f, double[] cost,
      int[] capacity, long[] out);

  private static native int nativeDecide(long agent, int[] units);

  private static native int nativeObserve(long agent, int[] good);

  private static native long nativeShareSize(int producers);

  private static native int nativePollShare(long agent, byte[] share, long[] out);

  private static native int nativeApplyShare(long agent, int sender, byte[] share, long[] out);

  private static native int nativePrivacySpent(long agent, double[] f, long[] out);

  private static native int nativeEstimates(long agent, double[] unitsSeen, double[] quality);

  private static native int nativeSaveSize(long agent, long[] out);

  private static native int nativeSave(long agent, byte[] stateKey, byte[] state, long[] out);

  private static native int nativeRestore(long agent, byte[] stateKey, byte[] state);
}
