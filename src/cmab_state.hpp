// What a CmabAgent's arena holds: this header and, after it, per-producer
// blocks. Offsets, not pointers, so the arena holds no absolute address.
#pragma once

#include <cstddef>
#include <cstdint>

#include "p2b/cmab.hpp"
#include "random.hpp"

namespace p2b {

constexpr uint32_t kCmabMagic = 0x58423250U;  // "P2BX" little-endian
constexpr uint32_t kCmabLayoutVersion = 1;

struct CmabState {
  uint32_t magic = 0;  // magic and layout_version lead: CmabAgent::check reads them
  uint32_t layout_version = 0;
  CmabConfig cfg{};  // cost and capacity cleared: the arena keeps its own copies
  Rng rng{};
  uint64_t rounds = 0;  // rounds completed (observe calls)
  uint64_t tau = 0;     // the schedule's tau before the next round
  uint32_t releases = 0;
  bool budget_stopped = false;
  bool decided = false;  // a decision awaits observe()
  bool share_waiting = false;
  uint64_t shares_overwritten = 0;  // releases drawn while an older one was unpolled
  uint64_t reports_accepted = 0;    // producer reports taken from others' shares
  uint64_t reports_rejected = 0;
  CmabShare pending{};
  // Byte offsets from the header; m = cfg.producers, P = cfg.max_peers.
  std::size_t cost = 0;          // m doubles
  std::size_t capacity = 0;      // m uint32
  std::size_t units_seen = 0;    // W: m doubles, own plus accepted
  std::size_t good_seen = 0;     // Y: m doubles
  std::size_t units_unsent = 0;  // w: m doubles since the last release
  std::size_t good_unsent = 0;   // y: m doubles
  std::size_t ucb = 0;           // m doubles of scratch
  std::size_t decision = 0;      // m uint32: the units decide() chose
  std::size_t order = 0;         // m uint32 of oracle scratch
  std::size_t last_release = 0;  // P uint32: per sender, the last release applied
  std::size_t total = 0;

  static CmabState& of(CmabAgent* a) { return *reinterpret_cast<CmabState*>(a); }
  static const CmabState& of(const CmabAgent* a) { return *reinterpret_cast<const CmabState*>(a); }
  template <typename T>
  T* block(std::size_t offset) {
    return reinterpret_cast<T*>(reinterpret_cast<char*>(this) + offset);
  }
  template <typename T>
  const T* block(std::size_t offset) const {
    return reinterpret_cast<const T*>(reinterpret_cast<const char*>(this) + offset);
  }
};

// The sensitivity the noise is calibrated to for producer i.
double cmab_noise_sensitivity(const CmabState& s, uint32_t i);

}  // namespace p2b
