/* ARM semihosting calls (ARM DUI 0471, "Semihosting operations"), the
 * console and exit path of the qemu test image. On hardware they only work
 * with a debugger attached; without one the BKPT faults. */
#ifndef P2B_CORTEX_M_SEMIHOSTING_H
#define P2B_CORTEX_M_SEMIHOSTING_H

#ifdef __cplusplus
extern "C" {
#endif

/* SYS_WRITE0: a NUL-terminated string to the host's stdout. */
void p2b_semihost_write0(const char* s);

/* SYS_EXIT_EXTENDED: ends the session with `code` as the host's exit status
 * (qemu-system-arm exits with it). */
void p2b_semihost_exit(int code) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif

#endif /* P2B_CORTEX_M_SEMIHOSTING_H */
