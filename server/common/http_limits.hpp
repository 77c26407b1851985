// The bounds every HTTP connection to a service lives within
// (docs/operations.md, "HTTP limits"), and the counters of what they refused.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace p2b::common {

class PrometheusText;

struct HttpLimits {
  std::size_t max_connections = 512;   // open at once; more are answered 503 and closed
  double request_seconds = 30;         // from a request's first byte to its last body byte
  double idle_seconds = 5;             // waiting for a request's first byte
  std::size_t max_headers = 64;        // header fields in one request
  std::size_t max_head_bytes = 16384;  // request line and header fields together
  // After a stop signal: how long requests in flight may take to finish
  // arriving and be answered before their sockets are shut down.
  double drain_seconds = 5;
};

// Why the HTTP layer refused or cut a connection or a request; one label each.
enum class HttpRefusal : int {
  too_many_connections,  // 503, over max_connections
  idle_timeout,          // closed: no request within idle_seconds
  request_timeout,       // 408 or closed: the request took over request_seconds
  headers_too_large,     // 431: over max_headers or max_head_bytes
  length_required,       // 411: chunked, or a body without Content-Length
  unsupported_encoding,  // 415: a Content-Encoding other than identity
  body_too_large,        // 413: Content-Length over max-body
  bad_framing,           // 400: a Content-Length that is not one decimal number
};
constexpr int kHttpRefusals = 8;
const char* http_refusal_label(HttpRefusal r);

class HttpCounters {
 public:
  void refused(HttpRefusal r) { refused_[static_cast<int>(r)].fetch_add(1); }
  uint64_t refusals(HttpRefusal r) const { return refused_[static_cast<int>(r)].load(); }
  void opened() { open_.fetch_add(1); }
  void closed() { open_.fetch_sub(1); }
  uint64_t open_connections() const { return open_.load(); }

  // Appends <prefix>_http_refused_total{reason} and <prefix>_http_connections.
  void render(PrometheusText& out, const std::string& prefix) const;

 private:
  std::array<std::atomic<uint64_t>, kHttpRefusals> refused_{};
  std::atomic<uint64_t> open_{0};
};

}  // namespace p2b::common
