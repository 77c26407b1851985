// What a device or an app sends p2b-fclub-local (docs/fclub-services.md),
// parsed apart from the service so that a fuzz target can reach it. Bodies
// are untrusted: anything but the documented shape is refused.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <string>

namespace p2b::fclub {

inline constexpr std::size_t kMaxRequestItems = 1024;

struct RecommendRequest {
  uint32_t user = 0;
  Eigen::MatrixXd items;  // K x dim, every entry finite
};

// A reward's id: a client that sends one may resend a reward whose answer
// it lost, and it is applied once (docs/fclub-services.md).
inline constexpr std::size_t kMaxRewardIdBytes = 64;

struct RewardRequest {
  uint32_t user = 0;
  Eigen::VectorXd x;  // dim entries, finite
  double reward = 0.0;
  std::string id;  // empty: none; else 1..64 of [A-Za-z0-9._:-]
};

// {"user":u,"items":[[...],...]} with u < users and 1..1024 rows of `dim`
// finite numbers. False (and `out` unspecified) otherwise.
bool parse_recommend(const std::string& body, uint32_t dim, uint32_t users, RecommendRequest* out);
// {"user":u,"x":[...],"reward":y[,"id":"..."]} with u < users, `dim` finite
// numbers, a finite y and an optional id of 1..64 of [A-Za-z0-9._:-].
bool parse_reward(const std::string& body, uint32_t dim, uint32_t users, RewardRequest* out);

}  // namespace p2b::fclub
