#include "stats_mac.hpp"

#include <sodium.h>
#include <sys/stat.h>

#include <stdexcept>

namespace p2b::analyzer {

namespace {

constexpr char kKdfContext[crypto_kdf_CONTEXTBYTES + 1] = "p2bstats";
constexpr uint64_t kKdfSubkey = 1;

static_assert(crypto_kdf_KEYBYTES == crypto_sign_SEEDBYTES, "the seed is the KDF master key");

class Mac {
 public:
  Mac(const uint8_t* key, const char* domain, const std::string& table) {
    crypto_generichash_init(&state_, key, kStatsMacBytes, kStatsMacBytes);
    bytes(domain, std::char_traits<char>::length(domain) + 1);
    bytes(table.c_str(), table.size() + 1);
  }
  ~Mac() { sodium_memzero(&state_, sizeof state_); }
  Mac(const Mac&) = delete;
  Mac& operator=(const Mac&) = delete;

  void bytes(const void* p, std::size_t n) {
    crypto_generichash_update(&state_, static_cast<const uint8_t*>(p), n);
  }
  void u64(uint64_t v) {
    uint8_t le[8];
    for (int i = 0; i < 8; ++i) le[i] = static_cast<uint8_t>(v >> (8 * i));
    bytes(le, sizeof le);
  }
  // Length-prefixed, so no two field splits give the same input.
  void blob(const std::vector<uint8_t>& b) {
    u64(b.size());
    bytes(b.data(), b.size());
  }
  StatsMac final() {
    StatsMac out{};
    crypto_generichash_final(&state_, out.data(), out.size());
    return out;
  }

 private:
  crypto_generichash_state state_{};
};

}  // namespace

StatsMacKeys StatsMacKeys::from_sign_keys(const std::vector<const uint8_t*>& sign_sks) {
  if (sodium_init() < 0) throw std::runtime_error("libsodium cannot start");
  if (sign_sks.empty()) throw std::invalid_argument("no signing key for the statistics MAC");
  StatsMacKeys out;
  out.keys_ = common::SecureArray<uint8_t>(sign_sks.size() * kStatsMacBytes);
  uint8_t* dst = out.keys_.fill_in_place();
  // Newest (the last given) first.
  for (std::size_t i = 0; i < sign_sks.size(); ++i) {
    const uint8_t* seed = sign_sks[sign_sks.size() - 1 - i];
    crypto_kdf_derive_from_key(dst + i * kStatsMacBytes, kStatsMacBytes, kKdfSubkey, kKdfContext,
                               seed);
  }
  return out;
}

StatsMacKeys StatsMacKeys::load(const std::vector<std::string>& dirs,
                                std::vector<std::string>* warnings) {
  std::vector<common::SecureArray<uint8_t>> held;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    const std::string path = dirs[i] + "/analyzer.sign.sk";
    struct stat st {};
    // An older dir may hold only box keys; the newest must sign.
    if (i + 1 < dirs.size() && ::stat(path.c_str(), &st) != 0) continue;
    held.push_back(common::load_sign_key(path, warnings));
  }
  std::vector<const uint8_t*> sks;
  sks.reserve(held.size());
  for (const auto& sk : held) sks.push_back(sk.data());
  return from_sign_keys(sks);
}

StatsMac arm_mac(const uint8_t* key, const std::string& table, int64_t arm, int64_t count,
                 const std::vector<uint8_t>& gram, const std::vector<uint8_t>& reward) {
  Mac mac(key, "p2b arm row v1", table);
  mac.u64(static_cast<uint64_t>(arm));
  mac.u64(static_cast<uint64_t>(count));
  mac.blob(gram);
  mac.blob(reward);
  return mac.final();
}

StatsMac model_mac(const uint8_t* key, const std::string& table, int64_t version,
                   int64_t created_unix, const std::vector<uint8_t>& bundle,
                   const std::vector<std::pair<int64_t, StatsMac>>& arm_macs) {
  Mac mac(key, "p2b model row v1", table);
  mac.u64(static_cast<uint64_t>(version));
  mac.u64(static_cast<uint64_t>(created_unix));
  mac.blob(bundle);
  mac.u64(arm_macs.size());
  for (const auto& [arm, m] : arm_macs) {
    mac.u64(static_cast<uint64_t>(arm));
    mac.bytes(m.data(), m.size());
  }
  return mac.final();
}

}  // namespace p2b::analyzer
