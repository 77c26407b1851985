#include "vfl/published_mask.hpp"

#include <sodium.h>

namespace p2b::vfl {

std::string hex_of(const uint8_t* p, std::size_t n) {
  std::string s(2 * n + 1, '\0');
  sodium_bin2hex(s.data(), s.size(), p, n);
  s.pop_back();
  return s;
}

void PublishedMask::publish(const MaskBlock& block) {
  const std::lock_guard<std::mutex> lock(mu_);
  epoch_ = block.epoch;
  mask_id_hex_ = hex_of(block.mask_id, kMaskIdBytes);
}

uint64_t PublishedMask::epoch() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return epoch_;
}

std::string PublishedMask::mask_id_hex() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return mask_id_hex_;
}

}  // namespace p2b::vfl
