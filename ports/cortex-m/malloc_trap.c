/* The device library never allocates (docs/architecture.md), so on Cortex-M there is no
 * heap: every allocator entry point, newlib's reentrant ones and _sbrk
 * included, stops the core with a message. An accidental allocation - an
 * Eigen temporary, a printf that buffers - then fails loudly at its first
 * call instead of corrupting memory later. Linked as object files into the
 * image (p2b_cortex_m_malloc_trap), so these win over libc's allocator. */
#include <stddef.h>

#include "p2b_cortex_m.h"

struct _reent;

#define P2B_TRAP(fn) p2b_cortex_m_fatal(fn " called: the image has no heap")

void* malloc(size_t n) {
  (void)n;
  P2B_TRAP("malloc");
}

void* calloc(size_t n, size_t size) {
  (void)n;
  (void)size;
  P2B_TRAP("calloc");
}

void* realloc(void* p, size_t n) {
  (void)p;
  (void)n;
  P2B_TRAP("realloc");
}

/* free(NULL) is a no-op by definition; freeing anything else means something
 * was allocated behind our back. */
void free(void* p) {
  if (p != NULL) P2B_TRAP("free");
}

void* _malloc_r(struct _reent* r, size_t n) {
  (void)r;
  (void)n;
  P2B_TRAP("_malloc_r");
}

void* _calloc_r(struct _reent* r, size_t n, size_t size) {
  (void)r;
  (void)n;
  (void)size;
  P2B_TRAP("_calloc_r");
}

void* _realloc_r(struct _reent* r, void* p, size_t n) {
  (void)r;
  (void)p;
  (void)n;
  P2B_TRAP("_realloc_r");
}

void _free_r(struct _reent* r, void* p) {
  (void)r;
  if (p != NULL) P2B_TRAP("_free_r");
}

void* _sbrk(ptrdiff_t incr) {
  (void)incr;
  P2B_TRAP("_sbrk");
}
