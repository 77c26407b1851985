// The learner of one FCLUB-family algorithm by name, in --mode default (the
// library's server/fclub and the paper's maths) or reference (the authors'
// code, reproduced).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "fclub_sim/learner.hpp"
#include "fclub_sim/options.hpp"
#include "fclub_sim/world.hpp"

namespace p2b::fclub_sim {

// Throws std::runtime_error when the library refuses the configuration.
std::unique_ptr<Learner> make_learner(const Options& o, const std::string& name, const World& w,
                                      uint32_t dim, double epsilon, uint64_t seed);

}  // namespace p2b::fclub_sim
