// p2b_shared_model_apply_model on untrusted warm-start bundles (FCLUB's
// cluster statistics). Mode (first byte % 4): bit 0 clear, the rest is a
// bundle as downloaded; set, the rest is the signed body ("P2BM" | header |
// columns) and the signature by the fixed key is appended here, so the parser
// behind verification is fuzzed. Bit 1: the model's precision (0 f64, 1 f32)
// and p2b_shared_model_apply_model_at at a fixed time instead of no time.
//
// Beyond "no crash": a refused bundle leaves the model exactly as it was
// (compared through its saved state), and an applied one refuses itself a
// second time (anti-rollback) and leaves a model that still decides, learns
// and saves a state that restores, with its version.
#include <cstring>
#include <vector>

#include "fuzz_fixture.hpp"

namespace {

constexpr uint32_t kDim = 3;
constexpr uint32_t kItems = 4;
constexpr uint64_t kNow = 1795000000;

class FixedModel {
 public:
  explicit FixedModel(uint32_t precision) {
    p2b_fuzz::require(p2b_shared_config_default(&cfg_) == P2B_OK, "config");
    cfg_.dim = kDim;
    cfg_.max_items = kItems;
    cfg_.pending_capacity = 4;
    cfg_.precision = precision;
    cfg_.rng_mode = P2B_RNG_SEEDED;
    cfg_.analyzer_verify_key = p2b_fuzz::keys().verify_pk;
    size_t need = 0;
    p2b_fuzz::require(p2b_shared_model_footprint(&cfg_, &need) == P2B_OK, "footprint");
    arena_.resize(need + P2B_ARENA_ALIGN);
    need_ = need;
  }
  p2b_shared_model* init() {
    const auto addr = reinterpret_cast<uintptr_t>(arena_.data());
    void* mem = arena_.data() + (P2B_ARENA_ALIGN - addr % P2B_ARENA_ALIGN) % P2B_ARENA_ALIGN;
    p2b_shared_model* m = nullptr;
    p2b_fuzz::require(p2b_shared_model_init(mem, need_, &cfg_, &m) == P2B_OK, "init");
    return m;
  }

 private:
  p2b_shared_config cfg_{};
  std::vector<unsigned char> arena_;
  size_t need_ = 0;
};

std::vector<uint8_t> saved(const p2b_shared_model* m) {
  size_t n = 0;
  p2b_fuzz::require(p2b_shared_model_save_size(m, &n) == P2B_OK, "save_size");
  std::vector<uint8_t> out(n);
  size_t written = 0;
  p2b_fuzz::require(p2b_shared_model_save(m, p2b_fuzz::keys().state_key, out.data(), out.size(),
                                          &written) == P2B_OK &&
                        written == n,
                    "save");
  return out;
}

// Allocated at its exact size, so ASan sees any read past the signature.
std::vector<uint8_t> sign(const p2b_fuzz::Input& in) {
  std::vector<uint8_t> bundle(in.size + crypto_sign_BYTES);
  std::memcpy(bundle.data(), in.data, in.size);
  crypto_sign_detached(bundle.data() + in.size, nullptr, in.data, in.size,
                       p2b_fuzz::keys().sign_sk);
  return bundle;
}

uint64_t version_of(const p2b_shared_model* m) {
  uint64_t v = 0;
  p2b_fuzz::require(p2b_shared_model_model_version(m, &v) == P2B_OK, "model_version");
  return v;
}

// Decides and learns on the applied statistics; an update may leave the
// bounds (numeric_range) on extreme ones, nothing else may fail.
void exercise(p2b_shared_model* m) {
  const double items[kItems * kDim] = {0.5, -0.2, 0.1, -1, 0, 0.3, 0.2, 0.2, 0.2, 0, 1, -0.5};
  uint32_t item = 0;
  uint64_t id = 0;
  p2b_fuzz::require(p2b_shared_model_decide(m, items, kItems, kDim, &item, &id) == P2B_OK,
                    "decide on an applied model");
  p2b_fuzz::require(item < kItems, "item out of range");
  const p2b_status st = p2b_shared_model_reward(m, id, 0.5);
  p2b_fuzz::require(st == P2B_OK || st == P2B_ERR_NUMERIC_RANGE, "reward on an applied model");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static FixedModel f64(P2B_PRECISION_F64);
  static FixedModel f32(P2B_PRECISION_F32);
  static FixedModel spare64(P2B_PRECISION_F64);
  static FixedModel spare32(P2B_PRECISION_F32);
  p2b_fuzz::Input in{};
  if (!p2b_fuzz::split_mode(data, size, 4, &in)) return 0;
  const bool timed = (in.mode & 2U) != 0;
  // Exact-size buffers, so ASan sees any read past them.
  std::vector<uint8_t> bundle(in.data, in.data + in.size);
  if ((in.mode & 1U) != 0) bundle = sign(in);
  FixedModel& fixture = timed ? f32 : f64;
  p2b_shared_model* m = fixture.init();
  const std::vector<uint8_t> fresh = saved(m);
  const auto apply = [&] {
    return timed ? p2b_shared_model_apply_model_at(m, bundle.data(), bundle.size(), kNow)
                 : p2b_shared_model_apply_model(m, bundle.data(), bundle.size());
  };
  const p2b_status st = apply();
  if (st != P2B_OK) {
    p2b_fuzz::require(p2b_is_error(st) != 0, "apply_model: a non-error status other than OK");
    p2b_fuzz::require(saved(m) == fresh, "a refused bundle changed the model");
    return 0;
  }
  const uint64_t version = version_of(m);
  p2b_fuzz::require(version > 0, "an applied bundle left no version");
  p2b_fuzz::require(apply() == P2B_ERR_MODEL_ROLLBACK, "the same bundle applied twice");
  exercise(m);
  const std::vector<uint8_t> after = saved(m);
  p2b_shared_model* other = (timed ? spare32 : spare64).init();
  p2b_fuzz::require(p2b_shared_model_restore(other, p2b_fuzz::keys().state_key, after.data(),
                                             after.size()) == P2B_OK,
                    "an applied bundle gives a state restore refuses");
  p2b_fuzz::require(version_of(other) == version, "the version did not survive restore");
  return 0;
}
