// Counts a running process's durability syscalls for a benchmark: strace
// attaches to every thread of the process and logs fdatasync/fsync calls and
// the writes to the store's WAL, which stop() sums. Attaching slows every
// syscall of the process, so a traced run's rate is not a figure to report.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace p2b::bench {

struct SyncCounts {
  long long syncs = 0;      // fdatasync + fsync calls
  long long wal_bytes = 0;  // bytes pwritten to files whose name ends in -wal
};

class SyncTrace {
 public:
  SyncTrace(int pid, const std::string& log) : log_(log) {
    std::vector<std::string> args = {"strace", "-f",
                                     "-qq",    "-s",
                                     "0",      "-y",
                                     "-e",     "signal=none",
                                     "-e",     "trace=fdatasync,fsync,pwrite64",
                                     "-o",     log_,
                                     "-p",     std::to_string(pid)};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawnp(&pid_, "strace", nullptr, nullptr, argv.data(), environ) != 0) {
      throw std::runtime_error("cannot start strace (apt-get install strace)");
    }
    // strace attaches within milliseconds; its output file appears first.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  SyncTrace(const SyncTrace&) = delete;
  SyncTrace& operator=(const SyncTrace&) = delete;
  ~SyncTrace() { detach(); }

  SyncCounts stop() {
    detach();
    SyncCounts counts;
    std::ifstream in(log_);
    std::string line;
    while (std::getline(in, line)) {
      if (line.find("fdatasync(") != std::string::npos ||
          line.find("fsync(") != std::string::npos) {
        ++counts.syncs;
      }
      // pwrite64(7</dir/spool.db-wal>, ""..., 4096, 8224) = 4096: the count
      // is the argument after the elided buffer.
      static const std::string kWalBuffer = "-wal>, \"\"..., ";
      const std::size_t wal = line.find(kWalBuffer);
      if (line.find("pwrite64(") != std::string::npos && wal != std::string::npos) {
        counts.wal_bytes += std::atoll(line.c_str() + wal + kWalBuffer.size());
      }
    }
    return counts;
  }

 private:
  void detach() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGINT);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  std::string log_;
  pid_t pid_ = -1;
};

}  // namespace p2b::bench
