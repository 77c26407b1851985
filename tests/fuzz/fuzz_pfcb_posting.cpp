// An agent's opener of P-FCB postings, p2b::pfcb::open_posting, on
// untrusted bytes, at the fixture's deployment (pfcb_fixture.hpp: m = 4,
// three members). Mode (first byte % 2): 0 the rest is a posting as the
// relay forwards it; 1 the rest is a Share body (cut or zero-padded to
// m = 4's length), which the harness seals and signs as member 0 for
// release 1, so that the body decoder behind the AEAD is reached.
// Invariants: the relay's check agrees with the opener's first checks; an
// accepted share has the deployment's m and the posting's release, came
// from a member, and seals and opens again to the same share.
#include <cstring>
#include <string>
#include <vector>

#include "p2b/cmab.hpp"
#include "pfcb_fixture.hpp"

namespace {

namespace pw = p2b::pfcb;
namespace pf = p2b_fuzz::pfcb;
using p2b_fuzz::require;

bool same(const p2b::CmabShare& a, const p2b::CmabShare& b) {
  return a.producers == b.producers && a.release == b.release && a.round == b.round &&
         std::memcmp(&a.release_epsilon, &b.release_epsilon, sizeof(double)) == 0 &&
         std::memcmp(a.w_noisy, b.w_noisy, sizeof a.w_noisy) == 0 &&
         std::memcmp(a.y_noisy, b.y_noisy, sizeof a.y_noisy) == 0;
}

void open_and_check(const uint8_t* data, size_t size) {
  p2b::CmabShare share;
  share.round = 0xFEEDFACE;
  uint32_t sender = 0xFFFFFFFF;
  std::string err;
  const pw::PostingStatus st = pw::open_posting(data, size, pf::members(), pf::consortium_key(),
                                                pf::kProducers, &share, &sender, &err);
  pw::PostingHeader h;
  const pw::PostingStatus relay = pw::verify_posting_signature(
      data, size, pf::kProducers, pf::consortium_fp(), pf::members(), &h, nullptr);
  const bool relay_checks = st <= pw::PostingStatus::bad_release;
  require(relay_checks ? relay == st : relay == pw::PostingStatus::ok,
          "the relay's check and the opener's disagree");
  if (st != pw::PostingStatus::ok) {
    require(share.round == 0xFEEDFACE && sender == 0xFFFFFFFF, "a refusal wrote its output");
    require(err.rfind(pw::posting_status_name(st), 0) == 0, "the error does not name the status");
    return;
  }
  require(size == pw::posting_wire_size(pf::kProducers), "accepted another length");
  require(share.producers == pf::kProducers, "accepted another m");
  require(share.release == h.release && share.release >= 1, "accepted a release mismatch");
  require(sender < pf::kMembers && sender == h.sender_index, "accepted a sender out of range");
  std::vector<uint8_t> again;
  require(pw::seal_posting(share, pf::member_sign_sk(sender), pf::consortium_key(), &again, &err),
          "an accepted share does not seal again");
  p2b::CmabShare reopened;
  uint32_t sender2 = 0;
  require(pw::open_posting(again.data(), again.size(), pf::members(), pf::consortium_key(),
                           pf::kProducers, &reopened, &sender2, &err) == pw::PostingStatus::ok,
          "an accepted share, sealed again, is refused");
  require(sender2 == sender && same(reopened, share), "a share changes through a round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)p2b_fuzz::keys();
  if (size == 0) return 0;
  if (data[0] % 2 == 0) {
    open_and_check(data + 1, size - 1);
    return 0;
  }
  std::vector<uint8_t> body(data + 1, data + size);
  body.resize(pw::share_body_size(pf::kProducers), 0);
  std::vector<uint8_t> posting;
  std::string err;
  require(pw::seal_posting_body(body.data(), body.size(), pf::kProducers, 1, pf::member_sign_sk(0),
                                pf::consortium_key(), &posting, &err),
          "sealing a body of the right length");
  open_and_check(posting.data(), posting.size());
  return 0;
}
