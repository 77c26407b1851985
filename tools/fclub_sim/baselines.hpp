// The baselines that share nothing across local servers: LinUCB per user;
// CLUB (Gentile et al. 2014) per local server, whose user graph loses an
// edge as soon as the two users' estimates differ (Eq. 3, checked for the
// arriving user every round) and whose clusters are its connected
// components; and SCLUB (Li and Zhang 2019) per local server, which splits
// a user off its cluster when its estimate or its arrival frequency leaves
// the cluster's (frozen at each phase start) and merges fully checked
// clusters whose estimates and frequencies agree.
#pragma once

#include <memory>
#include <vector>

#include "fclub_sim/learner.hpp"

namespace p2b::fclub_sim {

std::unique_ptr<Learner> make_linucb_ind(uint32_t dim, uint32_t users, const Scoring& s);
// `split_alpha` scales Eq. 3; `estimate_ridge` the users' estimates.
std::unique_ptr<Learner> make_club(uint32_t dim, const std::vector<uint32_t>& users_per_server,
                                   const Scoring& s, double split_alpha, double estimate_ridge);

struct SclubParams {
  double split_alpha = 1.5;      // the estimate test of a split
  double merge_alpha = 0.75;     // the estimate test of a merge
  double frequency_alpha = 1.0;  // alpha_p of both frequency tests
  double estimate_ridge = 1.0;   // users' and clusters' (ridge I + V)^-1 b
};
std::unique_ptr<Learner> make_sclub(uint32_t dim, const std::vector<uint32_t>& users_per_server,
                                    const Scoring& s, const SclubParams& p);

}  // namespace p2b::fclub_sim
