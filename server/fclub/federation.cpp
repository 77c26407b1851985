#include "fclub/federation.hpp"

#include <algorithm>

namespace p2b::fclub {

Federation::Federation(const FclubConfig& cfg, const std::vector<uint32_t>& users_per_server,
                       const TreeSeed& noise_key)
    : cfg_(cfg), global_(cfg) {
  for (uint32_t s = 0; s < users_per_server.size(); ++s) {
    // Each server's noise key is its own secret; here derived from one seed.
    const TreeSeed key = derive_tree_seed(noise_key, 0xffffffffu, s);
    locals_.push_back(std::make_unique<LocalServer>(cfg, s, users_per_server[s], key));
    for (uint32_t u = 0; u < users_per_server[s]; ++u) home_.emplace_back(s, u);
  }
}

uint32_t Federation::phase_starting_at(uint64_t round) {
  const uint64_t next = round + 1;  // a power of two exactly at a phase start
  if (round == 0 || (next & round) != 0) return 0;
  return static_cast<uint32_t>(__builtin_ctzll(next));
}

void Federation::deliver(const std::vector<StatsDownload>& downs) {
  for (const StatsDownload& d : downs) locals_[d.server]->apply(d);
  traffic_.downloads += downs.size();
}

void Federation::start_phase(uint32_t phase) {
  std::vector<StatsUpload> all;
  for (auto& l : locals_) {
    std::vector<StatsUpload> ups = l->start_phase(phase);
    std::move(ups.begin(), ups.end(), std::back_inserter(all));
  }
  traffic_.uploads += all.size();
  traffic_.phase_uploads += all.size();
  const std::vector<StatsDownload> downs = global_.merge_phase(phase, all);
  traffic_.phase_downloads += downs.size();
  deliver(downs);
}

uint32_t Federation::recommend(uint32_t user, const Eigen::MatrixXd& items) {
  const auto [s, u] = home_[user];
  return locals_[s]->recommend(u, items);
}

void Federation::observe(uint32_t user, const Eigen::VectorXd& x, double y) {
  const auto [s, u] = home_[user];
  StatsUpload up;
  if (!locals_[s]->observe(u, x, y, &up)) return;
  ++traffic_.uploads;
  downs_.clear();
  if (global_.receive(up, &downs_)) deliver(downs_);
}

uint32_t Federation::local_clusters() const {
  uint32_t n = 0;
  for (const auto& l : locals_) n += l->cluster_count();
  return n;
}

double Federation::epsilon_spent() const {
  double e = 0.0;
  for (const auto& l : locals_) e = std::max(e, l->ledger().epsilon_spent(cfg_.delta));
  return e;
}

}  // namespace p2b::fclub
