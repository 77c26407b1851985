// What BoundedServer refuses once a request's head is parsed and before its
// body is read. Nothing is ever decoded: a body must come whole, with one
// Content-Length within max-body, and without a Content-Encoding other than
// identity (httplib would otherwise inflate gzip and brotli bodies without
// bound, and de-chunk a body past max-body).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "common/http_limits.hpp"

namespace httplib {
struct Request;
}

namespace p2b::common {

struct FramingRefusal {
  int status = 400;
  HttpRefusal reason = HttpRefusal::bad_framing;
  std::string code;  // for the error body
  std::string detail;
};

// Empty if the request may be read.
std::optional<FramingRefusal> check_framing(const httplib::Request& req, std::size_t max_body);

}  // namespace p2b::common
