// What /readyz reports: named checks that each service registers at start
// (storage, keys, the batcher or the publisher). /healthz only says the
// process answers; /readyz says whether it can do its job now, and why not.
// Checks run on every /readyz request, so each must be cheap and must not
// block on the work it reports on (read a status, do not take its lock for
// long).
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace p2b::common {

struct CheckResult {
  bool ok = true;
  std::string detail;  // why not, or a short status ("3 batches waiting")
};

inline CheckResult check_ok(std::string detail = {}) {
  return {true, std::move(detail)};
}
inline CheckResult check_failed(std::string detail) {
  return {false, std::move(detail)};
}

struct NamedResult {
  std::string name;
  CheckResult result;
};

class Readiness {
 public:
  using Check = std::function<CheckResult()>;

  // Registers a check; the names appear in /readyz in this order. A check
  // that throws counts as failed with the exception's message.
  void add(std::string name, Check check);

  // Runs every check once.
  std::vector<NamedResult> run() const;
  // True if every result passed (and there is at least one check).
  static bool all_ok(const std::vector<NamedResult>& results);

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<std::string, Check>> checks_;
};

}  // namespace p2b::common
