#include "common/quarantine_command.hpp"

#include <chrono>
#include <cstdio>
#include <exception>
#include <map>
#include <stdexcept>

#include "common/command_line.hpp"
#include "common/exit_codes.hpp"
#include "common/option_values.hpp"
#include "common/store_open.hpp"

namespace p2b::common {

namespace {

int64_t now_unix() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void print_list(const std::vector<QuarantineLine>& lines) {
  std::map<std::string, std::size_t> by_reason;
  for (const QuarantineLine& l : lines) ++by_reason[l.reason];
  std::printf("%zu records in quarantine\n", lines.size());
  for (const auto& [reason, n] : by_reason) std::printf("reason %s: %zu\n", reason.c_str(), n);
  for (const QuarantineLine& l : lines) std::printf("%s\n", l.text.c_str());
}

}  // namespace

int quarantine_command_main(const QuarantineTool& tool, int argc, const char* const* argv) {
  const std::string name = tool.program + " quarantine";
  CommandLine line(name,
                   "usage: " + name + " list|retry|purge --store " + tool.store_forms +
                       " [--reason REASON] [--older-than DAYS]",
                   tool.what +
                       "\n\n  list    prints the count of each reason, then one line per "
                       "record. Never contents.\n  retry   " +
                       tool.retry_help +
                       "\n  purge   deletes the matching records for good and prints how many "
                       "went.\n\nExit status: 0 done, 1 the store cannot be used, 2 bad command "
                       "line, 4 store refused.",
                   false);
  std::string verb, store, reason, older_than;
  line.app()
      .add_option("verb", verb, "list, retry or purge")
      ->required()
      ->check(CLI::IsMember({"list", "retry", "purge"}));
  line.add_value("--store", &store, "the service's store (" + tool.store_forms + ")")->required();
  line.add_value("--reason", &reason, "only records of this reason");
  line.add_value("--older-than", &older_than,
                 "only records set aside at least DAYS whole days ago (0: all)");
  std::string message;
  const ParseOutcome parsed = line.parse(argc, argv, &message);
  if (parsed != ParseOutcome::ok) return report_parse_outcome(name, parsed, message);
  const auto refuse = [&name](const std::string& why) {
    return report_parse_outcome(name, ParseOutcome::usage_error, why);
  };
  QuarantineFilter filter;
  filter.reason = reason;
  if (!older_than.empty()) {
    uint64_t days = 0;
    if (!parse_count(older_than, 0, 100000, &days)) {
      return refuse(bad_value("older-than", "a whole number of days", older_than));
    }
    // +1: "before" is strict, and a record set aside this second is 0 days old.
    filter.quarantined_before = now_unix() - static_cast<int64_t>(days) * 86400 + 1;
  }
  StoreUrl url;
  try {
    url = parse_store_url(store);
  } catch (const std::invalid_argument& e) {
    return refuse(e.what());
  }
  if (url.is_postgresql() && !tool.postgresql) {
    return refuse("PostgreSQL stores are not supported yet");
  }
  try {
    if (verb == "retry") return tool.retry(url, filter);
    if (verb == "purge") {
      const uint64_t purged = tool.purge(url, filter);
      std::printf("purged %llu records from the quarantine of %s\n",
                  static_cast<unsigned long long>(purged), url.describe().c_str());
      return kExitClean;
    }
    std::vector<QuarantineLine> lines = tool.list(url, filter);
    print_list(lines);
    return kExitClean;
  } catch (const StoreRefused& e) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
    return kExitStoreRefused;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
    return kExitFailure;
  }
}

}  // namespace p2b::common
