#include "file_digest.hpp"

#include <sodium.h>

#include <array>
#include <fstream>
#include <stdexcept>

namespace p2b::sim {

std::string file_sha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  std::array<char, 1 << 16> buf{};
  while (in) {
    in.read(buf.data(), buf.size());
    const std::streamsize n = in.gcount();
    if (n > 0) {
      crypto_hash_sha256_update(&st, reinterpret_cast<const unsigned char*>(buf.data()),
                                static_cast<unsigned long long>(n));
    }
  }
  if (in.bad()) throw std::runtime_error("error reading " + path);
  std::array<unsigned char, crypto_hash_sha256_BYTES> digest{};
  crypto_hash_sha256_final(&st, digest.data());
  std::array<char, 2 * crypto_hash_sha256_BYTES + 1> hex{};
  sodium_bin2hex(hex.data(), hex.size(), digest.data(), digest.size());
  return hex.data();
}

}  // namespace p2b::sim
