// The baselines that share nothing across local servers: LinUCB per user
// and CLUB (Gentile et al. 2014) per local server, whose user graph loses
// an edge as soon as the two users' estimates differ (Eq. 3, checked for the
// arriving user every round) and whose clusters are its connected components.
#pragma once

#include <memory>
#include <vector>

#include "fclub_sim/learner.hpp"

namespace p2b::fclub_sim {

std::unique_ptr<Learner> make_linucb_ind(uint32_t dim, uint32_t users, const Scoring& s);
// `split_alpha` scales Eq. 3; `estimate_ridge` the users' estimates.
std::unique_ptr<Learner> make_club(uint32_t dim, const std::vector<uint32_t>& users_per_server,
                                   const Scoring& s, double split_alpha, double estimate_ridge);

}  // namespace p2b::fclub_sim
