#include "pfcb/read_auth.hpp"

#include <sodium.h>

#include <cstring>

namespace p2b::pfcb {

namespace {

constexpr char kReadDomain[] = "P2B-PFCB-READ-v1";
constexpr std::size_t kDomainBytes = sizeof kReadDomain - 1;
static_assert(kDomainBytes == 16, "the read message's domain is 16 bytes");
static_assert(kDomainBytes + 3 * kFpBytes + 8 + 4 + 1 + 8 == kReadMessageBytes,
              "the read message's layout");

uint8_t* put_le(uint8_t* at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) *at++ = static_cast<uint8_t>(v >> (8 * i));
  return at;
}

std::string to_hex(const uint8_t* bytes, std::size_t n) {
  std::string hex(2 * n + 1, '\0');
  sodium_bin2hex(hex.data(), hex.size(), bytes, n);
  hex.pop_back();
  return hex;
}

}  // namespace

const char* read_auth_status_name(ReadAuthStatus s) {
  switch (s) {
    case ReadAuthStatus::ok:
      return "ok";
    case ReadAuthStatus::missing_auth:
      return "missing_auth";
    case ReadAuthStatus::malformed_auth:
      return "malformed_auth";
    case ReadAuthStatus::stale:
      return "stale";
    case ReadAuthStatus::bad_signature:
      return "bad_signature";
    case ReadAuthStatus::unknown_reader:
      return "unknown_reader";
  }
  return "unknown";
}

std::array<uint8_t, kReadMessageBytes> read_message(const uint8_t* consortium_fp,
                                                    const uint8_t* reader_fp, const ListQuery& q,
                                                    uint64_t time_us) {
  std::array<uint8_t, kReadMessageBytes> m{};
  uint8_t* at = m.data();
  std::memcpy(at, kReadDomain, kDomainBytes);
  at += kDomainBytes;
  std::memcpy(at, consortium_fp, kFpBytes);
  at += kFpBytes;
  std::memcpy(at, reader_fp, kFpBytes);
  at += kFpBytes;
  at = put_le(at, q.after, 8);
  at = put_le(at, q.limit, 4);
  *at++ = q.exclude ? 1 : 0;
  if (q.exclude) std::memcpy(at, q.exclude_fp, kFpBytes);
  at += kFpBytes;
  put_le(at, time_us, 8);
  return m;
}

ReadAuthStatus verify_read(const ReadAuth& auth, const ListQuery& q, const uint8_t* consortium_fp,
                           const Members& members, uint64_t now_us, uint8_t* reader_fp) {
  const uint64_t gap = auth.time_us > now_us ? auth.time_us - now_us : now_us - auth.time_us;
  if (gap > kReadWindowMicros) return ReadAuthStatus::stale;
  uint8_t fp[kFpBytes];
  if (!sender_fingerprint(auth.reader.data(), fp)) return ReadAuthStatus::bad_signature;
  const auto message = read_message(consortium_fp, fp, q, auth.time_us);
  if (crypto_sign_verify_detached(auth.signature.data(), message.data(), message.size(),
                                  auth.reader.data()) != 0) {
    return ReadAuthStatus::bad_signature;
  }
  VerifyKey key{};
  uint32_t index = 0;
  if (!members.find(fp, &key, &index) || key != auth.reader) return ReadAuthStatus::unknown_reader;
  std::memcpy(reader_fp, fp, kFpBytes);
  return ReadAuthStatus::ok;
}

bool sign_read(const ListQuery& q, const uint8_t* consortium_fp, uint64_t time_us,
               const uint8_t* sign_sk, std::multimap<std::string, std::string>* headers) {
  const uint8_t* verify_key = sign_sk + kSignKeyBytes - kVerifyKeyBytes;
  uint8_t fp[kFpBytes];
  if (!sender_fingerprint(verify_key, fp)) return false;
  const auto message = read_message(consortium_fp, fp, q, time_us);
  uint8_t signature[kSignatureBytes];
  if (crypto_sign_detached(signature, nullptr, message.data(), message.size(), sign_sk) != 0) {
    return false;
  }
  headers->erase(kReaderHeader);
  headers->erase(kReadTimeHeader);
  headers->erase(kReadSignatureHeader);
  headers->emplace(kReaderHeader, to_hex(verify_key, kVerifyKeyBytes));
  headers->emplace(kReadTimeHeader, std::to_string(time_us));
  headers->emplace(kReadSignatureHeader, to_hex(signature, kSignatureBytes));
  return true;
}

}  // namespace p2b::pfcb
