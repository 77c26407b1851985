// The shuffler's batch-signing keys: shuffler.sign.sk of every --keys
// directory. The last directory's key signs every batch; the earlier ones
// are kept only to re-sign a batch that an earlier run signed with them, so
// that a rotation while a batch awaits its ack does not turn that batch into
// a permanent 409 batch_conflict (batcher.hpp, BatchKeys; docs/keys.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/secret_keys.hpp"

namespace p2b::shuffler {

struct SignKeys {
  common::SecureArray<uint8_t> current;
  // Newest first; none equal to `current` or to each other.
  std::vector<common::SecureArray<uint8_t>> previous;
  // Lowercase hex fingerprints of the previous keys' public halves, for the log.
  std::vector<std::string> previous_fingerprints;

  std::vector<const uint8_t*> previous_pointers() const;
};

// Reads DIR/shuffler.sign.sk of the last of `dirs` (required) and of each
// earlier one that has the file (a directory may hold only a box pair).
// Throws common::KeyError naming the file; `warnings` gets a line for each
// secret file that others can read.
SignKeys load_sign_keys(const std::vector<std::string>& dirs, std::vector<std::string>* warnings);

}  // namespace p2b::shuffler
