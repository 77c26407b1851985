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

  const std::string& text() const { return out_; }

 private:
  void family(const std::string& name, const char* type, const std::string& help);
  void sample(const std::string& series, uint64_t value);

  std::string out_;
};

// A label value with \, " and newline escaped as the format requires.
std::string escape_label_value(const std::string& value);

}  // namespace p2b::common
