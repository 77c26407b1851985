// Outer envelopes built by hand, as an attacker who holds the shuffler's
// public key can: a correctly sealed layer around an Envelope message of our
// choosing (another crowd id, a re-used inner, a missing or short inner), so
// tests can show what the shuffler refuses or forwards.
#pragma once

#include <sodium.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "p2b/envelope.hpp"

namespace p2b_test {

using OuterEnvelope = std::array<uint8_t, p2b::kEnvelopeBytes>;

// `inner_len` bytes of `inner` become field 2; with `inner_len` < 0 the
// field is left out.
inline OuterEnvelope forge_outer(const uint8_t* shuffler_pk, uint32_t crowd_id,
                                 const uint8_t* inner, int inner_len) {
  uint8_t fp[p2b::kFingerprintBytes];
  crypto_generichash(fp, sizeof fp, shuffler_pk, p2b::kPublicKeyBytes, nullptr, 0);
  const auto varint = [](std::vector<uint8_t>* out, uint64_t v) {
    for (; v >= 0x80; v >>= 7) out->push_back(static_cast<uint8_t>(v | 0x80));
    out->push_back(static_cast<uint8_t>(v));
  };
  std::vector<uint8_t> msg;
  if (crowd_id != 0) {
    msg.push_back(0x08);
    varint(&msg, crowd_id);
  }
  if (inner_len >= 0) {
    msg.push_back(0x12);
    varint(&msg, static_cast<uint64_t>(inner_len));
    msg.insert(msg.end(), inner, inner + inner_len);
  }
  msg.push_back(0x1a);
  varint(&msg, sizeof fp);
  msg.insert(msg.end(), fp, fp + sizeof fp);
  // The device's framing: varint(length) || message || zero padding.
  std::vector<uint8_t> framed;
  varint(&framed, msg.size());
  framed.insert(framed.end(), msg.begin(), msg.end());
  uint8_t plain[p2b::kOuterPlainBytes] = {};
  for (std::size_t i = 0; i < framed.size() && i < sizeof plain; ++i) plain[i] = framed[i];
  OuterEnvelope env{};
  std::copy(fp, fp + sizeof fp, env.begin());
  crypto_box_seal(env.data() + p2b::kFingerprintBytes, plain, sizeof plain, shuffler_pk);
  return env;
}

}  // namespace p2b_test
