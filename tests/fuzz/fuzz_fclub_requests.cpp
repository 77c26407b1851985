// p2b-fclub-local's request bodies (server/fclub/local_requests.hpp): JSON
// from devices and apps. Whatever the bytes, parsing must not crash, and
// what it accepts must have the documented shape.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fclub/local_requests.hpp"

namespace {
constexpr uint32_t kDim = 5;
constexpr uint32_t kUsers = 8;

void require(bool ok) {
  if (!ok) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  p2b::fclub::RecommendRequest rec;
  if (p2b::fclub::parse_recommend(body, kDim, kUsers, &rec)) {
    require(rec.user < kUsers && rec.items.cols() == kDim && rec.items.rows() >= 1 &&
            static_cast<std::size_t>(rec.items.rows()) <= p2b::fclub::kMaxRequestItems &&
            rec.items.allFinite());
  }
  p2b::fclub::RewardRequest rew;
  if (p2b::fclub::parse_reward(body, kDim, kUsers, &rew)) {
    require(rew.user < kUsers && rew.x.size() == kDim && rew.x.allFinite() &&
            std::isfinite(rew.reward));
  }
  return 0;
}
