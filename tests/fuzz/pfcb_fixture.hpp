// What fuzz_pfcb_posting, fuzz_pfcb_relay_requests and their seeds
// (make_corpus.cpp) share: a consortium of three members (the shuffler's two
// batch-signing keys and the analyzer's signing key of fuzz_fixture.hpp, in
// that order), a fixed consortium key, and shares of m = 4 producers.
#pragma once

#include <sodium.h>

#include <array>
#include <cstring>
#include <vector>

#include "fuzz_fixture.hpp"
#include "pfcb/wire/pfcb_wire.hpp"

namespace p2b_fuzz::pfcb {

namespace pw = p2b::pfcb;

constexpr uint32_t kProducers = 4;
constexpr std::size_t kMembers = 3;

inline const uint8_t* member_sign_sk(std::size_t i) {
  return i < 2 ? keys().shuffler_sign_sk[i] : keys().sign_sk;
}

inline const pw::Members& members() {
  static const pw::Members m = [] {
    std::vector<pw::VerifyKey> pks(kMembers);
    for (std::size_t i = 0; i < kMembers; ++i) {
      std::memcpy(pks[i].data(), member_sign_sk(i) + pw::kSignKeyBytes - pw::kVerifyKeyBytes,
                  pw::kVerifyKeyBytes);
    }
    return pw::Members(pks);
  }();
  return m;
}

inline const uint8_t* consortium_key() {
  static const std::array<uint8_t, pw::kConsortiumKeyBytes> k = [] {
    std::array<uint8_t, pw::kConsortiumKeyBytes> out{};
    out.fill(0xC5);
    return out;
  }();
  return k.data();
}

inline const uint8_t* consortium_fp() {
  static const std::array<uint8_t, pw::kFpBytes> fp = [] {
    std::array<uint8_t, pw::kFpBytes> out{};
    require(pw::consortium_fingerprint(consortium_key(), out.data()), "consortium_fingerprint");
    return out;
  }();
  return fp.data();
}

}  // namespace p2b_fuzz::pfcb
