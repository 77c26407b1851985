// Which storage backend a service runs on, from its --store value:
//   sqlite:PATH                 the embedded default, one file
//   PATH                        the same (the form every release so far took)
//   postgresql://... postgres://...   a shared PostgreSQL database (libpq URL)
// Parsing never connects; the backend refuses what it cannot open.
#pragma once

#include <stdexcept>
#include <string>

namespace p2b::common {

enum class StoreBackend { sqlite, postgresql };

struct StoreUrl {
  StoreBackend backend = StoreBackend::sqlite;
  // The SQLite file path, or the libpq connection URL as given.
  std::string target;

  bool is_postgresql() const { return backend == StoreBackend::postgresql; }
  // For logs and errors: the kind and target with any password replaced by
  // "***" (secrets never go to logs).
  std::string describe() const;
};

// Throws std::invalid_argument (with a message fit for the command line)
// for an empty value, an empty path after "sqlite:", or a scheme we do not
// know ("mysql://...": a typo must not become a file of that name).
StoreUrl parse_store_url(const std::string& value);

// `url` with the password of its userinfo (postgresql://user:PASS@host) and
// any password=... query or key=value parameter replaced by "***".
std::string redact_password(const std::string& url);

}  // namespace p2b::common
