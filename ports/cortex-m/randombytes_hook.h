/* Force-included into libsodium's randombytes.c (libsodium.cmake): names the
 * default implementation, which randombytes_hook.c defines. */
#ifndef P2B_CORTEX_M_RANDOMBYTES_HOOK_H
#define P2B_CORTEX_M_RANDOMBYTES_HOOK_H

#include <sodium/randombytes.h>

extern struct randombytes_implementation p2b_cortex_m_randombytes;

#endif /* P2B_CORTEX_M_RANDOMBYTES_HOOK_H */
