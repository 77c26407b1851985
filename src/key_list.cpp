// Encoding and structural checks of the shuffler-key list (p2b/key_list.hpp).
// The encoder writes through the same layout the parser reads, and the
// parser re-encodes what it read: a list is valid only if it round-trips.
#include "p2b/key_list.hpp"

#include <cstring>

namespace p2b {

namespace {

constexpr uint8_t kMagic[4] = {'P', '2', 'B', 'L'};
constexpr std::size_t kFormatAt = 4;
constexpr std::size_t kVersionAt = 8;
constexpr std::size_t kCreatedAt = 16;
constexpr std::size_t kNotAfterAt = 24;
constexpr std::size_t kSignerAt = 32;
constexpr std::size_t kCountAt = 48;
constexpr std::size_t kCurrentAt = 49;
constexpr std::size_t kKeysAt = 56;  // bytes 50..55 are reserved, zero
static_assert(kKeysAt + kKeyListMaxKeys * kPublicKeyBytes == kKeyListSignedBytes, "layout");

void put_le(uint8_t* p, uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

uint64_t get_le(const uint8_t* p, std::size_t n) {
  uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | p[i];
  return v;
}

bool all_zero(const uint8_t* p, std::size_t n) {
  uint8_t any = 0;
  for (std::size_t i = 0; i < n; ++i) any = static_cast<uint8_t>(any | p[i]);
  return any == 0;
}

// Everything a list must satisfy beyond its byte layout.
bool fields_ok(const KeyList& l) {
  if (l.version == 0 || l.count == 0 || l.count > kKeyListMaxKeys || l.current >= l.count) {
    return false;
  }
  if (l.not_after_unix != 0 && l.not_after_unix < l.created_unix) return false;
  for (std::size_t i = 0; i < kKeyListMaxKeys; ++i) {
    const bool used = i < l.count;
    if (all_zero(l.keys[i], kPublicKeyBytes) == used) return false;
    for (std::size_t j = 0; used && j < i; ++j) {
      if (std::memcmp(l.keys[i], l.keys[j], kPublicKeyBytes) == 0) return false;
    }
  }
  return true;
}

void write_fields(const KeyList& l, uint8_t* out) {
  std::memset(out, 0, kKeyListSignedBytes);
  std::memcpy(out, kMagic, sizeof kMagic);
  put_le(out + kFormatAt, kKeyListFormat, 4);
  put_le(out + kVersionAt, l.version, 8);
  put_le(out + kCreatedAt, l.created_unix, 8);
  put_le(out + kNotAfterAt, l.not_after_unix, 8);
  std::memcpy(out + kSignerAt, l.signer_fp, kFingerprintBytes);
  out[kCountAt] = static_cast<uint8_t>(l.count);
  out[kCurrentAt] = static_cast<uint8_t>(l.current);
  std::memcpy(out + kKeysAt, l.keys, sizeof l.keys);
}

}  // namespace

Status parse_key_list(const uint8_t* bytes, std::size_t len, KeyList* out) {
  if (bytes == nullptr || out == nullptr) return Status::null_pointer;
  if (len != kKeyListBytes || std::memcmp(bytes, kMagic, sizeof kMagic) != 0) {
    return Status::malformed_input;
  }
  if (get_le(bytes + kFormatAt, 4) != kKeyListFormat) return Status::unsupported_version;
  KeyList l{};
  l.version = get_le(bytes + kVersionAt, 8);
  l.created_unix = get_le(bytes + kCreatedAt, 8);
  l.not_after_unix = get_le(bytes + kNotAfterAt, 8);
  std::memcpy(l.signer_fp, bytes + kSignerAt, kFingerprintBytes);
  l.count = bytes[kCountAt];
  l.current = bytes[kCurrentAt];
  std::memcpy(l.keys, bytes + kKeysAt, sizeof l.keys);
  if (!fields_ok(l)) return Status::malformed_input;
  // Whatever the fields do not carry (the reserved bytes) must be zero:
  // the bytes must be exactly what the encoder writes for these fields.
  uint8_t again[kKeyListSignedBytes];
  write_fields(l, again);
  if (std::memcmp(again, bytes, kKeyListSignedBytes) != 0) return Status::malformed_input;
  *out = l;
  return Status::ok;
}

Status encode_key_list(const KeyList& list, uint8_t* out) {
  if (out == nullptr) return Status::null_pointer;
  if (!fields_ok(list)) return Status::malformed_input;
  write_fields(list, out);
  return Status::ok;
}

}  // namespace p2b
