// Saved state around the codec's body (state_codec.hpp): the "P2BS" magic and
// a BLAKE2b-256 integrity hash; encrypted at rest, the same bytes sit in an
// XChaCha20-Poly1305 box behind "P2BE" and a random nonce.
#include <pb_encode.h>

#include <cstring>

#include "state_codec.hpp"

namespace p2b {

namespace {

constexpr uint8_t kPlainMagic[4] = {'P', '2', 'B', 'S'};
constexpr uint8_t kSealedMagic[4] = {'P', '2', 'B', 'E'};
constexpr std::size_t kHashBytes = 32;
constexpr std::size_t kSealedOverhead = sizeof kSealedMagic + kAeadNonceBytes + kAeadTagBytes;

bool write_plain(pb_ostream_t* os, const AgentState& s) {
  return pb_write(os, kPlainMagic, sizeof kPlainMagic) && encode_state(os, s);
}

// The saved size; false when the build's state messages cannot hold this d.
bool plain_size(const AgentState& s, std::size_t* bytes) {
  if (s.arms.dim() > kStateMaxDim) return false;
  pb_ostream_t sizing = PB_OSTREAM_SIZING;
  write_plain(&sizing, s);
  *bytes = sizing.bytes_written + kHashBytes;
  return true;
}

}  // namespace

Status Agent::saved_size(std::size_t* bytes) const {
  if (bytes == nullptr) return Status::null_pointer;
  return plain_size(AgentState::of(this), bytes) ? Status::ok : Status::dimension_mismatch;
}

Status Agent::save(void* buf, std::size_t cap, std::size_t* written) const {
  if (buf == nullptr || written == nullptr) return Status::null_pointer;
  const AgentState& s = AgentState::of(this);
  std::size_t total = 0;
  if (!plain_size(s, &total)) return Status::dimension_mismatch;
  if (cap < total) return Status::buffer_too_small;
  auto* out = static_cast<uint8_t*>(buf);
  pb_ostream_t os = pb_ostream_from_buffer(out, total - kHashBytes);
  if (!write_plain(&os, s)) return Status::corrupt_state;  // unreachable: sized above
  if (s.crypto.hash(out + total - kHashBytes, kHashBytes, out, total - kHashBytes) != 0) {
    return Status::crypto_failure;
  }
  *written = total;
  return Status::ok;
}

Status Agent::restore(const void* buf, std::size_t len) {
  if (buf == nullptr) return Status::null_pointer;
  AgentState& s = AgentState::of(this);
  if (s.arms.dim() > kStateMaxDim) return Status::dimension_mismatch;
  const auto* in = static_cast<const uint8_t*>(buf);
  if (len < sizeof kPlainMagic + kHashBytes ||
      std::memcmp(in, kPlainMagic, sizeof kPlainMagic) != 0) {
    return Status::corrupt_state;
  }
  uint8_t digest[kHashBytes];
  if (s.crypto.hash(digest, sizeof digest, in, len - kHashBytes) != 0) {
    return Status::crypto_failure;
  }
  if (std::memcmp(digest, in + len - kHashBytes, kHashBytes) != 0) return Status::corrupt_state;
  const uint8_t* body = in + sizeof kPlainMagic;
  const std::size_t body_len = len - sizeof kPlainMagic - kHashBytes;
  const Status st = decode_state(body, body_len, s, false);
  if (st != Status::ok) return st;
  return decode_state(body, body_len, s, true);
}

Status Agent::save_encrypted(const uint8_t* key, void* buf, std::size_t cap,
                             std::size_t* written) const {
  if (key == nullptr || buf == nullptr || written == nullptr) return Status::null_pointer;
  const AgentState& s = AgentState::of(this);
  std::size_t plain = 0;
  if (!plain_size(s, &plain)) return Status::dimension_mismatch;
  if (cap < plain + kSealedOverhead) return Status::buffer_too_small;
  auto* out = static_cast<uint8_t*>(buf);
  uint8_t* nonce = out + sizeof kSealedMagic;
  uint8_t* payload = nonce + kAeadNonceBytes;
  std::size_t plain_written = 0;
  const Status st = save(payload, cap - sizeof kSealedMagic - kAeadNonceBytes, &plain_written);
  if (st != Status::ok) return st;
  std::memcpy(out, kSealedMagic, sizeof kSealedMagic);
  if (s.crypto.random(nonce, kAeadNonceBytes) != 0 ||
      s.crypto.aead_encrypt(payload, payload, plain_written, out, sizeof kSealedMagic, nonce,
                            key) != 0) {
    return Status::crypto_failure;
  }
  *written = plain_written + kSealedOverhead;
  return Status::ok;
}

Status Agent::restore_encrypted(const uint8_t* key, uint8_t* buf, std::size_t len) {
  if (key == nullptr || buf == nullptr) return Status::null_pointer;
  const AgentState& s = AgentState::of(this);
  if (len < kSealedOverhead || std::memcmp(buf, kSealedMagic, sizeof kSealedMagic) != 0) {
    return Status::corrupt_state;
  }
  const uint8_t* nonce = buf + sizeof kSealedMagic;
  uint8_t* payload = buf + sizeof kSealedMagic + kAeadNonceBytes;
  const std::size_t boxed = len - sizeof kSealedMagic - kAeadNonceBytes;
  // A wrong key and tampering look alike by design: both fail the tag.
  if (s.crypto.aead_decrypt(payload, payload, boxed, buf, sizeof kSealedMagic, nonce, key) != 0) {
    return Status::corrupt_state;
  }
  return restore(payload, boxed - kAeadTagBytes);
}

Status Agent::encrypted_size(std::size_t* bytes) const {
  if (bytes == nullptr) return Status::null_pointer;
  const Status st = saved_size(bytes);
  if (st != Status::ok) return st;
  *bytes += kSealedOverhead;
  return Status::ok;
}

}  // namespace p2b
