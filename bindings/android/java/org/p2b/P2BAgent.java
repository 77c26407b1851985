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
public final class P2BAgent extends NativeArena {
  static {
    System.loadLibrary("p2b_jni");
  }

  /** Reads the statistics as A_a itself (p2b_stats_form GRAM), for {@link #importStats}. */
  public static final int STATS_GRAM = 0;
  /** Reads lower Cholesky factors L_a with A_a = L_a L_a^T (CHOLESKY). */
  public static final int STATS_CHOLESKY = 1;
  /** p2b_model_kind: shuffled, thresholded P2B reports (what devices apply). */
  public static final int MODEL_PRIVATE = 0;
  /** p2b_model_kind: raw tuples, not private (experiments only). */
  public static final int MODEL_RAW_BASELINE = 1;

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
    /** Also apply raw-baseline models, which are NOT private: experiments only (default false). */
    public boolean acceptBaselineModels;

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
      acceptBaselineModels = u[U_ACCEPT_BASELINE] != 0;
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
      u[U_ACCEPT_BASELINE] = acceptBaselineModels ? 1 : 0;
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

    /** p2b_envelope_size: bytes of one envelope under these settings. */
    public int envelopeSize() {
      long[] out = new long[1];
      check(nativeEnvelopeSize(u32(), f64(), out));
      return (int) out[0];
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

  /** One plaintext report (p2b_tuple): for simulators and tests only, never to be sent. */
  public static final class Tuple {
    public final int code;
    public final int action;
    public final float reward;

    Tuple(int code, int action, float reward) {
      this.code = code;
      this.action = action;
      this.reward = reward;
    }
  }

  /** Per-action estimates for a context: the LinUCB score is mean[a] + alpha * width[a]. */
  public static final class Scores {
    public final float[] mean;
    public final float[] width;

    Scores(float[] mean, float[] width) {
      this.mean = mean;
      this.width = width;
    }
  }

  /** Fingerprints (16 bytes each) of the keys and codebook the agent was set up with. */
  public static final class Fingerprints {
    /** Of the key new envelopes are sealed to: the configured one or the key list's current. */
    public final byte[] shuffler;
    public final byte[] analyzer;
    public final byte[] analyzerVerify;
    public final byte[] codebook;

    Fingerprints(byte[] all, int n) {
      shuffler = Arrays.copyOfRange(all, 0, n);
      analyzer = Arrays.copyOfRange(all, n, 2 * n);
      analyzerVerify = Arrays.copyOfRange(all, 2 * n, 3 * n);
      codebook = Arrays.copyOfRange(all, 3 * n, 4 * n);
    }
  }

  /** The privacy ledger (p2b_privacy). */
  public static final class Privacy {
    public final double epsilonPerReport;
    public final double epsilonSpent;
    public final double epsilonBudget;
    public final long reports;
    public final long windowsClosed;
    public final long droppedOutboxFull;
    /** No further report fits the budget. */
    public final boolean exhausted;

    Privacy(double[] f, long[] v) {
      epsilonPerReport = f[0];
      epsilonSpent = f[1];
      epsilonBudget = f[2];
      reports = v[0];
      windowsClosed = v[1];
      droppedOutboxFull = v[2];
      exhausted = v[3] != 0;
    }
  }

  /**
   * Every arm's statistics: a holds nActions column-major dim x dim matrices, b nActions vectors
   * of dim.
   */
  public static final class Stats {
    public final double[] a;
    public final double[] b;

    Stats(double[] a, double[] b) {
      this.a = a;
      this.b = b;
    }
  }

  private final int dim;
  private final int nActions;
  private final long[] out = new long[2]; // native results, reused by every call

  /** Sets up an agent for {@code config}; the codebook and keys are copied. */
  public P2BAgent(Config config) {
    dim = config.dim;
    nActions = config.nActions;
    int[] u = config.u32();
    double[] f = config.f64();
    check(nativeFootprint(u, f, config.seed, config.centroids, config.shufflerPublicKey,
        config.analyzerPublicKey, config.analyzerVerifyKey, out));
    ByteBuffer mem = allocate(out[0]);
    check(nativeInit(mem, u, f, config.seed, config.centroids, config.shufflerPublicKey,
        config.analyzerPublicKey, config.analyzerVerifyKey, out));
    attach(mem, out[0]);
  }

  /** Chooses an action for {@code context} (dim non-negative finite values, any scale). */
  public synchronized Decision decide(float[] context) {
    check(nativeDecide(handle(), context, out));
    return new Decision((int) out[0], out[1]);
  }

  /** Rewards an earlier decision with a value in [0, 1]. */
  public synchronized void reward(long decisionId, float reward) {
    check(nativeReward(handle(), decisionId, reward));
  }

  /** Learns from a logged (context, action, reward) without deciding; never reported. */
  public synchronized void learn(float[] context, int action, float reward) {
    check(nativeLearn(handle(), context, action, reward));
  }

  /**
   * Erases what the agent learned about its user (p2b_agent_forget): every arm back to the prior,
   * pending decisions, the open window and unsent reports cleared. The privacy ledger and the
   * model-version floor stay.
   */
  public synchronized void forget() {
    check(nativeForget(handle()));
  }

  /** Per-action estimates for {@code context}, without deciding. */
  public synchronized Scores scores(float[] context) {
    float[] mean = new float[nActions];
    float[] width = new float[nActions];
    check(nativeScores(handle(), context, mean, width));
    return new Scores(mean, width);
  }

  /** The code the agent would report for {@code context}. */
  public synchronized int encode(float[] context) {
    check(nativeEncode(handle(), context, out));
    return (int) out[0];
  }

  /** The centroid of {@code code}: dim floats. */
  public synchronized float[] centroid(int code) {
    float[] row = new float[dim];
    check(nativeCentroid(handle(), code, row));
    return row;
  }

  /**
   * Takes the next sealed report into {@code envelope} (at least {@link #ENVELOPE_BYTES} long).
   * Returns {@link P2BStatus#OK} when ENVELOPE_BYTES were written (upload them as they are),
   * {@link P2BStatus#NO_REPORT}, or {@link P2BStatus#BUDGET_EXHAUSTED} once reporting has ended.
   */
  public synchronized int pollEnvelope(byte[] envelope) {
    return check(nativePollReport(handle(), envelope));
  }

  /**
   * Takes the next report in plaintext from the same queue, or null when there is none (then
   * {@link #privacy} tells whether the budget is spent). For simulators and tests only: never send
   * it, it would bypass the shuffler's anonymity.
   */
  public synchronized Tuple pollTuple() {
    long[] t = new long[3];
    if (check(nativePollTuple(handle(), t)) != P2BStatus.OK) return null;
    return new Tuple((int) t[0], (int) t[1], Float.intBitsToFloat((int) t[2]));
  }

  /** Fingerprints of the keys and the codebook (p2b_agent_fingerprints). */
  public synchronized Fingerprints fingerprints() {
    int n = P2B.fingerprintBytes();
    byte[] all = new byte[4 * n];
    check(nativeFingerprints(handle(), all));
    return new Fingerprints(all, n);
  }

  /** The privacy ledger (p2b_agent_privacy). */
  public synchronized Privacy privacy() {
    double[] f = new double[3];
    long[] v = new long[4];
    check(nativePrivacy(handle(), f, v));
    return new Privacy(f, v);
  }

  /**
   * Replaces every arm's statistics, all or nothing (p2b_agent_import): {@code a} holds nActions
   * column-major dim x dim matrices including the ridge prior, {@code b} nActions vectors, and
   * {@code form} is {@link #STATS_GRAM} or {@link #STATS_CHOLESKY}.
   */
  public synchronized void importStats(double[] a, double[] b, int form) {
    check(nativeImport(handle(), a, b, nActions, dim, form));
  }

  /** Every arm's A_a (as {@link #STATS_GRAM}) and b_a, laid out as for {@link #importStats}. */
  public synchronized Stats exportStats() {
    double[] a = new double[nActions * dim * dim];
    double[] b = new double[nActions * dim];
    check(nativeExport(handle(), a, b, nActions, dim));
    return new Stats(a, b);
  }

  /**
   * Verifies and applies a signed shuffler-key list (p2b-keylist); from then on envelopes are
   * sealed to its current key. {@code nowUnix} 0 skips the not-after check.
   */
  public synchronized void applyKeyList(byte[] list, long nowUnix) {
    check(nativeApplyKeyList(handle(), list, nowUnix));
  }

  /** Version of the last key list applied; 0 if none (the configured shuffler key is current). */
  public synchronized long keyListVersion() {
    check(nativeKeyListVersion(handle(), out));
    return out[0];
  }

  /**
   * Whether a held envelope may still be sent: false when its shuffler key was retired by the
   * applied key list (drop it unsent; the budget is not refunded).
   */
  public synchronized boolean envelopeKeyAccepted(byte[] envelope) {
    int status = nativeEnvelopeKeyAccepted(handle(), envelope);
    if (status == P2BStatus.ERR_KEY_RETIRED) return false;
    check(status);
    return true;
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
    check(nativeApplyModel(handle(), bundle));
  }

  /**
   * {@link #applyModel}, also refusing a bundle whose not-after time is before {@code nowUnix}
   * (seconds since the epoch) with {@link P2BStatus#ERR_MODEL_EXPIRED}.
   */
  public synchronized void applyModelAt(byte[] bundle, long nowUnix) {
    check(nativeApplyModelAt(handle(), bundle, nowUnix));
  }

  /** Version of the last private model applied; 0 if none. */
  public synchronized long modelVersion() {
    check(nativeModelVersion(handle(), out));
    return out[0];
  }

  /** Version of the last model of {@code kind} ({@link #MODEL_PRIVATE} or raw) applied; 0: none. */
  public synchronized long modelVersion(int kind) {
    check(nativeModelVersionOf(handle(), kind, out));
    return out[0];
  }

  /** Bytes {@link #save} returns: fixed for a given configuration. */
  public synchronized int saveSize() {
    check(nativeSaveSizes(handle(), out));
    return (int) out[0];
  }

  /** Bytes {@link #saveEncrypted} returns: saveSize() + P2B.stateEncryptionOverhead(). */
  public synchronized int saveEncryptedSize() {
    check(nativeSaveSizes(handle(), out));
    return (int) out[1];
  }

  /**
   * The learned state, MACed under {@code stateKey} ({@link #STATE_KEY_BYTES} bytes, one per
   * device, kept in the Android Keystore), for {@link #restore} by an agent with the same config
   * and codebook. Without the key it cannot be edited; an older state saved under the same key
   * still restores, so keep it where it cannot be rolled back.
   */
  public synchronized byte[] save(byte[] stateKey) {
    return save(stateKey, false);
  }

  /**
   * {@link #save}, sealed in an XChaCha20-Poly1305 box under the same key: the bytes are hidden
   * too. Restore with {@link #restoreEncrypted}.
   */
  public synchronized byte[] saveEncrypted(byte[] stateKey) {
    return save(stateKey, true);
  }

  private byte[] save(byte[] stateKey, boolean encrypted) {
    long h = handle();
    check(nativeSaveSizes(h, out));
    byte[] state = new byte[(int) out[encrypted ? 1 : 0]];
    check(nativeSave(h, stateKey, encrypted, state, out));
    return out[0] == state.length ? state : Arrays.copyOf(state, (int) out[0]);
  }

  /**
   * Replaces the learned state saved under {@code stateKey}; another key or any edit gives {@link
   * P2BStatus#ERR_CORRUPT_STATE}. On any error the agent is unchanged.
   */
  public synchronized void restore(byte[] stateKey, byte[] state) {
    check(nativeRestore(handle(), stateKey, false, state));
  }

  /**
   * Restores what {@link #saveEncrypted} wrote; another key, tampering or corruption give {@link
   * P2BStatus#ERR_CORRUPT_STATE}. {@code state} is left as it was (the native side decrypts a
   * copy). On any error the agent is unchanged.
   */
  public synchronized void restoreEncrypted(byte[] stateKey, byte[] state) {
    check(nativeRestore(handle(), stateKey, true, state == null ? null : state.clone()));
  }

  /** p2b_status_str's text for {@code status}; the same as {@link P2B#statusText}. */
  public static String statusText(int status) {
    return P2B.statusText(status);
  }

  private static int check(int status) {
    return P2B.check(status);
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
  static final int U_ACCEPT_BASELINE = 10;
  static final int U32_FIELDS = 11;
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

  private static native int nativeEnvelopeSize(int[] u32, double[] f64, long[] out);

  private static native int nativeDecide(long agent, float[] context, long[] out);

  private static native int nativeReward(long agent, long decisionId, float reward);

  private static native int nativeLearn(long agent, float[] context, int action, float reward);

  private static native int nativeForget(long agent);

  private static native int nativeScores(long agent, float[] context, float[] mean, float[] width);

  private static native int nativePollReport(long agent, byte[] envelope);

  private static native int nativePollTuple(long agent, long[] out);

  private static native int nativeFingerprints(long agent, byte[] out);

  private static native int nativePrivacy(long agent, double[] f, long[] out);

  private static native int nativeEncode(long agent, float[] context, long[] out);

  private static native int nativeCentroid(long agent, int code, float[] out);

  private static native int nativeImport(long agent, double[] a, double[] b, int nActions, int dim,
      int form);

  private static native int nativeExport(long agent, double[] a, double[] b, int nActions, int dim);

  private static native int nativeModelVersionOf(long agent, int kind, long[] out);

  private static native int nativeApplyKeyList(long agent, byte[] list, long nowUnix);

  private static native int nativeKeyListVersion(long agent, long[] out);

  private static native int nativeEnvelopeKeyAccepted(long agent, byte[] envelope);

  private static native int nativeApplyModel(long agent, byte[] bundle);

  private static native int nativeApplyModelAt(long agent, byte[] bundle, long nowUnix);

  private static native int nativeModelVersion(long agent, long[] out);

  private static native int nativeSaveSizes(long agent, long[] out);

  private static native int nativeSave(long agent, byte[] stateKey, boolean encrypted,
      byte[] state, long[] out);

  private static native int nativeRestore(long agent, byte[] stateKey, boolean encrypted,
      byte[] state);
}
