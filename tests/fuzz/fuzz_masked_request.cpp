// A passive party's opener of P2BR requests, p2b::vfl::open_masked_request,
// on untrusted bytes. Mode (first byte % 2): 0 the rest is a request as
// received by party 1 from the fixture's active party, nothing answered
// yet; 1 the rest is the 16-byte clear prefix and the plaintext of the box
// (check_request_plaintext, what the box hides).
#include <cstring>

#include "vfl/masked_request.hpp"
#include "vfl_fixture.hpp"
#include "wire/le_bytes.hpp"

namespace {

namespace fv = p2b_fuzz::vfl;
using p2b::vfl::RequestStatus;

// What an accepted request must hold: the prefix's party and round (the
// prefix itself is checked against the expected party by the opener).
void check_accepted(const p2b::vfl::MaskedRequest& r, const uint8_t* prefix) {
  p2b_fuzz::require(r.party_index == p2b::server::wire::get_u32(prefix + 4) &&
                        r.round_id == p2b::server::wire::get_u64(prefix + 8),
                    "accepted another party or round than the prefix's");
  p2b_fuzz::require(!r.item_ids.empty() && r.item_ids.size() <= p2b::vfl::kMaxMaskedItems,
                    "accepted an item count out of range");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)p2b_fuzz::keys();
  p2b_fuzz::Input in{};
  if (!p2b_fuzz::split_mode(data, size, 2, &in)) return 0;
  p2b::vfl::MaskedRequest out;
  if (in.mode == 0) {
    const RequestStatus st = p2b::vfl::open_masked_request(in.data, in.size, fv::party_key().sk,
                                                           fv::ap_key().pk, fv::kParty, 0, &out);
    if (st != RequestStatus::ok) return 0;
    check_accepted(out, in.data);
    p2b_fuzz::require(out.party_index == fv::kParty, "accepted a request for another party");
    p2b_fuzz::require(
        in.size == p2b::vfl::masked_request_bytes(static_cast<uint32_t>(out.item_ids.size())),
        "length is not the formula");
    // The box is deterministic for a given round: what opens is canonical.
    std::vector<uint8_t> again;
    std::string err;
    p2b_fuzz::require(
        p2b::vfl::seal_masked_request(out, fv::ap_key().sk, fv::party_key().pk, &again, &err),
        "re-sealing an accepted request");
    p2b_fuzz::require(again.size() == in.size && std::memcmp(again.data(), in.data, in.size) == 0,
                      "re-sealing gives other bytes");
    p2b_fuzz::require(
        p2b::vfl::open_masked_request(in.data, in.size, fv::party_key().sk, fv::ap_key().pk,
                                      fv::kParty, out.round_id, &out) == RequestStatus::replayed,
        "a request answered twice");
    return 0;
  }
  if (in.size < p2b::vfl::kRequestPrefixBytes) return 0;
  const RequestStatus st =
      p2b::vfl::check_request_plaintext(in.data, in.data + p2b::vfl::kRequestPrefixBytes,
                                        in.size - p2b::vfl::kRequestPrefixBytes, &out);
  if (st != RequestStatus::ok) return 0;
  check_accepted(out, in.data);
  p2b_fuzz::require(in.size - p2b::vfl::kRequestPrefixBytes ==
                        p2b::vfl::kRequestHeaderBytes + 4 * out.item_ids.size(),
                    "plaintext length is not the formula");
  return 0;
}
