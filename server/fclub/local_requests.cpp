#include "fclub/local_requests.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

namespace p2b::fclub {

namespace {

bool read_vector(const nlohmann::json& j, uint32_t dim, Eigen::VectorXd* out) {
  if (!j.is_array() || j.size() != dim) return false;
  out->resize(dim);
  for (uint32_t i = 0; i < dim; ++i) {
    if (!j[i].is_number()) return false;
    const double v = j[i].get<double>();
    if (!std::isfinite(v)) return false;
    (*out)(i) = v;
  }
  return true;
}

bool read_user(const nlohmann::json& j, uint32_t users, uint32_t* out) {
  if (!j.is_object() || !j.contains("user") || !j["user"].is_number_unsigned()) return false;
  const auto u = j["user"].get<uint64_t>();
  if (u >= users) return false;
  *out = static_cast<uint32_t>(u);
  return true;
}

// Printable and short: an id is journalled and compared, never interpreted.
bool read_reward_id(const nlohmann::json& j, std::string* out) {
  if (!j.is_string()) return false;
  const std::string& id = j.get_ref<const std::string&>();
  if (id.empty() || id.size() > kMaxRewardIdBytes) return false;
  for (const char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == ':' || c == '-';
    if (!ok) return false;
  }
  *out = id;
  return true;
}

}  // namespace

bool parse_recommend(const std::string& body, uint32_t dim, uint32_t users, RecommendRequest* out) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !read_user(j, users, &out->user) || !j.contains("items")) return false;
  const nlohmann::json& items = j["items"];
  if (!items.is_array() || items.empty() || items.size() > kMaxRequestItems) return false;
  out->items.resize(static_cast<Eigen::Index>(items.size()), dim);
  Eigen::VectorXd row;
  for (std::size_t k = 0; k < items.size(); ++k) {
    if (!read_vector(items[k], dim, &row)) return false;
    out->items.row(static_cast<Eigen::Index>(k)) = row.transpose();
  }
  return true;
}

bool parse_reward(const std::string& body, uint32_t dim, uint32_t users, RewardRequest* out) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !read_user(j, users, &out->user) || !j.contains("x") ||
      !j.contains("reward") || !j["reward"].is_number()) {
    return false;
  }
  out->reward = j["reward"].get<double>();
  out->id.clear();
  if (j.contains("id") && !read_reward_id(j["id"], &out->id)) return false;
  return std::isfinite(out->reward) && read_vector(j["x"], dim, &out->x);
}

}  // namespace p2b::fclub
