// The checksum each spool row carries (docs/shuffler.md, "Row integrity").
// SQLite's page checks and the start-up integrity check see a page whose
// bytes are consistent; they cannot see a record whose bytes changed inside
// a well-formed page (a bad sector rewritten, a bit flipped in memory before
// the write). The checksum is written in the insert's own transaction and
// checked whenever a row is read for a batch, so such a record is set aside
// as damaged_in_spool instead of reaching the analyzer, which could only
// file it under a misleading reason (unknown_key, decrypt_failed).
//
// It is BLAKE2b-128 without a key: it detects accidental damage. Someone who
// can write the spool can also write fresh rows with fresh checksums, and
// those only reach the analyzer as ciphertexts it cannot open (the spool
// holds nothing sealed by the shuffler itself), so a MAC key would add a
// secret to manage without closing a hole.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace p2b::shuffler {

using RowSum = std::array<uint8_t, 16>;

// The checksum of a row: a domain label, the crowd id (little-endian) and
// the inner ciphertext. The row's key (a random id, or a batch position) is
// left out: the same record keeps its checksum when a close moves it.
RowSum row_sum(uint32_t crowd_id, const uint8_t* inner, std::size_t inner_len);

// Whether a stored row is as it was written: `sum` must be a RowSum's
// length and match. A missing or short checksum is damage too.
bool row_intact(uint32_t crowd_id, const uint8_t* inner, std::size_t inner_len, const uint8_t* sum,
                std::size_t sum_len);

}  // namespace p2b::shuffler
