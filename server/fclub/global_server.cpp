#include "fclub/global_server.hpp"

#include <cmath>

#include "dp/spd_projection.hpp"

namespace p2b::fclub {

namespace {

// The estimate Eq. 4 compares, from statistics that may carry noise: the
// Gram matrix is made PSD first (post-processing).
Eigen::VectorXd merge_estimate(Stats s, const FclubConfig& cfg) {
  if (cfg.private_uploads) dp::raise_eigenvalues(s.gram.data(), cfg.dim, 0.0);
  return ridge_estimate(s, cfg.estimate_ridge);
}

double psd_log_det(Eigen::MatrixXd gram, const FclubConfig& cfg) {
  if (cfg.private_uploads) dp::raise_eigenvalues(gram.data(), cfg.dim, 0.0);
  double ld = 0.0;
  log_det(gram, cfg.ridge, &ld);
  return ld;
}

}  // namespace

GlobalServer::GlobalServer(const FclubConfig& cfg) : cfg_(cfg) {}

std::vector<StatsDownload> GlobalServer::merge_phase(uint32_t phase,
                                                     const std::vector<StatsUpload>& uploads) {
  phase_ = phase;
  const std::size_t n = uploads.size();
  std::vector<Eigen::VectorXd> est(n);
  for (std::size_t i = 0; i < n; ++i) est[i] = merge_estimate(uploads[i].stats, cfg_);
  auto close = [&](std::size_t i, std::size_t j) {
    switch (cfg_.clustering) {
      case Clustering::single_global:
        return true;
      case Clustering::per_server:
        return false;
      case Clustering::detect:
        break;
    }
    const double bound = cfg_.merge_alpha * (confidence_radius(uploads[i].stats.count) +
                                             confidence_radius(uploads[j].stats.count));
    return (est[i] - est[j]).norm() < bound;
  };
  // Connected components of the merge graph, numbered by first upload.
  std::vector<int> group(n, -1);
  clusters_.clear();
  where_.clear();
  for (std::size_t s = 0; s < n; ++s) {
    if (group[s] >= 0) continue;
    const auto g = static_cast<int>(clusters_.size());
    std::vector<std::size_t> part{s};
    group[s] = g;
    for (std::size_t at = 0; at < part.size(); ++at) {
      for (std::size_t v = 0; v < n; ++v) {
        if (group[v] < 0 && close(part[at], v)) {
          group[v] = g;
          part.push_back(v);
        }
      }
    }
    Cluster c;
    c.sum = Stats::zero(cfg_.dim);
    for (std::size_t i : part) {
      c.sum.add(uploads[i].stats);
      Member m;
      m.server = uploads[i].server;
      m.local_cluster = uploads[i].local_cluster;
      m.pending = Stats::zero(cfg_.dim);
      where_[{m.server, m.local_cluster}] = {static_cast<uint32_t>(g),
                                             static_cast<uint32_t>(c.members.size())};
      c.members.push_back(std::move(m));
    }
    clusters_.push_back(std::move(c));
  }
  std::vector<StatsDownload> out;
  for (std::size_t g = 0; g < clusters_.size(); ++g) {
    for (const Member& m : clusters_[g].members) {
      StatsDownload d;
      d.server = m.server;
      d.local_cluster = m.local_cluster;
      d.global_cluster = static_cast<uint32_t>(g);
      d.phase = phase;
      d.replace = true;
      d.stats = clusters_[g].sum;
      out.push_back(std::move(d));
    }
  }
  return out;
}

bool GlobalServer::download_due(const Stats& sum, const Member& m) const {
  if (m.pending.count == 0) return false;
  if (cfg_.download_ratio <= 1.0) return true;
  // What the member holds is the sum less what it has not been sent.
  Eigen::MatrixXd held = sum.gram - m.pending.gram;
  return psd_log_det(sum.gram, cfg_) - psd_log_det(std::move(held), cfg_) >=
         std::log(cfg_.download_ratio);
}

bool GlobalServer::receive(const StatsUpload& up, std::vector<StatsDownload>* downs) {
  const auto it = where_.find({up.server, up.local_cluster});
  if (it == where_.end() || up.phase != phase_ || up.seq == 0) return false;
  Cluster& c = clusters_[it->second.first];
  c.sum.add(up.stats);
  for (std::size_t i = 0; i < c.members.size(); ++i) {
    if (i != it->second.second) c.members[i].pending.add(up.stats);
  }
  for (Member& m : c.members) {
    if (!download_due(c.sum, m)) continue;
    StatsDownload d;
    d.server = m.server;
    d.local_cluster = m.local_cluster;
    d.global_cluster = it->second.first;
    d.phase = phase_;
    d.stats = m.pending;
    m.pending.clear();
    downs->push_back(std::move(d));
  }
  return true;
}

int GlobalServer::cluster_of(uint32_t server, uint32_t local_cluster) const {
  const auto it = where_.find({server, local_cluster});
  return it == where_.end() ? -1 : static_cast<int>(it->second.first);
}

std::vector<std::pair<uint32_t, uint32_t>> GlobalServer::members(uint32_t g) const {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const Member& m : clusters_[g].members) out.emplace_back(m.server, m.local_cluster);
  return out;
}

}  // namespace p2b::fclub
