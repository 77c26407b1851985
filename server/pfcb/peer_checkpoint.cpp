// The checkpoint format: its body codec and its sealing. The file I/O is in
// peer_checkpoint_file.cpp, so the fuzz target needs libsodium alone.
#include "pfcb/peer_checkpoint.hpp"

#include <sodium.h>

#include <cstring>

namespace p2b::pfcb {

namespace {

constexpr uint8_t kMagic[4] = {'P', '2', 'B', 'K'};
constexpr uint32_t kFormat = 1;
constexpr std::size_t kHeaderBytes = sizeof kMagic + 4;  // the associated data
constexpr std::size_t kNonceBytes = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
constexpr std::size_t kTagBytes = crypto_aead_xchacha20poly1305_ietf_ABYTES;

void put_u32(std::vector<uint8_t>* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_u64(std::vector<uint8_t>* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_bytes(std::vector<uint8_t>* out, const std::vector<uint8_t>& b) {
  put_u32(out, static_cast<uint32_t>(b.size()));
  out->insert(out->end(), b.begin(), b.end());
}

// Reads fields off a body, refusing any read past its end.
class Cursor {
 public:
  Cursor(const uint8_t* p, std::size_t len) : p_(p), left_(len) {}
  bool u32(uint32_t* v) {
    if (left_ < 4) return false;
    *v = 0;
    for (int i = 0; i < 4; ++i) *v |= static_cast<uint32_t>(p_[i]) << (8 * i);
    advance(4);
    return true;
  }
  bool u64(uint64_t* v) {
    if (left_ < 8) return false;
    *v = 0;
    for (int i = 0; i < 8; ++i) *v |= static_cast<uint64_t>(p_[i]) << (8 * i);
    advance(8);
    return true;
  }
  bool bytes(std::vector<uint8_t>* out) {
    uint32_t n = 0;
    if (!u32(&n) || n > left_) return false;
    out->assign(p_, p_ + n);
    advance(n);
    return true;
  }
  std::size_t left() const { return left_; }

 private:
  void advance(std::size_t n) {
    p_ += n;
    left_ -= n;
  }
  const uint8_t* p_;
  std::size_t left_;
};

}  // namespace

std::vector<uint8_t> encode_checkpoint_body(const Checkpoint& c) {
  std::vector<uint8_t> out;
  put_u64(&out, c.cursor);
  put_bytes(&out, c.agent_state);
  put_u32(&out, static_cast<uint32_t>(c.postings.size()));
  for (const PendingPosting& p : c.postings) {
    put_u32(&out, p.release);
    put_bytes(&out, p.bytes);
  }
  return out;
}

bool decode_checkpoint_body(const uint8_t* body, std::size_t len, Checkpoint* out,
                            std::string* err) {
  Checkpoint c;
  Cursor in(body, len);
  uint32_t n = 0;
  if (!in.u64(&c.cursor) || !in.bytes(&c.agent_state) || c.agent_state.empty() || !in.u32(&n)) {
    *err = "checkpoint: truncated header or agent state";
    return false;
  }
  // Each posting takes at least 8 bytes: a count beyond what is left is a lie.
  if (n > kCheckpointMaxPostings || n > in.left() / 8) {
    *err = "checkpoint: posting count out of range";
    return false;
  }
  c.postings.resize(n);
  for (PendingPosting& p : c.postings) {
    if (!in.u32(&p.release) || p.release == 0 || !in.bytes(&p.bytes) || p.bytes.empty()) {
      *err = "checkpoint: truncated or empty posting";
      return false;
    }
  }
  if (in.left() != 0) {
    *err = "checkpoint: trailing bytes";
    return false;
  }
  *out = std::move(c);
  return true;
}

bool seal_checkpoint(const Checkpoint& c, const uint8_t key[kStateKeyBytes],
                     std::vector<uint8_t>* out) {
  std::vector<uint8_t> body = encode_checkpoint_body(c);
  std::vector<uint8_t> file(kHeaderBytes + kNonceBytes + body.size() + kTagBytes);
  std::memcpy(file.data(), kMagic, sizeof kMagic);
  for (int i = 0; i < 4; ++i) file[sizeof kMagic + i] = static_cast<uint8_t>(kFormat >> (8 * i));
  uint8_t* nonce = file.data() + kHeaderBytes;
  randombytes_buf(nonce, kNonceBytes);
  unsigned long long sealed = 0;
  const int rc = crypto_aead_xchacha20poly1305_ietf_encrypt(nonce + kNonceBytes, &sealed,
                                                            body.data(), body.size(), file.data(),
                                                            kHeaderBytes, nullptr, nonce, key);
  sodium_memzero(body.data(), body.size());
  if (rc != 0) return false;
  *out = std::move(file);
  return true;
}

bool open_checkpoint(const uint8_t* file, std::size_t len, const uint8_t key[kStateKeyBytes],
                     Checkpoint* out, std::string* err) {
  if (len < kHeaderBytes + kNonceBytes + kTagBytes || len > kCheckpointMaxBytes ||
      std::memcmp(file, kMagic, sizeof kMagic) != 0) {
    *err = "checkpoint: not a checkpoint file";
    return false;
  }
  uint32_t format = 0;
  for (int i = 0; i < 4; ++i) format |= static_cast<uint32_t>(file[sizeof kMagic + i]) << (8 * i);
  if (format != kFormat) {
    *err = "checkpoint: format " + std::to_string(format) + " is not one this build reads";
    return false;
  }
  const uint8_t* nonce = file + kHeaderBytes;
  const std::size_t sealed = len - kHeaderBytes - kNonceBytes;
  std::vector<uint8_t> body(sealed - kTagBytes);
  unsigned long long opened = 0;
  if (crypto_aead_xchacha20poly1305_ietf_decrypt(body.data(), &opened, nullptr, nonce + kNonceBytes,
                                                 sealed, file, kHeaderBytes, nonce, key) != 0) {
    *err = "checkpoint: does not open under this state key (another key, or damaged)";
    return false;
  }
  const bool ok = decode_checkpoint_body(body.data(), body.size(), out, err);
  sodium_memzero(body.data(), body.size());
  return ok;
}

}  // namespace p2b::pfcb
