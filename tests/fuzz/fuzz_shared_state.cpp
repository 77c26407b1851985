// p2b_shared_model_restore on untrusted saved state. Mode (first byte % 4):
//   bit 0 clear: the rest is a saved state as read from storage;
//   bit 0 set:   the rest is a state without its MAC, appended here under the
//                fixed key, so the decoder behind the MAC is fuzzed;
//   bit 1:       the model's precision (0 f64, 1 f32), which changes what
//                values it may hold exactly.
// Beyond "no crash": a refused state leaves the model as it was; an accepted
// one survives save -> restore -> save unchanged, and the model goes on
// deciding and learning from it into a state it can restore again.
#include <cstring>
#include <vector>

#include "fuzz_fixture.hpp"
#include "state_mac.hpp"

namespace {

constexpr uint32_t kDim = 3;
constexpr uint32_t kItems = 4;
constexpr char kMacLabel[] = "p2b shared model state MAC key v1";

class FixedModel {
 public:
  explicit FixedModel(uint32_t precision) {
    p2b_fuzz::require(p2b_shared_config_default(&cfg_) == P2B_OK, "config");
    cfg_.dim = kDim;
    cfg_.max_items = kItems;
    cfg_.pending_capacity = 4;
    cfg_.precision = precision;
    cfg_.tie_rel_tol = 1e-9;
    cfg_.rng_mode = P2B_RNG_SEEDED;
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

void exercise(p2b_shared_model* m) {
  const double items[kItems * kDim] = {0.5, -0.2, 0.1, -1, 0, 0.3, 0.2, 0.2, 0.2, 0, 1, -0.5};
  for (int i = 0; i < 3; ++i) {
    uint32_t item = 0;
    uint64_t id = 0;
    p2b_fuzz::require(p2b_shared_model_decide(m, items, kItems, kDim, &item, &id) == P2B_OK,
                      "decide on a restored state");
    p2b_fuzz::require(item < kItems, "item out of range");
    // The restored pending decisions get their rewards too, when in bounds.
    for (uint64_t back = 0; back < 4 && back < id; ++back) {
      (void)p2b_shared_model_reward(m, id - back, 0.5);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static FixedModel f64(P2B_PRECISION_F64);
  static FixedModel f32(P2B_PRECISION_F32);
  static FixedModel spare64(P2B_PRECISION_F64);
  static FixedModel spare32(P2B_PRECISION_F32);
  p2b_fuzz::Input in{};
  if (!p2b_fuzz::split_mode(data, size, 4, &in)) return 0;
  const bool single = (in.mode & 2U) != 0;
  FixedModel& fixture = single ? f32 : f64;
  p2b_shared_model* m = fixture.init();
  const std::vector<uint8_t> fresh = saved(m);
  // Exact-size buffers, so ASan sees any read past them.
  std::vector<uint8_t> buf(in.data, in.data + in.size);
  if ((in.mode & 1U) != 0) {
    buf.resize(in.size + p2b::kStateMacBytes);
    p2b::state_mac(p2b_fuzz::keys().state_key, kMacLabel, buf.data(), in.size,
                   buf.data() + in.size);
  }
  const p2b_status st =
      p2b_shared_model_restore(m, p2b_fuzz::keys().state_key, buf.data(), buf.size());
  if (st != P2B_OK) {
    p2b_fuzz::require(p2b_is_error(st) != 0, "restore: a non-error status other than OK");
    p2b_fuzz::require(saved(m) == fresh, "a refused state changed the model");
    return 0;
  }
  const std::vector<uint8_t> once = saved(m);
  p2b_fuzz::require(
      p2b_shared_model_restore(m, p2b_fuzz::keys().state_key, once.data(), once.size()) == P2B_OK,
      "the model refuses its own saved state");
  p2b_fuzz::require(saved(m) == once, "save -> restore -> save changed the state");
  exercise(m);
  const std::vector<uint8_t> after = saved(m);
  p2b_shared_model* other = (single ? spare32 : spare64).init();
  p2b_fuzz::require(p2b_shared_model_restore(other, p2b_fuzz::keys().state_key, after.data(),
                                             after.size()) == P2B_OK,
                    "learning on a restored state gives one restore refuses");
  return 0;
}
