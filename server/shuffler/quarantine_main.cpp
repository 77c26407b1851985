#include "shuffler/quarantine_main.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "common/exit_codes.hpp"
#include "common/quarantine_command.hpp"
#include "shuffler/spool_factory.hpp"

namespace p2b::shuffler {

namespace {

// The spool of `url`; never created (a tool must not make an empty store).
OpenedSpool open_existing(const common::StoreUrl& url) {
  SpoolOptions options;
  options.postgresql = url.is_postgresql();
  options.target = url.target;
  options.must_exist = true;
  return open_spool(options);
}

bool matches(const QuarantineEntry& e, const QuarantineFilter& filter) {
  return (filter.reason.empty() || e.reason == filter.reason) &&
         (!filter.quarantined_before || e.quarantined_unix < *filter.quarantined_before);
}

}  // namespace

int quarantine_main(int argc, const char* const* argv) {
  common::QuarantineTool tool;
  tool.program = "p2b-shuffler";
  tool.what =
      "Shows or clears the records the shuffler set aside instead of sending them to the "
      "analyzer. The one reason is damaged_in_spool: the record's row in the spool no longer "
      "matched the checksum written with it. Each line: the record's number, reason, when it "
      "was set aside (unix seconds) and where its row was. A SQLite spool must not be open in "
      "a running service; a PostgreSQL spool can be listed and purged while services run on it.";
  tool.retry_help =
      "refused (exit 2): a damaged row's bytes are not the report that was accepted, and "
      "nothing of it is kept, so there is nothing to send again.";
  tool.store_forms = "sqlite:PATH|PATH|postgresql://...";
  tool.list = [](const common::StoreUrl& url, const QuarantineFilter& filter) {
    const OpenedSpool opened = open_existing(url);
    std::vector<common::QuarantineLine> lines;
    for (const QuarantineEntry& e : opened.spool->quarantined()) {
      if (!matches(e, filter)) continue;
      lines.push_back({e.reason, std::to_string(e.id) + " " + e.reason + " " +
                                     std::to_string(e.quarantined_unix) + " " + e.origin});
    }
    return lines;
  };
  tool.purge = [](const common::StoreUrl& url, const QuarantineFilter& filter) {
    return static_cast<uint64_t>(open_existing(url).spool->purge_quarantine(filter));
  };
  tool.retry = [](const common::StoreUrl&, const QuarantineFilter&) {
    std::fprintf(stderr,
                 "p2b-shuffler quarantine retry: the shuffler sets aside only damaged rows, whose "
                 "bytes are not the report accepted and are not kept; nothing can be sent again. "
                 "Purge them once the cause (the disk) is dealt with.\n");
    return static_cast<int>(common::kExitUsage);
  };
  return common::quarantine_command_main(tool, argc, argv);
}

}  // namespace p2b::shuffler
