// An agent behind the C API in memory it owns: the way an app embeds p2b,
// wrapped for host tools. Re-init reuses the arena, so no per-user allocation.
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "p2b.h"

namespace p2b::sim {

inline void check(p2b_status s, const char* what) {
  if (p2b_is_error(s)) throw std::runtime_error(std::string(what) + ": " + p2b_status_str(s));
}

class CAgent {
 public:
  explicit CAgent(const p2b_config& cfg) : cfg_(cfg) {
    check(p2b_agent_footprint(&cfg_, &bytes_), "footprint");
    if (posix_memalign(&mem_, P2B_ARENA_ALIGN, bytes_) != 0) throw std::bad_alloc();
    reset();
  }
  ~CAgent() { std::free(mem_); }
  CAgent(const CAgent&) = delete;
  CAgent& operator=(const CAgent&) = delete;

  // Back to a fresh cold agent.
  void reset() { check(p2b_agent_init(mem_, bytes_, &cfg_, &agent_), "init"); }
  void reseed(uint64_t seed) {
    cfg_.seed = seed;
    reset();
  }

  p2b_agent* get() const { return agent_; }
  std::size_t footprint() const { return bytes_; }

 private:
  p2b_config cfg_;
  std::size_t bytes_ = 0;
  void* mem_ = nullptr;
  p2b_agent* agent_ = nullptr;
};

}  // namespace p2b::sim
