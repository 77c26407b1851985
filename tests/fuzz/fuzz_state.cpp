// p2b_agent_restore and p2b_agent_restore_encrypted on untrusted saved
// state, into a freshly initialised agent each time. Mode (first byte % 4):
//   0  the rest is a plain saved state as read from storage;
//   1  the rest is a plain state without its trailer: the 32-byte keyed
//      BLAKE2b-256 MAC under the fixed state key is appended here, so the
//      decoder behind the MAC is fuzzed;
//   2  the rest is an encrypted state as read from storage (fixed key);
//   3  as 1, then boxed here as "P2BE" | nonce | XChaCha20-Poly1305 under the
//      fixed key, so the decoder behind decryption is fuzzed too.
//
// Beyond "no crash": a rejected state must leave the agent as it was; an
// accepted one must survive save -> restore -> save unchanged (plain and
// encrypted), and the agent must go on deciding and reporting from it, and
// still save a state it can restore.
#include "fuzz_fixture.hpp"

namespace {

constexpr size_t kTrailerBytes = 32;
constexpr uint8_t kBoxMagic[4] = {'P', '2', 'B', 'E'};

// Buffers are allocated at their exact size, so ASan sees any read past them.
std::vector<uint8_t> with_trailer(const p2b_fuzz::Input& in) {
  std::vector<uint8_t> out(in.size + kTrailerBytes);
  if (in.size != 0) std::memcpy(out.data(), in.data, in.size);
  p2b_test::reseal_state(&out, p2b_fuzz::keys().state_key);
  return out;
}

// The at-rest box as proto/p2b_state.proto describes it; the magic is the
// associated data.
std::vector<uint8_t> boxed(const std::vector<uint8_t>& plain) {
  constexpr size_t kNonce = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
  std::vector<uint8_t> out(sizeof kBoxMagic + kNonce + plain.size() +
                           crypto_aead_xchacha20poly1305_ietf_ABYTES);
  std::memcpy(out.data(), kBoxMagic, sizeof kBoxMagic);
  uint8_t* nonce = out.data() + sizeof kBoxMagic;
  randombytes_buf(nonce, kNonce);
  crypto_aead_xchacha20poly1305_ietf_encrypt(nonce + kNonce, nullptr, plain.data(), plain.size(),
                                             kBoxMagic, sizeof kBoxMagic, nullptr, nonce,
                                             p2b_fuzz::keys().state_key);
  return out;
}

std::vector<uint8_t> saved_encrypted(const p2b_agent* ag) {
  size_t n = 0;
  p2b_fuzz::require(p2b_agent_save_size(ag, &n) == P2B_OK, "save_size");
  std::vector<uint8_t> out(n + P2B_STATE_ENCRYPTION_OVERHEAD);
  size_t written = 0;
  p2b_fuzz::require(p2b_agent_save_encrypted(ag, p2b_fuzz::keys().state_key, out.data(), out.size(),
                                             &written) == P2B_OK &&
                        written == out.size(),
                    "save_encrypted");
  return out;
}

// Both round trips of an accepted state must be lossless.
void check_round_trips(p2b_agent* ag) {
  const std::vector<uint8_t> once = p2b_test::saved(ag);
  p2b_fuzz::require(
      p2b_agent_restore(ag, p2b_fuzz::keys().state_key, once.data(), once.size()) == P2B_OK,
      "the agent refuses its own saved state");
  p2b_fuzz::require(p2b_test::saved(ag) == once, "save -> restore -> save changed the state");
  std::vector<uint8_t> box = saved_encrypted(ag);
  p2b_fuzz::require(
      p2b_agent_restore_encrypted(ag, p2b_fuzz::keys().state_key, box.data(), box.size()) == P2B_OK,
      "the agent refuses its own encrypted state");
  p2b_fuzz::require(p2b_test::saved(ag) == once, "encrypted round trip changed the state");
}

void exercise(p2b_agent* ag) {
  uint8_t envelope[P2B_ENVELOPE_BYTES];
  size_t written = 0;
  // Restored outbox entries are sealed here for the first time.
  for (int i = 0;
       i < 4 && p2b_agent_poll_envelope(ag, envelope, sizeof envelope, &written) == P2B_OK; ++i) {
    p2b_fuzz::require(written == P2B_ENVELOPE_BYTES, "envelope size");
  }
  const float x[p2b_fuzz::kDim] = {0.1F, 0.2F, 0.3F, 0.4F};
  for (int i = 0; i < 3; ++i) {
    uint32_t action = 0;
    uint64_t id = 0;
    if (p2b_agent_decide(ag, x, p2b_fuzz::kDim, &action, &id) != P2B_OK) break;
    p2b_fuzz::require(action < p2b_fuzz::kActions, "decide returned an action out of range");
    p2b_fuzz::require(p2b_agent_reward(ag, id, 0.5F) == P2B_OK, "reward after decide");
    // The ids just before are the restored pending decisions, if any: their
    // saved contexts get learned from here.
    for (uint64_t back = 1; i == 0 && back < 4 && back < id; ++back) {
      (void)p2b_agent_reward(ag, id - back, 1.0F);
    }
  }
  p2b_tuple rep;
  while (p2b_agent_poll_tuple(ag, &rep) == P2B_OK) {
    p2b_fuzz::require(rep.code < p2b_fuzz::kCodes && rep.action < p2b_fuzz::kActions,
                      "report out of range");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static p2b_fuzz::FixedAgent fixture(p2b_fuzz::agent_config());
  static p2b_fuzz::FixedAgent spare(p2b_fuzz::agent_config());
  static const std::vector<uint8_t> fresh = p2b_test::saved(fixture.init());
  p2b_fuzz::Input in{};
  if (!p2b_fuzz::split_mode(data, size, 4, &in)) return 0;
  std::vector<uint8_t> buf;
  switch (in.mode) {
    case 1:
      buf = with_trailer(in);
      break;
    case 2:  // restore_encrypted decrypts in place: never into libFuzzer's input
      buf.assign(in.data, in.data + in.size);
      break;
    case 3:
      buf = boxed(with_trailer(in));
      break;
    default:
      break;
  }
  p2b_agent* ag = fixture.init();
  p2b_status st = P2B_OK;
  if (in.mode == 0) {
    st = p2b_agent_restore(ag, p2b_fuzz::keys().state_key, in.data, in.size);
  } else if (in.mode == 1) {
    st = p2b_agent_restore(ag, p2b_fuzz::keys().state_key, buf.data(), buf.size());
  } else {
    st = p2b_agent_restore_encrypted(ag, p2b_fuzz::keys().state_key, buf.data(), buf.size());
  }
  if (st != P2B_OK) {
    p2b_fuzz::require(p2b_is_error(st) != 0, "restore: non-error status other than OK");
    p2b_fuzz::require(p2b_test::saved(ag) == fresh, "a rejected state changed the agent");
    return 0;
  }
  check_round_trips(ag);
  exercise(ag);
  p2b_fuzz::require_restorable(ag, spare, "learning on a restored state gives one restore refuses");
  return 0;
}
