package org.p2b;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One shared-parameter ridge model over per-item contexts (p2b_shared_model_*), for vertical
 * federation and other cross-silo systems: decide scores n items of dim values each and picks one.
 * Contexts are raw (signed, not normalised) and nothing is reported. Same memory discipline as
 * {@link P2BAgent}: one direct buffer, errors as {@link P2BException}, synchronized methods, and
 * {@link #close} wipes the model.
 */
public final class P2BSharedModel extends NativeArena {
  static {
    System.loadLibrary("p2b_jni");
  }

  /** Statistics and scores in float (half the memory) or double (the default). */
  public static final int PRECISION_F32 = 0;
  public static final int PRECISION_F64 = 1;

  /** The settings of p2b_shared_config, with the library's defaults; set dim and maxItems. */
  public static final class Config {
    public int dim;
    public int maxItems;
    public int policy;
    public double alpha;
    public double ridgeLambda;
    public double tsScale;
    /** Scores within tieRelTol * max(1, |best|) of the best tie; the lowest index wins. */
    public double tieRelTol;
    public int pendingCapacity;
    public int precision;
    public boolean seeded;
    public long seed;
    /** Ed25519 key warm starts must verify under; null: every warm start is refused. */
    public byte[] analyzerVerifyKey;
    public long minModelVersion;

    public Config() {
      long[] u = new long[U_FIELDS];
      double[] f = new double[F_FIELDS];
      P2B.check(nativeDefaults(u, f));
      dim = (int) u[U_DIM];
      maxItems = (int) u[U_MAX_ITEMS];
      policy = (int) u[U_POLICY];
      pendingCapacity = (int) u[U_PENDING];
      precision = (int) u[U_PRECISION];
      seeded = u[U_RNG_MODE] == 1;
      seed = u[U_SEED];
      minModelVersion = u[U_MIN_MODEL_VERSION];
      alpha = f[F_ALPHA];
      ridgeLambda = f[F_RIDGE];
      tsScale = f[F_TS_SCALE];
      tieRelTol = f[F_TIE_REL_TOL];
    }

    long[] u() {
      long[] u = new long[U_FIELDS];
      u[U_DIM] = dim;
      u[U_MAX_ITEMS] = maxItems;
      u[U_POLICY] = policy;
      u[U_PENDING] = pendingCapacity;
      u[U_PRECISION] = precision;
      u[U_RNG_MODE] = seeded ? 1 : 0;
      u[U_SEED] = seed;
      u[U_MIN_MODEL_VERSION] = minModelVersion;
      return u;
    }

    double[] f() {
      double[] f = new double[F_FIELDS];
      f[F_ALPHA] = alpha;
      f[F_RIDGE] = ridgeLambda;
      f[F_TS_SCALE] = tsScale;
      f[F_TIE_REL_TOL] = tieRelTol;
      return f;
    }
  }

  /** The chosen item's index and the id to reward it by. */
  public static final class Decision {
    public final int item;
    public final long id;

    Decision(int item, long id) {
      this.item = item;
      this.id = id;
    }
  }

  /** Per item: theta.x, sqrt(x^T A^-1 x), and mean + alpha * width. */
  public static final class Scores {
    public final double[] mean;
    public final double[] width;
    public final double[] total;

    Scores(double[] mean, double[] width, double[] total) {
      this.mean = mean;
      this.width = width;
      this.total = total;
    }
  }

  private final int dim;
  private final long[] out = new long[2];

  /** Sets up a model (A = lambda I, theta = 0); the key is copied. */
  public P2BSharedModel(Config config) {
    dim = config.dim;
    long[] u = config.u();
    double[] f = config.f();
    P2B.check(nativeFootprint(u, f, config.analyzerVerifyKey, out));
    ByteBuffer mem = allocate(out[0]);
    P2B.check(nativeInit(mem, u, f, config.analyzerVerifyKey, out));
    attach(mem, out[0]);
  }

  /** Scores the items (row-major, n x dim values, n in 1..maxItems) and picks one. */
  public synchronized Decision decide(double[] items) {
    P2B.check(nativeDecide(handle(), items, dim, out));
    return new Decision((int) out[0], out[1]);
  }

  /** Learns the reward of a decision (finite, |reward| <= 1e6). */
  public synchronized void reward(long decisionId, double reward) {
    P2B.check(nativeReward(handle(), decisionId, reward));
  }

  /** Learns a logged (context, reward) that no decision produced. */
  public synchronized void learn(double[] context, double reward) {
    P2B.check(nativeLearn(handle(), context, reward));
  }

  /** The LinUCB parts of each item's score, without deciding. */
  public synchronized Scores scores(double[] items) {
    int n = items == null ? 0 : items.length / Math.max(dim, 1);
    double[] mean = new double[n];
    double[] width = new double[n];
    double[] total = new double[n];
    P2B.check(nativeScores(handle(), items, dim, mean, width, total));
    return new Scores(mean, width, total);
  }

  /** theta = A^-1 b: dim values. */
  public synchronized double[] theta() {
    double[] theta = new double[dim];
    P2B.check(nativeTheta(handle(), theta));
    return theta;
  }

  /** Verifies and applies a signed warm start, without a time (its not-after is not checked). */
  public synchronized void applyModel(byte[] bundle) {
    P2B.check(nativeApplyModel(handle(), bundle, -1));
  }

  /** {@link #applyModel}, also refusing a bundle past its not-after time; nowUnix >= 0. */
  public synchronized void applyModelAt(byte[] bundle, long nowUnix) {
    if (nowUnix < 0) {
      throw new P2BException(P2BStatus.ERR_BAD_CONFIG, P2B.statusText(P2BStatus.ERR_BAD_CONFIG));
    }
    P2B.check(nativeApplyModel(handle(), bundle, nowUnix));
  }

  /** Version of the warm start applied last; 0 if none. */
  public synchronized long modelVersion() {
    P2B.check(nativeVersionAndSize(handle(), out));
    return out[0];
  }

  /** Bytes {@link #save} returns. */
  public synchronized int saveSize() {
    P2B.check(nativeVersionAndSize(handle(), out));
    return (int) out[1];
  }

  /** The state (statistics, pending decisions, random stream) MACed under the state key. */
  public synchronized byte[] save(byte[] stateKey) {
    long h = handle();
    P2B.check(nativeVersionAndSize(h, out));
    byte[] state = new byte[(int) out[1]];
    P2B.check(nativeSave(h, stateKey, state, out));
    return out[0] == state.length ? state : Arrays.copyOf(state, (int) out[0]);
  }

  /** Restores a saved state into a model of the same configuration; all or nothing. */
  public synchronized void restore(byte[] stateKey, byte[] state) {
    P2B.check(nativeRestore(handle(), stateKey, state));
  }

  // Keep these indices in step with p2b_jni_shared.cpp.
  static final int U_DIM = 0;
  static final int U_MAX_ITEMS = 1;
  static final int U_POLICY = 2;
  static final int U_PENDING = 3;
  static final int U_PRECISION = 4;
  static final int U_RNG_MODE = 5;
  static final int U_SEED = 6;
  static final int U_MIN_MODEL_VERSION = 7;
  static final int U_FIELDS = 8;
  static final int F_ALPHA = 0;
  static final int F_RIDGE = 1;
  static final int F_TS_SCALE = 2;
  static final int F_TIE_REL_TOL = 3;
  static final int F_FIELDS = 4;

  private static native int nativeDefaults(long[] u, double[] f);

  private static native int nativeFootprint(long[] u, double[] f, byte[] verifyKey, long[] out);

  private static native int nativeInit(ByteBuffer arena, long[] u, double[] f, byte[] verifyKey,
      long[] out);

  private static native int nativeDecide(long model, double[] items, int dim, long[] out);

  private static native int nativeReward(long model, long decisionId, double reward);

  private static native int nativeLearn(long model, double[] context, double reward);

  private static native int nativeScores(long model, double[] items, int dim, double[] mean,
      double[] width, double[] total);

  private static native int nativeTheta(long model, double[] theta);

  private static native int nativeApplyModel(long model, byte[] bundle, long nowUnix);

  private static native int nativeVersionAndSize(long model, long[] out);

  private static native int nativeSave(long model, byte[] stateKey, byte[] state, long[] out);

  private static native int nativeRestore(long model, byte[] stateKey, byte[] state);
}
