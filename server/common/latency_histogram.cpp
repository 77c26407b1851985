#include "common/latency_histogram.hpp"

#include <algorithm>

#include "common/prometheus_text.hpp"

namespace p2b::common {

const std::vector<double>& LatencyHistogram::bounds() {
  static const std::vector<double> b = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                        0.25,  0.5,    1,     2.5,  5,     10};
  return b;
}

const char* LatencyHistogram::method_label(const std::string& method) {
  static constexpr std::array<const char*, 7> kMethods = {"GET",  "POST",    "PUT",  "DELETE",
                                                          "HEAD", "OPTIONS", "PATCH"};
  for (const char* m : kMethods) {
    if (method == m) return m;
  }
  return "other";
}

void LatencyHistogram::observe(const std::string& method, int status, double seconds) {
  // A status outside HTTP's range would be a label per value; fold them.
  const int code = status >= 100 && status <= 599 ? status : 0;
  const std::vector<double>& b = bounds();
  const auto slot =
      static_cast<std::size_t>(std::lower_bound(b.begin(), b.end(), seconds) - b.begin());
  const std::lock_guard<std::mutex> lock(mu_);
  Series& s = series_[{method_label(method), code}];
  if (s.buckets.empty()) s.buckets.assign(b.size(), 0);
  if (slot < b.size()) ++s.buckets[slot];
  s.sum += seconds;
  ++s.count;
}

void LatencyHistogram::render(PrometheusText& out, const std::string& name) const {
  std::vector<PrometheusText::HistogramSeries> rendered;
  {
    const std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [key, s] : series_) {
      PrometheusText::HistogramSeries r;
      r.labels = label_pair("method", key.first) + "," +
                 label_pair("code", key.second == 0 ? "other" : std::to_string(key.second));
      uint64_t running = 0;
      for (const uint64_t n : s.buckets) r.buckets.push_back(running += n);
      r.sum = s.sum;
      r.count = s.count;
      rendered.push_back(std::move(r));
    }
  }
  out.histogram(name, "Time from a request's first byte to its answer, by method and status.",
                bounds(), rendered);
}

}  // namespace p2b::common
