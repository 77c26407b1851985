// One kind of work that can keep failing (closing batches, delivering
// them): how long to pause before the next try, and what to log. The pause
// doubles from `min` to `max`, with jitter (a random part of up to half of
// it taken off) so that shufflers restarted together do not retry in step.
// The log says when a failure starts (ERROR), when its reason changes
// (ERROR) and when it ends (INFO, with the attempts and how long it
// lasted): never once per try, so a persistent fault costs a few lines.
// A configuration error (the analyzer refuses this shuffler's settings) is
// one no retry can fix: it waits the longest pause at once, and its snapshot
// says so, for /readyz to fail without a grace period.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace p2b::shuffler {

class FailureState {
 public:
  using Clock = std::chrono::steady_clock;

  // `what` names the log events: "<what>_failing", "<what>_failure_changed",
  // "<what>_recovered".
  FailureState(std::string what, std::chrono::milliseconds min, std::chrono::milliseconds max);

  enum class Kind {
    transient,      // the network, the analyzer's load or storage: retrying may work
    configuration,  // only an operator can fix it (the two services disagree)
  };

  // Records a failed try; returns the pause before the next one.
  std::chrono::milliseconds failed(const std::string& reason, Kind kind = Kind::transient);
  // Records a try that worked; logs the recovery if it was failing.
  void succeeded();

  struct Snapshot {
    bool failing = false;
    uint64_t consecutive = 0;    // failed tries since the last success
    std::string reason;          // the last failure's, while failing
    bool configuration = false;  // the last failure is a configuration error
    std::chrono::milliseconds failing_for{0};
  };
  Snapshot snapshot() const;

 private:
  const std::string what_;
  const std::chrono::milliseconds min_, max_;
  mutable std::mutex mu_;
  std::chrono::milliseconds base_;
  uint64_t consecutive_ = 0;
  std::string reason_;
  Kind kind_ = Kind::transient;
  Clock::time_point since_{};
};

}  // namespace p2b::shuffler
