// The spool a --store value names (common/store_url.hpp): SqliteSpool for a
// file, PgSpool for a postgresql:// URL, with the /readyz "storage" check
// that fits it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/readiness.hpp"
#include "shuffler/spool.hpp"
#include "shuffler/spool_key.hpp"

namespace p2b::shuffler {

struct SpoolOptions {
  bool postgresql = false;        // StoreUrl::is_postgresql()
  std::string target;             // StoreUrl::target: the file, or the libpq URL
  uint32_t sqlite_partition = 0;  // SQLite: the one partition's label (--partition)
  uint32_t partitions = 0;        // PostgreSQL: --partitions (0: what the store has)
  std::chrono::milliseconds lease_ttl{30000};
  bool must_exist = false;  // refuse to create a store (SpoolError)
  // PostgreSQL: session timeouts, if not derived from lease_ttl (0).
  std::chrono::milliseconds statement_timeout{0};
  // SQLite: the key the spool is sealed under (spool_key.hpp); nullptr opens
  // an existing spool for maintenance only (the quarantine, retire-key).
  std::shared_ptr<const SpoolKey> sqlite_key;
};

struct OpenedSpool {
  std::unique_ptr<Spool> spool;
  std::function<common::CheckResult()> storage_check;
};

// Throws what the backend's constructor throws (common::StoreRefused,
// SpoolKeyRefused, SpoolError).
OpenedSpool open_spool(const SpoolOptions& options);

}  // namespace p2b::shuffler
