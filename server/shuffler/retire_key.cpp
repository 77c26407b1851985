#include "shuffler/retire_key.hpp"

#include <sodium.h>

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "common/exit_codes.hpp"
#include "common/store_url.hpp"
#include "shuffler/spool_factory.hpp"

namespace p2b::shuffler {

namespace {

constexpr const char* kUsage =
    "usage: p2b-shuffler retire-key --store sqlite:PATH|PATH|postgresql://... --fingerprint HEX\n"
    "Retires the shuffler key with that fingerprint (32 hex digits, as p2b-keygen and the\n"
    "service's log print it): its replay state is dropped and its envelopes are refused from\n"
    "now on, on every node. A SQLite spool must not be open in a running service.\n";

int usage_error(const std::string& why) {
  std::fprintf(stderr, "p2b-shuffler retire-key: %s\n%s", why.c_str(), kUsage);
  return common::kExitUsage;
}

}  // namespace

int retire_key_main(int argc, const char* const* argv) {
  std::string store, fingerprint;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if ((arg == "--store" || arg == "--fingerprint") && i + 1 < argc) {
      (arg == "--store" ? store : fingerprint) = argv[++i];
    } else {
      return usage_error("unexpected argument " + arg);
    }
  }
  if (store.empty() || fingerprint.empty()) return usage_error("--store and --fingerprint");
  EpochId epoch{};
  std::size_t len = 0;
  if (fingerprint.size() != 2 * epoch.size() ||
      sodium_hex2bin(epoch.data(), epoch.size(), fingerprint.c_str(), fingerprint.size(), nullptr,
                     &len, nullptr) != 0 ||
      len != epoch.size()) {
    return usage_error("--fingerprint must be 32 hex digits");
  }
  common::StoreUrl url;
  try {
    url = common::parse_store_url(store);
  } catch (const std::invalid_argument& e) {
    return usage_error(e.what());
  }
  try {
    SpoolOptions options;
    options.postgresql = url.is_postgresql();
    options.target = url.target;
    options.must_exist = true;
    const OpenedSpool opened = open_spool(options);
    const bool already = opened.spool->epoch_retired(epoch);
    const std::size_t dropped = opened.spool->retire_epoch(epoch);
    std::printf("retired key %s in %s%s: dropped %zu replay entries\n", fingerprint.c_str(),
                url.describe().c_str(), already ? " (it was retired before)" : "", dropped);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-shuffler retire-key: %s\n", e.what());
    return common::kExitFailure;
  }
}

}  // namespace p2b::shuffler
