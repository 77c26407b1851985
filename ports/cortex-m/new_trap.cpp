// operator new and delete for the heap-less image: every form traps, like
// malloc (malloc_trap.c). The core is built without exceptions, so nothing
// could catch std::bad_alloc anyway.
#include <cstddef>
#include <new>

#include "p2b_cortex_m.h"

namespace {

[[noreturn]] void trap_new() {
  p2b_cortex_m_fatal("operator new called: the image has no heap");
}

[[noreturn]] void trap_delete() {
  p2b_cortex_m_fatal("operator delete called: the image has no heap");
}

}  // namespace

void* operator new(std::size_t) {
  trap_new();
}
void* operator new[](std::size_t) {
  trap_new();
}
void* operator new(std::size_t, const std::nothrow_t&) noexcept {
  trap_new();
}
void* operator new[](std::size_t, const std::nothrow_t&) noexcept {
  trap_new();
}
void* operator new(std::size_t, std::align_val_t) {
  trap_new();
}
void* operator new[](std::size_t, std::align_val_t) {
  trap_new();
}

// Deleting nullptr is a no-op; anything else came from a trapped new.
void operator delete(void* p) noexcept {
  if (p != nullptr) trap_delete();
}
void operator delete[](void* p) noexcept {
  if (p != nullptr) trap_delete();
}
void operator delete(void* p, std::size_t) noexcept {
  if (p != nullptr) trap_delete();
}
void operator delete[](void* p, std::size_t) noexcept {
  if (p != nullptr) trap_delete();
}
void operator delete(void* p, std::align_val_t) noexcept {
  if (p != nullptr) trap_delete();
}
void operator delete[](void* p, std::align_val_t) noexcept {
  if (p != nullptr) trap_delete();
}
