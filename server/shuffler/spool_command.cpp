#include "shuffler/spool_command.hpp"

#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/exit_codes.hpp"
#include "common/store_open.hpp"
#include "common/store_url.hpp"
#include "shuffler/sqlite_spool.hpp"

namespace p2b::shuffler {

namespace {

constexpr const char* kUsage =
    "usage: p2b-shuffler spool rekey --store sqlite:PATH|PATH --spool-key OLD --new-spool-key "
    "NEW\n"
    "Re-seals every report and replay entry of a SQLite spool under the key in NEW, in one\n"
    "transaction, then rewrites the file and empties its WAL, so that nothing sealed under\n"
    "OLD is left. Afterwards only NEW opens the spool: give it to the service. The spool must\n"
    "not be open in a running service. Both keys must lie outside the spool's directory.\n"
    "Exit status: 0 done, 1 the spool cannot be used, 2 bad command line or a key refused\n"
    "(nothing changed), 4 the store was refused.\n";

int usage_error(const std::string& why) {
  std::fprintf(stderr, "p2b-shuffler spool: %s\n%s", why.c_str(), kUsage);
  return common::kExitUsage;
}

int rekey(const std::string& path, const std::string& old_file, const std::string& new_file) {
  try {
    auto old_key = std::make_shared<const SpoolKey>(load_spool_key(old_file, path));
    auto new_key = std::make_shared<const SpoolKey>(load_spool_key(new_file, path));
    if (old_key->check_value() == new_key->check_value()) {
      return usage_error("the new key is the old one; nothing was changed");
    }
    SqliteSpool spool(path, old_key);
    const sealed_schema::Counts counts = spool.rekey(new_key);
    std::printf(
        "re-sealed %s under the new key: %zu reports, %zu replay entries, %zu damaged "
        "(set aside or dropped)\n",
        path.c_str(), counts.records, counts.replay, counts.damaged);
    return common::kExitClean;
  } catch (const SpoolKeyRefused& e) {
    std::fprintf(stderr, "p2b-shuffler spool rekey: %s\n", e.what());
    return common::kExitUsage;
  } catch (const common::StoreRefused& e) {
    std::fprintf(stderr, "p2b-shuffler spool rekey: %s\n", e.what());
    return common::kExitStoreRefused;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-shuffler spool rekey: %s\n", e.what());
    return common::kExitFailure;
  }
}

}  // namespace

int spool_command_main(int argc, const char* const* argv) {
  if (argc > 1 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::fputs(kUsage, stdout);
    return common::kExitClean;
  }
  if (argc < 2 || std::string(argv[1]) != "rekey") return usage_error("the one command is rekey");
  std::string store, old_file, new_file;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return common::kExitClean;
    }
    std::string* target = arg == "--store"           ? &store
                          : arg == "--spool-key"     ? &old_file
                          : arg == "--new-spool-key" ? &new_file
                                                     : nullptr;
    if (target == nullptr || i + 1 >= argc) return usage_error("unexpected argument " + arg);
    *target = argv[++i];
  }
  if (store.empty() || old_file.empty() || new_file.empty()) {
    return usage_error("--store, --spool-key and --new-spool-key are required");
  }
  common::StoreUrl url;
  try {
    url = common::parse_store_url(store);
  } catch (const std::invalid_argument& e) {
    return usage_error(e.what());
  }
  if (url.is_postgresql()) {
    return usage_error(
        "a PostgreSQL spool has no spool key: its volume's encryption is rotated "
        "by the operator (docs/operations.md)");
  }
  return rekey(url.target, old_file, new_file);
}

}  // namespace p2b::shuffler
