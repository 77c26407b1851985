// A strict enough reader of Prometheus text exposition 0.0.4 for the
// service tests: every sample line is `name{label="v",...} value`, its
// family (name less _bucket/_sum/_count for a histogram) has a # TYPE line
// before it, no family is typed twice, and every value is a number. Plus
// what the common host adds to every service's /metrics (service_metrics.hpp).
#pragma once

#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "proc/metrics.hpp"

namespace p2b::test {

// Empty if `text` parses; else the first line that does not, and why.
inline std::string exposition_error(const std::string& text) {
  static const std::regex type_line(
      R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram))");
  static const std::regex sample_line(
      R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? )"
      R"(([-+]?[0-9.eE+-]+|\+Inf|-Inf|NaN))");
  std::set<std::string> typed;
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (line.empty() || line.rfind("# HELP ", 0) == 0) continue;
    if (line.rfind("# TYPE ", 0) == 0) {
      if (!std::regex_match(line, m, type_line)) return "bad TYPE: " + line;
      if (!typed.insert(m[1]).second) return "family typed twice: " + line;
      continue;
    }
    if (!std::regex_match(line, m, sample_line)) return "bad sample: " + line;
    std::string family = m[1];
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      const std::string s = suffix;
      if (typed.count(family) == 0 && family.size() > s.size() &&
          family.compare(family.size() - s.size(), s.size(), s) == 0) {
        family.resize(family.size() - s.size());
      }
    }
    if (typed.count(family) == 0) return "sample before its TYPE: " + line;
  }
  return {};
}

// Empty if a service's /metrics holds the common families after at least
// one request: <prefix>_build_info, process_*, the latency histogram and
// the HTTP counters; else what is missing.
inline std::string common_families_missing(const std::string& text, const std::string& prefix) {
  for (const std::string& name :
       {prefix + "_build_info", std::string("process_resident_memory_bytes"),
        std::string("process_cpu_seconds_total"), std::string("process_open_fds"),
        std::string("process_start_time_seconds"), prefix + "_http_request_duration_seconds_count",
        prefix + "_http_refused_total", prefix + "_http_connections"}) {
    if (p2b::proc::metric_value(text, name) < 0) return name;
  }
  if (p2b::proc::metric_value(text, prefix + "_build_info") != 1) return prefix + "_build_info 1";
  if (p2b::proc::metric_value(text, prefix + "_http_request_duration_seconds_count") < 1) {
    return prefix + "_http_request_duration_seconds_count >= 1";
  }
  return {};
}

}  // namespace p2b::test
