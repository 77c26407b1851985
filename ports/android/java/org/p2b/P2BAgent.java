package org.p2b;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One p2b agent (c_api/p2b.h) for Android apps: a contextual bandit that learns on the device and
 * now and then releases one sealed, privacy-randomised report.
 *
 * <p>The agent lives in a direct buffer allocated once, in the constructor; no call allocates on
 * the native side. Errors surface as {@link P2BException} carrying the p2b_status and its text.
 * The object is safe to share between threads (every method is synchronized, as the C API asks
 * callers to serialise calls on one agent); {@link #close} wipes the agent's memory.
 */
public final class P2BAgent implements AutoCloseable {
  static {
    System.loadLibrary("p2b_jni");
  }

  /** Bytes of one sealed report (P2B_ENVELOPE_BYTES). */
  public static final int ENVELOPE_BYTES = 208;
  /** Bytes of each deployment public key (P2B_KEY_BYTES). */
  public static final int KEY_BYTES = 32;
  /** Bytes of the app's state key for {@link #save} and {@link #restore} (P2B_STATE_KEY_BYTES). */
  public static final int STATE_KEY_BYTES = 32;

  public static final int POLICY_LINUCB = 0;
  public static final int POLICY_LINTS = 1;

  /**
   * The settings of p2b_config. The constructor fills in the library's own defaults; set dim,
   * nActions, centroids and the three keys before use.
   */
  public static final class Config {
    public int dim;
    public int nActions;
    public int policy;
    public double alpha;
    public double ridgeLambda;
    public double tsScale;
    public int roundDigits;
    public int window;
    public double participation;
    public double negRate;
    /** Total epsilon the agent may spend; {@code Double.POSITIVE_INFINITY} for no limit. */
    public double epsilonBudget;
    public int pendingCapacity;
    public int outboxCapacity;
    /** Codebook, n_codes x dim floats, row-major; n_codes is centroids.length / dim. */
    public float[] centroids;
    /** Reproducible decisions from {@link #seed} (tests, simulation) instead of the CSPRNG. */
    public boolean seeded;
    public long seed;
    public byte[] shufflerPublicKey;
    public byte[] analyzerPublicKey;
    public byte[] analyzerVerifyKey;
    /** Models with a lower version are refused, also on a fresh device (default 0). */
    public long minModelVersion;

    public Config() {
      int[] u = new int[U32_FIELDS];
      double[] f = new double[F64_FIELDS];
      check(nativeDefaults(u, f));
      dim = u[U_DIM];
      nActions = u[U_ACTIONS];
      policy = u[U_POLICY];
      roundDigits = u[U_ROUND_DIGITS];
      window = u[U_WINDOW];
      pendingCapacity = u[U_PENDING];
      outboxCapacity = u[U_OUTBOX];
      seeded = u[U_RNG_MODE] == 1;
      alpha = f[F_ALPHA];
      ridgeLambda = f[F_RIDGE];
      tsScale = f[F_TS_SCALE];
      participation = f[F_PARTICIPATION];
      negRate = f[F_NEG_RATE];
      epsilonBudget = f[F_EPSILON_BUDGET];
    }

    int[] u32() {
      int[] u = new int[U32_FIELDS];
      u[U_DIM] = dim;
      u[U_ACTIONS] = nActions;
      u[U_POLICY] = policy;
      u[U_ROUND_DIGITS] = roundDigits;
      u[U_WINDOW] = window;
      u[U_PENDING] = pendingCapacity;
      u[U_OUTBOX] = outboxCapacity;
      u[U_RNG_MODE] = seeded ? 1 : 0;
      u[U_MIN_MODEL_VERSION_LO] = (int) minModelVersion;
      u[U_MIN_MODEL_VERSION_HI] = (int) (minModelVersion >>> 32);
      return u;
    }

    double[] f64() {
      double[] f = new double[F64_FIELDS];
      f[F_ALPHA] = alpha;
      f[F_RIDGE] = ridgeLambda;
      f[F_TS_SCALE] = tsScale;
      f[F_PARTICIPATION] = participation;
      f[F_NEG_RATE] = negRate;
      f[F_EPSILON_BUDGET] = epsilonBudget;
      return f;
    }
  }

  /** The action to show, and the id to reward it by. */
  public static final class Decision {
    public final int action;
    public final long id;

    Decision(int action, long id) {
      this.action = action;
      this.id = id;
    }
  }

  private ByteBuffer arena; // holds the agent; the handle points into it
  private long handle;
  private final long[] out = new long[2]; // native results, reused by every call

  /** Sets up an agent for {@code config}; the codebook and keys are copied. */
  public P2BAgent(Config config) {
    int[] u = config.u32();
    double[] f = config.f64();
    check(nativeFootprint(u, f, config.seed, config.centroids, config.shufflerPublicKey,
        config.analyzerPublicKey, config.analyzerVerifyKey, out));
    if (out[0] > Integer.MAX_VALUE) {
      throw new P2BException(P2BStatus.ERR_BAD_CONFIG, statusText(P2BStatus.ERR_BAD_CONFIG));
    }
    ByteBuffer mem = ByteBuffer.allocateDirect((int) out[0]);
    check(nativeInit(mem, u, f, config.seed, config.centroids, config.shufflerPublicKey,
        config.analyzerPublicKey, config.analyzerVerifyKey, out));
    arena = mem;
    handle = out[0];
  }

  /** Chooses an action for {@code context} (dim non-negative finite values, any scale). */
  public synchronized Decision decide(float[] context) {
    check(nativeDecide(agent(), context, out));
    return new Decision((int) out[0], out[1]);
  }

  /** Rewards an earlier decision with a value in [0, 1]. */
  public synchronized void reward(long decisionId, float reward) {
    check(nativeReward(agent(), decisionId, reward));
  }

  /**
   * Takes the next sealed report into {@code envelope} (at least {@link #ENVELOPE_BYTES} long).
   * Returns {@link P2BStatus#OK} when ENVELOPE_BYTES were written (upload them as they are),
   * {@link P2BStatus#NO_REPORT}, or {@link P2BStatus#BUDGET_EXHAUSTED} once reporting has ended.
   */
  public synchronized int pollEnvelope(byte[] envelope) {
    return check(nativePollReport(agent(), envelope));
  }

  /** @deprecated Renamed {@link #pollEnvelope}, which it calls; kept until 1.0. */
  @Deprecated
  public int pollReport(byte[] envelope) {
    return pollEnvelope(envelope);
  }

  /**
   * Verifies and applies a signed warm-start model bundle from the analyzer, without a time: a
   * bundle's not-after time is not checked (use {@link #applyModelAt}). Raw-baseline models are
   * refused ({@link P2BStatus#ERR_MODEL_KIND}).
   */
  public synchronized void applyModel(byte[] bundle) {
    check(nativeApplyModel(agent(), bundle));
  }

  /**
   * {@link #applyModel}, also refusing a bundle whose not-after time is before {@code nowUnix}
   * (seconds since the epoch) with {@link P2BStatus#ERR_MODEL_EXPIRED}.
   */
  public synchronized void applyModelAt(byte[] bundle, long nowUnix) {
    check(nativeApplyModelAt(agent(), bundle, nowUnix));
  }

  /** Version of the last model applied; 0 if none. */
  public synchronized long modelVersion() {
    check(nativeModelVersion(agent(), out));
    return out[0];
  }

  /**
   * The learned state, MACed under {@code stateKey} ({@link #STATE_KEY_BYTES} bytes, one per
   * device, kept in the Android Keystore), for {@link #restore} by an agent with the same config
   * and codebook. Without the key it cannot be edited; an older state saved under the same key
   * still restores, so keep it where it cannot be rolled back.
   */
  public synchronized byte[] save(byte[] stateKey) {
    long h = agent();
    check(nativeSaveSize(h, out));
    byte[] state = new byte[(int) out[0]];
    check(nativeSave(h, stateKey, state, out));
    return out[0] == state.length ? state : Arrays.copyOf(state, (int) out[0]);
  }

  /**
   * Replaces the learned state saved under {@code stateKey}; another key or any edit gives {@link
   * P2BStatus#ERR_CORRUPT_STATE}. On any error the agent is unchanged.
   */
  public synchronized void restore(byte[] stateKey, byte[] state) {
    check(nativeRestore(agent(), stateKey, state));
  }

  /** Wipes and releases the agent; further calls throw IllegalStateException. Idempotent. */
  @Override
  public synchronized void close() {
    if (handle == 0) return;
    nativeWipe(arena);
    handle = 0;
    arena = null;
  }

  /** p2b_status_str's text for {@code status}. */
  public static String statusText(int status) {
    return nativeStatusStr(status);
  }

  private long agent() {
    if (handle == 0) throw new IllegalStateException("P2BAgent is closed");
    return handle;
  }

  private static int check(int status) {
    if (status < 0) throw new P2BException(status, nativeStatusStr(status));
    return status;
  }

  // Config travels to native code as two arrays, not as fields read by name, so that code
  // shrinkers (R8) may rename Config's fields. Keep these indices in step with p2b_jni.cpp.
  static final int U_DIM = 0;
  static final int U_ACTIONS = 1;
  static final int U_POLICY = 2;
  static final int U_ROUND_DIGITS = 3;
  static final int U_WINDOW = 4;
  static final int U_PENDING = 5;
  static final int U_OUTBOX = 6;
  static final int U_RNG_MODE = 7;
  static final int U_MIN_MODEL_VERSION_LO = 8;
  static final int U_MIN_MODEL_VERSION_HI = 9;
  static final int U32_FIELDS = 10;
  static final int F_ALPHA = 0;
  static final int F_RIDGE = 1;
  static final int F_TS_SCALE = 2;
  static final int F_PARTICIPATION = 3;
  static final int F_NEG_RATE = 4;
  static final int F_EPSILON_BUDGET = 5;
  static final int F64_FIELDS = 6;

  // Each returns a p2b_status; results go to `out`. Implemented in jni/p2b_jni.cpp.
  private static native int nativeDefaults(int[] u32, double[] f64);

  private static native int nativeFootprint(int[] u32, double[] f64, long seed, float[] centroids,
      byte[] shufflerKey, byte[] analyzerKey, byte[] verifyKey, long[] out);

  private static native int nativeInit(ByteBuffer arena, int[] u32, double[] f64, long seed,
      float[] centroids, byte[] shufflerKey, byte[] analyzerKey, byte[] verifyKey, long[] out);

  private static native int nativeDecide(long agent, float[] context, long[] out);

  private static native int nativeReward(long agent, long decisionId, float reward);

  private static native int nativePollReport(long agent, byte[] envelope);

  private static native int nativeApplyModel(long agent, byte[] bundle);

  private static native int nativeApplyModelAt(long agent, byte[] bundle, long nowUnix);

  private static native int nativeModelVersion(long agent, long[] out);

  private static native int nativeSaveSize(long agent, long[] out);

  private static native int nativeSave(long agent, byte[] stateKey, byte[] state, long[] out);

  private static native int nativeRestore(long agent, byte[] stateKey, byte[] state);

  private static native void nativeWipe(ByteBuffer arena);

  private static native String nativeStatusStr(int status);
}
