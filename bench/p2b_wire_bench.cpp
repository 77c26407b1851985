// Google Benchmark suite for the wire path: sealing a report on the device,
// opening both layers on the services, verifying and applying a signed model,
// and saving/restoring state (plain and encrypted). docs/benchmarks.md.
#include <benchmark/benchmark.h>
#include <sodium.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "p2b.h"
#include "p2b/envelope.hpp"
#include "wire/envelope_open.hpp"
#include "wire/model_bundle.hpp"

namespace {

struct Keys {
  p2b::server::BoxKey shuffler{}, analyzer{};
  uint8_t verify[crypto_sign_PUBLICKEYBYTES]{}, sign[crypto_sign_SECRETKEYBYTES]{};
  Keys() {
    if (sodium_init() < 0) std::abort();
    uint8_t pk[crypto_box_PUBLICKEYBYTES], sk[crypto_box_SECRETKEYBYTES];
    crypto_box_keypair(pk, sk);
    p2b::server::make_box_key(pk, sk, &shuffler);
    crypto_box_keypair(pk, sk);
    p2b::server::make_box_key(pk, sk, &analyzer);
    crypto_sign_keypair(verify, sign);
  }
};
const Keys kKeys;

// An agent of shape (d, K) with a k = 32 codebook, in its own arena.
class Agent {
 public:
  Agent(uint32_t d, uint32_t k_arms) : d_(d), k_arms_(k_arms) {
    std::mt19937_64 gen(5);
    std::exponential_distribution<double> expo(1.0);
    codebook_.resize(32 * static_cast<size_t>(d));
    for (float& v : codebook_) v = static_cast<float>(expo(gen));
    if (p2b_config_default(&cfg_) != P2B_OK) std::abort();
    cfg_.dim = d;
    cfg_.n_actions = k_arms;
    cfg_.centroids = codebook_.data();
    cfg_.n_codes = 32;
    cfg_.rng_mode = P2B_RNG_SEEDED;
    cfg_.window = 1;
    cfg_.participation = 0.999;
    cfg_.shuffler_public_key = kKeys.shuffler.pk;
    cfg_.analyzer_public_key = kKeys.analyzer.pk;
    cfg_.analyzer_verify_key = kKeys.verify;
    if (p2b_agent_footprint(&cfg_, &bytes_) != P2B_OK ||
        posix_memalign(&mem_, P2B_ARENA_ALIGN, bytes_) != 0) {
      std::abort();
    }
    reset();
    // Some history, so the state and the model carry real statistics.
    std::vector<float> x(d);
    for (uint32_t i = 0; i < 50 * k_arms; ++i) {
      for (float& v : x) v = static_cast<float>(expo(gen));
      if (p2b_agent_learn(agent_, x.data(), d, i % k_arms, (i % 3) ? 1.0F : 0.0F) != P2B_OK) {
        std::abort();
      }
    }
  }
  ~Agent() { std::free(mem_); }
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  void reset() {
    if (p2b_agent_init(mem_, bytes_, &cfg_, &agent_) != P2B_OK) std::abort();
  }
  p2b_agent* get() const { return agent_; }

  std::vector<uint8_t> signed_model(uint64_t version) const {
    p2b::server::ModelSpec spec;
    spec.dim = d_;
    spec.n_actions = k_arms_;
    spec.version = version;
    p2b_fingerprints fp;
    if (p2b_agent_fingerprints(agent_, &fp) != P2B_OK) std::abort();
    std::memcpy(spec.codebook_fp, fp.codebook, sizeof spec.codebook_fp);
    std::vector<double> a(static_cast<size_t>(k_arms_) * d_ * d_),
        b(static_cast<size_t>(k_arms_) * d_);
    if (p2b_agent_export(agent_, a.data(), b.data(), k_arms_, d_) != P2B_OK) std::abort();
    std::vector<uint8_t> out;
    std::string err;
    if (!p2b::server::build_model_bundle(spec, a.data(), b.data(), kKeys.sign, &out, &err)) {
      std::abort();
    }
    return out;
  }

 private:
  uint32_t d_, k_arms_;
  std::vector<float> codebook_;
  p2b_config cfg_{};
  void* mem_ = nullptr;
  std::size_t bytes_ = 0;
  p2b_agent* agent_ = nullptr;
};

std::array<uint8_t, P2B_ENVELOPE_BYTES> sealed_envelope() {
  const p2b::SealingKeys keys{kKeys.shuffler.pk, kKeys.shuffler.fp, kKeys.analyzer.pk,
                              kKeys.analyzer.fp};
  p2b::CryptoPort port{};
  port.seal = [](uint8_t* out, const uint8_t* m, size_t len, const uint8_t* pk) {
    return crypto_box_seal(out, m, len, pk);
  };
  std::array<uint8_t, P2B_ENVELOPE_BYTES> env{};
  if (p2b::seal_envelope(port, keys, {17, 3, 1.0F, 2}, env.data()) != p2b::Status::ok) {
    std::abort();
  }
  return env;
}

// Device: one report through the outbox into a sealed envelope (two
// crypto_box_seal calls). The decide/reward that queues it is untimed.
void BM_PollSealedEnvelope(benchmark::State& state) {
  Agent agent(10, 10);
  const float x[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  uint8_t env[P2B_ENVELOPE_BYTES];
  for (auto _ : state) {
    state.PauseTiming();
    uint32_t a = 0;
    uint64_t id = 0;
    if (p2b_agent_decide(agent.get(), x, 10, &a, &id) != P2B_OK ||
        p2b_agent_reward(agent.get(), id, 1.0F) != P2B_OK) {
      state.ResumeTiming();
      state.SkipWithError("decide/reward failed");
      break;
    }
    state.ResumeTiming();
    size_t n = 0;
    const p2b_status st = p2b_agent_poll_envelope(agent.get(), env, sizeof env, &n);
    if (st != P2B_OK && st != P2B_NO_REPORT) state.SkipWithError(p2b_status_str(st));
    benchmark::DoNotOptimize(env);
  }
  state.counters["envelope_bytes"] = P2B_ENVELOPE_BYTES;
}

// Shuffler: outer layer (X25519 open + strict protobuf decode).
void BM_OpenOuter(benchmark::State& state) {
  const auto env = sealed_envelope();
  p2b::server::OuterOpened out{};
  for (auto _ : state) {
    if (p2b::server::open_outer(env.data(), env.size(), &kKeys.shuffler, 1, &out) !=
        p2b::server::OpenStatus::ok) {
      state.SkipWithError("open_outer failed");
    }
    benchmark::DoNotOptimize(out);
  }
}

// Analyzer: inner layer.
void BM_OpenInner(benchmark::State& state) {
  const auto env = sealed_envelope();
  p2b::server::OuterOpened outer{};
  p2b::server::open_outer(env.data(), env.size(), &kKeys.shuffler, 1, &outer);
  p2b::server::InnerOpened out{};
  for (auto _ : state) {
    if (p2b::server::open_inner(outer.inner, sizeof outer.inner, &kKeys.analyzer, 1, &out) !=
        p2b::server::OpenStatus::ok) {
      state.SkipWithError("open_inner failed");
    }
    benchmark::DoNotOptimize(out);
  }
}

// Device: verify + validate + factor + apply a signed model of shape (d, K).
// The agent is re-initialised (untimed) so every apply is version 1 again.
void BM_ApplyModel(benchmark::State& state) {
  const auto d = static_cast<uint32_t>(state.range(0));
  const auto k_arms = static_cast<uint32_t>(state.range(1));
  Agent agent(d, k_arms);
  const std::vector<uint8_t> bundle = agent.signed_model(1);
  for (auto _ : state) {
    state.PauseTiming();
    agent.reset();
    state.ResumeTiming();
    const p2b_status st = p2b_agent_apply_model(agent.get(), bundle.data(), bundle.size());
    if (st != P2B_OK) state.SkipWithError(p2b_status_str(st));
  }
  state.counters["bundle_bytes"] = static_cast<double>(bundle.size());
}

// The floor under BM_ApplyModel: the Ed25519 check of the same bundle
// alone, which apply must do before it parses a byte.
void BM_VerifyModelBundle(benchmark::State& state) {
  const auto d = static_cast<uint32_t>(state.range(0));
  const auto k_arms = static_cast<uint32_t>(state.range(1));
  const Agent agent(d, k_arms);
  const std::vector<uint8_t> bundle = agent.signed_model(1);
  const std::size_t signed_len = bundle.size() - crypto_sign_BYTES;
  for (auto _ : state) {
    const int rc = crypto_sign_verify_detached(bundle.data() + signed_len, bundle.data(),
                                               signed_len, kKeys.verify);
    if (rc != 0) state.SkipWithError("signature refused");
  }
  state.counters["bundle_bytes"] = static_cast<double>(bundle.size());
}

// Device: save and restore, plain (keyed BLAKE2b-256 MAC) or encrypted (XChaCha20-Poly1305).
void BM_SaveRestore(benchmark::State& state) {
  const bool encrypted = state.range(0) != 0;
  Agent agent(10, 10);
  size_t n = 0;
  if (p2b_agent_save_size(agent.get(), &n) != P2B_OK) std::abort();
  std::vector<uint8_t> buf(n + P2B_STATE_ENCRYPTION_OVERHEAD);
  const uint8_t key[P2B_STATE_KEY_BYTES] = {1};
  for (auto _ : state) {
    size_t written = 0;
    p2b_status st = P2B_OK;
    if (encrypted) {
      st = p2b_agent_save_encrypted(agent.get(), key, buf.data(), buf.size(), &written);
      if (st == P2B_OK) st = p2b_agent_restore_encrypted(agent.get(), key, buf.data(), written);
    } else {
      st = p2b_agent_save(agent.get(), key, buf.data(), buf.size(), &written);
      if (st == P2B_OK) st = p2b_agent_restore(agent.get(), key, buf.data(), written);
    }
    if (st != P2B_OK) state.SkipWithError(p2b_status_str(st));
  }
  state.counters["state_bytes"] =
      static_cast<double>(encrypted ? n + P2B_STATE_ENCRYPTION_OVERHEAD : n);
}

BENCHMARK(BM_PollSealedEnvelope);
BENCHMARK(BM_OpenOuter);
BENCHMARK(BM_OpenInner);
BENCHMARK(BM_ApplyModel)->Args({10, 10})->Args({20, 50})->ArgNames({"d", "K"});
BENCHMARK(BM_VerifyModelBundle)->Args({10, 10})->Args({20, 50})->ArgNames({"d", "K"});
BENCHMARK(BM_SaveRestore)->Arg(0)->Arg(1)->ArgName("encrypted");

}  // namespace

BENCHMARK_MAIN();
