#include "dp/tree_noise.hpp"

#include <sodium.h>

#include <cmath>
#include <cstring>

namespace p2b::dp {

namespace {

constexpr char kNodeLabel[] = "p2b central-dp tree node v1";
constexpr double kTwoPi = 6.283185307179586476925;

uint64_t load_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// The stream key of one node: BLAKE2b(label | level | index) keyed by the seed.
void node_key(const NoiseSeed& seed, TreeNode node, uint8_t key[randombytes_SEEDBYTES]) {
  uint8_t msg[sizeof kNodeLabel + 12];
  std::memcpy(msg, kNodeLabel, sizeof kNodeLabel);
  uint8_t* p = msg + sizeof kNodeLabel;
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(node.level >> (8 * i));
  for (int i = 0; i < 8; ++i) p[4 + i] = static_cast<uint8_t>(node.index >> (8 * i));
  static_assert(randombytes_SEEDBYTES == 32 && crypto_generichash_KEYBYTES_MAX >= 32, "key sizes");
  crypto_generichash(key, randombytes_SEEDBYTES, msg, sizeof msg, seed.data(), seed.size());
  sodium_memzero(msg, sizeof msg);
}

}  // namespace

uint32_t tree_levels(uint64_t horizon) {
  uint32_t levels = 1;
  while (levels < 64 && (uint64_t{1} << (levels - 1)) < horizon) ++levels;
  return levels;
}

std::vector<TreeNode> release_nodes(uint64_t t) {
  std::vector<TreeNode> nodes;
  uint64_t covered = 0;  // batches 1..covered are summed so far
  for (int level = 63; level >= 0; --level) {
    const uint64_t span = uint64_t{1} << level;
    if ((t & span) == 0) continue;
    nodes.push_back({static_cast<uint32_t>(level), covered >> level});
    covered += span;
  }
  return nodes;
}

void node_normals(const NoiseSeed& seed, TreeNode node, double* out, std::size_t n) {
  uint8_t key[randombytes_SEEDBYTES];
  node_key(seed, node, key);
  const std::size_t pairs = (n + 1) / 2;
  std::vector<uint8_t> bits(pairs * 16);
  randombytes_buf_deterministic(bits.data(), bits.size(), key);
  sodium_memzero(key, sizeof key);
  constexpr double kUnit = 1.0 / 9007199254740992.0;  // 2^-53
  for (std::size_t i = 0; i < pairs; ++i) {
    // u1 in (0, 1] keeps the logarithm finite; u2 in [0, 1).
    const double u1 = static_cast<double>((load_le64(&bits[16 * i]) >> 11) + 1) * kUnit;
    const double u2 = static_cast<double>(load_le64(&bits[16 * i + 8]) >> 11) * kUnit;
    const double radius = std::sqrt(-2.0 * std::log(u1));
    out[2 * i] = radius * std::cos(kTwoPi * u2);
    if (2 * i + 1 < n) out[2 * i + 1] = radius * std::sin(kTwoPi * u2);
  }
  sodium_memzero(bits.data(), bits.size());
}

}  // namespace p2b::dp
