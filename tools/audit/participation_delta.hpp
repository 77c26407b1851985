// The delta of P2B's randomized participation behind a plain crowd
// threshold, at a given epsilon. The paper (Malekzadeh et al. 2020, Eq. 3)
// states only delta = exp(-Omega(l (1 - p)^2)), without its constant, and
// the project's ledger charges epsilon alone; the audit needs a number, so
// it computes the exact one for the worst crowd: the victim's tuple is
// identical to those of n other devices (everyone's coin is part of the
// mechanism), the shuffler releases the crowd only when at least l sampled
// tuples fall in it, and the release reveals its count K. Then
// delta(n) = sum over outcomes of max(0, P_with(o) - e^eps P_without(o))
// (and the same the other way), and delta is the largest over n.
#pragma once

#include <cstddef>

namespace p2b::audit {

double participation_delta(double p, std::size_t threshold, double epsilon,
                           std::size_t max_crowd = 2048);

}  // namespace p2b::audit
