// The one error body of every service: every 4xx and 5xx answer carries
//   {"error":"<code>","detail":"<sentence for a person>"}
// with Content-Type application/json. `error` is a stable snake_case code
// for programs; `detail` may change between versions.
#pragma once

#include <string>

namespace httplib {
struct Response;
}

namespace p2b::common {

std::string error_body(const std::string& code, const std::string& detail);

// Sets the status and the error body.
void set_error(httplib::Response& res, int status, const std::string& code,
               const std::string& detail);

// The code for an answer httplib or BoundedServer gives on its own
// (bad_request, not_found, method_not_allowed, request_timeout,
// length_required, too_large, uri_too_long, unsupported_encoding,
// headers_too_large, else http_<status>).
std::string code_for_status(int status);

}  // namespace p2b::common
