/* libsodium's randombytes on bare metal: every byte comes from the board's
 * entropy hook. randombytes_buf cannot report failure, so a failing hook
 * stops the core rather than let a sealed box use a predictable key. */
#include "randombytes_hook.h"

#include "p2b_cortex_m.h"

static void hook_buf(void* const buf, const size_t size) {
  if (p2b_cortex_m_entropy((uint8_t*)buf, size) != 0) {
    p2b_cortex_m_fatal("entropy source failed (p2b_cortex_m_entropy)");
  }
}

static uint32_t hook_random(void) {
  uint32_t r;
  hook_buf(&r, sizeof r);
  return r;
}

static const char* hook_name(void) {
  return "p2b_cortex_m_entropy";
}

/* stir, uniform and close stay NULL: libsodium then uses its own generic
 * uniform over hook_random, and there is nothing to stir or close. */
struct randombytes_implementation p2b_cortex_m_randombytes = {
    hook_name, hook_random, NULL, NULL, hook_buf, NULL,
};
