// The key sets p2b-keygen writes (docs/keys.md), as one library for the
// tool and the Python package, so both make the same files under the same
// names: the deployment's four P2B pairs, a vertical-federation party's,
// an FCLUB server's (a local one's with its noise seed), a P-FCB
// consortium's AEAD key, a P-FCB agent's signing pair and the shuffler's
// spool key.
#pragma once

#include <sodium.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/keyfiles.hpp"
#include "pfcb/wire/pfcb_wire.hpp"

namespace p2b::keygen {

enum class KeySetKind { p2b, vfl, fclub, fclub_local, pfcb_consortium, pfcb_agent, shuffler_spool };

// "p2b", "vfl", "fclub", "fclub-local", "pfcb-consortium", "pfcb-agent",
// "shuffler-spool" (the flag names, without --); false for anything else.
bool key_set_kind(const std::string& name, KeySetKind* out);

struct BoxPair {
  uint8_t pk[crypto_box_PUBLICKEYBYTES]{};
  uint8_t sk[crypto_box_SECRETKEYBYTES]{};
};

struct SignPair {
  uint8_t pk[crypto_sign_PUBLICKEYBYTES]{};
  uint8_t sk[crypto_sign_SECRETKEYBYTES]{};
};

// The only place the secret halves live; wiped when it goes.
struct KeySet {
  BoxPair shuffler_box;
  BoxPair analyzer_box;
  SignPair analyzer_sign;
  SignPair shuffler_sign;
  uint8_t noise_seed[32]{};                             // FCLUB local servers: the tree-noise seed
  uint8_t consortium_key[pfcb::kConsortiumKeyBytes]{};  // P-FCB: the agents' AEAD key
  uint8_t spool_key[32]{};  // the shuffler's SQLite spool key (server/shuffler/spool_key.hpp)

  KeySet() = default;
  KeySet(const KeySet&) = delete;
  KeySet& operator=(const KeySet&) = delete;
  ~KeySet() { wipe(); }
  void wipe();
};

struct KeyFile {
  const char* name;
  const uint8_t* bytes;
  std::size_t size;
  keyfiles::KeyKind kind;
};

using KeyFiles = std::vector<KeyFile>;

// The files of one kind, pointing into `k`, in the order they are written.
KeyFiles key_files(const KeySet& k, KeySetKind kind);

// Fresh keys for every member of `k` (libsodium must be initialised).
void generate(KeySet* k);

}  // namespace p2b::keygen
