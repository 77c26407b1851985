/* A firmware-style user config (P2B_USER_CONFIG_FILE): only the largest
 * context length changes; every other limit keeps its default. */
#define P2B_MAX_DIM 128
