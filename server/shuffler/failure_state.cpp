#include "shuffler/failure_state.hpp"

#include <sodium.h>

#include <algorithm>
#include <utility>

#include "common/json_log.hpp"

namespace p2b::shuffler {

namespace {

double seconds(std::chrono::milliseconds d) {
  return static_cast<double>(d.count()) / 1000.0;
}

}  // namespace

FailureState::FailureState(std::string what, std::chrono::milliseconds min,
                           std::chrono::milliseconds max)
    : what_(std::move(what)), min_(min), max_(std::max(min, max)), base_(min) {}

std::chrono::milliseconds FailureState::failed(const std::string& reason, Kind kind) {
  std::chrono::milliseconds pause{0};
  {
    const std::lock_guard<std::mutex> lock(mu_);
    const bool starts = consecutive_ == 0;
    const bool changed = !starts && reason != reason_;
    if (starts) since_ = Clock::now();
    ++consecutive_;
    reason_ = reason;
    kind_ = kind;
    // Quick retries cannot mend a configuration: go straight to the longest pause.
    if (kind == Kind::configuration) base_ = max_;
    const auto half = static_cast<uint32_t>(std::min<int64_t>(base_.count() / 2, UINT32_MAX - 1));
    pause = base_ - std::chrono::milliseconds(randombytes_uniform(half + 1));
    base_ = std::min(base_ * 2, max_);
    if (starts || changed) {
      common::service_log().error((what_ + (starts ? "_failing" : "_failure_changed")).c_str(),
                                  {{"error", reason},
                                   {"attempts", consecutive_},
                                   {"configuration_error", kind == Kind::configuration}});
    }
  }
  return pause;
}

void FailureState::succeeded() {
  const std::lock_guard<std::mutex> lock(mu_);
  if (consecutive_ > 0) {
    common::service_log().info(
        (what_ + "_recovered").c_str(),
        {{"failed_attempts", consecutive_},
         {"seconds",
          seconds(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since_))},
         {"last_error", reason_}});
  }
  consecutive_ = 0;
  reason_.clear();
  kind_ = Kind::transient;
  base_ = min_;
}

FailureState::Snapshot FailureState::snapshot() const {
  const std::lock_guard<std::mutex> lock(mu_);
  Snapshot s;
  s.failing = consecutive_ > 0;
  s.consecutive = consecutive_;
  s.reason = reason_;
  s.configuration = s.failing && kind_ == Kind::configuration;
  if (s.failing) {
    s.failing_for = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since_);
  }
  return s;
}

}  // namespace p2b::shuffler
