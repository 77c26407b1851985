// A pointer stored as its target's offset from the pointer itself. The parts
// of an agent find their arena blocks through these, so the arena holds no
// absolute address and stays valid wherever its bytes are.
#pragma once

#include <cstddef>

namespace p2b {

template <typename T>
class RelativePtr {
 public:
  RelativePtr() = default;
  // A copy would point somewhere else: the offset is relative to `this`.
  RelativePtr(const RelativePtr&) = delete;
  RelativePtr& operator=(const RelativePtr&) = delete;

  void set(T* target) { offset_ = reinterpret_cast<char*>(target) - reinterpret_cast<char*>(this); }

  // const_cast: a const part still hands out its arena blocks, as the arena,
  // not the header object, is what const-ness protects here.
  T* get() const {
    return reinterpret_cast<T*>(const_cast<char*>(reinterpret_cast<const char*>(this)) + offset_);
  }

 private:
  std::ptrdiff_t offset_ = 0;
};

}  // namespace p2b
