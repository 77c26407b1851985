/* TEST ONLY - NOT RANDOM. qemu's mps2-an386 has no TRNG, so the test image
 * overrides the board's entropy hook with splitmix64 from a fixed seed. Every
 * "random" byte (report nonces, sealed-box ephemeral keys) is predictable:
 * fine for checking the code paths, never for a device that ships. A real
 * board implements p2b_cortex_m_entropy over its TRNG (docs/ports.md). */
#include "p2b_cortex_m.h"

static uint64_t test_state = 0x70326220636d3421ull; /* fixed on purpose */

static uint64_t splitmix64(void) {
  uint64_t z = (test_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int p2b_cortex_m_entropy(uint8_t* out, size_t len) {
  for (size_t i = 0; i < len; ++i) out[i] = (uint8_t)(splitmix64() >> 56);
  return 0;
}
