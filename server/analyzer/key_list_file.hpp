// The signed shuffler-key list the analyzer serves at GET /v1/keys
// (--key-list FILE, docs/keys.md). p2b-keylist makes the file offline; the
// analyzer only reads it once at start and checks it as a device would, so
// it never serves a list its devices would refuse for its form or signer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace p2b::analyzer {

struct ServedKeyList {
  std::vector<uint8_t> bytes;  // the file, p2b::kKeyListBytes
  std::string etag;            // quoted hex BLAKE2b-128 of the bytes
  uint64_t version = 0;
  uint64_t not_after_unix = 0;
  std::string current_fp;  // hex fingerprint of the key new envelopes are sealed to
};

// Reads and checks the file against the Ed25519 secret key this analyzer
// signs models with (64 bytes; its public half is what devices pin).
// Throws std::runtime_error naming the file and the reason.
ServedKeyList load_key_list_file(const std::string& path, const uint8_t* sign_sk);

}  // namespace p2b::analyzer
