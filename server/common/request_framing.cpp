#include "common/request_framing.hpp"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace p2b::common {

namespace {

bool is_identity(const std::string& value) {
  static const std::string kIdentity = "identity";
  return value.size() == kIdentity.size() &&
         std::equal(value.begin(), value.end(), kIdentity.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         });
}

// A Content-Length as RFC 9110 spells it: decimal digits only.
bool parse_length(const std::string& text, uint64_t* out) {
  if (text.empty() || text.size() > 18) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

bool carries_body(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE" ||
         method == "PRI";
}

FramingRefusal refusal(int status, HttpRefusal reason, std::string code, std::string detail) {
  return FramingRefusal{status, reason, std::move(code), std::move(detail)};
}

}  // namespace

std::optional<FramingRefusal> check_framing(const httplib::Request& req, std::size_t max_body) {
  if (req.has_header("Transfer-Encoding")) {
    return refusal(411, HttpRefusal::length_required, "length_required",
                   "Transfer-Encoding (chunked) is refused; send the body with a Content-Length");
  }
  const auto encodings = req.headers.equal_range("Content-Encoding");
  for (auto it = encodings.first; it != encodings.second; ++it) {
    if (!is_identity(it->second)) {
      return refusal(415, HttpRefusal::unsupported_encoding, "unsupported_encoding",
                     "Content-Encoding is refused; send the body uncompressed");
    }
  }
  const std::size_t lengths = req.get_header_value_count("Content-Length");
  uint64_t length = 0;
  if (lengths > 1 ||
      (lengths == 1 && !parse_length(req.get_header_value("Content-Length"), &length))) {
    return refusal(400, HttpRefusal::bad_framing, "bad_request",
                   "expected one Content-Length of decimal digits");
  }
  if (carries_body(req.method)) {
    if (lengths == 0) {
      return refusal(411, HttpRefusal::length_required, "length_required",
                     "a " + req.method + " needs a Content-Length");
    }
    if (length > max_body) {
      // The service words this one (the shuffler counts it), so no code here.
      return refusal(413, HttpRefusal::body_too_large, "", "");
    }
  } else if (length > 0) {
    return refusal(400, HttpRefusal::bad_framing, "bad_request",
                   "a " + req.method + " carries no body");
  }
  return std::nullopt;
}

}  // namespace p2b::common
