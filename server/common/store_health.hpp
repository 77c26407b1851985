// Whether a service's store can still be trusted while it runs. A call
// that meets corruption (SQLITE_CORRUPT, SQLITE_NOTADB) or an I/O error
// fails the store for good: a damaged page does not heal, and a service
// that answers 202 for reports it can never deliver lies. A restart runs
// the start checks again (store_open.hpp). Every failed call is counted;
// the change to failed is logged once, at error level.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "common/readiness.hpp"

namespace p2b::common {

class PrometheusText;

// Whether an SQLite extended result code means the file cannot be trusted.
bool is_damage_code(int sqlite_code);

class StoreHealth {
 public:
  // `path` names the file in the log line and the readiness detail.
  explicit StoreHealth(std::string path) : path_(std::move(path)) {}

  // Counts one failed call; `damage` fails the store (logged once, if the
  // log is armed).
  void record_error(bool damage, const std::string& what);
  // Logs the change to failed from now on: a store that fails its start
  // checks is refused with its own log line instead.
  void arm_log() { log_.store(true); }

  bool failed() const { return failed_.load(); }
  std::string reason() const;
  uint64_t errors() const { return errors_.load(); }

  // The "storage" readiness check.
  CheckResult check() const;
  // `<prefix>_store_errors_total` and `<prefix>_store_failed`.
  void render(PrometheusText& out, const std::string& prefix) const;

 private:
  std::string path_;
  std::atomic<bool> failed_{false};
  std::atomic<bool> log_{false};
  std::atomic<uint64_t> errors_{0};
  mutable std::mutex mu_;
  std::string reason_;
};

}  // namespace p2b::common
