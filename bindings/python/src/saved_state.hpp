// save()/restore() for every object that persists (Agent, plain and
// encrypted; SharedModel; CmabAgent): the C API's size query, then the save
// into a buffer of that size; restore from a private copy, since an
// encrypted restore decrypts in place. Each C call is named in the error.
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "arrays.hpp"
#include "p2b.h"
#include "status_error.hpp"

namespace p2b::python {

struct StateCalls {
  const char* size_name;
  const char* save_name;
};

template <typename Handle, typename SizeFn, typename SaveFn>
pybind11::bytes save_state(const Handle* handle, const pybind11::handle& key, SizeFn size_fn,
                           SaveFn save_fn, StateCalls names) {
  const auto k = byte_vector(key, P2B_STATE_KEY_BYTES, "key");
  std::size_t n = 0;
  check(size_fn(handle, &n), names.size_name);
  std::vector<uint8_t> buf(n);
  check(save_fn(handle, k.data(), buf.data(), buf.size(), &n), names.save_name);
  return to_bytes(buf.data(), n);
}

template <typename Handle, typename RestoreFn>
void restore_state(Handle* handle, const pybind11::handle& data, const pybind11::handle& key,
                   RestoreFn restore_fn, const char* name) {
  const auto k = byte_vector(key, P2B_STATE_KEY_BYTES, "key");
  auto d = byte_vector(data, 0, "state");
  check(restore_fn(handle, k.data(), d.data(), d.size()), name);
}

}  // namespace p2b::python
