// After init, nothing the agent does may touch the heap. This binary replaces
// malloc and operator new with counting versions; with the counter armed,
// every hot-path call must leave it at zero. Eigen's own runtime guard
// (EIGEN_RUNTIME_NO_MALLOC) is switched off at the same time.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <atomic>
#include <cmath>
#include <new>
#include <random>

#include "key_list_support.hpp"
#include "model_support.hpp"
#include "test_support.hpp"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void __libc_free(void*);
void* __libc_memalign(size_t, size_t);
}

namespace {
std::atomic<bool> g_armed{false};
std::atomic<long> g_allocations{0};
void note() {
  if (g_armed.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
}
}  // namespace

extern "C" {
void* malloc(size_t n) {
  note();
  return __libc_malloc(n);
}
void* calloc(size_t a, size_t b) {
  note();
  return __libc_calloc(a, b);
}
void* realloc(void* p, size_t n) {
  note();
  return __libc_realloc(p, n);
}
void free(void* p) {
  if (p != nullptr) note();
  __libc_free(p);
}
int posix_memalign(void** out, size_t align, size_t n) {
  note();
  *out = __libc_memalign(align, n);
  return *out == nullptr ? 12 : 0;
}
}

void* operator new(size_t n) {
  note();
  void* p = __libc_malloc(n == 0 ? 1 : n);
  if (p == nullptr) std::abort();
  return p;
}
void* operator new[](size_t n) {
  return operator new(n);
}
void operator delete(void* p) noexcept {
  if (p != nullptr) note();
  __libc_free(p);
}
void operator delete[](void* p) noexcept {
  operator delete(p);
}
void operator delete(void* p, size_t) noexcept {
  operator delete(p);
}
void operator delete[](void* p, size_t) noexcept {
  operator delete(p);
}

namespace {

// Arms both guards for the lifetime of the object.
struct NoHeap {
  NoHeap() {
    Eigen::internal::set_is_malloc_allowed(false);
    g_allocations = 0;
    g_armed = true;
  }
  ~NoHeap() {
    g_armed = false;
    Eigen::internal::set_is_malloc_allowed(true);
  }
};

TEST(NoAlloc, CounterSeesAnAllocation) {
  long seen = 0;
  {
    NoHeap guard;
    void* volatile p = malloc(16);
    free(p);
    seen = g_allocations.load();
  }
  EXPECT_EQ(seen, 2) << "the hook must be live, or the tests below prove nothing";
}

void exercise(uint32_t policy) {
  const uint32_t d = 10;
  const uint32_t k_arms = 10;
  p2b_config cfg = p2b_test::base_config(d, k_arms, 1024, 3);
  cfg.policy = policy;
  cfg.window = 2;
  cfg.participation = 0.9;
  auto t = p2b_test::make_agent(cfg);
  auto fresh = p2b_test::make_agent(cfg);
  std::mt19937_64 env(1);
  std::vector<std::vector<float>> contexts;
  contexts.reserve(200);
  for (int i = 0; i < 200; ++i) contexts.push_back(p2b_test::simplex_point(env, d));
  std::vector<uint8_t> state(1 << 20);
  std::vector<double> a(k_arms * d * d), b(k_arms * d);
  std::vector<float> mean(k_arms), width(k_arms), centroid(d);
  const std::vector<uint8_t> bundle = p2b_test::bundle_from(fresh.agent, d, k_arms, {1});
  p2b_test::BundleOptions timed{2};
  timed.not_after_unix = 1795003600;
  const std::vector<uint8_t> timed_bundle = p2b_test::bundle_from(fresh.agent, d, k_arms, timed);
  p2b_test::ListOptions list_opt;
  list_opt.keys = {p2b_test::test_keys().analyzer_pk, p2b_test::test_keys().shuffler_pk};
  const std::vector<uint8_t> key_list = p2b_test::signed_list(list_opt);

  // libsodium sets itself up on first use: that is init, not the hot path.
  uint8_t warm[P2B_ENVELOPE_BYTES];
  size_t warm_len = 0;
  (void)p2b_agent_poll_envelope(fresh.agent, warm, sizeof warm, &warm_len);
  int sealed = 0;
  int step = 0;
  NoHeap guard;
  for (const auto& x : contexts) {
    uint32_t action = 0, code = 0;
    uint64_t id = 0;
    ASSERT_EQ(p2b_agent_decide(t.agent, x.data(), d, &action, &id), P2B_OK);
    ASSERT_EQ(p2b_agent_reward(t.agent, id, (action % 2) ? 1.0F : 0.0F), P2B_OK);
    ASSERT_EQ(p2b_agent_learn(t.agent, x.data(), d, action, 0.5F), P2B_OK);
    ASSERT_EQ(p2b_agent_encode(t.agent, x.data(), d, &code), P2B_OK);
    ASSERT_EQ(p2b_agent_centroid(t.agent, code, centroid.data(), d), P2B_OK);
    ASSERT_EQ(p2b_agent_scores(t.agent, x.data(), d, mean.data(), width.data(), k_arms), P2B_OK);
    // Alternate the sealed and the plaintext queue readers.
    uint8_t envelope[P2B_ENVELOPE_BYTES];
    size_t len = 0;
    p2b_tuple rep;
    if (++step % 4 != 0) {
      while (p2b_agent_poll_envelope(t.agent, envelope, sizeof envelope, &len) == P2B_OK) ++sealed;
    } else {
      while (p2b_agent_poll_tuple(t.agent, &rep) == P2B_OK) {
      }
    }
  }
  size_t written = 0;
  p2b_privacy ledger;
  ASSERT_EQ(p2b_agent_privacy(t.agent, &ledger), P2B_OK);
  ASSERT_EQ(
      p2b_agent_save(t.agent, p2b_test::test_state_key(), state.data(), state.size(), &written),
      P2B_OK);
  ASSERT_EQ(p2b_agent_restore(fresh.agent, p2b_test::test_state_key(), state.data(), written),
            P2B_OK);
  const uint8_t key[P2B_STATE_KEY_BYTES] = {9};
  ASSERT_EQ(p2b_agent_save_encrypted(t.agent, key, state.data(), state.size(), &written), P2B_OK);
  ASSERT_EQ(p2b_agent_restore_encrypted(fresh.agent, key, state.data(), written), P2B_OK);
  ASSERT_EQ(p2b_agent_export(t.agent, a.data(), b.data(), k_arms, d), P2B_OK);
  ASSERT_EQ(p2b_agent_import(fresh.agent, a.data(), b.data(), k_arms, d, P2B_STATS_GRAM), P2B_OK);
  ASSERT_EQ(p2b_agent_apply_model(t.agent, bundle.data(), bundle.size()), P2B_OK);
  ASSERT_EQ(p2b_agent_apply_model_at(t.agent, timed_bundle.data(), timed_bundle.size(), 1795000000),
            P2B_OK);
  ASSERT_EQ(p2b_agent_apply_key_list(t.agent, key_list.data(), key_list.size(), 1795000000),
            P2B_OK);
  uint8_t envelope[P2B_ENVELOPE_BYTES] = {};
  ASSERT_EQ(p2b_agent_envelope_key_accepted(t.agent, envelope, sizeof envelope),
            P2B_ERR_KEY_RETIRED);
  ASSERT_EQ(p2b_agent_forget(fresh.agent), P2B_OK);
  EXPECT_EQ(g_allocations.load(), 0) << "heap touched after init";
  EXPECT_GT(ledger.reports, 0U);
  EXPECT_GT(sealed, 0) << "the sealing path must have run";
}

TEST(NoAlloc, LinUcbHotPathsNeverTouchTheHeap) {
  exercise(P2B_POLICY_LINUCB);
}
TEST(NoAlloc, LinTsHotPathsNeverTouchTheHeap) {
  exercise(P2B_POLICY_LINTS);
}

TEST(NoAlloc, SystemRandomSourceNeverTouchesTheHeap) {
  p2b_config cfg = p2b_test::base_config(5, 4, 16, 0);
  cfg.rng_mode = P2B_RNG_SYSTEM;
  cfg.policy = P2B_POLICY_LINTS;
  cfg.window = 1;
  auto t = p2b_test::make_agent(cfg);
  const float x[5] = {1, 2, 3, 4, 5};
  // libsodium may set itself up on first use; that is init, not the hot path.
  uint32_t action = 0;
  uint64_t id = 0;
  ASSERT_EQ(p2b_agent_decide(t.agent, x, 5, &action, &id), P2B_OK);
  NoHeap guard;
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(p2b_agent_decide(t.agent, x, 5, &action, &id), P2B_OK);
    ASSERT_EQ(p2b_agent_reward(t.agent, id, 1.0F), P2B_OK);
  }
  EXPECT_EQ(g_allocations.load(), 0);
}

}  // namespace

namespace {

// A signed warm start for a d-dimensional shared model (server side: it may
// allocate, so tests build it before arming the counter).
std::vector<uint8_t> shared_bundle(uint32_t d, uint64_t version, uint64_t not_after_unix) {
  p2b::server::ModelSpec spec;
  spec.dim = d;
  spec.version = version;
  spec.not_after_unix = not_after_unix;
  std::vector<double> gram(static_cast<size_t>(d) * d, 0.0);
  std::vector<double> moment(d, 0.5);
  for (uint32_t i = 0; i < d; ++i) gram[i * d + i] = 3.0;
  std::vector<uint8_t> out;
  std::string err;
  if (!p2b::server::build_shared_model_bundle(spec, gram.data(), moment.data(),
                                              p2b_test::test_keys().sign_sk, &out, &err)) {
    std::abort();
  }
  return out;
}

// The shared-parameter model's calls, in both precisions and policies, once
// its arena is set up: none may touch the heap, a signed warm start included.
void exercise_shared(uint32_t policy, uint32_t precision) {
  constexpr uint32_t d = 12;
  constexpr uint32_t k = 6;
  p2b_shared_config cfg;
  ASSERT_EQ(p2b_shared_config_default(&cfg), P2B_OK);
  cfg.dim = d;
  cfg.max_items = k;
  cfg.policy = policy;
  cfg.precision = precision;
  cfg.tie_rel_tol = 1e-9;
  cfg.rng_mode = P2B_RNG_SEEDED;
  cfg.analyzer_verify_key = p2b_test::test_keys().verify_pk;
  size_t need = 0;
  ASSERT_EQ(p2b_shared_model_footprint(&cfg, &need), P2B_OK);
  std::vector<unsigned char> mem_a(need + P2B_ARENA_ALIGN);
  std::vector<unsigned char> mem_b(need + P2B_ARENA_ALIGN);
  auto aligned = [](std::vector<unsigned char>& m) {
    const auto addr = reinterpret_cast<uintptr_t>(m.data());
    return static_cast<void*>(m.data() +
                              (P2B_ARENA_ALIGN - addr % P2B_ARENA_ALIGN) % P2B_ARENA_ALIGN);
  };
  p2b_shared_model* a = nullptr;
  p2b_shared_model* b = nullptr;
  ASSERT_EQ(p2b_shared_model_init(aligned(mem_a), need, &cfg, &a), P2B_OK);
  ASSERT_EQ(p2b_shared_model_init(aligned(mem_b), need, &cfg, &b), P2B_OK);
  std::mt19937_64 env(2);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<double> items(static_cast<size_t>(200) * k * d);
  for (double& v : items) v = g(env);
  std::vector<double> mean(k), width(k), total(k), theta(d);
  std::vector<uint8_t> state(1 << 16);
  const uint8_t key[P2B_STATE_KEY_BYTES] = {3};
  const std::vector<uint8_t> v1 = shared_bundle(d, 1, 0);
  const std::vector<uint8_t> v2 = shared_bundle(d, 2, 1795000100);
  NoHeap guard;
  ASSERT_EQ(p2b_shared_model_apply_model(a, v1.data(), v1.size()), P2B_OK);
  ASSERT_EQ(p2b_shared_model_apply_model(a, v1.data(), v1.size()), P2B_ERR_MODEL_ROLLBACK);
  ASSERT_EQ(p2b_shared_model_apply_model_at(a, v2.data(), v2.size(), 1795000000), P2B_OK);
  for (size_t round = 0; round < 200; ++round) {
    const double* x = items.data() + round * k * d;
    uint32_t item = 0;
    uint64_t id = 0;
    ASSERT_EQ(p2b_shared_model_decide(a, x, k, d, &item, &id), P2B_OK);
    ASSERT_EQ(p2b_shared_model_reward(a, id, x[item * d] > 0 ? 1.0 : 0.0), P2B_OK);
    ASSERT_EQ(p2b_shared_model_learn(a, x, d, 0.25), P2B_OK);
    ASSERT_EQ(p2b_shared_model_scores(a, x, k, d, mean.data(), width.data(), total.data()), P2B_OK);
  }
  size_t written = 0;
  ASSERT_EQ(p2b_shared_model_theta(a, theta.data(), d), P2B_OK);
  ASSERT_EQ(p2b_shared_model_save(a, key, state.data(), state.size(), &written), P2B_OK);
  ASSERT_EQ(p2b_shared_model_restore(b, key, state.data(), written), P2B_OK);
  EXPECT_EQ(g_allocations.load(), 0) << "heap touched after init";
}

TEST(NoAlloc, SharedModelNeverTouchesTheHeap) {
  for (const uint32_t policy : {P2B_POLICY_LINUCB, P2B_POLICY_LINTS}) {
    for (const uint32_t precision : {P2B_PRECISION_F64, P2B_PRECISION_F32}) {
      exercise_shared(policy, precision);
    }
  }
}

// A P-FCB agent through exploration, the oracle's rounds, releases with the
// system CSPRNG's noise, and others' shares: all after init, all heap-free.
TEST(NoAlloc, CmabAgentNeverTouchesTheHeap) {
  constexpr uint32_t m = 30;
  std::vector<double> cost(m);
  std::vector<uint32_t> capacity(m);
  std::mt19937_64 env(4);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> quality(m);
  for (uint32_t i = 0; i < m; ++i) {
    cost[i] = u(env);
    quality[i] = u(env);
    capacity[i] = 1 + static_cast<uint32_t>(env() % 50);
  }
  p2b_cmab_config cfg;
  ASSERT_EQ(p2b_cmab_config_default(&cfg), P2B_OK);
  cfg.producers = m;
  cfg.cost = cost.data();
  cfg.capacity = capacity.data();
  cfg.window_start = 5;
  cfg.max_peers = 2;
  cfg.agents = 2;
  size_t need = 0;
  ASSERT_EQ(p2b_cmab_footprint(&cfg, &need), P2B_OK);
  std::vector<unsigned char> mem_a(need + P2B_ARENA_ALIGN);
  std::vector<unsigned char> mem_b(need + P2B_ARENA_ALIGN);
  auto aligned = [](std::vector<unsigned char>& mem) {
    const auto addr = reinterpret_cast<uintptr_t>(mem.data());
    return static_cast<void*>(mem.data() +
                              (P2B_ARENA_ALIGN - addr % P2B_ARENA_ALIGN) % P2B_ARENA_ALIGN);
  };
  p2b_cmab* a = nullptr;
  p2b_cmab* b = nullptr;
  ASSERT_EQ(p2b_cmab_init(aligned(mem_a), need, &cfg, &a), P2B_OK);
  ASSERT_EQ(p2b_cmab_init(aligned(mem_b), need, &cfg, &b), P2B_OK);
  std::vector<uint32_t> units(m);
  std::vector<uint32_t> good(m);
  std::vector<uint8_t> share(p2b_cmab_share_size(m));
  std::vector<double> seen(m);
  p2b_cmab_privacy spent;
  uint32_t shares = 0;
  NoHeap guard;
  for (int t = 0; t < 600; ++t) {
    for (p2b_cmab* agent : {a, b}) {
      ASSERT_EQ(p2b_cmab_decide(agent, units.data(), m), P2B_OK);
      for (uint32_t i = 0; i < m; ++i) {
        good[i] = static_cast<uint32_t>(std::floor(quality[i] * units[i]));
      }
      ASSERT_EQ(p2b_cmab_observe(agent, good.data(), m), P2B_OK);
      size_t n = 0;
      if (p2b_cmab_poll_share(agent, share.data(), share.size(), &n) == P2B_OK) {
        ++shares;
        ASSERT_EQ(p2b_cmab_apply_share(agent == a ? b : a, 0, share.data(), n, nullptr, nullptr),
                  P2B_OK);
      }
    }
  }
  ASSERT_EQ(p2b_cmab_privacy_spent(a, &spent), P2B_OK);
  ASSERT_EQ(p2b_cmab_estimates(a, seen.data(), nullptr, m), P2B_OK);
  EXPECT_EQ(g_allocations.load(), 0) << "heap touched after init";
  EXPECT_GT(shares, 0U);
  EXPECT_GT(spent.element_epsilon, 0.0);
}

}  // namespace
