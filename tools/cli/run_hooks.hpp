// How a simulator's run() tells its caller how far it has come and what it
// has to say. p2b-sim draws the progress on stderr and prints the lines on
// stdout; the Python bindings forward both to tqdm and to `logging`, so no
// native code writes to the terminal behind Python's back.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "sim/progress.hpp"

namespace p2b::tools {

struct RunHooks {
  // (stage, units done, units in total). Called from one thread at a time
  // (the caller's, or one reporter thread), never concurrently with itself,
  // and not more than a few times a second, so a callback may take a lock
  // (Python's GIL) without slowing the workers.
  std::function<void(const std::string& stage, uint64_t done, uint64_t total)> progress;
  // One finished line of human-readable output, without its newline.
  std::function<void(const std::string& line)> log;

  void report(const std::string& stage, uint64_t done, uint64_t total) const {
    if (progress) progress(stage, done, total);
  }
  void say(const std::string& line) const {
    if (log) log(line);
  }
};

// p2b-sim's hooks: a bar on stderr and lines on stdout; `quiet` silences both.
inline RunHooks terminal_hooks(bool quiet) {
  RunHooks h;
  if (quiet) return h;
  h.progress = [](const std::string& stage, uint64_t done, uint64_t total) {
    if (total > 0)
      sim::progress(stage.c_str(), static_cast<double>(done), static_cast<double>(total));
  };
  h.log = [](const std::string& line) {
    std::fputs(line.c_str(), stdout);
    std::fputc('\n', stdout);
  };
  return h;
}

}  // namespace p2b::tools
