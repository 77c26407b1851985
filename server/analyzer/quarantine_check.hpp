// The analyzer's "quarantine" check in /readyz (common/readiness.hpp).
#pragma once

#include <cstdint>

#include "common/readiness.hpp"

namespace p2b::analyzer {

// Passes while the quarantine has room, naming how many records it holds,
// so that a non-empty quarantine shows in /readyz without taking the
// analyzer out of service: clean batches are still applied. Fails once it
// holds `max_quarantine` records, since from then on every batch with a
// record it cannot use is refused whole (docs/operations.md, "Quarantine").
common::CheckResult quarantine_check(uint64_t quarantined, uint64_t max_quarantine);

}  // namespace p2b::analyzer
