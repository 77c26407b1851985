#include "fclub/local_entries.hpp"

#include <cmath>
#include <cstring>

namespace p2b::fclub {

namespace {

void put_u32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

void put_double(std::string* out, double v) {
  char b[sizeof v];
  std::memcpy(b, &v, sizeof v);
  out->append(b, sizeof v);
}

double get_double(const std::string& in, std::size_t at) {
  double v = 0;
  std::memcpy(&v, in.data() + at, sizeof v);
  return v;
}

}  // namespace

std::string encode_reward(const RewardRequest& r) {
  std::string out;
  out.reserve(4 + sizeof(double) * (1 + static_cast<std::size_t>(r.x.size())));
  put_u32(&out, r.user);
  put_double(&out, r.reward);
  for (Eigen::Index i = 0; i < r.x.size(); ++i) put_double(&out, r.x(i));
  out.push_back(static_cast<char>(r.id.size()));
  out += r.id;
  return out;
}

bool decode_reward(const std::string& body, uint32_t dim, uint32_t users, RewardRequest* out) {
  const std::size_t fixed = 4 + sizeof(double) * (1 + static_cast<std::size_t>(dim));
  if (body.size() < fixed + 1) return false;
  const auto id_bytes = static_cast<uint8_t>(body[fixed]);
  if (id_bytes > kMaxRewardIdBytes || body.size() != fixed + 1 + id_bytes) return false;
  out->id = body.substr(fixed + 1);
  uint32_t user = 0;
  for (int i = 0; i < 4; ++i) {
    user |= static_cast<uint32_t>(static_cast<uint8_t>(body[i])) << (8 * i);
  }
  if (user >= users) return false;
  out->user = user;
  out->reward = get_double(body, 4);
  out->x.resize(dim);
  for (uint32_t i = 0; i < dim; ++i) out->x(i) = get_double(body, 4 + sizeof(double) * (1 + i));
  if (!std::isfinite(out->reward) || !out->x.allFinite()) return false;
  return true;
}

std::string outbox_id(bool phase_done, uint32_t phase, uint32_t local_cluster, uint32_t seq) {
  std::string out(1, phase_done ? '\1' : '\0');
  for (const uint32_t v : {phase, local_cluster, seq}) put_u32(&out, v);
  return out;
}

}  // namespace p2b::fclub
