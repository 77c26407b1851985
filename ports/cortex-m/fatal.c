/* The port's failure path and its default console. */
#include <stdlib.h>

#include "p2b_cortex_m.h"
#include "semihosting.h"

__attribute__((weak)) void p2b_cortex_m_log(const char* msg) {
  p2b_semihost_write0(msg);
}

void p2b_cortex_m_fatal(const char* why) {
  p2b_cortex_m_log("p2b cortex-m: FATAL: ");
  p2b_cortex_m_log(why);
  p2b_cortex_m_log("\n");
  /* UDF: a HardFault the board's handler (or debugger) sees. The loop keeps
   * the promise of noreturn should the handler return. */
  for (;;) {
    __builtin_trap();
  }
}

/* newlib's abort raises SIGABRT, whose handler table it allocates: without a
 * heap that would report as a malloc. Say what really happened instead. Weak,
 * so a board's own abort takes over. */
__attribute__((weak)) void abort(void) {
  p2b_cortex_m_fatal("abort called");
}
