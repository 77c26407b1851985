#include "pfcb/relay_requests.hpp"

#include <algorithm>
#include <cstring>
#include <set>
#include <utility>

namespace p2b::pfcb {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool parse_hex(const std::string& hex, uint8_t* out, std::size_t n) {
  if (hex.size() != 2 * n) return false;
  for (std::size_t i = 0; i < n; ++i) {
    const int hi = hex_value(hex[2 * i]);
    const int lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return true;
}

// Decimal digits only, no sign, no leading '+', at most u64.
bool parse_decimal(const std::string& s, uint64_t hi, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    const auto d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  if (v > hi) return false;
  *out = v;
  return true;
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

}  // namespace

bool parse_fingerprint_hex(const std::string& hex, uint8_t* fp) {
  uint8_t tmp[kFpBytes];
  if (!parse_hex(hex, tmp, kFpBytes)) return false;
  std::memcpy(fp, tmp, kFpBytes);
  return true;
}

std::string fingerprint_hex(const uint8_t* fp) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s(2 * kFpBytes, '0');
  for (std::size_t i = 0; i < kFpBytes; ++i) {
    s[2 * i] = kDigits[fp[i] >> 4];
    s[2 * i + 1] = kDigits[fp[i] & 15];
  }
  return s;
}

bool parse_list_query(const std::multimap<std::string, std::string>& params, uint32_t max_batch,
                      ListQuery* out, std::string* why) {
  ListQuery q;
  q.limit = std::min(kDefaultBatch, max_batch);
  for (const auto& [name, value] : params) {
    if (params.count(name) != 1) {
      *why = "repeated parameter " + name;
      return false;
    }
    uint64_t v = 0;
    if (name == "after") {
      if (!parse_decimal(value, UINT64_MAX, &v)) {
        *why = "after: expected a decimal cursor";
        return false;
      }
      q.after = v;
    } else if (name == "exclude") {
      if (!parse_fingerprint_hex(value, q.exclude_fp)) {
        *why = "exclude: expected 32 hex digits";
        return false;
      }
      q.exclude = true;
    } else if (name == "limit") {
      if (!parse_decimal(value, max_batch, &v) || v == 0) {
        *why = "limit: expected 1.." + std::to_string(max_batch);
        return false;
      }
      q.limit = static_cast<uint32_t>(v);
    } else {
      *why = "unknown parameter";
      return false;
    }
  }
  *out = q;
  return true;
}

std::string list_path(const ListQuery& q) {
  std::string path = "/v1/pfcb/postings?after=" + std::to_string(q.after);
  if (q.exclude) path += "&exclude=" + fingerprint_hex(q.exclude_fp);
  return path + "&limit=" + std::to_string(q.limit);
}

ReadAuthParse parse_read_auth(const std::multimap<std::string, std::string>& headers,
                              ReadAuth* out) {
  if (headers.empty()) return ReadAuthParse::missing;
  if (headers.size() != 3) return ReadAuthParse::malformed;
  const auto one = [&headers](const char* name) -> const std::string* {
    const auto it = headers.find(name);
    return it == headers.end() || headers.count(name) != 1 ? nullptr : &it->second;
  };
  const std::string* reader = one(kReaderHeader);
  const std::string* time = one(kReadTimeHeader);
  const std::string* signature = one(kReadSignatureHeader);
  ReadAuth a;
  if (reader == nullptr || time == nullptr || signature == nullptr ||
      !parse_hex(*reader, a.reader.data(), a.reader.size()) ||
      !parse_decimal(*time, UINT64_MAX, &a.time_us) ||
      !parse_hex(*signature, a.signature.data(), a.signature.size())) {
    return ReadAuthParse::malformed;
  }
  *out = a;
  return ReadAuthParse::ok;
}

bool parse_members(const std::string& text, std::vector<VerifyKey>* out, std::string* why) {
  std::vector<VerifyKey> keys;
  std::set<VerifyKey> seen;
  std::size_t line_no = 0;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = trim(text.substr(at, end - at));
    at = end + 1;
    ++line_no;
    if (line.empty() || line[0] == '#') {
      if (end == text.size()) break;
      continue;
    }
    VerifyKey k{};
    if (!parse_hex(line, k.data(), k.size())) {
      *why = "line " + std::to_string(line_no) + ": expected 64 hex digits (an Ed25519 verify key)";
      return false;
    }
    if (!seen.insert(k).second) {
      *why = "line " + std::to_string(line_no) + ": a key listed twice";
      return false;
    }
    if (keys.size() == kMaxMembers) {
      *why = "more than " + std::to_string(kMaxMembers) + " members";
      return false;
    }
    keys.push_back(k);
    if (end == text.size()) break;
  }
  if (keys.empty()) {
    *why = "no member key";
    return false;
  }
  *out = std::move(keys);
  return true;
}

}  // namespace p2b::pfcb
