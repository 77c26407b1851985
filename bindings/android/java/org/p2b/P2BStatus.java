package org.p2b;

/**
 * The p2b_status values of c_api/p2b.h. They are part of the stable C ABI: within a major version
 * a value never changes, so mirroring them here is safe.
 */
public final class P2BStatus {
  private P2BStatus() {}

  public static final int OK = 0;
  public static final int NO_REPORT = 1;
  public static final int BUDGET_EXHAUSTED = 2;

  public static final int ERR_NULL_POINTER = -1;
  public static final int ERR_BAD_CONFIG = -2;
  public static final int ERR_DIMENSION_MISMATCH = -3;
  public static final int ERR_NON_FINITE = -4;
  public static final int ERR_NEGATIVE_CONTEXT = -5;
  public static final int ERR_REWARD_OUT_OF_RANGE = -6;
  public static final int ERR_ACTION_OUT_OF_RANGE = -7;
  public static final int ERR_BUFFER_TOO_SMALL = -8;
  public static final int ERR_NOT_INITIALIZED = -9;
  public static final int ERR_ARENA_TOO_SMALL = -10;
  public static final int ERR_ARENA_MISALIGNED = -11;
  public static final int ERR_UNKNOWN_DECISION = -12;
  public static final int ERR_EXPIRED_DECISION = -13;
  public static final int ERR_ALREADY_REWARDED = -14;
  public static final int ERR_CORRUPT_STATE = -15;
  public static final int ERR_UNSUPPORTED_VERSION = -16;
  public static final int ERR_STATE_MISMATCH = -17;
  public static final int ERR_NOT_POSITIVE_DEFINITE = -18;
  public static final int ERR_BAD_CODEBOOK = -19;
  public static final int ERR_RANDOM_FAILURE = -20;
  public static final int ERR_CODE_OUT_OF_RANGE = -21;
  public static final int ERR_CRYPTO_FAILURE = -22;
  public static final int ERR_MALFORMED_INPUT = -23;
  public static final int ERR_BAD_SIGNATURE = -24;
  public static final int ERR_MODEL_SHAPE_MISMATCH = -25;
  public static final int ERR_CODEBOOK_MISMATCH = -26;
  public static final int ERR_MODEL_ROLLBACK = -27;
  public static final int ERR_NUMERIC_RANGE = -28;
  public static final int ERR_MODEL_KIND = -29;
  public static final int ERR_MODEL_EXPIRED = -30;
  public static final int ERR_KEY_LIST_ROLLBACK = -31;
  public static final int ERR_KEY_LIST_EXPIRED = -32;
  public static final int ERR_KEY_RETIRED = -33;
  public static final int ERR_ITEM_COUNT = -34;
  public static final int ERR_REPLAYED = -35;
}
