// The environments of p2b-sim --protocol vertical: per round, K per-item
// contexts split by columns over M parties, their mean rewards and the
// realised rewards (mean plus noise), all drawn before any policy acts so
// that every compared model sees the same world.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "vfl/mask.hpp"

namespace p2b::vertical {

struct Round {
  std::vector<double> contexts;  // K x d, row-major
  std::vector<double> mean;      // K: expected reward of each item
  std::vector<double> realised;  // K: what the item pays if chosen this round
};

class World {
 public:
  virtual ~World() = default;
  virtual uint32_t dim() const = 0;
  virtual uint32_t items() const = 0;
  // Party 0 (the active party) holds the first block.
  virtual const vfl::Partition& partition() const = 0;
  virtual void draw(Round* r) = 0;
  virtual std::string describe() const = 0;
};

// Seed 003's synthetic set-up: contexts and theta ~ N(0, 0.05 I), each
// l2-normalised; reward x.theta + N(0, noise_sd^2).
std::unique_ptr<World> synthetic_world(uint32_t d, uint32_t k, const vfl::Partition& partition,
                                       double noise_sd, uint64_t seed);

// A multi-label ARFF set as a recommendation: the K labels are the items, an
// instance is a user, and recommending a true label pays 1. Its features go
// to M parties in contiguous column blocks; each party standardises its own
// columns and keeps `components` local principal components (what a
// department can do alone). The item context is e_a (x) [1, u^1, ..., u^M]:
// one slot per label, so the shared model is disjoint LinUCB per label, and
// each party's block stays contiguous. Rows are visited in a shuffled order,
// once per pass.
std::unique_ptr<World> multilabel_world(const std::string& arff_path, const std::string& labels,
                                        uint32_t parties, uint32_t components, uint64_t seed,
                                        std::string* err);

}  // namespace p2b::vertical
