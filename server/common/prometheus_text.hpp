// Prometheus text exposition format 0.0.4, the body of GET /metrics. Each
// service keeps its own metric names and values; only the rendering is here.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace p2b::common {

class PrometheusText {
 public:
  // One metric family without labels.
  void counter(const std::string& name, const std::string& help, uint64_t value);
  void gauge(const std::string& name, const std::string& help, uint64_t value);

  // One counter family with one sample per value of `label`, in the order
  // given (a label value that never occurred is still listed, at 0).
  void labelled_counter(const std::string& name, const std::string& help, const std::string& label,
                        const std::vector<std::pair<std::string, uint64_t>>& samples);

  // Values that are not whole numbers (seconds, bytes of a rate).
  void real_counter(const std::string& name, const std::string& help, double value);
  void real_gauge(const std::string& name, const std::string& help, double value);

  // A gauge of value 1 whose one label says what runs ("<prefix>_build_info").
  void info(const std::string& name, const std::string& help, const std::string& label,
            const std::string& value);

  // One histogram family: per series, `buckets[i]` observations <= bounds[i]
  // (cumulative), then +Inf, _sum and _count. `labels` is a rendered label
  // list without braces (label_pair(...) joined by ','), or empty.
  struct HistogramSeries {
    std::string labels;
    std::vector<uint64_t> buckets;
    double sum = 0;
    uint64_t count = 0;
  };
  void histogram(const std::string& name, const std::string& help,
                 const std::vector<double>& bounds, const std::vector<HistogramSeries>& series);

  // Families another renderer already wrote in this format.
  void append(const std::string& exposition) { out_ += exposition; }

  const std::string& text() const { return out_; }

 private:
  void family(const std::string& name, const char* type, const std::string& help);
  void sample(const std::string& series, uint64_t value);

  std::string out_;
};

// A label value with \, " and newline escaped as the format requires.
std::string escape_label_value(const std::string& value);

// `name="value"`, the value escaped.
std::string label_pair(const std::string& name, const std::string& value);

// A sample value as the format writes floats ("0.005", "1e+06", "+Inf").
std::string format_real(double value);

}  // namespace p2b::common
