#include "codebook_file.hpp"

#include <sodium.h>

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "p2b/status.hpp"

namespace p2b::analyzer {

namespace {

// parse_codebook only hashes; the other primitives are never reached, and
// failing loudly is better than pretending to seal or verify.
int hash(uint8_t* out, std::size_t out_len, const uint8_t* msg, std::size_t len) {
  return crypto_generichash(out, out_len, msg, len, nullptr, 0);
}
int no_seal(uint8_t*, const uint8_t*, std::size_t, const uint8_t*) {
  return -1;
}
int no_verify(const uint8_t*, const uint8_t*, std::size_t, const uint8_t*) {
  return -1;
}
int no_aead(uint8_t*, const uint8_t*, std::size_t, const uint8_t*, std::size_t, const uint8_t*,
            const uint8_t*) {
  return -1;
}
int no_random(uint8_t*, std::size_t) {
  return -1;
}

}  // namespace

Codebook parse_codebook_bytes(const uint8_t* data, std::size_t len) {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to start");
  const CryptoPort port{no_seal, hash, no_verify, no_aead, no_aead, no_random};
  // Every centroid value takes at least 4 bytes of the file, which bounds
  // the capacity before k and dim are known.
  Codebook cb;
  cb.centroids.resize(len / sizeof(float) + 1);
  const Status st =
      parse_codebook(port, data, len, cb.centroids.data(), cb.centroids.size(), &cb.info);
  if (st != Status::ok)
    throw std::runtime_error(std::string("invalid codebook: ") + status_str(st));
  cb.centroids.resize(static_cast<std::size_t>(cb.info.k) * cb.info.dim);
  cb.centroids.shrink_to_fit();
  return cb;
}

Codebook load_codebook_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open codebook");
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  if (in.bad()) throw std::runtime_error(path + ": cannot read codebook");
  try {
    return parse_codebook_bytes(bytes.data(), bytes.size());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace p2b::analyzer
