// Local servers and a global server wired together in one process: what
// the simulator and the tests run, and what the services split across
// machines (docs/fclub.md). Users are numbered globally; each belongs to one
// local server, in blocks of users_per_server.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fclub/global_server.hpp"
#include "fclub/local_server.hpp"

namespace p2b::fclub {

struct Traffic {
  uint64_t uploads = 0;    // phase-start uploads included
  uint64_t downloads = 0;  // phase-start renewals included
  uint64_t phase_uploads = 0;
  uint64_t phase_downloads = 0;
};

class Federation {
 public:
  Federation(const FclubConfig& cfg, const std::vector<uint32_t>& users_per_server,
             const TreeSeed& noise_key);

  // Phase s starts before round 2^s - 1 (rounds counted from 1) and lasts 2^s rounds.
  static uint32_t phase_starting_at(uint64_t round);
  void start_phase(uint32_t phase);
  uint32_t recommend(uint32_t user, const Eigen::MatrixXd& items);
  void observe(uint32_t user, const Eigen::VectorXd& x, double y);

  const Traffic& traffic() const { return traffic_; }
  uint32_t global_clusters() const { return global_.cluster_count(); }
  uint32_t local_clusters() const;
  // The largest epsilon any local server has spent (0 when not private).
  double epsilon_spent() const;
  const LocalServer& server(uint32_t s) const { return *locals_[s]; }
  const GlobalServer& global() const { return global_; }
  uint32_t server_of(uint32_t user) const { return home_[user].first; }

 private:
  void deliver(const std::vector<StatsDownload>& downs);

  FclubConfig cfg_;
  std::vector<std::unique_ptr<LocalServer>> locals_;
  GlobalServer global_;
  std::vector<std::pair<uint32_t, uint32_t>> home_;  // user -> (server, local user)
  Traffic traffic_;
  std::vector<StatsDownload> downs_;
};

}  // namespace p2b::fclub
