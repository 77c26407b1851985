#include "common/prometheus_text.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

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

std::string label_pair(const std::string& name, const std::string& value) {
  return name + "=\"" + escape_label_value(value) + '"';
}

std::string format_real(double value) {
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (std::isnan(value)) return "NaN";
  char buf[32];
  // Whole numbers as such ("10", not "1e+01"), up to where doubles stay exact.
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
    return buf;
  }
  // 17 significant digits: a double read back is the same double.
  std::snprintf(buf, sizeof buf, "%.17g", value);
  // Shorter when a shorter form is exact ("0.005" rather than "0.0050000000000000001").
  char shorter[32];
  for (int digits = 1; digits < 17; ++digits) {
    std::snprintf(shorter, sizeof shorter, "%.*g", digits, value);
    if (std::strtod(shorter, nullptr) == value) return shorter;
  }
  return buf;
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

void PrometheusText::real_counter(const std::string& name, const std::string& help, double value) {
  family(name, "counter", help);
  out_ += name + ' ' + format_real(value) + '\n';
}

void PrometheusText::real_gauge(const std::string& name, const std::string& help, double value) {
  family(name, "gauge", help);
  out_ += name + ' ' + format_real(value) + '\n';
}

void PrometheusText::info(const std::string& name, const std::string& help,
                          const std::string& label, const std::string& value) {
  family(name, "gauge", help);
  sample(name + '{' + label_pair(label, value) + '}', 1);
}

void PrometheusText::histogram(const std::string& name, const std::string& help,
                               const std::vector<double>& bounds,
                               const std::vector<HistogramSeries>& series) {
  family(name, "histogram", help);
  for (const HistogramSeries& s : series) {
    // "NAME_bucket{LABELS," once per series; each bucket appends its le.
    std::string bucket = name;
    bucket += "_bucket{";
    bucket += s.labels;
    if (!s.labels.empty()) bucket += ',';
    for (std::size_t i = 0; i < bounds.size() && i < s.buckets.size(); ++i) {
      std::string series_name = bucket;
      series_name += label_pair("le", format_real(bounds[i]));
      series_name += '}';
      sample(series_name, s.buckets[i]);
    }
    sample(bucket + "le=\"+Inf\"}", s.count);
    std::string braces;
    if (!s.labels.empty()) {
      braces += '{';
      braces += s.labels;
      braces += '}';
    }
    std::string sum_line = name;
    sum_line += "_sum";
    sum_line += braces;
    sum_line += ' ';
    sum_line += format_real(s.sum);
    sum_line += '\n';
    out_ += sum_line;
    std::string count_name = name;
    count_name += "_count";
    count_name += braces;
    sample(count_name, s.count);
  }
}

}  // namespace p2b::common
