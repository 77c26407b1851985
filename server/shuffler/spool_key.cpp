#include "shuffler/spool_key.hpp"

#include <sodium.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "common/keyfiles.hpp"

namespace p2b::shuffler {

namespace {

namespace fs = std::filesystem;

// crypto_kdf's context: eight bytes that tie the subkeys to this one use.
constexpr char kKdfContext[crypto_kdf_CONTEXTBYTES + 1] = "p2bspool";
constexpr uint64_t kSealId = 1;
constexpr uint64_t kLookupId = 2;
constexpr uint64_t kCheckId = 3;
constexpr std::size_t kSubkeys = 3;

constexpr char kCheckLabel[] = "p2b shuffler spool key check v1";

static_assert(kSpoolKeyBytes == crypto_kdf_KEYBYTES, "the master key is a crypto_kdf key");
static_assert(SpoolKey::kSubkeyBytes == crypto_aead_xchacha20poly1305_ietf_KEYBYTES,
              "the seal subkey is an XChaCha20-Poly1305 key");

// Whether `inner` is `dir` or lies beneath it, symlinks resolved.
bool lies_within(const fs::path& inner, const fs::path& dir) {
  std::error_code ec;
  const fs::path a = fs::weakly_canonical(inner, ec);
  if (ec) return false;
  const fs::path b = fs::weakly_canonical(dir, ec);
  if (ec) return false;
  const fs::path rel = a.lexically_relative(b);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

SpoolKey::SpoolKey(const uint8_t* master) : subkeys_(kSubkeys * kSubkeyBytes) {
  uint8_t* out = subkeys_.fill_in_place();
  const uint64_t ids[kSubkeys] = {kSealId, kLookupId, kCheckId};
  for (std::size_t i = 0; i < kSubkeys; ++i) {
    crypto_kdf_derive_from_key(out + i * kSubkeyBytes, kSubkeyBytes, ids[i], kKdfContext, master);
  }
}

SpoolKey::CheckValue SpoolKey::check_value() const {
  CheckValue v{};
  crypto_generichash(v.data(), v.size(), reinterpret_cast<const uint8_t*>(kCheckLabel),
                     sizeof kCheckLabel - 1, subkeys_.data() + 2 * kSubkeyBytes, kSubkeyBytes);
  return v;
}

SpoolKey load_spool_key(const std::string& key_path, const std::string& spool_path) {
  if (sodium_init() < 0) throw SpoolKeyRefused("spool key: libsodium cannot start");
  const fs::path spool_dir = fs::absolute(fs::path(spool_path)).parent_path();
  if (lies_within(key_path, spool_dir)) {
    throw SpoolKeyRefused("spool key " + key_path + " lies inside the spool's directory " +
                          spool_dir.string() +
                          ": a copy of that directory would carry the key with it; keep the key "
                          "elsewhere (/etc/p2b, or a systemd credential)");
  }
  common::SecureArray<uint8_t> master(kSpoolKeyBytes);
  std::string err, warning;
  if (!keyfiles::read_secret_key_file(key_path, master.fill_in_place(), kSpoolKeyBytes, &err,
                                      &warning)) {
    throw SpoolKeyRefused("spool key: " + err +
                          " (make one with: p2b-keygen --shuffler-spool --out DIR)");
  }
  // Unlike the other secret keys, whose wide mode is logged, this one is new:
  // nothing deployed relies on a wide mode, so it is refused outright.
  if (!warning.empty()) throw SpoolKeyRefused("spool key: " + warning);
  return SpoolKey(master.data());  // `master` is wiped when it goes
}

std::string spool_key_credential() {
  const char* dir = std::getenv("CREDENTIALS_DIRECTORY");
  if (dir == nullptr || *dir == '\0') return {};
  const fs::path path = fs::path(dir) / kSpoolKeyName;
  std::error_code ec;
  return fs::exists(path, ec) ? path.string() : std::string();
}

}  // namespace p2b::shuffler
