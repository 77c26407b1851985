#include "shuffler/ack_check.hpp"

#include <sodium.h>

#include <vector>

#include <nlohmann/json.hpp>

namespace p2b::shuffler {

namespace {

AckVerdict refused(std::string why) {
  AckVerdict v;
  v.error = std::move(why);
  return v;
}

}  // namespace

AckVerdict check_ack(const std::string& answer, const server::Batch& batch,
                     const server::BatchDigest& digest, const uint8_t* verify_pk) {
  const nlohmann::json body = nlohmann::json::parse(answer, nullptr, false);
  if (!body.is_object() || !body.contains("ack") || !body["ack"].is_string()) {
    return refused("the answer carries no ack");
  }
  const std::string hex = body["ack"].get<std::string>();
  std::vector<uint8_t> bytes(server::kBatchAckBytes);
  std::size_t n = 0;
  const char* end = nullptr;
  if (sodium_hex2bin(bytes.data(), bytes.size(), hex.data(), hex.size(), nullptr, &n, &end) != 0 ||
      end != hex.data() + hex.size()) {
    return refused("the ack is not hex of an ack");
  }
  AckVerdict v;
  switch (server::verify_ack(bytes.data(), n, verify_pk, &v.ack)) {
    case server::AckCheck::ok:
      break;
    case server::AckCheck::malformed:
      return refused("the ack is malformed (or of another format)");
    case server::AckCheck::bad_signature:
      return refused("the ack is not signed by the pinned analyzer key");
  }
  if (sodium_memcmp(v.ack.id.data(), batch.id.data(), batch.id.size()) != 0) {
    return refused("the ack is for another batch id");
  }
  if (sodium_memcmp(v.ack.digest.data(), digest.data(), digest.size()) != 0) {
    return refused("the ack is for other contents of this batch id");
  }
  if (v.ack.records != batch.records.size()) {
    return refused("the ack counts " + std::to_string(v.ack.records) + " records, the batch has " +
                   std::to_string(batch.records.size()));
  }
  if (v.ack.accounted() != v.ack.records) {
    return refused("the ack's applied, quarantined and refused records (" +
                   std::to_string(v.ack.accounted()) + ") are not its " +
                   std::to_string(v.ack.records) + " records");
  }
  v.matches = true;
  return v;
}

}  // namespace p2b::shuffler
