// The one `PROGRAM quarantine list|retry|purge` command the services share
// (docs/operations.md, "Quarantine"): the same flags, help, version, output
// and exit codes whichever store holds the records. A service names what its
// records are and how to list, purge and retry them; this parses the command
// line (CLI11, as every p2b program), filters and prints.
//
//   list    the count of each reason, then one line per record (never contents)
//   retry   what the service's retry does (it may refuse: exit 2)
//   purge   deletes the matching records and prints how many went
//
// Exit status: 0 done, 1 the store cannot be used, 2 bad command line (or a
// refused retry), 4 the store was refused (another kind, a newer schema).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/store_url.hpp"

namespace p2b::common {

// Which records a listing or a purge takes: every one that matches both.
struct QuarantineFilter {
  std::string reason;                         // empty: any reason
  std::optional<int64_t> quarantined_before;  // unix seconds; none: any time
};

// A record as listed: its reason (for the counts) and its line (where it
// came from, when; never its contents).
struct QuarantineLine {
  std::string reason;
  std::string text;
};

struct QuarantineTool {
  std::string program;      // "p2b-shuffler"
  std::string what;         // the help's description: what the records are, the reasons
  std::string retry_help;   // what `retry` does here
  std::string store_forms;  // "sqlite:PATH|PATH|postgresql://..."
  bool postgresql = true;   // false: a postgresql:// store is a usage error
  // Each may throw StoreRefused (exit 4) or another std::exception (exit 1).
  std::function<std::vector<QuarantineLine>(const StoreUrl&, const QuarantineFilter&)> list;
  std::function<uint64_t(const StoreUrl&, const QuarantineFilter&)> purge;
  // Prints what it did; returns the exit code.
  std::function<int(const StoreUrl&, const QuarantineFilter&)> retry;
};

// `argv[0]` is "quarantine".
int quarantine_command_main(const QuarantineTool& tool, int argc, const char* const* argv);

}  // namespace p2b::common
