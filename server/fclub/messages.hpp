// What FCLUB's local and global servers tell each other, as the algorithm
// sees it. The wire form (signed, sealed, fixed length) is fclub/wire.
#pragma once

#include <cstdint>

#include "fclub/cluster_stats.hpp"

namespace p2b::fclub {

struct StatsUpload {
  uint32_t server = 0;
  uint32_t local_cluster = 0;  // index among the server's clusters this phase
  uint32_t phase = 0;
  uint32_t seq = 0;      // 0: the phase-start upload of the whole cluster; k: the k-th increment
  uint32_t members = 0;  // users in the local cluster
  Stats stats;           // privatized when the deployment is private
  double epsilon_spent = 0.0;
};

struct StatsDownload {
  uint32_t server = 0;
  uint32_t local_cluster = 0;
  uint32_t global_cluster = 0;
  uint32_t phase = 0;
  bool replace = false;  // phase-start renewal: the new synchronized statistics
  Stats stats;           // else a delta to add
};

}  // namespace p2b::fclub
