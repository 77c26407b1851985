/* sodium_init asks every primitive with several implementations to pick the
 * fastest. Argon2 (password hashing) is not part of the bare-metal subset
 * (libsodium.cmake), so its picker has nothing to choose; this stands in for
 * argon2-core.c, which would drag ~8 KB of unused code into every image. */
int _crypto_pwhash_argon2_pick_best_implementation(void);

int _crypto_pwhash_argon2_pick_best_implementation(void) {
  return 0;
}
