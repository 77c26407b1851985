// `reference` mode's FCLUB-DC, CDP-FCLUB-DC and Homo-DC: the choices of the
// authors' code (ZhaoHaoRu/Federated-Clustering-of-Bandits), reimplemented
// to compare numbers with it, not to deploy. docs/fclub.md lists each one:
// raw uploads even in the "private" variant, noise only in the upload
// trigger and the phase-start copy, a variance passed as a standard
// deviation, widths without a square root, no ridge in the triggers
// (det(S) of a zero matrix), phase starts that rebuild local clusters from
// their own users, renewals only when the partition changed, merges only
// when some pair failed the test, and the statistics arrays that renewal
// shares between the global cluster and its members (numpy aliasing), so
// that an upload lands twice and downloads stop firing.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fclub_sim/learner.hpp"

namespace p2b::fclub_sim {

struct ReferenceSpec {
  uint32_t dim = 10;
  std::vector<uint32_t> users_per_server;
  bool cdp = false;          // CDP-FCLUB-DC
  bool homogeneous = false;  // Homo-DC: merge test always passes
  double epsilon = 1.0;
  double delta = 0.1;
  uint64_t seed = 1;  // the privatizer's normals
};

std::unique_ptr<Learner> make_reference_fclub(const ReferenceSpec& spec);

}  // namespace p2b::fclub_sim
