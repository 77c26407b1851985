// Opens every inner ciphertext of a verified batch and sorts the records into
// the ones the statistics may take, the ones to quarantine and the ones
// refused, by reason. A bad record never spoils its batch: it is one
// device's (or one attacker's) report. The checks, in order:
//   replayed          its inner ciphertext was applied before, or appears
//                     earlier in this batch, or is sealed to a retired box
//                     key (its epoch's replay state is gone: it cannot be
//                     shown fresh, so it is refused, never applied unchecked)
//   unknown_key, decrypt_failed, malformed   the inner layer does not open
//   crowd_mismatch    its code is not the crowd id the shuffler counted
//   code_out_of_range, action_out_of_range
//   below_threshold   fewer than l valid reports share its crowd
// so neither garbage nor replays can make up a crowd. Replays and crowds
// below l are refused by design; the others are quarantined, since a key or
// shape this analyzer lacks may open them later.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "common/crowd_threshold.hpp"
#include "key_ring.hpp"
#include "metrics.hpp"
#include "wire/batch_format.hpp"

namespace p2b::analyzer {

// The replay state's epoch: the fingerprint of the analyzer box key an
// inner ciphertext is sealed to, its first bytes (include/p2b/envelope.hpp).
using Epoch = std::array<uint8_t, kFingerprintBytes>;
Epoch epoch_of(const server::InnerCiphertext& inner);
// Parses 32 hex digits; false for anything else.
bool parse_epoch(const std::string& hex, Epoch* out);

struct ValidReport {
  uint32_t code;
  uint32_t action;
  double reward;
};

// One record after decryption, before anything is compared with the store.
struct OpenedRecord {
  server::InnerDigest digest{};
  Epoch epoch{};
  bool valid = false;
  RejectReason reason = RejectReason::malformed;  // when !valid
  ValidReport report{};                           // when valid
};

// Needs no state, so it can run without the analyzer's lock. A record of a
// `retired` epoch is not opened: it is refused as replayed.
std::vector<OpenedRecord> open_records(const server::Batch& batch, const KeyRing& keys,
                                       uint32_t n_codes, uint32_t n_actions,
                                       const std::set<Epoch>* retired = nullptr);

struct OpenedBatch {
  std::vector<ValidReport> valid;
  RejectCounts rejected{};
  // Digests of this batch's valid inner ciphertexts not seen before: to be
  // stored with the batch, so that they count as replays from then on.
  std::vector<server::InnerDigest> new_digests;
  std::vector<Epoch> new_epochs;  // of new_digests, one each
  // Indices (into the records given) of the ones to quarantine: not seen
  // before, and not valid.
  std::vector<std::size_t> quarantine;
  uint64_t rejected_total() const;
};

// Drops replays (`seen_before` answers for earlier batches and for the
// quarantine), sets the invalid records aside for quarantine, then every
// crowd whose count of valid reports fails `policy` (the shuffler's rule,
// noise included: one draw per crowd, in code order).
OpenedBatch screen_records(const std::vector<OpenedRecord>& records,
                           const std::function<bool(const server::InnerDigest&)>& seen_before,
                           const common::ThresholdPolicy& policy,
                           common::Randomness& rng = common::csprng());
// The same, for a store that looks digests up within their epoch.
OpenedBatch screen_opened(const std::vector<OpenedRecord>& records,
                          const std::function<bool(const OpenedRecord&)>& seen_before,
                          const common::ThresholdPolicy& policy,
                          common::Randomness& rng = common::csprng());

}  // namespace p2b::analyzer
