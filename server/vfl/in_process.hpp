// Every party of one O3M federation in one process, through the real masking
// (party_mask) and combining (ActiveParty) code but without the network: what
// the simulator and the lossless tests run. The services run the same code
// across processes (docs/vertical.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vfl/active_party.hpp"
#include "vfl/mask.hpp"

namespace p2b::vfl {

class InProcessFederation {
 public:
  // Party 0 (the active party) holds the first partition[0] columns, party j
  // the next partition[j]. `model.dim` must be the mask's d.
  static RoundStatus create(const Mask& mask, const Partition& partition, const SharedConfig& model,
                            std::unique_ptr<InProcessFederation>* out, std::string* err);

  // Splits each of the k items (k x d, row-major) into the parties' column
  // blocks, masks every passive block as its party would, and hands the
  // active party its own block and every masked part.
  RoundStatus load(const double* items, uint32_t k);

  ActiveParty& active() { return *active_; }
  // Bytes the passive parties would send for the last round: one P2BV
  // message of k items each (masked_message_bytes).
  uint64_t bytes_last_round() const { return bytes_last_round_; }
  // Passive masking work of the last round in seconds, summed over parties.
  double party_seconds_last_round() const { return party_seconds_; }

 private:
  InProcessFederation() = default;
  Partition partition_;
  std::vector<MaskBlock> blocks_;
  std::unique_ptr<ActiveParty> active_;
  std::vector<double> block_x_;
  std::vector<double> masked_;
  uint64_t bytes_last_round_ = 0;
  double party_seconds_ = 0.0;
};

}  // namespace p2b::vfl
