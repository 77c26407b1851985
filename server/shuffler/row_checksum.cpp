#include "shuffler/row_checksum.hpp"

#include <sodium.h>

namespace p2b::shuffler {

namespace {

// Versioned, so that a later layout cannot be mistaken for this one.
constexpr char kLabel[] = "p2b shuffler spool row v1";

}  // namespace

RowSum row_sum(uint32_t crowd_id, const uint8_t* inner, std::size_t inner_len) {
  const uint8_t crowd[4] = {static_cast<uint8_t>(crowd_id), static_cast<uint8_t>(crowd_id >> 8),
                            static_cast<uint8_t>(crowd_id >> 16),
                            static_cast<uint8_t>(crowd_id >> 24)};
  crypto_generichash_state st;
  RowSum out{};
  crypto_generichash_init(&st, nullptr, 0, out.size());
  crypto_generichash_update(&st, reinterpret_cast<const uint8_t*>(kLabel), sizeof kLabel - 1);
  crypto_generichash_update(&st, crowd, sizeof crowd);
  crypto_generichash_update(&st, inner, inner_len);
  crypto_generichash_final(&st, out.data(), out.size());
  return out;
}

bool row_intact(uint32_t crowd_id, const uint8_t* inner, std::size_t inner_len, const uint8_t* sum,
                std::size_t sum_len) {
  if (sum == nullptr || sum_len != RowSum{}.size()) return false;
  const RowSum want = row_sum(crowd_id, inner, inner_len);
  return sodium_memcmp(want.data(), sum, want.size()) == 0;
}

}  // namespace p2b::shuffler
