// FCLUB's global server (the global half of Algorithm 2, and Algorithm 4):
// it sees only what local servers upload (privatized when the deployment is
// private), merges close local clusters into global clusters (Eq. 4), sums
// their statistics, and sends each member the others' uploads when the
// download trigger (Eq. 6) fires.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "fclub/cluster_stats.hpp"
#include "fclub/fclub_config.hpp"
#include "fclub/merge_test.hpp"
#include "fclub/messages.hpp"

namespace p2b::fclub {

class GlobalServer {
 public:
  explicit GlobalServer(const FclubConfig& cfg);

  // Phase start, once every server's phase-start uploads are in: merges and
  // returns one `replace` download per member with its global cluster's sum.
  std::vector<StatsDownload> merge_phase(uint32_t phase, const std::vector<StatsUpload>& uploads);
  // An in-phase increment: added to its global cluster and to the other
  // members' download buffers; returns the downloads whose trigger fired.
  // An upload from no known member, or of another phase, is refused (false).
  bool receive(const StatsUpload& up, std::vector<StatsDownload>* downs);

  uint32_t cluster_count() const { return static_cast<uint32_t>(clusters_.size()); }
  // The global cluster a (server, local cluster) belongs to, or -1.
  int cluster_of(uint32_t server, uint32_t local_cluster) const;
  const Stats& cluster_stats(uint32_t g) const { return clusters_[g].sum; }
  std::vector<std::pair<uint32_t, uint32_t>> members(uint32_t g) const;

 private:
  struct Member {
    uint32_t server = 0;
    uint32_t local_cluster = 0;
    Stats pending;                 // uploads of the other members it has not been sent
    uint64_t pending_uploads = 0;  // how many (a private upload's count is 0)
  };
  struct Cluster {
    Stats sum;
    std::vector<Member> members;
  };
  bool download_due(const Stats& sum, const Member& m) const;
  // Eq. 4's global clusters: lists of upload indices.
  std::vector<std::vector<uint32_t>> partition(const std::vector<StatsUpload>& uploads) const;

  FclubConfig cfg_;
  NoiseNorms phase_start_noise_;  // zero without privacy
  uint32_t phase_ = 0;
  std::vector<Cluster> clusters_;
  std::map<std::pair<uint32_t, uint32_t>, std::pair<uint32_t, uint32_t>> where_;  // -> (g, i)
};

}  // namespace p2b::fclub
