// Opens every inner ciphertext of a batch and sorts the records into the
// ones the statistics may take and the ones skipped, by reason. A bad record
// never spoils its batch: it is one device's (or one attacker's) report.
#pragma once

#include <cstdint>
#include <vector>

#include "key_ring.hpp"
#include "metrics.hpp"
#include "wire/batch_format.hpp"

namespace p2b::analyzer {

struct ValidReport {
  uint32_t code;
  uint32_t action;
  double reward;
};

struct OpenedBatch {
  std::vector<ValidReport> valid;
  RejectCounts rejected{};
  uint64_t rejected_total() const;
};

OpenedBatch open_batch(const server::Batch& batch, const KeyRing& keys, uint32_t n_codes,
                       uint32_t n_actions);

}  // namespace p2b::analyzer
