// The mask version a service shows on /readyz and in its logs, under its own
// lock: reading it never waits on a decision in flight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

#include "vfl/mask.hpp"

namespace p2b::vfl {

// Lowercase hex of n bytes.
std::string hex_of(const uint8_t* p, std::size_t n);

class PublishedMask {
 public:
  void publish(const MaskBlock& block);
  uint64_t epoch() const;
  std::string mask_id_hex() const;

 private:
  mutable std::mutex mu_;
  uint64_t epoch_ = 0;
  std::string mask_id_hex_;
};

}  // namespace p2b::vfl
