// Time and bytes per decision of O3M against a central model (seed 003's
// Fig. 5), measured on this machine: every passive party masks its block and
// seals a P2BV message, the active party opens them, combines and decides.
#pragma once

#include <cstdint>
#include <string>

namespace p2b::vertical {

struct CostPoint {
  uint32_t d = 0;
  uint32_t k = 0;
  uint32_t parties = 0;     // M, including the active party
  double central_us = 0.0;  // central decide + reward
  double mask_us = 0.0;     // one passive party: Q^j x^j for the K items
  double seal_us = 0.0;     // one passive party: seal its P2BV
  double open_us = 0.0;     // the active party: open one P2BV (decrypt and parse)
  double active_us = 0.0;   // the active party: own masking, combine, decide, reward
  // One round with the passive parties in parallel: the slowest party's
  // mask + seal, then the active party's opening of every message and its
  // own work. Network time is not included.
  double round_us = 0.0;
  // The same with the active party opening each message in its party's
  // request thread as it arrives (as p2b-vfl-ap does), on a core per party:
  // the slowest party's mask + seal + open, then the active party's own work.
  // A model of that concurrency from the stages' times, not measured with
  // threads on this 2-core machine.
  double parallel_round_us = 0.0;
  // The same without sealing and opening: the paper's O3M, which has no
  // transport encryption, counts only this.
  double compute_round_us = 0.0;
  uint64_t message_bytes = 0;  // measured sealed P2BV length
  uint64_t formula_bytes = 0;  // 100 + 8 K d
};

// Runs `rounds` timed rounds (after a few untimed ones) of one (d, K, M).
bool measure_cost(uint32_t d, uint32_t k, uint32_t parties, uint32_t rounds, uint64_t seed,
                  CostPoint* out, std::string* err);

}  // namespace p2b::vertical
