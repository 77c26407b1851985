// Loads the shuffler's box keys, one pair per directory (docs/keys.md).
// Several directories hold the old and new keys during a rotation; an
// envelope picks its key by the fingerprint it carries in clear.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "wire/envelope_open.hpp"

namespace p2b::shuffler {

class KeyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LoadedKeys {
  std::vector<server::BoxKey> keys;
  std::vector<std::string> fingerprints;  // lowercase hex, public
  std::vector<std::string> warnings;      // e.g. a secret file readable by others
};

// Reads DIR/shuffler.box.pk and DIR/shuffler.box.sk for each DIR. Throws
// KeyError if a file is unreadable or the wrong size, or if a secret key
// does not belong to its public key: that mix-up would otherwise only show
// as every envelope failing to decrypt.
LoadedKeys load_shuffler_keys(const std::vector<std::string>& dirs);

// Wipes the secret keys.
void wipe_keys(std::vector<server::BoxKey>* keys);

}  // namespace p2b::shuffler
