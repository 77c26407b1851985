#include "quarantine_check.hpp"

#include <string>

namespace p2b::analyzer {

common::CheckResult quarantine_check(uint64_t quarantined, uint64_t max_quarantine) {
  if (quarantined == 0) return common::check_ok("empty");
  const std::string held = std::to_string(quarantined) + " of at most " +
                           std::to_string(max_quarantine) + " records held";
  if (quarantined >= max_quarantine) {
    return common::check_failed("full: " + held +
                                "; batches with unusable records are refused (p2b-analyzer "
                                "quarantine list)");
  }
  return common::check_ok(held + "; see p2b-analyzer quarantine list");
}

}  // namespace p2b::analyzer
