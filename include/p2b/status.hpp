// Status codes of the device core. Values are part of the C ABI (c_api/p2b.h
// mirrors them one for one), so existing values never change meaning.
#pragma once

#include <cstdint>

namespace p2b {

enum class Status : int32_t {
  ok = 0,
  no_report = 1,         // informational: nothing to send right now
  budget_exhausted = 2,  // informational: privacy budget spent, reporting stopped

  null_pointer = -1,
  bad_config = -2,
  dimension_mismatch = -3,
  non_finite = -4,
  negative_context = -5,
  reward_out_of_range = -6,
  action_out_of_range = -7,
  buffer_too_small = -8,
  not_initialized = -9,
  arena_too_small = -10,
  arena_misaligned = -11,
  unknown_decision = -12,
  expired_decision = -13,
  already_rewarded = -14,
  corrupt_state = -15,
  unsupported_version = -16,
  state_mismatch = -17,
  not_positive_definite = -18,
  bad_codebook = -19,
  random_failure = -20,
  code_out_of_range = -21,
  crypto_failure = -22,
  malformed_input = -23,
  bad_signature = -24,
  model_shape_mismatch = -25,
  codebook_mismatch = -26,
  model_rollback = -27,
  numeric_range = -28,
  model_kind = -29,         // a raw-baseline model (not accepted) or an unknown kind
  model_expired = -30,      // the model's not-after time is before the time given
  key_list_rollback = -31,  // key list version not above the one applied
  key_list_expired = -32,   // the key list's not-after time is before the time given
  key_retired = -33,        // envelope sealed to a shuffler key the applied list dropped
  item_count = -34,         // a shared-model decision with 0 items or more than configured
  replayed = -35,           // a P-FCB share not newer than the last applied from its sender
};

// Lowest (most negative) status value; tests walk [kLowestStatus, 2].
constexpr int32_t kLowestStatus = -35;

constexpr bool is_error(Status s) {
  return static_cast<int32_t>(s) < 0;
}

// Static, never-null English description of a status.
const char* status_str(Status s);

}  // namespace p2b
