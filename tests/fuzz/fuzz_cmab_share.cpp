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

#include "cmab_fixture.hpp"
#include "p2b/cmab.hpp"

namespace {

constexpr uint32_t kProducers = p2b_fuzz::kCmabProducers;

// A few rounds played, so the acceptance band is a real one.
p2b_cmab* receiver(p2b_fuzz::CmabFixture& fixture) {
  p2b_cmab* a = fixture.fresh();
  p2b_fuzz::CmabFixture::play(a, 12);
  return a;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static p2b_fuzz::CmabFixture fixture([](p2b_cmab_config* c) { c->omega1 = 1.0; });
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

  p2b_cmab* agent = receiver(fixture);
  const std::vector<unsigned char> before = fixture.bytes();
  uint32_t accepted = 0;
  uint32_t rejected = 0;
  const p2b_status st = p2b_cmab_apply_share(agent, sender, body, len, &accepted, &rejected);
  if (st != P2B_OK) {
    p2b_fuzz::require(fixture.bytes() == before, "a refused share changes nothing");
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
