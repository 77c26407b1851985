#include "key_ring.hpp"

#include <sodium.h>

#include <algorithm>

namespace p2b::analyzer {

KeyRing KeyRing::load(const std::vector<std::string>& dirs, std::vector<std::string>* warnings) {
  return load_with_signer(dirs, "analyzer.sign.sk", warnings);
}

KeyRing KeyRing::load_with_signer(const std::vector<std::string>& dirs, const std::string& signer,
                                  std::vector<std::string>* warnings) {
  common::LoadedBoxKeys loaded = common::load_box_keys(dirs, "analyzer.box");
  if (warnings != nullptr) {
    warnings->insert(warnings->end(), loaded.warnings.begin(), loaded.warnings.end());
  }
  KeyRing ring;
  ring.box_ = std::move(loaded.keys);
  ring.sign_sk_ = common::load_sign_key(dirs.back() + "/" + signer, warnings);
  return ring;
}

KeyRing KeyRing::from_keys(const std::vector<server::BoxKey>& box, const uint8_t* sign_sk) {
  KeyRing ring;
  ring.box_ = common::BoxKeys(box);
  ring.sign_sk_ = common::SecureArray<uint8_t>(kSignSecretBytes);
  std::copy(sign_sk, sign_sk + kSignSecretBytes, ring.sign_sk_.fill_in_place());
  return ring;
}

std::vector<std::string> KeyRing::box_fingerprints() const {
  std::vector<std::string> out;
  out.reserve(box_.size());
  for (std::size_t i = 0; i < box_.size(); ++i) {
    char hex[2 * kFingerprintBytes + 1];
    sodium_bin2hex(hex, sizeof hex, box_[i].fp, sizeof box_[i].fp);
    out.emplace_back(hex);
  }
  return out;
}

std::string KeyRing::verify_key_fingerprint() const {
  return common::verify_key_fingerprint(sign_sk_.data());
}

}  // namespace p2b::analyzer
