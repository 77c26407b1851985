// CPU time a process (or a PostgreSQL cluster: the postmaster and every
// child it has) has used so far, from /proc/PID/stat: the figure behind
// "CPU microseconds per envelope" in the scale-out benchmark.
#pragma once

#include <dirent.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace p2b::bench {

// The fields of /proc/PID/stat after the command name, which may itself
// hold spaces or parentheses, so the split starts at the last ')'.
inline std::vector<std::string> stat_fields(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  const std::size_t close = line.rfind(')');
  std::vector<std::string> fields;
  if (close == std::string::npos) return fields;
  std::istringstream rest(line.substr(close + 1));
  std::string f;
  while (rest >> f) fields.push_back(f);
  return fields;  // fields[0] is field 3 (state) of proc(5)
}

// utime + stime (and, with `reaped`, cutime + cstime: children it waited
// for) in seconds; 0 when the process is gone.
inline double cpu_seconds(pid_t pid, bool reaped = false) {
  const std::vector<std::string> f = stat_fields(pid);
  if (f.size() < 15) return 0.0;
  double ticks = std::atof(f[11].c_str()) + std::atof(f[12].c_str());
  if (reaped) ticks += std::atof(f[13].c_str()) + std::atof(f[14].c_str());
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Every live process whose parent is `parent`.
inline std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return out;
  while (const dirent* e = readdir(dir)) {
    const pid_t pid = static_cast<pid_t>(std::atol(e->d_name));
    if (pid <= 0) continue;
    const std::vector<std::string> f = stat_fields(pid);
    if (f.size() > 1 && std::atol(f[1].c_str()) == parent) out.push_back(pid);
  }
  closedir(dir);
  return out;
}

// CPU seconds every core of the machine has spent busy since boot (the
// first line of /proc/stat: all but idle and iowait), whoever ran.
inline double machine_busy_seconds() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  in >> cpu;
  double busy = 0;
  for (int i = 0; i < 8; ++i) {
    double ticks = 0;
    in >> ticks;
    if (i != 3 && i != 4) busy += ticks;  // fields 4 and 5: idle, iowait
  }
  return busy / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// A PostgreSQL cluster's CPU: the postmaster with the children it reaped,
// plus its live children (backends, walwriter, checkpointer, ...).
inline double cluster_cpu_seconds(pid_t postmaster) {
  if (postmaster <= 0) return 0.0;
  double s = cpu_seconds(postmaster, true);
  for (const pid_t c : children_of(postmaster)) s += cpu_seconds(c);
  return s;
}

}  // namespace p2b::bench
