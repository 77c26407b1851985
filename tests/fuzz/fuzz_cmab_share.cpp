// P-FCB shares from peers: p2b_cmab_apply_share on untrusted bytes. The
// first byte picks the sender index (mod 3, so 2 is out of range).
//
// Beyond "no crash": a share that decodes re-encodes to the same bytes (only
// the canonical encoding is a share), a refused share leaves the agent's
// arena byte for byte as it was, and an accepted one leaves finite,
// non-negative counts and is refused as a replay the second time.
#include <cmath>
#include <cstring>
#include <vector>

#include "fuzz_fixture.hpp"
#include "p2b/cmab.hpp"

namespace {

constexpr uint32_t kProducers = 4;

class Receiver {
 public:
  Receiver() {
    p2b_fuzz::require(p2b_cmab_config_default(&cfg_) == P2B_OK, "config");
    cfg_.producers = kProducers;
    cfg_.cost = cost_;
    cfg_.capacity = capacity_;
    cfg_.rng_mode = P2B_RNG_SEEDED;
    cfg_.max_peers = 2;
    cfg_.agents = 3;
    cfg_.omega1 = 1.0;
    p2b_fuzz::require(p2b_cmab_footprint(&cfg_, &need_) == P2B_OK, "footprint");
    arena_.resize(need_ + P2B_ARENA_ALIGN);
  }
  p2b_cmab* fresh() {
    const auto addr = reinterpret_cast<uintptr_t>(arena_.data());
    mem_ = arena_.data() + (P2B_ARENA_ALIGN - addr % P2B_ARENA_ALIGN) % P2B_ARENA_ALIGN;
    p2b_cmab* a = nullptr;
    p2b_fuzz::require(p2b_cmab_init(mem_, need_, &cfg_, &a) == P2B_OK, "init");
    // A few rounds, so the acceptance band is a real one.
    uint32_t units[kProducers];
    for (int t = 0; t < 12; ++t) {
      p2b_fuzz::require(p2b_cmab_decide(a, units, kProducers) == P2B_OK, "decide");
      for (uint32_t& u : units) u /= 2;
      p2b_fuzz::require(p2b_cmab_observe(a, units, kProducers) == P2B_OK, "observe");
    }
    return a;
  }
  std::vector<unsigned char> bytes() const { return {mem_, mem_ + need_}; }

 private:
  double cost_[kProducers] = {0.1, 0.4, 0.2, 0.6};
  uint32_t capacity_[kProducers] = {3, 5, 8, 2};
  p2b_cmab_config cfg_{};
  size_t need_ = 0;
  std::vector<unsigned char> arena_;
  unsigned char* mem_ = nullptr;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static Receiver receiver;
  const uint32_t sender = data[0] % 3;
  const uint8_t* body = data + 1;
  const size_t len = size - 1;

  p2b::CmabShare decoded;
  if (p2b::cmab_share_decode(body, len, &decoded) == p2b::Status::ok) {
    std::vector<uint8_t> again(len);
    size_t n = 0;
    p2b_fuzz::require(
        p2b::cmab_share_encode(decoded, again.data(), again.size(), &n) == p2b::Status::ok &&
            n == len && std::memcmp(again.data(), body, len) == 0,
        "a decoded share re-encodes to its bytes");
  }

  p2b_cmab* agent = receiver.fresh();
  const std::vector<unsigned char> before = receiver.bytes();
  uint32_t accepted = 0;
  uint32_t rejected = 0;
  const p2b_status st = p2b_cmab_apply_share(agent, sender, body, len, &accepted, &rejected);
  if (st != P2B_OK) {
    p2b_fuzz::require(receiver.bytes() == before, "a refused share changes nothing");
    return 0;
  }
  p2b_fuzz::require(accepted + rejected == kProducers, "every producer judged");
  double seen[kProducers];
  double quality[kProducers];
  p2b_fuzz::require(p2b_cmab_estimates(agent, seen, quality, kProducers) == P2B_OK, "estimates");
  for (uint32_t i = 0; i < kProducers; ++i) {
    p2b_fuzz::require(std::isfinite(seen[i]) && seen[i] >= 0.0, "counts stay finite");
  }
  p2b_fuzz::require(
      p2b_cmab_apply_share(agent, sender, body, len, nullptr, nullptr) == P2B_ERR_REPLAYED,
      "the same share again is a replay");
  uint32_t units[kProducers];
  p2b_fuzz::require(p2b_cmab_decide(agent, units, kProducers) == P2B_OK, "still decides");
  return 0;
}
