// The signed notices a local server sends the global beside its sealed
// uploads (phase_done.hpp, downloads_ack.hpp): an Ed25519 detached
// signature over
//
//   label | deployment fingerprint (16) | fields, each little-endian
//
// The label names the notice and its version, so that no notice's
// signature passes as another's; the fingerprint binds it to one
// deployment (one global's keys).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace p2b::fclub {

constexpr std::size_t kNoticeSignatureBytes = 64;

// One field of a notice: its value and its width in bytes (4 or 8).
struct NoticeField {
  uint64_t value;
  int bytes;
};

// The signed bytes of a notice.
std::string notice_message(const char* label, const uint8_t* deployment_fp,
                           std::initializer_list<NoticeField> fields);

// The detached signature of `message` (64 raw bytes).
std::string sign_notice(const uint8_t sign_sk[64], const std::string& message);

// Whether `signature` is exactly a signature of `message` by `sign_pk`.
bool verify_notice(const uint8_t sign_pk[32], const std::string& message,
                   const std::string& signature);

}  // namespace p2b::fclub
