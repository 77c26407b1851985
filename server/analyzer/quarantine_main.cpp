#include "quarantine_main.hpp"

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/exit_codes.hpp"
#include "common/store_open.hpp"
#include "common/store_url.hpp"
#include "quarantine_table.hpp"
#include "wire/batch_format.hpp"

namespace p2b::analyzer {

namespace {

constexpr const char* kUsage =
    "usage: p2b-analyzer quarantine list|retry|purge --store sqlite:PATH|PATH\n"
    "                               [--reason REASON] [--older-than DAYS]\n"
    "Shows, retries or clears the records the analyzer quarantined: records of a batch it\n"
    "could not open or use (reasons: wrong_length, unknown_key, decrypt_failed, malformed,\n"
    "crowd_mismatch, code_out_of_range, action_out_of_range).\n"
    "\n"
    "  list    prints the count of each reason, then one line per record: its batch id,\n"
    "          position, reason and when it was quarantined (unix seconds). Never contents.\n"
    "  retry   prints how many matching records the next start retries: every start of\n"
    "          p2b-analyzer opens the whole quarantine again with the keys it then holds and\n"
    "          applies what now opens (after a key was restored to --keys). Changes nothing.\n"
    "  purge   deletes the matching records for good and prints how many went.\n"
    "\n"
    "  --reason REASON     only records of this reason\n"
    "  --older-than DAYS   only records quarantined at least DAYS whole days ago (0: all)\n"
    "\n"
    "The store must not be open in a running analyzer. PostgreSQL stores are not supported\n"
    "yet. Exit status: 0 done, 1 the store cannot be used, 2 bad command line, 4 store refused.\n";

int usage_error(const std::string& why) {
  std::fprintf(stderr, "p2b-analyzer quarantine: %s\n%s", why.c_str(), kUsage);
  return common::kExitUsage;
}

struct Command {
  std::string verb;
  std::string store;
  quarantine_table::Filter filter;
};

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
      // +1: the filter's bound is strict, and a record of this second is "0 days old".
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

// The store's database, or a refusal: the tool never creates a store nor
// changes its schema, so a store without a quarantine table has none.
std::unique_ptr<common::Database> open_existing(const std::string& path, bool* has_table) {
  std::unique_ptr<common::Database> db = common::open_store(path, common::kAnalyzerStore);
  common::Statement q(*db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  q.bind_text(1, "quarantine");
  *has_table = q.step();
  return db;
}

void print_list(const std::vector<quarantine_table::Listed>& rows) {
  std::map<std::string, std::size_t> by_reason;
  for (const auto& r : rows) ++by_reason[r.reason];
  std::printf("%zu records in quarantine\n", rows.size());
  for (const auto& [reason, n] : by_reason) std::printf("reason %s: %zu\n", reason.c_str(), n);
  for (const auto& r : rows) {
    std::printf("%s %u %s %lld\n", server::batch_id_hex(r.batch_id).c_str(), r.position,
                r.reason.c_str(), static_cast<long long>(r.quarantined_unix));
  }
}

int run(const Command& cmd, const std::string& path) {
  if (!std::filesystem::exists(path)) throw std::runtime_error(path + ": no such store");
  // Held while the tool works, so that an analyzer cannot start on the store meanwhile.
  const common::StoreLock lock(path);
  bool has_table = false;
  const std::unique_ptr<common::Database> db = open_existing(path, &has_table);
  if (cmd.verb == "purge") {
    const uint64_t purged = has_table ? quarantine_table::purge(*db, cmd.filter) : 0;
    std::printf("purged %llu records from the quarantine of %s\n",
                static_cast<unsigned long long>(purged), path.c_str());
    return common::kExitClean;
  }
  const std::vector<quarantine_table::Listed> rows =
      has_table ? quarantine_table::list(*db, cmd.filter) : std::vector<quarantine_table::Listed>{};
  if (cmd.verb == "list") {
    print_list(rows);
  } else {
    std::printf("%zu records will be retried at the next start of p2b-analyzer on %s\n",
                rows.size(), path.c_str());
  }
  return common::kExitClean;
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
  common::StoreUrl url;
  try {
    url = common::parse_store_url(cmd.store);
  } catch (const std::invalid_argument& e) {
    return usage_error(e.what());
  }
  if (url.is_postgresql()) return usage_error("PostgreSQL stores are not supported yet");
  try {
    return run(cmd, url.target);
  } catch (const common::StoreRefused& e) {
    std::fprintf(stderr, "p2b-analyzer quarantine: %s\n", e.what());
    return common::kExitStoreRefused;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-analyzer quarantine: %s\n", e.what());
    return common::kExitFailure;
  }
}

}  // namespace p2b::analyzer
