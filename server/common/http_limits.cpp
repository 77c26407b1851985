#include "common/http_limits.hpp"

#include <utility>
#include <vector>

#include "common/prometheus_text.hpp"

namespace p2b::common {

const char* http_refusal_label(HttpRefusal r) {
  switch (r) {
    case HttpRefusal::too_many_connections:
      return "too_many_connections";
    case HttpRefusal::idle_timeout:
      return "idle_timeout";
    case HttpRefusal::request_timeout:
      return "request_timeout";
    case HttpRefusal::headers_too_large:
      return "headers_too_large";
    case HttpRefusal::length_required:
      return "length_required";
    case HttpRefusal::unsupported_encoding:
      return "unsupported_encoding";
    case HttpRefusal::body_too_large:
      return "body_too_large";
    case HttpRefusal::bad_framing:
      return "bad_framing";
  }
  return "unknown";
}

void HttpCounters::render(PrometheusText& out, const std::string& prefix) const {
  std::vector<std::pair<std::string, uint64_t>> by_reason;
  by_reason.reserve(kHttpRefusals);
  for (int i = 0; i < kHttpRefusals; ++i) {
    by_reason.emplace_back(http_refusal_label(static_cast<HttpRefusal>(i)), refused_[i].load());
  }
  out.labelled_counter(prefix + "_http_refused_total",
                       "Connections and requests the HTTP layer refused or cut, by reason.",
                       "reason", by_reason);
  out.gauge(prefix + "_http_connections", "Connections open now.", open_.load());
}

}  // namespace p2b::common
