/* Board hooks of the bare-metal Cortex-M port (docs/ports.md).
 *
 * A board provides p2b_cortex_m_entropy (its TRNG) and may replace
 * p2b_cortex_m_log (its console); both are weak here. Everything else in the
 * port is fixed. */
#ifndef P2B_CORTEX_M_H
#define P2B_CORTEX_M_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fills `len` bytes from the board's hardware random source, returning 0 on
 * success. It backs the agent's default random source, report nonces and
 * libsodium's randombytes (sealed-box ephemeral keys), so it must be a real
 * TRNG or a CSPRNG seeded from one. The weak default returns -1: a board that
 * forgets it gets P2B_ERR_RANDOM_FAILURE, or the fatal trap inside libsodium,
 * never silently predictable keys. Define it in an object file of the image,
 * not in a static library, or the linker keeps the weak default. */
int p2b_cortex_m_entropy(uint8_t* out, size_t len);

/* Writes a NUL-terminated message to the board's console. The weak default
 * uses semihosting (a debugger or qemu must be attached). */
void p2b_cortex_m_log(const char* msg);

/* Logs "p2b cortex-m: FATAL: <why>" and stops the core with a fault. Used by
 * the malloc trap and when libsodium cannot get entropy. */
void p2b_cortex_m_fatal(const char* why) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif

#endif /* P2B_CORTEX_M_H */
