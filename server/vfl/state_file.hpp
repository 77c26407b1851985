// The small durable state of a vertical-federation service: the last round_id
// it used or answered (a round_id makes a box nonce, so it must never repeat
// after a restart) and the last mask epoch it accepted (so an older bundle
// cannot come back). A text file,
//   p2b-vfl-state 1
//   round_id N
//   mask_epoch E
// replaced atomically (written and fsynced under a temporary name, renamed,
// directory fsynced) on every change.
#pragma once

#include <cstdint>
#include <string>

namespace p2b::vfl {

struct ServiceState {
  uint64_t round_id = 0;
  uint64_t mask_epoch = 0;
};

// A missing file is a fresh state (all zero, `*existed` false); anything
// but the format above is refused.
bool read_state(const std::string& path, ServiceState* out, bool* existed, std::string* err);
// Durable when it returns true.
bool write_state(const std::string& path, const ServiceState& s, std::string* err);

}  // namespace p2b::vfl
