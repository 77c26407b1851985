#include "quarantine_main.hpp"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/exit_codes.hpp"
#include "common/quarantine_command.hpp"
#include "common/store_open.hpp"
#include "quarantine_table.hpp"
#include "wire/batch_format.hpp"

namespace p2b::analyzer {

namespace {

// The store's database under its lock (so that an analyzer cannot start on
// it meanwhile), or a refusal: the tool never creates a store nor changes
// its schema, so a store without a quarantine table has none.
struct OpenStore {
  explicit OpenStore(const common::StoreUrl& url) : lock(checked(url)) {
    db = common::open_store(url.target, common::kAnalyzerStore);
    common::Statement q(*db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    q.bind_text(1, "quarantine");
    has_table = q.step();
  }
  static const std::string& checked(const common::StoreUrl& url) {
    if (!std::filesystem::exists(url.target)) {
      throw std::runtime_error(url.target + ": no such store");
    }
    return url.target;
  }
  common::StoreLock lock;
  std::unique_ptr<common::Database> db;
  bool has_table = false;
};

std::vector<quarantine_table::Listed> listed(const common::StoreUrl& url,
                                             const common::QuarantineFilter& filter) {
  OpenStore store(url);
  return store.has_table ? quarantine_table::list(*store.db, filter)
                         : std::vector<quarantine_table::Listed>{};
}

}  // namespace

int quarantine_main(int argc, const char* const* argv) {
  common::QuarantineTool tool;
  tool.program = "p2b-analyzer";
  tool.what =
      "Shows, retries or clears the records the analyzer quarantined: records of a batch it "
      "could not open or use (reasons: wrong_length, unknown_key, decrypt_failed, malformed, "
      "crowd_mismatch, code_out_of_range, action_out_of_range). Each line: the record's batch "
      "id, position, reason and when it was quarantined (unix seconds). The store must not be "
      "open in a running analyzer.";
  tool.retry_help =
      "prints how many matching records the next start retries: every start of p2b-analyzer "
      "opens the whole quarantine again with the keys it then holds and applies what now "
      "opens (after a key was restored to --keys). Changes nothing.";
  tool.store_forms = "sqlite:PATH|PATH";
  tool.postgresql = false;
  tool.list = [](const common::StoreUrl& url, const common::QuarantineFilter& filter) {
    std::vector<common::QuarantineLine> lines;
    for (const quarantine_table::Listed& r : listed(url, filter)) {
      lines.push_back({r.reason, server::batch_id_hex(r.batch_id) + " " +
                                     std::to_string(r.position) + " " + r.reason + " " +
                                     std::to_string(r.quarantined_unix)});
    }
    return lines;
  };
  tool.purge = [](const common::StoreUrl& url, const common::QuarantineFilter& filter) -> uint64_t {
    OpenStore store(url);
    return store.has_table ? quarantine_table::purge(*store.db, filter) : 0;
  };
  tool.retry = [](const common::StoreUrl& url, const common::QuarantineFilter& filter) {
    std::printf("%zu records will be retried at the next start of p2b-analyzer on %s\n",
                listed(url, filter).size(), url.target.c_str());
    return static_cast<int>(common::kExitClean);
  };
  return common::quarantine_command_main(tool, argc, argv);
}

}  // namespace p2b::analyzer
