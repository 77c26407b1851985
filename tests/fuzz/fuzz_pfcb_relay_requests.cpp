// What p2b-relay parses from outside (server/pfcb/relay_requests.hpp and the
// relay's posting check). Mode (first byte % 4): 0 the rest is a query
// string, split on '&' and '=' as the HTTP layer would, for
// parse_list_query; 1 the rest is a members file for parse_members; 2 the
// rest is a POST body for verify_posting_signature at the fixture's
// deployment (m = 4, three members); 3 the rest is header lines
// ("Name: value", split on '\n' and the first ':') for parse_read_auth.
// Nothing may crash, and what is accepted must have the documented shape.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "pfcb/relay_requests.hpp"
#include "pfcb_fixture.hpp"

namespace {

namespace pw = p2b::pfcb;
namespace pf = p2b_fuzz::pfcb;
using p2b_fuzz::require;

void fuzz_query(const std::string& text) {
  std::multimap<std::string, std::string> params;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t end = std::min(text.find('&', at), text.size());
    const std::string pair = text.substr(at, end - at);
    const std::size_t eq = pair.find('=');
    params.emplace(pair.substr(0, eq), eq == std::string::npos ? "" : pair.substr(eq + 1));
    at = end + 1;
  }
  for (const uint32_t max_batch : {uint32_t{1}, uint32_t{64}, pw::kMaxBatch}) {
    pw::ListQuery q;
    q.limit = 0xFFFFFFFF;
    std::string why;
    if (pw::parse_list_query(params, max_batch, &q, &why)) {
      require(q.limit >= 1 && q.limit <= max_batch, "accepted a limit out of range");
      for (const auto& p : params) {
        require(p.first == "after" || p.first == "exclude" || p.first == "limit",
                "accepted an unknown parameter");
        require(params.count(p.first) == 1, "accepted a repeated parameter");
      }
      require(q.exclude == (params.count("exclude") == 1), "exclude set without the parameter");
      if (q.exclude) {
        require(pw::fingerprint_hex(q.exclude_fp).size() == 32, "fingerprint_hex");
      }
    } else {
      require(!why.empty(), "a refusal without a reason");
      require(q.limit == 0xFFFFFFFF, "a refused query wrote its output");
    }
  }
}

void fuzz_members(const std::string& text) {
  std::vector<pw::VerifyKey> keys;
  std::string why;
  if (pw::parse_members(text, &keys, &why)) {
    require(!keys.empty() && keys.size() <= pw::kMaxMembers, "accepted a member count");
    require(std::set<pw::VerifyKey>(keys.begin(), keys.end()).size() == keys.size(),
            "accepted a repeated key");
  } else {
    require(keys.empty(), "a refused members file wrote its output");
  }
}

void fuzz_posting(const uint8_t* data, size_t size) {
  pw::PostingHeader h;
  h.release = 0xFFFFFFFF;
  const pw::PostingStatus st = pw::verify_posting_signature(
      data, size, pf::kProducers, pf::consortium_fp(), pf::members(), &h, nullptr);
  if (st == pw::PostingStatus::ok) {
    require(size == pw::posting_wire_size(pf::kProducers), "accepted another length");
    require(h.release >= 1, "accepted release 0");
    require(h.sender_index < pf::kMembers, "accepted an index beyond the members");
    require(std::memcmp(h.sender_fp, pf::members().fingerprint(h.sender_index), pw::kFpBytes) == 0,
            "the index is not the sender's");
  } else {
    require(h.release == 0xFFFFFFFF, "a refused posting wrote its header");
  }
}

void fuzz_read_auth(const std::string& text) {
  std::multimap<std::string, std::string> headers;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    const std::size_t colon = line.find(':');
    const std::size_t value = colon == std::string::npos ? line.size() : colon + 1;
    headers.emplace(line.substr(0, colon), line.substr(std::min(value + 1, line.size())));
    at = end + 1;
  }
  pw::ReadAuth a;
  a.time_us = 0xFEEDFACE;
  const pw::ReadAuthParse st = pw::parse_read_auth(headers, &a);
  require((st == pw::ReadAuthParse::missing) == headers.empty(), "missing is no header at all");
  if (st == pw::ReadAuthParse::ok) {
    require(headers.size() == 3, "accepted a header count");
    for (const char* name : {pw::kReaderHeader, pw::kReadTimeHeader, pw::kReadSignatureHeader}) {
      require(headers.count(name) == 1, "accepted without one of the three, or twice");
    }
    require(headers.find(pw::kReaderHeader)->second.size() == 2 * pw::kVerifyKeyBytes,
            "accepted a key of another length");
    require(headers.find(pw::kReadSignatureHeader)->second.size() == 2 * pw::kSignatureBytes,
            "accepted a signature of another length");
    require(std::to_string(a.time_us) == headers.find(pw::kReadTimeHeader)->second ||
                headers.find(pw::kReadTimeHeader)->second.front() == '0',
            "the time is not the header's number");
  } else {
    require(a.time_us == 0xFEEDFACE, "a refused read wrote its output");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)p2b_fuzz::keys();
  if (size == 0) return 0;
  const uint8_t mode = data[0] % 4;
  const std::string rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if (mode == 0) fuzz_query(rest);
  if (mode == 1) fuzz_members(rest);
  if (mode == 2) fuzz_posting(data + 1, size - 1);
  if (mode == 3) fuzz_read_auth(rest);
  return 0;
}
