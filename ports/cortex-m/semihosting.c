#include "semihosting.h"

#include <stdint.h>

enum {
  kSysWrite0 = 0x04,
  kSysExitExtended = 0x20,
  kAdpStoppedApplicationExit = 0x20026,
};

/* BKPT 0xAB with the operation in r0 and its argument in r1 (Thumb). */
static uintptr_t semihost_call(uintptr_t op, const void* arg) {
  register uintptr_t r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void p2b_semihost_write0(const char* s) {
  semihost_call(kSysWrite0, s);
}

void p2b_semihost_exit(int code) {
  /* The extended form carries the status; plain SYS_EXIT on 32-bit ARM
   * cannot. */
  const uintptr_t block[2] = {kAdpStoppedApplicationExit, (uintptr_t)code};
  semihost_call(kSysExitExtended, block);
  for (;;) {
  }
}
