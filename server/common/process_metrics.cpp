#include "common/process_metrics.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>

#include "common/prometheus_text.hpp"

namespace p2b::common {

namespace {

bool read_file(const char* path, std::string* out) {
  std::ifstream f(path);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), {});
  return !f.bad();
}

// The boot time (btime of /proc/stat), in seconds since the epoch.
std::optional<double> boot_time() {
  std::ifstream f("/proc/stat");
  std::string key;
  double value = 0;
  while (f >> key) {
    if (key == "btime" && (f >> value)) return value;
    f.ignore(1 << 16, '\n');
  }
  return std::nullopt;
}

}  // namespace

bool parse_proc_stat(const std::string& line, double* utime, double* stime, double* starttime) {
  const std::size_t paren = line.rfind(')');
  if (paren == std::string::npos) return false;
  std::istringstream in(line.substr(paren + 1));
  std::string field;
  // After ')' comes field 3 (state); utime is field 14, starttime field 22.
  for (int n = 3; n <= 22; ++n) {
    if (!(in >> field)) return false;
    try {
      if (n == 14) *utime = std::stod(field);
      if (n == 15) *stime = std::stod(field);
      if (n == 22) *starttime = std::stod(field);
    } catch (const std::exception&) {
      return false;
    }
  }
  return true;
}

ProcessSample read_process_sample() {
  ProcessSample s;
  const long ticks = ::sysconf(_SC_CLK_TCK);
  const long page = ::sysconf(_SC_PAGESIZE);
  std::string text;
  double utime = 0, stime = 0, start = 0;
  if (ticks > 0 && read_file("/proc/self/stat", &text) &&
      parse_proc_stat(text, &utime, &stime, &start)) {
    s.cpu_seconds = (utime + stime) / static_cast<double>(ticks);
    if (const std::optional<double> boot = boot_time()) {
      s.start_time_seconds = *boot + start / static_cast<double>(ticks);
    }
  }
  double size = 0, resident = 0;
  if (page > 0 && read_file("/proc/self/statm", &text)) {
    std::istringstream in(text);
    if (in >> size >> resident) s.resident_bytes = resident * static_cast<double>(page);
  }
  std::error_code ec;
  double fds = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    ++fds;
  }
  if (!ec) s.open_fds = fds;
  return s;
}

void render_process_metrics(PrometheusText& out, const ProcessSample& s) {
  if (s.resident_bytes) {
    out.real_gauge("process_resident_memory_bytes", "Resident memory size in bytes.",
                   *s.resident_bytes);
  }
  if (s.cpu_seconds) {
    out.real_counter("process_cpu_seconds_total", "Total user and system CPU time in seconds.",
                     *s.cpu_seconds);
  }
  if (s.open_fds) out.real_gauge("process_open_fds", "Open file descriptors.", *s.open_fds);
  if (s.start_time_seconds) {
    out.real_gauge("process_start_time_seconds",
                   "Start time of the process since the Unix epoch in seconds.",
                   *s.start_time_seconds);
  }
}

}  // namespace p2b::common
