// What p2b-relay takes from outside besides postings (docs/pfcb-relay.md):
// the query of GET /v1/pfcb/postings, its signed-read headers and the
// members file. Parsed apart from
// the service so that a fuzz target reaches them without a store or a
// socket. Inputs are untrusted: anything but the documented shape is refused.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pfcb/wire/pfcb_wire.hpp"

namespace p2b::pfcb {

inline constexpr uint32_t kDefaultBatch = 64;     // postings per GET unless `limit` says fewer
inline constexpr uint32_t kMaxBatch = 1024;       // the most a GET returns
inline constexpr std::size_t kMaxMembers = 1024;  // = kCmabMaxPeers

struct ListQuery {
  uint64_t after = 0;  // postings with a store sequence number above this
  bool exclude = false;
  uint8_t exclude_fp[kFpBytes] = {};  // the asking agent's own sender_fp
  uint32_t limit = kDefaultBatch;     // 1..max_batch
};

// The query parameters as the HTTP layer decoded them (a name may repeat).
// Known names only (after, exclude, limit), each at most once: `after` a
// decimal u64 (default 0), `exclude` 32 hex digits, `limit` 1..max_batch.
// False with `why` set otherwise; `out` is written only on success.
bool parse_list_query(const std::multimap<std::string, std::string>& params, uint32_t max_batch,
                      ListQuery* out, std::string* why);

// The path of a GET for `q`, every field written out (limit too, so that
// what the client signs is what the relay reads whatever its default).
std::string list_path(const ListQuery& q);

// The headers of a signed read (read_auth.hpp says what is signed and why).
inline constexpr const char* kReaderHeader = "P2B-Reader";       // the verify key, 64 hex digits
inline constexpr const char* kReadTimeHeader = "P2B-Read-Time";  // unix microseconds, decimal
inline constexpr const char* kReadSignatureHeader = "P2B-Read-Signature";  // 128 hex digits

struct ReadAuth {
  VerifyKey reader{};
  uint64_t time_us = 0;
  std::array<uint8_t, kSignatureBytes> signature{};
};

enum class ReadAuthParse { ok, missing, malformed };
// `headers`: the request's values of the three headers above, under those
// names (the HTTP layer matches names without case; a name may repeat).
// None of them: missing. Each exactly once, the reader 64 hex digits, the
// time a decimal u64, the signature 128 hex digits: ok. Anything else (one
// or two of them, a repeat, another shape, another name): malformed. `out`
// is written only on ok.
ReadAuthParse parse_read_auth(const std::multimap<std::string, std::string>& headers,
                              ReadAuth* out);

// 32 lowercase or uppercase hex digits -> 16 bytes.
bool parse_fingerprint_hex(const std::string& hex, uint8_t* fp);
std::string fingerprint_hex(const uint8_t* fp);

// The members file: one Ed25519 verify key per line as 64 hex digits; blank
// lines and lines starting with '#' are skipped; surrounding spaces and a
// trailing '\r' are ignored. A key's position among the key lines is its
// sender index. Refused: any other line, a repeated key, no key, or more
// than kMaxMembers. `out` is written only on success.
bool parse_members(const std::string& text, std::vector<VerifyKey>* out, std::string* why);

}  // namespace p2b::pfcb
