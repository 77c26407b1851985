#include "common/http_errors.hpp"

#include <httplib.h>

#include <nlohmann/json.hpp>

namespace p2b::common {

std::string error_body(const std::string& code, const std::string& detail) {
  nlohmann::ordered_json body;
  body["error"] = code;
  body["detail"] = detail;
  return body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void set_error(httplib::Response& res, int status, const std::string& code,
               const std::string& detail) {
  res.status = status;
  res.set_content(error_body(code, detail), "application/json");
}

std::string code_for_status(int status) {
  switch (status) {
    case 400:
      return "bad_request";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 408:
      return "request_timeout";
    case 411:
      return "length_required";
    case 413:
      return "too_large";
    case 414:
      return "uri_too_long";
    case 415:
      return "unsupported_encoding";
    case 431:
      return "headers_too_large";
    default:
      return "http_" + std::to_string(status);
  }
}

}  // namespace p2b::common
