#include "common/readiness.hpp"

#include <exception>

namespace p2b::common {

void Readiness::add(std::string name, Check check) {
  const std::lock_guard<std::mutex> lock(mu_);
  checks_.emplace_back(std::move(name), std::move(check));
}

std::vector<NamedResult> Readiness::run() const {
  std::vector<std::pair<std::string, Check>> checks;
  {
    // Copied so that a slow check never holds up a registration.
    const std::lock_guard<std::mutex> lock(mu_);
    checks = checks_;
  }
  std::vector<NamedResult> out;
  out.reserve(checks.size());
  for (const auto& [name, check] : checks) {
    try {
      out.push_back({name, check()});
    } catch (const std::exception& e) {
      out.push_back({name, check_failed(e.what())});
    } catch (...) {
      out.push_back({name, check_failed("unknown failure")});
    }
  }
  return out;
}

bool Readiness::all_ok(const std::vector<NamedResult>& results) {
  if (results.empty()) return false;
  for (const NamedResult& r : results) {
    if (!r.result.ok) return false;
  }
  return true;
}

}  // namespace p2b::common
