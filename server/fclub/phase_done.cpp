#include "fclub/phase_done.hpp"

#include <sodium.h>

#include <array>
#include <cstring>

#include "fclub/wire/fclub_wire.hpp"

namespace p2b::fclub {

namespace {

constexpr char kLabel[] = "p2b fclub phase-done v1";
constexpr std::size_t kLabelBytes = sizeof kLabel - 1;
constexpr std::size_t kFieldBytes = 12;  // server, phase, count
using Message = std::array<uint8_t, kLabelBytes + kFpBytes + kFieldBytes>;

Message message_of(const uint8_t* deployment_fp, const PhaseDone& done) {
  Message m{};
  std::memcpy(m.data(), kLabel, kLabelBytes);
  std::memcpy(m.data() + kLabelBytes, deployment_fp, kFpBytes);
  std::size_t at = kLabelBytes + kFpBytes;
  for (const uint32_t v : {done.server, done.phase, done.count}) {
    for (int i = 0; i < 4; ++i) m[at++] = static_cast<uint8_t>(v >> (8 * i));
  }
  return m;
}

}  // namespace

std::string sign_phase_done(const uint8_t sign_sk[64], const uint8_t* deployment_fp,
                            const PhaseDone& done) {
  const Message m = message_of(deployment_fp, done);
  std::string sig(kPhaseDoneSignatureBytes, '\0');
  crypto_sign_detached(reinterpret_cast<unsigned char*>(sig.data()), nullptr, m.data(), m.size(),
                       sign_sk);
  return sig;
}

bool verify_phase_done(const uint8_t sign_pk[32], const uint8_t* deployment_fp,
                       const PhaseDone& done, const std::string& body) {
  if (body.size() != kPhaseDoneSignatureBytes) return false;
  const Message m = message_of(deployment_fp, done);
  return crypto_sign_verify_detached(reinterpret_cast<const unsigned char*>(body.data()), m.data(),
                                     m.size(), sign_pk) == 0;
}

}  // namespace p2b::fclub
