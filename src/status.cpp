#include "p2b/status.hpp"

namespace p2b {

const char* status_str(Status s) {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::no_report:
      return "no report pending";
    case Status::budget_exhausted:
      return "privacy budget exhausted; reporting stopped";
    case Status::null_pointer:
      return "a required pointer argument is NULL";
    case Status::bad_config:
      return "configuration value out of range";
    case Status::dimension_mismatch:
      return "array length does not match the configured dimension";
    case Status::non_finite:
      return "input contains NaN or Inf";
    case Status::negative_context:
      return "context has a negative entry";
    case Status::reward_out_of_range:
      return "reward outside [0, 1]";
    case Status::action_out_of_range:
      return "action index out of range";
    case Status::buffer_too_small:
      return "output buffer too small";
    case Status::not_initialized:
      return "agent memory was not initialised by p2b_agent_init";
    case Status::arena_too_small:
      return "arena smaller than the reported footprint";
    case Status::arena_misaligned:
      return "arena not aligned to P2B_ARENA_ALIGN bytes";
    case Status::unknown_decision:
      return "decision id was never issued by this agent";
    case Status::expired_decision:
      return "decision id expired from the pending ring";
    case Status::already_rewarded:
      return "decision already rewarded";
    case Status::corrupt_state:
      return "saved state is truncated or corrupted";
    case Status::unsupported_version:
      return "saved state, model or file has an unsupported format version";
    case Status::state_mismatch:
      return "saved state belongs to a different configuration";
    case Status::not_positive_definite:
      return "statistics matrix is not symmetric positive definite";
    case Status::bad_codebook:
      return "codebook is missing or contains non-finite values";
    case Status::random_failure:
      return "random source failed";
    case Status::code_out_of_range:
      return "code index out of range";
    case Status::crypto_failure:
      return "the crypto port failed to seal, hash or verify";
    case Status::malformed_input:
      return "input is not a well-formed p2b message or file";
    case Status::bad_signature:
      return "model or key list signature does not verify with the pinned key";
    case Status::model_shape_mismatch:
      return "model has another dimension or number of actions";
    case Status::codebook_mismatch:
      return "model was built for another codebook";
    case Status::model_rollback:
      return "model version is not newer than the current one, or below the minimum";
    case Status::numeric_range:
      return "update would leave the range the agent can save and restore; nothing changed";
    case Status::model_kind:
      return "model is a raw baseline this device does not accept, or of an unknown kind";
    case Status::model_expired:
      return "model is past its not-after time";
    case Status::key_list_rollback:
      return "key list version is not newer than the one applied";
    case Status::key_list_expired:
      return "key list is past its not-after time";
    case Status::key_retired:
      return "envelope is sealed to a shuffler key the applied key list no longer accepts";
    case Status::item_count:
      return "number of candidate items is 0 or above the configured maximum";
    case Status::replayed:
      return "share is not newer than the last one applied from its sender";
  }
  return "unknown status";
}

}  // namespace p2b
