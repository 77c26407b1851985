// How the SQLite spool seals what it stores (docs/security.md, "The spool
// at rest"): each sensitive value is an XChaCha20-Poly1305 ciphertext under
// the spool's seal subkey, with a random nonce and the row's identity as
// associated data, so a sealed value moved to another row, or into another
// table, fails to open like a damaged one. Lookups go by a keyed BLAKE2b of
// the value, which without the key can be matched to nothing an attacker
// holds (an envelope, a batch, a digest the unkeyed code computes).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "shuffler/spool_key.hpp"

namespace p2b::shuffler::spool_seal {

// The nonce and tag a sealed value carries beside its plaintext.
inline constexpr std::size_t kOverhead = 24 + 16;

using LookupTag = std::array<uint8_t, 32>;

// A piece of a plaintext, of associated data or of a lookup's input.
struct Bytes {
  const uint8_t* data;
  std::size_t size;
};

// The row identity a sealed value is bound to: a table's letter and the
// row's key columns, concatenated.
std::vector<uint8_t> row_identity(char table, std::initializer_list<Bytes> key_columns);

// nonce || ciphertext || tag of the concatenated `plain`.
std::vector<uint8_t> seal(const SpoolKey& key, std::initializer_list<Bytes> plain,
                          const std::vector<uint8_t>& identity);

// The plaintext, or false if `sealed` was not sealed under this key for
// this row (a wrong key, a damaged or moved value); `plain` is then empty.
bool open(const SpoolKey& key, const std::vector<uint8_t>& sealed,
          const std::vector<uint8_t>& identity, std::vector<uint8_t>* plain);

// Keyed BLAKE2b-256 of the table letter and the concatenated `parts`.
LookupTag lookup_tag(const SpoolKey& key, char table, std::initializer_list<Bytes> parts);

}  // namespace p2b::shuffler::spool_seal
