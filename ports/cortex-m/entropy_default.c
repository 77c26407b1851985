/* No hardware random source until the board provides one (p2b_cortex_m.h). */
#include "p2b_cortex_m.h"

__attribute__((weak)) int p2b_cortex_m_entropy(uint8_t* out, size_t len) {
  (void)out;
  (void)len;
  return -1;
}
