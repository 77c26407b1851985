// The P-FCB posting (docs/formats.md, "P-FCB posting (P2BX)"): one agent's
// Share, sealed under the consortium's AEAD key and signed by the agent, as
// the relay stores and forwards it byte for byte.
//
//   frame = "P2BX" | varint(len) | Posting (nanopb) | Ed25519 signature[64]
//           by the sender over every byte before it
//   Posting.sealed_share = XChaCha20-Poly1305(consortium key, Share body,
//           nonce = Posting.nonce (24 random bytes),
//           AD = "P2BX" | u32le format | consortium_fp | sender_fp | u32le release)
//
// Every field is fixed-width and required, so a deployment's m fixes the
// frame's length (posting_wire_size): the length says nothing but m.
//
// Two readers: the relay, which holds no consortium key and checks only the
// frame and its signature (verify_posting_signature), and the agents, which
// also open the share (open_posting).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace p2b {
struct CmabShare;
}

namespace p2b::pfcb {

constexpr std::size_t kMagicBytes = 4;
constexpr std::size_t kFpBytes = 16;         // BLAKE2b-128
constexpr std::size_t kNonceBytes = 24;      // XChaCha20-Poly1305
constexpr std::size_t kTagBytes = 16;        // Poly1305
constexpr std::size_t kSignatureBytes = 64;  // Ed25519, detached
constexpr std::size_t kConsortiumKeyBytes = 32;
constexpr std::size_t kVerifyKeyBytes = 32;  // Ed25519 public key
constexpr std::size_t kSignKeyBytes = 64;    // Ed25519 secret key (seed | public key)
constexpr uint32_t kPostingFormat = 1;
constexpr uint32_t kMaxProducers = 64;  // = kCmabMaxProducers

// The Share body's length at m producers (= cmab_share_encoded_size(m)),
// the encoded Posting's (without its delimiting varint), and the whole
// frame's. All 0 for m = 0 or m > 64.
std::size_t share_body_size(uint32_t m);
std::size_t posting_message_size(uint32_t m);
std::size_t posting_wire_size(uint32_t m);

// The consortium fingerprint: BLAKE2b-128 keyed with the consortium key over
// a fixed label, so it names the key without being a hash of it that a
// guess could be checked against.
bool consortium_fingerprint(const uint8_t* consortium_key, uint8_t* fp);
// BLAKE2b-128 of an Ed25519 verify key: the fingerprint p2b-keygen prints.
bool sender_fingerprint(const uint8_t* verify_pk, uint8_t* fp);

// Why a posting was refused; each has its own name (posting_status_name),
// which also starts the text written to `err`. In the order the checks run.
enum class PostingStatus {
  ok,
  wrong_length,         // not posting_wire_size(m) bytes
  bad_magic,            // not "P2BX"
  decode_error,         // delimiting, protobuf, or not the one canonical encoding
  wrong_format,         // Posting.format other than 1
  consortium_mismatch,  // consortium_fp other than the expected consortium's
  unknown_sender,       // sender_fp names no member
  bad_signature,        // the member's signature does not verify
  bad_release,          // release 0 (releases are 1-based)
  aead_failed,          // the share does not open under the consortium key and this AD
  bad_share,            // the opened body is not a valid Share (cmab_share_decode)
  share_mismatch,       // the Share's m or release is not the posting's
};

const char* posting_status_name(PostingStatus s);

using VerifyKey = std::array<uint8_t, kVerifyKeyBytes>;

// The consortium's members, in the order of the members file: a member's
// position is the sender index CmabAgent::apply_share takes.
class Members {
 public:
  Members() = default;
  explicit Members(const std::vector<VerifyKey>& keys);
  // The member whose key has fingerprint `fp`: writes its key and index.
  bool find(const uint8_t* fp, VerifyKey* key, uint32_t* index) const;
  std::size_t size() const { return members_.size(); }
  const uint8_t* fingerprint(std::size_t i) const { return members_[i].fp.data(); }
  const VerifyKey& key(std::size_t i) const { return members_[i].key; }

 private:
  struct Member {
    std::array<uint8_t, kFpBytes> fp{};
    VerifyKey key{};
  };
  std::vector<Member> members_;
};

// The clear fields of a posting that passed the relay's checks.
struct PostingHeader {
  uint8_t consortium_fp[kFpBytes] = {};
  uint8_t sender_fp[kFpBytes] = {};
  uint32_t release = 0;
  uint32_t sender_index = 0;  // the member's position
};

// The relay's check: length (first, before any parsing), magic, canonical
// decoding, format, consortium, member and signature, release >= 1. No
// AEAD key is needed or used. `out` is written only on ok; otherwise `err`
// (if given) gets "<status name>: <detail>".
PostingStatus verify_posting_signature(const uint8_t* bytes, std::size_t len, uint32_t m,
                                       const uint8_t* consortium_fp, const Members& members,
                                       PostingHeader* out, std::string* err);

// Byte level: seal any body of share_body_size(m) bytes for release z, and
// open one back. open_posting_body runs every check of
// verify_posting_signature, then the AEAD; `body` and `header` are written
// only on ok.
bool seal_posting_body(const uint8_t* body, std::size_t body_len, uint32_t m, uint32_t release,
                       const uint8_t* sign_sk, const uint8_t* consortium_key,
                       std::vector<uint8_t>* out, std::string* err);
PostingStatus open_posting_body(const uint8_t* bytes, std::size_t len, uint32_t m,
                                const uint8_t* consortium_key, const Members& members,
                                std::vector<uint8_t>* body, PostingHeader* header,
                                std::string* err);

// Share level: what an agent sends and applies. seal_posting refuses a
// share that cmab_share_encode refuses; `out` is untouched on failure.
// open_posting adds the body's checks (bad_share, share_mismatch); `out` and
// `sender_index` are written only on ok.
bool seal_posting(const CmabShare& share, const uint8_t* sign_sk, const uint8_t* consortium_key,
                  std::vector<uint8_t>* out, std::string* err);
PostingStatus open_posting(const uint8_t* bytes, std::size_t len, const Members& members,
                           const uint8_t* consortium_key, uint32_t m, CmabShare* out,
                           uint32_t* sender_index, std::string* err);

}  // namespace p2b::pfcb
