// BLAKE2b as specified in RFC 7693, section 3, unkeyed or keyed. Written for
// clarity over speed: the core hashes at most a codebook (k*d floats) at init
// and MACs a saved state, never per decision.
#include "p2b/blake2b.hpp"

namespace p2b {
namespace {

constexpr uint64_t kIv[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
                             0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                             0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};

constexpr uint8_t kSigma[12][16] = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
                                    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
                                    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
                                    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
                                    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
                                    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
                                    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
                                    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
                                    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
                                    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
                                    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
                                    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

constexpr std::size_t kBlockBytes = 128;

uint64_t rotr(uint64_t x, unsigned n) {
  return (x >> n) | (x << (64U - n));
}

// Little-endian load, independent of the host's byte order and alignment.
uint64_t load64(const uint8_t* p) {
  uint64_t v = 0;
  for (unsigned i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8U * i);
  return v;
}

void mix(uint64_t v[16], int a, int b, int c, int d, uint64_t x, uint64_t y) {
  v[a] = v[a] + v[b] + x;
  v[d] = rotr(v[d] ^ v[a], 32);
  v[c] = v[c] + v[d];
  v[b] = rotr(v[b] ^ v[c], 24);
  v[a] = v[a] + v[b] + y;
  v[d] = rotr(v[d] ^ v[a], 16);
  v[c] = v[c] + v[d];
  v[b] = rotr(v[b] ^ v[c], 63);
}

// The compression function F: `bytes` counts everything hashed so far,
// this block included (messages here stay far below 2^64 bytes).
void compress(uint64_t h[8], const uint8_t block[kBlockBytes], uint64_t bytes, bool last) {
  uint64_t m[16];
  for (std::size_t i = 0; i < 16; ++i) m[i] = load64(block + 8 * i);
  uint64_t v[16];
  for (unsigned i = 0; i < 8; ++i) {
    v[i] = h[i];
    v[i + 8] = kIv[i];
  }
  v[12] ^= bytes;
  if (last) v[14] = ~v[14];
  for (const auto& s : kSigma) {
    mix(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    mix(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    mix(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    mix(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
    mix(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    mix(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    mix(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    mix(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (unsigned i = 0; i < 8; ++i) h[i] ^= v[i] ^ v[i + 8];
}

// Clears key material; the volatile stores cannot be optimised away.
void wipe(void* p, std::size_t n) {
  auto* v = static_cast<volatile uint8_t*>(p);
  for (std::size_t i = 0; i < n; ++i) v[i] = 0;
}

}  // namespace

int blake2b_keyed(uint8_t* out, std::size_t out_len, const uint8_t* key, std::size_t key_len,
                  const uint8_t* msg, std::size_t len) {
  if (out == nullptr || out_len == 0 || out_len > kBlake2bMaxOutBytes) return -1;
  if (key_len > kBlake2bMaxKeyBytes || (key == nullptr && key_len != 0)) return -1;
  if (msg == nullptr && len != 0) return -1;
  uint64_t h[8];
  for (unsigned i = 0; i < 8; ++i) h[i] = kIv[i];
  // Parameter block: digest length, key length, fanout = depth = 1.
  h[0] ^= 0x01010000ULL ^ (static_cast<uint64_t>(key_len) << 8U) ^ static_cast<uint64_t>(out_len);

  // A key is a zero-padded first block; with an empty message it is also
  // the last one (RFC 7693, section 3.3).
  uint8_t block[kBlockBytes] = {};
  uint64_t counted = 0;
  if (key_len != 0) {
    for (std::size_t i = 0; i < key_len; ++i) block[i] = key[i];
    counted = kBlockBytes;
    compress(h, block, counted, len == 0);
    wipe(block, sizeof block);
  }

  // Every full block but the last is compressed as it comes; the last one
  // (possibly partial, possibly empty) is zero-padded and flagged final.
  if (key_len == 0 || len != 0) {
    std::size_t done = 0;
    while (len - done > kBlockBytes) {
      compress(h, msg + done, counted + done + kBlockBytes, false);
      done += kBlockBytes;
    }
    for (std::size_t i = 0; i < len - done; ++i) block[i] = msg[done + i];
    compress(h, block, counted + len, true);
    wipe(block, sizeof block);
  }

  for (std::size_t i = 0; i < out_len; ++i)
    out[i] = static_cast<uint8_t>(h[i / 8] >> (8 * (i % 8)));
  wipe(h, sizeof h);
  return 0;
}

int blake2b(uint8_t* out, std::size_t out_len, const uint8_t* msg, std::size_t len) {
  return blake2b_keyed(out, out_len, nullptr, 0, msg, len);
}

}  // namespace p2b
