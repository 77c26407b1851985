package org.p2b;

/**
 * The calls of c_api/p2b.h that take no agent: the library's version, status names, sizes and
 * compiled limits, key fingerprints, the epsilon of one report, and codebook files. All are
 * thread-safe.
 */
public final class P2B {
  static {
    System.loadLibrary("p2b_jni");
  }

  private P2B() {}

  // Indices into the array nativeLimits fills; keep in step with p2b_jni_library.cpp.
  private static final int LIMIT_ARENA_ALIGN = 0;
  private static final int LIMIT_MAX_DIM = 1;
  private static final int LIMIT_MAX_ACTIONS = 2;
  private static final int LIMIT_MAX_CODES = 3;
  private static final int LIMIT_MAX_DIGITS = 4;
  private static final int LIMIT_MAX_WINDOW = 5;
  private static final int LIMIT_MAX_PENDING = 6;
  private static final int LIMIT_MAX_OUTBOX = 7;
  private static final int LIMIT_KEY_BYTES = 8;
  private static final int LIMIT_FINGERPRINT_BYTES = 9;
  private static final int LIMIT_ENVELOPE_BYTES = 10;
  private static final int LIMIT_STATE_KEY_BYTES = 11;
  private static final int LIMIT_STATE_ENCRYPTION_OVERHEAD = 12;
  private static final int LIMIT_KEY_LIST_BYTES = 13;
  private static final int LIMIT_SHARED_MAX_DIM = 14;
  private static final int LIMIT_SHARED_MAX_ITEMS = 15;
  private static final int LIMITS = 16;

  private static final long[] limits = new long[LIMITS];

  static {
    check(nativeLimits(limits));
  }

  /** p2b_version: the linked library's version, major * 10000 + minor * 100 + patch. */
  public static int version() {
    return nativeVersion();
  }

  /** p2b_version_string: "major.minor.patch". */
  public static String versionString() {
    return nativeVersionString();
  }

  /** p2b_status_str: the status in English ("unknown status" for values this version lacks). */
  public static String statusText(int status) {
    return nativeStatusStr(status);
  }

  /** p2b_is_error: true for the negative statuses. */
  public static boolean isError(int status) {
    return nativeIsError(status);
  }

  /** p2b_arena_align. */
  public static long arenaAlign() {
    return limits[LIMIT_ARENA_ALIGN];
  }

  /** p2b_max_dim: the largest context dimension. */
  public static int maxDim() {
    return (int) limits[LIMIT_MAX_DIM];
  }

  /** p2b_max_actions. */
  public static int maxActions() {
    return (int) limits[LIMIT_MAX_ACTIONS];
  }

  /** p2b_max_codes: the largest codebook. */
  public static int maxCodes() {
    return (int) limits[LIMIT_MAX_CODES];
  }

  /** p2b_max_digits. */
  public static int maxDigits() {
    return (int) limits[LIMIT_MAX_DIGITS];
  }

  /** p2b_max_window. */
  public static int maxWindow() {
    return (int) limits[LIMIT_MAX_WINDOW];
  }

  /** p2b_max_pending. */
  public static int maxPending() {
    return (int) limits[LIMIT_MAX_PENDING];
  }

  /** p2b_max_outbox. */
  public static int maxOutbox() {
    return (int) limits[LIMIT_MAX_OUTBOX];
  }

  /** p2b_key_bytes. */
  public static int keyBytes() {
    return (int) limits[LIMIT_KEY_BYTES];
  }

  /** p2b_fingerprint_bytes. */
  public static int fingerprintBytes() {
    return (int) limits[LIMIT_FINGERPRINT_BYTES];
  }

  /** p2b_envelope_bytes. */
  public static int envelopeBytes() {
    return (int) limits[LIMIT_ENVELOPE_BYTES];
  }

  /** p2b_state_key_bytes. */
  public static int stateKeyBytes() {
    return (int) limits[LIMIT_STATE_KEY_BYTES];
  }

  /** p2b_state_encryption_overhead: what encryption at rest adds to a saved state. */
  public static int stateEncryptionOverhead() {
    return (int) limits[LIMIT_STATE_ENCRYPTION_OVERHEAD];
  }

  /** p2b_key_list_bytes: the size of every signed shuffler-key list. */
  public static int keyListBytes() {
    return (int) limits[LIMIT_KEY_LIST_BYTES];
  }

  /** p2b_shared_max_dim. */
  public static int sharedMaxDim() {
    return (int) limits[LIMIT_SHARED_MAX_DIM];
  }

  /** p2b_shared_max_items. */
  public static int sharedMaxItems() {
    return (int) limits[LIMIT_SHARED_MAX_ITEMS];
  }

  /** p2b_epsilon_per_report: ln(p(2-p)/(1-p) + (1-p)) for p in (0, 1). */
  public static double epsilonPerReport(double participation) {
    double[] out = new double[1];
    check(nativeEpsilonPerReport(participation, out));
    return out[0];
  }

  /** p2b_key_fingerprint: BLAKE2b-128 of a 32-byte public key, to check a pinned key. */
  public static byte[] keyFingerprint(byte[] publicKey) {
    byte[] out = new byte[fingerprintBytes()];
    check(nativeKeyFingerprint(publicKey, out));
    return out;
  }

  /** A parsed codebook file: set {@link P2BAgent.Config#centroids} from it. */
  public static final class Codebook {
    public final int k;
    public final int dim;
    public final int digits;
    public final byte[] fingerprint;
    /** k x dim floats, row-major. */
    public final float[] centroids;

    Codebook(int k, int dim, int digits, byte[] fingerprint, float[] centroids) {
      this.k = k;
      this.dim = dim;
      this.digits = digits;
      this.fingerprint = fingerprint;
      this.centroids = centroids;
    }
  }

  /**
   * p2b_codebook_parse: checks every field of a codebook file (as p2b-codebook writes it) and its
   * fingerprint.
   */
  public static Codebook parseCodebook(byte[] file) {
    if (file == null) throw new P2BException(P2BStatus.ERR_NULL_POINTER,
        statusText(P2BStatus.ERR_NULL_POINTER));
    // Every centroid takes at least four bytes of the file, so this always suffices.
    float[] rows = new float[file.length / 4 + 1];
    byte[] fingerprint = new byte[fingerprintBytes()];
    long[] out = new long[3];
    check(nativeCodebookParse(file, rows, fingerprint, out));
    int k = (int) out[0];
    int dim = (int) out[1];
    return new Codebook(k, dim, (int) out[2], fingerprint, java.util.Arrays.copyOf(rows, k * dim));
  }

  /** Throws P2BException for an error status; returns the others. */
  static int check(int status) {
    if (status < 0) throw new P2BException(status, nativeStatusStr(status));
    return status;
  }

  /** Zeroes an arena before the garbage collector takes it. */
  static void wipe(java.nio.ByteBuffer arena) {
    nativeWipe(arena);
  }

  private static native int nativeVersion();

  private static native String nativeVersionString();

  private static native String nativeStatusStr(int status);

  private static native boolean nativeIsError(int status);

  private static native int nativeLimits(long[] out);

  private static native int nativeEpsilonPerReport(double p, double[] out);

  private static native int nativeKeyFingerprint(byte[] key, byte[] out);

  private static native int nativeCodebookParse(byte[] file, float[] centroids, byte[] fingerprint,
      long[] out);

  private static native void nativeWipe(java.nio.ByteBuffer arena);
}
