#include "key_list_file.hpp"

#include <sodium.h>

#include <cstring>
#include <stdexcept>

#include "common/keyfiles.hpp"
#include "p2b/key_list.hpp"
#include "wire/batch_format.hpp"

namespace p2b::analyzer {

ServedKeyList load_key_list_file(const std::string& path, const uint8_t* sign_sk) {
  ServedKeyList out;
  out.bytes.resize(kKeyListBytes);
  std::string err;
  if (!keyfiles::read_key_file(path, out.bytes.data(), out.bytes.size(), &err)) {
    throw std::runtime_error("--key-list " + err);
  }
  uint8_t pk[crypto_sign_PUBLICKEYBYTES];
  crypto_sign_ed25519_sk_to_pk(pk, sign_sk);
  if (crypto_sign_verify_detached(out.bytes.data() + kKeyListSignedBytes, out.bytes.data(),
                                  kKeyListSignedBytes, pk) != 0) {
    throw std::runtime_error("--key-list " + path +
                             ": not signed by this analyzer's signing key (analyzer.sign.sk)");
  }
  KeyList list{};
  if (const Status st = parse_key_list(out.bytes.data(), out.bytes.size(), &list);
      st != Status::ok) {
    throw std::runtime_error("--key-list " + path + ": " + status_str(st));
  }
  uint8_t signer_fp[kFingerprintBytes];
  crypto_generichash(signer_fp, sizeof signer_fp, pk, sizeof pk, nullptr, 0);
  if (std::memcmp(signer_fp, list.signer_fp, sizeof signer_fp) != 0) {
    throw std::runtime_error("--key-list " + path + ": names another signer than this analyzer");
  }
  uint8_t digest[16];
  crypto_generichash(digest, sizeof digest, out.bytes.data(), out.bytes.size(), nullptr, 0);
  out.etag = "\"" + server::hex_of(digest, sizeof digest) + "\"";
  out.version = list.version;
  out.not_after_unix = list.not_after_unix;
  if (!keyfiles::fingerprint_hex(list.keys[list.current], &out.current_fp)) {
    throw std::runtime_error("--key-list " + path + ": cannot fingerprint its current key");
  }
  return out;
}

}  // namespace p2b::analyzer
