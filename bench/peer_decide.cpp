// decide+reward per step for p2b (through the C API) and for a plain C-style
// LinUCB without encoding, on the same seeded contexts and rewards, beside
// this CPU's measured multiply-add rate and the K*d^2 floor it implies.
// bench/peers/decide_peers.sh runs it interleaved with the Python peers (the
// P2B reference code, MABWiser) and prints the medians; docs/benchmarks.md.
//   peer_decide --write-data DIR         contexts_d<d>.f32 and rewards.f32 for the peers
//   peer_decide [--steps N] [--data DIR] one round: "name d K us_per_step" lines
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fma_rate.hpp"
#include "p2b.h"
#include "simplex_points.hpp"

namespace {

constexpr uint32_t kCodes = 1024;
constexpr std::size_t kPool = 4096;  // contexts cycled through
constexpr uint64_t kSeed = 20200302;
struct Point {
  uint32_t d, K;
};
constexpr Point kPoints[] = {{10, 10}, {20, 20}, {20, 50}};

using Clock = std::chrono::steady_clock;

using p2b::bench::simplex_points;

// Contexts per d and one shared reward rule: reward 1 when the chosen action
// is the context's largest coordinate modulo K (a learnable, cheap signal).
std::vector<float> contexts(uint32_t d) {
  std::mt19937_64 gen(kSeed + d);
  return simplex_points(kPool, d, gen);
}
float reward_of(const float* x, uint32_t d, uint32_t K, uint32_t action) {
  uint32_t top = 0;
  for (uint32_t i = 1; i < d; ++i) top = x[i] > x[top] ? i : top;
  return top % K == action ? 1.0F : 0.0F;
}

// Multiply-adds per second on one core, with 16 independent accumulators so
// the FMA units, not their latency, set the pace.
double p2b_us(const Point& p, const std::vector<float>& xs, std::size_t steps) {
  std::mt19937_64 gen(kSeed);
  const std::vector<float> codebook = simplex_points(kCodes, p.d, gen);
  p2b_config cfg;
  if (p2b_config_default(&cfg) != P2B_OK) std::abort();
  static uint8_t pk[32] = {9}, vk[32] = {7};
  cfg.dim = p.d;
  cfg.n_actions = p.K;
  cfg.centroids = codebook.data();
  cfg.n_codes = kCodes;
  cfg.rng_mode = P2B_RNG_SEEDED;
  cfg.seed = 7;
  cfg.shuffler_public_key = pk;
  cfg.analyzer_public_key = pk;
  cfg.analyzer_verify_key = vk;
  std::size_t bytes = 0;
  if (p2b_agent_footprint(&cfg, &bytes) != P2B_OK) std::abort();
  void* arena = nullptr;
  if (posix_memalign(&arena, P2B_ARENA_ALIGN, bytes) != 0) std::abort();
  p2b_agent* agent = nullptr;
  const p2b_status st = p2b_agent_init(arena, bytes, &cfg, &agent);
  if (st != P2B_OK) {
    std::fprintf(stderr, "p2b init: %s\n", p2b_status_str(st));
    std::exit(1);
  }
  const auto t0 = Clock::now();
  for (std::size_t i = 0; i < steps; ++i) {
    const float* x = &xs[(i % kPool) * p.d];
    uint32_t a = 0;
    uint64_t id = 0;
    if (p2b_agent_decide(agent, x, p.d, &a, &id) != P2B_OK ||
        p2b_agent_reward(agent, id, reward_of(x, p.d, p.K, a)) != P2B_OK) {
      std::abort();
    }
    p2b_tuple t;
    while (p2b_agent_poll_tuple(agent, &t) == P2B_OK) {
    }
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::free(arena);
  return s * 1e6 / static_cast<double>(steps);
}

// The plain LinUCB: per arm A^-1 kept by Sherman-Morrison and theta = A^-1 b,
// in double; decide is K (d^2 + d) multiply-adds, reward 3 d^2.
double plain_us(const Point& p, const std::vector<float>& xs, std::size_t steps) {
  const std::size_t d = p.d, K = p.K;
  std::vector<double> ainv(K * d * d, 0.0), b(K * d, 0.0), theta(K * d, 0.0), ax(d);
  for (uint32_t a = 0; a < K; ++a) {
    for (uint32_t i = 0; i < d; ++i) ainv[(a * d + i) * d + i] = 1.0;
  }
  const auto t0 = Clock::now();
  for (std::size_t s = 0; s < steps; ++s) {
    const float* x = &xs[(s % kPool) * d];
    uint32_t best = 0;
    double best_score = -1e300;
    for (uint32_t a = 0; a < K; ++a) {
      const double* m = &ainv[static_cast<std::size_t>(a) * d * d];
      double quad = 0, mean = 0;
      for (uint32_t i = 0; i < d; ++i) {
        double row = 0;
        for (uint32_t j = 0; j < d; ++j) row += m[i * d + j] * x[j];
        quad += row * x[i];
        mean += theta[a * d + i] * x[i];
      }
      const double score = mean + std::sqrt(quad);
      if (score > best_score) best_score = score, best = a;
    }
    const float r = reward_of(x, d, K, best);
    double* m = &ainv[static_cast<std::size_t>(best) * d * d];
    double denom = 1;
    for (uint32_t i = 0; i < d; ++i) {
      double row = 0;
      for (uint32_t j = 0; j < d; ++j) row += m[i * d + j] * x[j];
      ax[i] = row;
      denom += row * x[i];
    }
    for (uint32_t i = 0; i < d; ++i) {
      for (uint32_t j = 0; j < d; ++j) m[i * d + j] -= ax[i] * ax[j] / denom;
      b[best * d + i] += r * x[i];
    }
    for (uint32_t i = 0; i < d; ++i) {
      double t = 0;
      for (uint32_t j = 0; j < d; ++j) t += m[i * d + j] * b[best * d + j];
      theta[best * d + i] = t;
    }
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  return s * 1e6 / static_cast<double>(steps);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t steps = 200000;
  std::string write_dir;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--steps") == 0) steps = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--write-data") == 0) write_dir = argv[i + 1];
  }
  if (!write_dir.empty()) {
    for (uint32_t d : {10U, 20U}) {
      const std::vector<float> xs = contexts(d);
      const std::string path = write_dir + "/contexts_d" + std::to_string(d) + ".f32";
      FILE* f = std::fopen(path.c_str(), "wb");
      if (!f || std::fwrite(xs.data(), sizeof(float), xs.size(), f) != xs.size()) return 1;
      std::fclose(f);
    }
    return 0;
  }
  const p2b::bench::FmaRate fma = p2b::bench::measure_fma_rate();
  std::printf("fma %s %.4g\n", fma.isa, fma.madds_per_second);
  for (const Point& p : kPoints) {
    const std::vector<float> xs = contexts(p.d);
    std::printf("p2b %u %u %.4f\n", p.d, p.K, p2b_us(p, xs, steps));
    std::printf("plain %u %u %.4f\n", p.d, p.K, plain_us(p, xs, steps));
    std::fflush(stdout);
  }
  return 0;
}
