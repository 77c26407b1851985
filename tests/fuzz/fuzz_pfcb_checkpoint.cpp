// A P-FCB peer's checkpoint file (server/pfcb/peer_checkpoint.hpp), which a
// restarted agent reads from its own disk. Mode (first byte % 2):
//   0: the rest is the file as read, opened under the fixed state key;
//   1: the rest is a body, sealed here under that key first, so the body
//      decoder behind the AEAD is fuzzed.
// Beyond "no crash": an accepted checkpoint re-encodes to exactly the body
// it came from (one encoding per checkpoint), its lengths are within bounds,
// and sealed again it opens to the same content.
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_fixture.hpp"
#include "pfcb/peer_checkpoint.hpp"

namespace {

namespace pfcb = p2b::pfcb;

const uint8_t* state_key() {
  return p2b_fuzz::keys().state_key;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  p2b_fuzz::Input in{};
  if (!p2b_fuzz::split_mode(data, size, 2, &in)) return 0;
  pfcb::Checkpoint c;
  std::string err;
  std::vector<uint8_t> body;
  bool ok = false;
  if (in.mode == 0) {
    // Exact-size copy, so ASan sees any read past it.
    const std::vector<uint8_t> file(in.data, in.data + in.size);
    ok = pfcb::open_checkpoint(file.data(), file.size(), state_key(), &c, &err);
  } else {
    body.assign(in.data, in.data + in.size);
    pfcb::Checkpoint plain;
    if (pfcb::decode_checkpoint_body(body.data(), body.size(), &plain, &err)) {
      std::vector<uint8_t> sealed;
      p2b_fuzz::require(pfcb::seal_checkpoint(plain, state_key(), &sealed), "seal");
      ok = pfcb::open_checkpoint(sealed.data(), sealed.size(), state_key(), &c, &err);
      p2b_fuzz::require(ok, "a decodable body, sealed, does not open");
    }
  }
  if (!ok) {
    p2b_fuzz::require(!err.empty(), "a refusal without a reason");
    return 0;
  }
  p2b_fuzz::require(!c.agent_state.empty() && c.postings.size() <= pfcb::kCheckpointMaxPostings,
                    "accepted lengths out of bounds");
  for (const pfcb::PendingPosting& p : c.postings) {
    p2b_fuzz::require(p.release != 0 && !p.bytes.empty(), "an empty posting accepted");
  }
  const std::vector<uint8_t> again = pfcb::encode_checkpoint_body(c);
  if (in.mode == 1) p2b_fuzz::require(again == body, "a body with two encodings");
  pfcb::Checkpoint twice;
  p2b_fuzz::require(pfcb::decode_checkpoint_body(again.data(), again.size(), &twice, &err) &&
                        twice.cursor == c.cursor && twice.agent_state == c.agent_state &&
                        twice.postings.size() == c.postings.size(),
                    "re-encoded checkpoint does not decode to itself");
  return 0;
}
