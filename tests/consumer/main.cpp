// Consumer check from C++: the installed C API (p2b.h and the headers it
// includes) used from C++17, linked against the one static archive libp2b.a.
// Proves the headers are C++-clean (extern "C", [[nodiscard]]) and that the
// archive needs nothing beyond the port's libsodium (and libm).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "p2b.h"

namespace {

bool failed(const char* what, p2b_status s) {
  if (p2b_is_error(s)) std::fprintf(stderr, "consumer(c++): %s: %s\n", what, p2b_status_str(s));
  return p2b_is_error(s) != 0;
}

}  // namespace

int main() {
  constexpr int kSteps = 300;
  static const float codebook[] = {0.9F, 0.1F, 0.1F, 0.9F};
  static const uint8_t key[P2B_KEY_BYTES] = {1, 2, 3, 4};

  p2b_config cfg;
  if (failed("config_default", p2b_config_default(&cfg))) return 1;
  cfg.dim = 2;
  cfg.n_actions = 3;
  cfg.centroids = codebook;
  cfg.n_codes = 2;
  cfg.rng_mode = P2B_RNG_SEEDED;
  cfg.seed = 42;
  cfg.shuffler_public_key = cfg.analyzer_public_key = cfg.analyzer_verify_key = key;

  std::size_t bytes = 0;
  if (failed("footprint", p2b_agent_footprint(&cfg, &bytes))) return 1;
  // aligned_alloc wants a multiple of the alignment.
  const std::size_t align = p2b_arena_align();
  const std::size_t rounded = (bytes + align - 1) / align * align;
  std::unique_ptr<void, decltype(&std::free)> arena(std::aligned_alloc(align, rounded), &std::free);
  p2b_agent* agent = nullptr;
  if (!arena || failed("init", p2b_agent_init(arena.get(), rounded, &cfg, &agent))) return 1;

  int hits = 0;
  for (int step = 0; step < kSteps; ++step) {
    const float x[2] = {float(step % 2), float((step + 1) % 2)};
    uint32_t action = 0;
    uint64_t id = 0;
    if (failed("decide", p2b_agent_decide(agent, x, 2, &action, &id))) return 1;
    const bool liked = action == uint32_t(step % 2);
    hits += liked ? 1 : 0;
    if (failed("reward", p2b_agent_reward(agent, id, liked ? 1.0F : 0.0F))) return 1;
  }
  p2b_privacy ledger{};
  if (failed("privacy", p2b_agent_privacy(agent, &ledger))) return 1;
  std::printf("consumer(c++): p2b %s, %zu-byte arena, %d/%d rewarded\n", p2b_version_string(),
              bytes, hits, kSteps);
  return hits > kSteps / 2 ? 0 : 1;
}
