/* Console output and check bookkeeping for the qemu test image, without
 * printf: newlib's stdio buffers through malloc, which this image traps. */
#ifndef P2B_CORTEX_M_TEST_IO_H
#define P2B_CORTEX_M_TEST_IO_H

#include <stdint.h>

void out_str(const char* s);
void out_u32(uint32_t v);
/* `v` with three decimals, e.g. 0.731. */
void out_milli(double v);

/* Prints "  ok   <what>" or "  FAIL <what>" and remembers failures. */
int check(int ok, const char* what);
/* Like check, also naming the status when it is not `want`. */
int check_status(int got, int want, const char* what);
int failures(void);

#endif /* P2B_CORTEX_M_TEST_IO_H */
