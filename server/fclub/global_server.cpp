#include "fclub/global_server.hpp"

#include <cmath>

#include "dp/spd_projection.hpp"
#include "fclub/cdp_ledger.hpp"
#include "fclub/merge_test.hpp"

namespace p2b::fclub {

namespace {

double psd_log_det(Eigen::MatrixXd gram, const FclubConfig& cfg) {
  if (cfg.private_uploads) dp::raise_eigenvalues(gram.data(), cfg.dim, 0.0);
  double ld = 0.0;
  log_det(gram, cfg.ridge, &ld);
  return ld;
}

}  // namespace

GlobalServer::GlobalServer(const FclubConfig& cfg) : cfg_(cfg) {
  // A phase-start upload carries one node of its server's noise.
  if (cfg.private_uploads) {
    phase_start_noise_ = noise_norms(cfg.dim, plan_cdp(cfg).sigma, 1, cfg.merge_noise_delta);
  }
}

std::vector<std::vector<uint32_t>> GlobalServer::partition(
    const std::vector<StatsUpload>& uploads) const {
  const auto n = static_cast<uint32_t>(uploads.size());
  std::vector<std::vector<uint32_t>> parts;
  switch (cfg_.clustering) {
    case Clustering::single_global:
      parts.emplace_back();
      for (uint32_t i = 0; i < n; ++i) parts.back().push_back(i);
      if (n == 0) parts.clear();
      return parts;
    case Clustering::per_server:
      for (uint32_t i = 0; i < n; ++i) parts.push_back({i});
      return parts;
    case Clustering::detect:
      break;
  }
  std::vector<MergeView> views;
  views.reserve(n);
  for (const StatsUpload& up : uploads) {
    views.push_back(merge_view(up.stats, cfg_, phase_start_noise_));
  }
  return merge_components(views, cfg_.merge_alpha, cfg_.min_theta_gap);
}

std::vector<StatsDownload> GlobalServer::merge_phase(uint32_t phase,
                                                     const std::vector<StatsUpload>& uploads) {
  phase_ = phase;
  clusters_.clear();
  where_.clear();
  for (const std::vector<uint32_t>& part : partition(uploads)) {
    const auto g = static_cast<uint32_t>(clusters_.size());
    Cluster c;
    c.sum = Stats::zero(cfg_.dim);
    for (std::size_t i : part) {
      c.sum.add(uploads[i].stats);
      Member m;
      m.server = uploads[i].server;
      m.local_cluster = uploads[i].local_cluster;
      m.pending = Stats::zero(cfg_.dim);
      where_[{m.server, m.local_cluster}] = {g, static_cast<uint32_t>(c.members.size())};
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
  if (m.pending_uploads == 0) return false;
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
    if (i != it->second.second) {
      c.members[i].pending.add(up.stats);
      ++c.members[i].pending_uploads;
    }
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
    m.pending_uploads = 0;
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
