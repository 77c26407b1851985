// The analyzer's secret keys, loaded from p2b-keygen directories
// (docs/keys.md). Several directories may be given while a box key rotates:
// reports sealed to any of them open. The signing key comes from the last
// directory only, the newest, since a model is signed by exactly one key.
// Every secret lives in common::SecureArray storage: never copied by a
// reallocation, wiped when the ring goes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/secret_keys.hpp"
#include "wire/envelope_open.hpp"

namespace p2b::analyzer {

constexpr std::size_t kSignSecretBytes = 64;

class KeyRing {
 public:
  KeyRing() = default;

  // Reads DIR/analyzer.box.{pk,sk} of every dir and DIR/analyzer.sign.sk of
  // the last one. Throws common::KeyError naming the file; `warnings` gets
  // a line for each secret file that others can read.
  static KeyRing load(const std::vector<std::string>& dirs, std::vector<std::string>* warnings);
  // The same with another signer from the last directory: a PostgreSQL
  // worker signs its acks with `signer` (analyzer.ack.sk) and never holds
  // the model signing key.
  static KeyRing load_with_signer(const std::vector<std::string>& dirs, const std::string& signer,
                                  std::vector<std::string>* warnings);
  // From keys already in memory (tests).
  static KeyRing from_keys(const std::vector<server::BoxKey>& box, const uint8_t* sign_sk);

  const server::BoxKey* box_keys() const { return box_.data(); }
  std::size_t n_box_keys() const { return box_.size(); }
  const uint8_t* sign_sk() const { return sign_sk_.data(); }
  // Lowercase hex fingerprints of the public halves, for the startup log.
  std::vector<std::string> box_fingerprints() const;
  std::string verify_key_fingerprint() const;

 private:
  common::BoxKeys box_;
  common::SecureArray<uint8_t> sign_sk_;
};

}  // namespace p2b::analyzer
