// The share-level half of the posting format: the device core's codec
// (cmab_share_encode / _decode) around the byte-level seal and open. In its
// own file so that a reader of the byte level alone (the relay) does not
// pull in the core's agent.
#include <sodium.h>

#include <vector>

#include "p2b/cmab.hpp"
#include "pfcb/wire/pfcb_wire.hpp"

namespace p2b::pfcb {

bool seal_posting(const CmabShare& share, const uint8_t* sign_sk, const uint8_t* consortium_key,
                  std::vector<uint8_t>* out, std::string* err) {
  const std::size_t size = share_body_size(share.producers);
  if (size == 0 || size != cmab_share_encoded_size(share.producers)) {
    if (err != nullptr) *err = "the share's m is not in 1..64";
    return false;
  }
  std::vector<uint8_t> body(size);
  std::size_t written = 0;
  if (cmab_share_encode(share, body.data(), body.size(), &written) != Status::ok ||
      written != size) {
    if (err != nullptr) *err = "the share does not encode (cmab_share_encode refused it)";
    return false;
  }
  const bool ok = seal_posting_body(body.data(), body.size(), share.producers, share.release,
                                    sign_sk, consortium_key, out, err);
  sodium_memzero(body.data(), body.size());
  return ok;
}

PostingStatus open_posting(const uint8_t* bytes, std::size_t len, const Members& members,
                           const uint8_t* consortium_key, uint32_t m, CmabShare* out,
                           uint32_t* sender_index, std::string* err) {
  if (out == nullptr || sender_index == nullptr) {
    if (err != nullptr) *err = "bad_share: no output";
    return PostingStatus::bad_share;
  }
  std::vector<uint8_t> body;
  PostingHeader header;
  const PostingStatus st =
      open_posting_body(bytes, len, m, consortium_key, members, &body, &header, err);
  if (st != PostingStatus::ok) return st;
  CmabShare share;
  const Status decoded = cmab_share_decode(body.data(), body.size(), &share);
  sodium_memzero(body.data(), body.size());
  if (decoded != Status::ok) {
    if (err != nullptr) *err = "bad_share: cmab_share_decode refused the body";
    return PostingStatus::bad_share;
  }
  // The clear fields must say what the sealed share says: the relay orders
  // and deduplicates by the clear release, the agent applies the sealed one.
  if (share.producers != m || share.release != header.release) {
    if (err != nullptr) *err = "share_mismatch: the share's m or release is not the posting's";
    return PostingStatus::share_mismatch;
  }
  *out = share;
  *sender_index = header.sender_index;
  return PostingStatus::ok;
}

}  // namespace p2b::pfcb
