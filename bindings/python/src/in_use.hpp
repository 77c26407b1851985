// Keeps a second Python thread off a native object while a batch call
// (decide_many) runs on it with the GIL released: the C objects are not
// thread-safe, and without the GIL nothing else stops another thread from
// calling in. The flag is only read and written with the GIL held, so it
// needs no atomics.
#pragma once

#include <stdexcept>

namespace p2b::python {

class InUse {
 public:
  // Raises RuntimeError while a batch call holds the object.
  void check() const {
    if (busy_) throw std::runtime_error("object is busy in a batch call on another thread");
  }

  // Held, with the GIL, around a batch call's GIL-free loop.
  class Scope {
   public:
    explicit Scope(InUse* u) : u_(u) {
      u_->check();
      u_->busy_ = true;
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope() { u_->busy_ = false; }

   private:
    InUse* u_;
  };

 private:
  bool busy_ = false;
};

}  // namespace p2b::python
