// A MAC on every stored statistics row, so that only the holder of the
// analyzer's signing key can write statistics the analyzer will sign. A
// flipped byte in a stored gram, a row copied from another arm or an older
// row put back all fail it, and the store refuses to start (exit 4) instead
// of signing them (docs/analyzer.md, "Statistics MAC").
//
// Keys: crypto_kdf of the Ed25519 seed of each analyzer.sign.sk in --keys,
// subkey 1, context "p2bstats", newest (the one that signs) first. A store
// written under an older key still listed is re-MACed under the newest at
// start, in one transaction.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/secret_keys.hpp"

namespace p2b::analyzer {

constexpr std::size_t kStatsMacBytes = 32;
using StatsMac = std::array<uint8_t, kStatsMacBytes>;

class StatsMacKeys {
 public:
  StatsMacKeys() = default;
  // One key per Ed25519 secret key (seed || public key), given oldest first
  // as --keys lists them.
  static StatsMacKeys from_sign_keys(const std::vector<const uint8_t*>& sign_sks);
  // From DIR/analyzer.sign.sk of each dir that has one; the last dir (the
  // one that signs) must. Throws common::KeyError.
  static StatsMacKeys load(const std::vector<std::string>& dirs,
                           std::vector<std::string>* warnings);

  std::size_t size() const { return keys_.size() / kStatsMacBytes; }
  // 0 is the newest key, the one new rows are written under.
  const uint8_t* key(std::size_t i) const { return keys_.data() + i * kStatsMacBytes; }

 private:
  common::SecureArray<uint8_t> keys_;
};

// One arm row of `table`: arm, count and the gram and reward blobs as
// stored.
StatsMac arm_mac(const uint8_t* key, const std::string& table, int64_t arm, int64_t count,
                 const std::vector<uint8_t>& gram, const std::vector<uint8_t>& reward);

// The model row of `table` and the MACs of every arm row beside it, in arm
// order: binds the set of rows to the model version, so no single row can
// be rolled back or removed.
StatsMac model_mac(const uint8_t* key, const std::string& table, int64_t version,
                   int64_t created_unix, const std::vector<uint8_t>& bundle,
                   const std::vector<std::pair<int64_t, StatsMac>>& arm_macs);

}  // namespace p2b::analyzer
