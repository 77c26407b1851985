// The shuffler's ack verifier, p2b::server::verify_ack, on untrusted answers.
// Mode (first byte % 2): 0 the rest is an ack as received; 1 the rest is the
// signed part (cut or zero-padded), signed here with the analyzer's key, so
// the fields behind the signature check are reached too.
#include <cstring>

#include "fuzz_fixture.hpp"
#include "wire/batch_ack.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const p2b_fuzz::Keys& k = p2b_fuzz::keys();
  p2b_fuzz::Input in{};
  if (!p2b_fuzz::split_mode(data, size, 2, &in)) return 0;
  uint8_t signed_ack[p2b::server::kBatchAckBytes] = {};
  if (in.mode == 1) {
    constexpr size_t kSigned = p2b::server::kBatchAckBytes - crypto_sign_BYTES;
    std::memcpy(signed_ack, in.data, in.size < kSigned ? in.size : kSigned);
    crypto_sign_detached(signed_ack + kSigned, nullptr, signed_ack, kSigned, k.sign_sk);
    in.data = signed_ack;
    in.size = sizeof signed_ack;
  }
  p2b::server::BatchAck ack;
  const p2b::server::AckCheck st = p2b::server::verify_ack(in.data, in.size, k.verify_pk, &ack);
  if (st != p2b::server::AckCheck::ok) return 0;
  const std::vector<uint8_t> again = p2b::server::encode_signed_ack(ack, k.sign_sk);
  p2b_fuzz::require(again.size() == in.size && std::memcmp(again.data(), in.data, in.size) == 0,
                    "re-encoding a verified ack");
  // The shuffler compares this sum with the batch's records: it must not wrap.
  p2b_fuzz::require(ack.accounted() >= ack.applied && ack.accounted() >= ack.quarantined,
                    "the ack's counts wrapped");
  return 0;
}
