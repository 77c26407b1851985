// The process_* metrics every service exposes, read from /proc/self at each
// scrape, under the names the Prometheus client libraries use, so existing
// dashboards work unchanged.
#pragma once

#include <optional>
#include <string>

namespace p2b::common {

class PrometheusText;

struct ProcessSample {
  std::optional<double> resident_bytes;
  std::optional<double> cpu_seconds;
  std::optional<double> open_fds;
  std::optional<double> start_time_seconds;  // since the Unix epoch
};

// Fields 14 (utime), 15 (stime) and 22 (starttime) of a /proc/PID/stat
// line, in clock ticks; false if it does not parse. The command name in
// field 2 may hold spaces and parentheses, so fields count from the last ')'.
bool parse_proc_stat(const std::string& line, double* utime, double* stime, double* starttime);

// What /proc says now; a value that cannot be read is left empty (and its
// metric is then left out, rather than reported as 0).
ProcessSample read_process_sample();

// Appends process_resident_memory_bytes, process_cpu_seconds_total,
// process_open_fds and process_start_time_seconds.
void render_process_metrics(PrometheusText& out, const ProcessSample& sample);

}  // namespace p2b::common
