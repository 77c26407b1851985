// The analyzer's batch verifier, p2b::server::verify_batch, on untrusted
// POST /v1/batches bodies. Mode (first byte % 2): 0 the rest is a body as
// received, checked against the pinned shuffler keys (retired and current);
// 1 the rest is the signed part of a batch, which gets the current key's
// fingerprint and signature here, so the length, count and record parsing
// behind the signature check is fuzzed, not only the refusals before it.
// A batch that verifies carries canonical crowd thresholds (format 3: l at
// least 1, sigma finite and not negative), so the analyzer's comparison with
// its own settings is exact.
#include <cmath>
#include <cstring>

#include "fuzz_fixture.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const p2b_fuzz::Keys& k = p2b_fuzz::keys();
  p2b_fuzz::Input in{};
  if (!p2b_fuzz::split_mode(data, size, 2, &in)) return 0;
  std::vector<uint8_t> signed_body;
  if (in.mode == 1) {
    signed_body.assign(in.data, in.data + in.size);
    constexpr size_t kSignerAt = 4 + 4 + p2b::server::kBatchIdBytes + 4;
    if (signed_body.size() >= kSignerAt + p2b::kFingerprintBytes) {
      std::memcpy(signed_body.data() + kSignerAt, k.shuffler_verify[1].fp, p2b::kFingerprintBytes);
    }
    const size_t n = signed_body.size();
    signed_body.resize(n + crypto_sign_BYTES);
    crypto_sign_detached(signed_body.data() + n, nullptr, signed_body.data(), n,
                         k.shuffler_sign_sk[1]);
    in.data = signed_body.data();
    in.size = signed_body.size();
  }
  // Read from every input, as the analyzer does before verifying.
  const uint32_t declared = p2b::server::declared_record_count(in.data, in.size);
  p2b::server::VerifiedBatch out;
  std::string err;
  const p2b::server::BatchCheck st =
      p2b::server::verify_batch(in.data, in.size, k.shuffler_verify, 2, &out, &err);
  p2b_fuzz::require(p2b::server::batch_check_str(st) != nullptr, "check string");
  if (st != p2b::server::BatchCheck::ok) {
    p2b_fuzz::require(!err.empty(), "a refusal says why");
    return 0;
  }
  p2b_fuzz::require(out.batch.records.size() <= p2b::server::kMaxBatchRecords, "record count");
  const p2b::server::BatchThresholds& t = out.batch.thresholds;
  p2b_fuzz::require(t.l >= 1 && std::isfinite(t.sigma) && !std::signbit(t.sigma),
                    "canonical thresholds");
  p2b_fuzz::require(p2b::server::same_thresholds(t, t), "thresholds equal themselves");
  // The count a receiver's limit is checked against before verifying is
  // the count of what verifies.
  p2b_fuzz::require(declared == out.batch.records.size(), "declared count");
  const p2b::server::BatchDigest digest = p2b::server::batch_digest(in.data, in.size);
  p2b_fuzz::require(out.digest == digest, "digest of the signed bytes");
  // What verifies is canonical: the signer re-encodes it to the same bytes
  // (Ed25519 is deterministic), so a batch id maps to one digest only.
  const int signer =
      std::memcmp(out.signer_fp, k.shuffler_verify[1].fp, p2b::kFingerprintBytes) == 0 ? 1 : 0;
  const std::vector<uint8_t> again =
      p2b::server::encode_signed_batch(out.batch, k.shuffler_sign_sk[signer]);
  p2b_fuzz::require(again.size() == in.size && std::memcmp(again.data(), in.data, in.size) == 0,
                    "re-encoding a verified batch");
  return 0;
}
