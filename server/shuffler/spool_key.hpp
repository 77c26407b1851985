// The SQLite spool's key (docs/security.md, "The spool at rest"): 32 random
// bytes in a file outside the spool's data directory (p2b-keygen
// --shuffler-spool), or a systemd credential. The master key is used only to
// derive three subkeys and is wiped at once; the subkeys live in libsodium's
// guarded memory and are wiped when the SpoolKey goes.
//   seal:   XChaCha20-Poly1305 of every stored report and replay digest
//   lookup: keyed BLAKE2b that replay lookups are made by
//   check:  keyed BLAKE2b of a constant, stored in the spool, so that a
//           wrong key is refused before anything is read or written
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/secret_keys.hpp"
#include "shuffler/spool.hpp"

namespace p2b::shuffler {

inline constexpr std::size_t kSpoolKeyBytes = 32;
// The name of the key file p2b-keygen writes, and of the systemd credential
// the service reads when --spool-key is not given.
inline constexpr const char* kSpoolKeyName = "shuffler.spool.key";

// The key does not fit the spool, or the key file is not fit to be one.
class SpoolKeyRefused : public SpoolError {
 public:
  using SpoolError::SpoolError;
};

class SpoolKey {
 public:
  static constexpr std::size_t kSubkeyBytes = 32;
  using CheckValue = std::array<uint8_t, kSubkeyBytes>;

  // Derives the subkeys from `master` (kSpoolKeyBytes); the caller wipes it.
  explicit SpoolKey(const uint8_t* master);

  const uint8_t* seal_key() const { return subkeys_.data(); }
  const uint8_t* lookup_key() const { return subkeys_.data() + kSubkeyBytes; }
  // What the spool stores to recognise this key by; it reveals nothing of
  // the other subkeys (BLAKE2b is a PRF under its key).
  CheckValue check_value() const;

 private:
  common::SecureArray<uint8_t> subkeys_;  // seal, lookup, check
};

// Reads the key file at `key_path` for the spool at `spool_path`. Refuses
// (SpoolKeyRefused) a file that is not exactly kSpoolKeyBytes, that group
// or others may read, or that lies inside the spool's directory, where a
// copy of the data directory would carry it along.
SpoolKey load_spool_key(const std::string& key_path, const std::string& spool_path);

// $CREDENTIALS_DIRECTORY/shuffler.spool.key when systemd passed that
// credential (LoadCredential= or LoadCredentialEncrypted=); empty if not.
std::string spool_key_credential();

}  // namespace p2b::shuffler
