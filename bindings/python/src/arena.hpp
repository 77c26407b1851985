// The caller memory each Python object hands the C API for its native object:
// aligned as p2b_arena_align() asks, and wiped before it is freed, since it
// holds what the user taught the agent (as the Java and Swift bindings do).
#pragma once

#include <sodium.h>

#include <cstddef>
#include <cstdlib>
#include <new>

#include "p2b.h"

namespace p2b::python {

class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() { release(); }

  // Memory for an object whose footprint is `footprint` bytes.
  void* allocate(std::size_t footprint) {
    release();
    const std::size_t align = p2b_arena_align();
    const std::size_t bytes = (footprint + align - 1) / align * align;
    data_ = std::aligned_alloc(align, bytes);
    if (data_ == nullptr) throw std::bad_alloc();
    bytes_ = bytes;
    return data_;
  }
  std::size_t size() const { return bytes_; }

 private:
  void release() {
    if (data_ == nullptr) return;
    sodium_memzero(data_, bytes_);
    std::free(data_);
    data_ = nullptr;
    bytes_ = 0;
  }

  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace p2b::python
