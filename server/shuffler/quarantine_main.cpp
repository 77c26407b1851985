#include "shuffler/quarantine_main.hpp"

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/exit_codes.hpp"
#include "common/store_open.hpp"
#include "common/store_url.hpp"
#include "shuffler/spool_factory.hpp"

namespace p2b::shuffler {

namespace {

constexpr const char* kUsage =
    "usage: p2b-shuffler quarantine list|retry|purge --store sqlite:PATH|PATH|postgresql://...\n"
    "                               [--reason REASON] [--older-than DAYS]\n"
    "Shows or clears the records the shuffler set aside instead of sending them to the\n"
    "analyzer. The one reason is damaged_in_spool: the record's row in the spool no longer\n"
    "matched the checksum written with it.\n"
    "\n"
    "  list    prints the count of each reason, then one line per record: its number, reason,\n"
    "          when it was set aside (unix seconds) and where its row was. Never contents.\n"
    "  retry   refused (exit 2): a damaged row's bytes are not the report that was accepted,\n"
    "          and nothing of it is kept, so there is nothing to send again.\n"
    "  purge   deletes the matching entries and prints how many went.\n"
    "\n"
    "  --reason REASON     only entries of this reason\n"
    "  --older-than DAYS   only entries set aside at least DAYS whole days ago (0: all)\n"
    "\n"
    "A SQLite spool must not be open in a running service; a PostgreSQL spool can be\n"
    "listed and purged while services run on it.\n"
    "Exit status: 0 done, 1 the store cannot be used, 2 bad command line, 4 store refused.\n";

int usage_error(const std::string& why) {
  std::fprintf(stderr, "p2b-shuffler quarantine: %s\n%s", why.c_str(), kUsage);
  return common::kExitUsage;
}

struct Command {
  std::string verb;
  std::string store;
  QuarantineFilter filter;
};

// False (with `why`) for a command line that names no verb, no store, an
// unknown flag, or a malformed value.
bool parse(int argc, const char* const* argv, Command* cmd, std::string* why) {
  if (argc < 2) {
    *why = "no verb";
    return false;
  }
  cmd->verb = argv[1];
  if (cmd->verb != "list" && cmd->verb != "retry" && cmd->verb != "purge") {
    *why = "unknown verb " + cmd->verb;
    return false;
  }
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) {
      *why = "unexpected argument " + arg;
      return false;
    }
    const std::string value = argv[++i];
    if (arg == "--store") {
      cmd->store = value;
    } else if (arg == "--reason") {
      cmd->filter.reason = value;
    } else if (arg == "--older-than") {
      uint32_t days = 0;
      const auto [end, err] = std::from_chars(value.data(), value.data() + value.size(), days);
      if (err != std::errc() || end != value.data() + value.size() || days > 100000) {
        *why = "--older-than takes a whole number of days";
        return false;
      }
      const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
      // +1: "before" is strict, and an entry set aside this second is "0 days old".
      cmd->filter.quarantined_before = now - int64_t{days} * 86400 + 1;
    } else {
      *why = "unexpected argument " + arg;
      return false;
    }
  }
  if (cmd->store.empty()) {
    *why = "--store is required";
    return false;
  }
  return true;
}

void print_list(const std::vector<QuarantineEntry>& entries, const QuarantineFilter& filter) {
  std::map<std::string, std::size_t> by_reason;
  std::vector<const QuarantineEntry*> shown;
  for (const QuarantineEntry& e : entries) {
    if (!filter.reason.empty() && e.reason != filter.reason) continue;
    if (filter.quarantined_before && e.quarantined_unix >= *filter.quarantined_before) continue;
    ++by_reason[e.reason];
    shown.push_back(&e);
  }
  std::printf("%zu records in quarantine\n", shown.size());
  for (const auto& [reason, n] : by_reason) std::printf("reason %s: %zu\n", reason.c_str(), n);
  for (const QuarantineEntry* e : shown) {
    std::printf("%lld %s %lld %s\n", static_cast<long long>(e->id), e->reason.c_str(),
                static_cast<long long>(e->quarantined_unix), e->origin.c_str());
  }
}

}  // namespace

int quarantine_main(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return common::kExitClean;
    }
  }
  Command cmd;
  std::string why;
  if (!parse(argc, argv, &cmd, &why)) return usage_error(why);
  if (cmd.verb == "retry") {
    std::fprintf(stderr,
                 "p2b-shuffler quarantine retry: the shuffler sets aside only damaged rows, whose "
                 "bytes are not the report accepted and are not kept; nothing can be sent again. "
                 "Purge them once the cause (the disk) is dealt with.\n");
    return common::kExitUsage;
  }
  common::StoreUrl url;
  try {
    url = common::parse_store_url(cmd.store);
  } catch (const std::invalid_argument& e) {
    return usage_error(e.what());
  }
  try {
    SpoolOptions options;
    options.postgresql = url.is_postgresql();
    options.target = url.target;
    options.must_exist = true;
    const OpenedSpool opened = open_spool(options);
    if (cmd.verb == "list") {
      print_list(opened.spool->quarantined(), cmd.filter);
    } else {
      const std::size_t purged = opened.spool->purge_quarantine(cmd.filter);
      std::printf("purged %zu records from the quarantine of %s\n", purged, url.describe().c_str());
    }
    return common::kExitClean;
  } catch (const common::StoreRefused& e) {
    std::fprintf(stderr, "p2b-shuffler quarantine: %s\n", e.what());
    return common::kExitStoreRefused;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-shuffler quarantine: %s\n", e.what());
    return common::kExitFailure;
  }
}

}  // namespace p2b::shuffler
