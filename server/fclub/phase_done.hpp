// A local server's announcement that it has sent its N phase-start uploads
// of phase P (POST /v1/fclub/phase-done). The global merges once every local
// has announced and every announced upload is in, so a forged announcement
// could stall a merge (a count too high) or hasten it past a local's uploads
// (too low). The body is therefore an Ed25519 signature by the local's
// signing key (the one its uploads carry) over
//
//   "p2b fclub phase-done v1" | deployment fingerprint (16) | server | phase | count
//
// (u32 little-endian each): bound to one deployment, one server, one phase
// and one count. Replaying it is harmless: a phase is announced once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace p2b::fclub {

constexpr std::size_t kPhaseDoneSignatureBytes = 64;

struct PhaseDone {
  uint32_t server = 0;
  uint32_t phase = 0;
  uint32_t count = 0;
};

// The detached signature, as the request body (64 raw bytes).
std::string sign_phase_done(const uint8_t sign_sk[64], const uint8_t* deployment_fp,
                            const PhaseDone& done);

// Whether `body` is exactly a signature of `done` by `sign_pk`.
bool verify_phase_done(const uint8_t sign_pk[32], const uint8_t* deployment_fp,
                       const PhaseDone& done, const std::string& body);

}  // namespace p2b::fclub
