#include "common/prometheus_text.hpp"

namespace p2b::common {

std::string escape_label_value(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void PrometheusText::family(const std::string& name, const char* type, const std::string& help) {
  // HELP text escapes only \ and newline.
  std::string escaped;
  for (const char c : help) {
    if (c == '\\') {
      escaped += "\\\\";
    } else if (c == '\n') {
      escaped += "\\n";
    } else {
      escaped += c;
    }
  }
  out_ += "# HELP " + name + ' ' + escaped + "\n# TYPE " + name + ' ' + type + '\n';
}

void PrometheusText::sample(const std::string& series, uint64_t value) {
  out_ += series + ' ' + std::to_string(value) + '\n';
}

void PrometheusText::counter(const std::string& name, const std::string& help, uint64_t value) {
  family(name, "counter", help);
  sample(name, value);
}

void PrometheusText::gauge(const std::string& name, const std::string& help, uint64_t value) {
  family(name, "gauge", help);
  sample(name, value);
}

void PrometheusText::labelled_counter(
    const std::string& name, const std::string& help, const std::string& label,
    const std::vector<std::pair<std::string, uint64_t>>& samples) {
  family(name, "counter", help);
  for (const auto& [label_value, value] : samples) {
    std::string series = name;
    series.append("{").append(label).append("=\"").append(escape_label_value(label_value));
    sample(series.append("\"}"), value);
  }
}

}  // namespace p2b::common
