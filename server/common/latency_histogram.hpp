// How long requests take, by method and status, with fixed buckets: the
// `<prefix>_http_request_duration_seconds` histogram of every service. The
// labels are bounded whatever a client sends: the method is one of a fixed
// list or "other", the status a code the server answered.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace p2b::common {

class PrometheusText;

class LatencyHistogram {
 public:
  // Upper bounds in seconds, 1 ms to 10 s: a model download or a batch
  // commit is slow, a health check fast; both show.
  static const std::vector<double>& bounds();

  void observe(const std::string& method, int status, double seconds);
  // Appends the family `name` (one series per method and status seen).
  void render(PrometheusText& out, const std::string& name) const;

  // The method label of a request method: itself if it is one httplib
  // routes, else "other".
  static const char* method_label(const std::string& method);

 private:
  struct Series {
    std::vector<uint64_t> buckets;  // not cumulative; summed when rendered
    double sum = 0;
    uint64_t count = 0;
  };
  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, Series> series_;
};

}  // namespace p2b::common
