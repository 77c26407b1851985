// p2b_cmab_restore on untrusted saved state. Mode (first byte % 2):
//   0: the rest is a saved state as read from storage;
//   1: the rest is a state without its MAC, appended here under the fixed
//      key, so the decoder behind the MAC is fuzzed.
// Beyond "no crash": a refused state leaves the agent's arena byte for byte
// as it was; an accepted one survives save -> restore -> save unchanged, and
// the agent goes on deciding, observing and releasing from it into a state
// that restores again.
#include <vector>

#include "cmab_fixture.hpp"
#include "state_mac.hpp"

namespace {

using p2b_fuzz::CmabFixture;
using p2b_fuzz::kCmabProducers;
using p2b_fuzz::require;

// Plays on from a restored state. A state restored mid-round observes first.
void exercise(p2b_cmab* a) {
  uint32_t none[kCmabProducers] = {};
  const p2b_status pending = p2b_cmab_observe(a, none, kCmabProducers);
  require(pending == P2B_OK || pending == P2B_ERR_UNKNOWN_DECISION, "observe on a restored state");
  CmabFixture::play(a, 6);
  std::vector<uint8_t> share(p2b_cmab_share_size(kCmabProducers));
  size_t n = 0;
  const p2b_status st = p2b_cmab_poll_share(a, share.data(), share.size(), &n);
  require(st == P2B_OK || st == P2B_NO_REPORT || st == P2B_BUDGET_EXHAUSTED,
          "poll on a restored state");
  p2b_cmab_privacy spent;
  require(p2b_cmab_privacy_spent(a, &spent) == P2B_OK, "privacy on a restored state");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static CmabFixture fixture(p2b_fuzz::tune_for_state);
  static CmabFixture spare(p2b_fuzz::tune_for_state);
  p2b_fuzz::Input in{};
  if (!p2b_fuzz::split_mode(data, size, 2, &in)) return 0;
  p2b_cmab* a = fixture.fresh();
  CmabFixture::play(a, 4);
  const std::vector<unsigned char> before = fixture.bytes();
  // Exact-size buffers, so ASan sees any read past them.
  std::vector<uint8_t> buf(in.data, in.data + in.size);
  if (in.mode == 1) {
    buf.resize(in.size + p2b::kStateMacBytes);
    p2b::state_mac(p2b_fuzz::keys().state_key, p2b_fuzz::kCmabStateMacLabel, buf.data(), in.size,
                   buf.data() + in.size);
  }
  const p2b_status st = p2b_cmab_restore(a, p2b_fuzz::keys().state_key, buf.data(), buf.size());
  if (st != P2B_OK) {
    require(p2b_is_error(st) != 0, "restore: a non-error status other than OK");
    require(fixture.bytes() == before, "a refused state changed the agent");
    return 0;
  }
  const std::vector<uint8_t> once = CmabFixture::saved(a);
  require(p2b_cmab_restore(a, p2b_fuzz::keys().state_key, once.data(), once.size()) == P2B_OK,
          "the agent refuses its own saved state");
  require(CmabFixture::saved(a) == once, "save -> restore -> save changed the state");
  exercise(a);
  const std::vector<uint8_t> after = CmabFixture::saved(a);
  require(p2b_cmab_restore(spare.fresh(), p2b_fuzz::keys().state_key, after.data(), after.size()) ==
              P2B_OK,
          "playing on from a restored state gives one restore refuses");
  return 0;
}
