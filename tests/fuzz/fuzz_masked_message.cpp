// The active party's opener of P2BV masked messages,
// p2b::vfl::open_masked_message, on untrusted bytes. Mode (first byte % 3):
// 0 the rest is a message as received, expected from party 1 with K' = 3,
// d = 6 under the fixture's mask; 1 the rest is the 16-byte clear prefix and
// the plaintext of the box (check_masked_plaintext, what the box hides); 2 as
// 1, but expecting the K' and d its own header names, so any shape is reached.
#include <cmath>
#include <cstring>

#include "vfl_fixture.hpp"
#include "wire/le_bytes.hpp"

namespace {

namespace fv = p2b_fuzz::vfl;
using p2b::vfl::MessageStatus;

void check_accepted(const p2b::vfl::MaskedMessage& m, const p2b::vfl::MessageExpect& e) {
  const p2b::vfl::MaskedHeader& h = m.header;
  p2b_fuzz::require(h.party_index == e.party_index && h.round_id > e.last_round_id,
                    "accepted another party or an old round");
  p2b_fuzz::require(h.epoch == e.current.epoch &&
                        std::memcmp(h.mask_id, e.current.mask_id, sizeof h.mask_id) == 0,
                    "accepted a stale mask");
  p2b_fuzz::require(h.k_items == e.k_items && h.d == e.d &&
                        m.values.size() == static_cast<size_t>(h.k_items) * h.d,
                    "accepted another shape");
  for (const double v : m.values) p2b_fuzz::require(std::isfinite(v), "accepted a non-finite");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)p2b_fuzz::keys();
  p2b_fuzz::Input in{};
  if (!p2b_fuzz::split_mode(data, size, 3, &in)) return 0;
  p2b::vfl::MessageExpect e = fv::message_expect();
  p2b::vfl::MaskedMessage out;
  if (in.mode == 0) {
    const MessageStatus st = p2b::vfl::open_masked_message(in.data, in.size, fv::ap_key().sk,
                                                           fv::party_key().pk, e, &out);
    if (st != MessageStatus::ok) return 0;
    check_accepted(out, e);
    p2b_fuzz::require(in.size == p2b::vfl::masked_message_bytes(out.header.k_items, out.header.d),
                      "length is not the formula");
    // The box is deterministic for a given round: what opens is canonical.
    std::vector<uint8_t> again;
    std::string err;
    p2b_fuzz::require(
        p2b::vfl::seal_masked_message(out.header, out.values.data(), fv::party_key().sk,
                                      fv::ap_key().pk, &again, &err),
        "re-sealing an accepted message");
    p2b_fuzz::require(again.size() == in.size && std::memcmp(again.data(), in.data, in.size) == 0,
                      "re-sealing gives other bytes");
    e.last_round_id = out.header.round_id;
    p2b_fuzz::require(
        p2b::vfl::open_masked_message(in.data, in.size, fv::ap_key().sk, fv::party_key().pk, e,
                                      &out) == MessageStatus::replayed,
        "a message accepted twice");
    return 0;
  }
  if (in.size < p2b::vfl::kMaskedPrefixBytes) return 0;
  const uint8_t* plain = in.data + p2b::vfl::kMaskedPrefixBytes;
  const size_t plain_len = in.size - p2b::vfl::kMaskedPrefixBytes;
  if (in.mode == 2 && plain_len >= p2b::vfl::kMaskedHeaderBytes) {
    e.k_items = p2b::server::wire::get_u32(plain + 60);
    e.d = p2b::server::wire::get_u32(plain + 64);
  }
  if (p2b::vfl::check_masked_plaintext(in.data, plain, plain_len, e, &out) == MessageStatus::ok) {
    check_accepted(out, e);
  }
  return 0;
}
