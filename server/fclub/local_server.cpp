#include "fclub/local_server.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <sodium.h>

#include "dp/spd_projection.hpp"
#include "fclub/merge_test.hpp"

namespace p2b::fclub {

namespace {

// Phase-start releases draw from a tree of their own, apart from the
// in-phase trees of the same cluster.
constexpr uint64_t kPhaseStartTree = uint64_t{1} << 63;

}  // namespace

LocalServer::LocalServer(const FclubConfig& cfg, uint32_t server_id, uint32_t n_users,
                         const TreeSeed& noise_key)
    : cfg_(cfg),
      id_(server_id),
      noise_key_(noise_key),
      plan_(cfg.private_uploads ? plan_cdp(cfg) : CdpPlan{}),
      ledgers_(plan_, n_users),
      users_(n_users, Stats::zero(cfg.dim)),
      linked_(n_users, std::vector<bool>(n_users, true)),
      cluster_of_(n_users, 0),
      theta_(cfg.dim),
      scratch_(cfg.dim) {
  Cluster all;
  for (uint32_t u = 0; u < n_users; ++u) all.members.push_back(u);
  all.sync = all.own_noise = all.up = all.base = Stats::zero(cfg.dim);
  // Factor first: Eigen's LLT leaves its status unset until compute(), and
  // moving an unset one reads it (UBSan).
  rebuild_view(all);
  clusters_.push_back(std::move(all));
}

double LocalServer::beta(uint64_t n) const {
  const double d = cfg_.dim;
  const double inner = 2.0 * std::log(1.0 / cfg_.beta_delta) +
                       d * std::log1p(static_cast<double>(n) / (cfg_.ridge * d));
  return cfg_.beta_scale * std::sqrt(inner);
}

void LocalServer::rebuild_view(Cluster& c) {
  c.base = c.sync;
  c.base.gram -= c.own_noise.gram;
  c.base.moment -= c.own_noise.moment;
  if (cfg_.private_uploads) {
    // Others' noise can leave the Gram matrix indefinite; projecting it
    // is post-processing and costs no privacy.
    dp::raise_eigenvalues(c.base.gram.data(), cfg_.dim, 0.0);
  }
  const auto d = static_cast<Eigen::Index>(cfg_.dim);
  const Eigen::MatrixXd ridge = cfg_.ridge * Eigen::MatrixXd::Identity(d, d);
  c.factor.compute(ridge + c.base.gram);
  double ld = 0.0;
  for (Eigen::Index i = 0; i < d; ++i) ld += std::log(c.factor.matrixL()(i, i));
  c.base_log_det = 2.0 * ld;
  c.factor.compute(ridge + c.base.gram + c.up.gram);
}

uint32_t LocalServer::recommend(uint32_t user, const Eigen::MatrixXd& items) {
  const Cluster& c = clusters_[cluster_of_[user]];
  theta_ = c.factor.solve(c.base.moment + c.up.moment);
  const double b = beta(c.base.count + c.up.count);
  uint32_t best = 0;
  double best_score = -INFINITY;
  for (Eigen::Index k = 0; k < items.rows(); ++k) {
    scratch_ = items.row(k).transpose();
    const double mean = scratch_.dot(theta_);
    c.factor.matrixL().solveInPlace(scratch_);
    const double score = mean + b * scratch_.norm();
    if (score > best_score) {
      best_score = score;
      best = static_cast<uint32_t>(k);
    }
  }
  return best;
}

double LocalServer::noise_for(uint32_t phase, uint64_t cluster_key, uint64_t k, Stats* out) const {
  *out = Stats::zero(cfg_.dim);
  const TreePrivatizer tree(cfg_.dim, plan_.sigma,
                            derive_tree_seed(noise_key_, phase, cluster_key));
  tree.prefix_noise(k, &out->gram, &out->moment);
  return tree.prefix_count_noise(k);
}

bool LocalServer::observe(uint32_t user, const Eigen::VectorXd& x_in, double y_in,
                          StatsUpload* up) {
  Eigen::VectorXd x = x_in;
  double y = y_in;
  if (cfg_.private_uploads && !within_sensitivity(cfg_, x.data(), cfg_.dim, y)) {
    const double norm = x.norm();
    if (norm > cfg_.max_item_norm) x *= cfg_.max_item_norm / norm;
    y = std::min(std::max(y, 0.0), cfg_.max_reward);
  }
  users_[user].add_interaction(x, y);
  Cluster& c = clusters_[cluster_of_[user]];
  c.up.add_interaction(x, y);
  c.factor.rankUpdate(x, 1.0);
  ++local_rounds_;
  if (!upload_due(c) || !c.sharing) return false;
  const uint64_t k = c.uploads + 1;
  if (cfg_.private_uploads) {
    // k <= the server's ticks this phase <= the tree's leaves, so the
    // ledger never refuses within a phase whose start it allowed; checked
    // all the same, as it is what the noise was sized for.
    if (k > cfg_.max_uploads_per_phase || !ledgers_.can_upload(c.members, k)) return false;
  }
  const auto index = static_cast<uint32_t>(&c - clusters_.data());
  up->server = id_;
  up->local_cluster = index;
  up->phase = phase_;
  up->seq = static_cast<uint32_t>(k);
  up->members = cfg_.private_uploads ? 0 : static_cast<uint32_t>(c.members.size());
  up->stats = c.up;
  if (cfg_.private_uploads) {
    // No count in an in-phase increment: it would be a raw count, and the
    // merge test reads only the phase-start uploads' noisy counts.
    up->stats.count = 0;
    // Telescoping: the k-th upload adds noise(k) - noise(k-1), so what the
    // global server has summed carries the noise of prefix k only.
    Stats now, before;
    noise_for(phase_, index, k, &now);
    noise_for(phase_, index, k - 1, &before);
    now.gram -= before.gram;
    now.moment -= before.moment;
    up->stats.gram += now.gram;
    up->stats.moment += now.moment;
    c.own_noise.gram += now.gram;
    c.own_noise.moment += now.moment;
    ledgers_.on_upload(c.members, k);
    up->epsilon_spent = ledgers_.worst().epsilon_spent(cfg_.delta);
  }
  c.uploads = k;
  c.sync.add(up->stats);
  c.sync.count += c.up.count - up->stats.count;  // the local's own view counts its raw data
  c.up.clear();
  rebuild_view(c);
  return true;
}

bool LocalServer::upload_due(const Cluster& c) {
  if (cfg_.private_uploads) {
    // A clock of arrivals: the same schedule whatever the users' items and
    // rewards (Eq. 5 reads the data, so its timing would leak them). At
    // most max_uploads_per_phase ticks a phase, counted per server, so no
    // cluster's tree outgrows its leaves whoever its members are.
    if (local_rounds_ % private_upload_interval(cfg_, phase_) != 0) return false;
    return ++phase_ticks_ <= cfg_.max_uploads_per_phase;
  }
  // Eq. 5 on the raw view; a deployment without privacy has no timing to hide.
  if (cfg_.upload_ratio <= 1.0) return true;
  double ld = 0.0;
  for (Eigen::Index i = 0; i < c.factor.matrixL().rows(); ++i) {
    ld += std::log(c.factor.matrixL()(i, i));
  }
  return 2.0 * ld - c.base_log_det >= std::log(cfg_.upload_ratio);
}

std::vector<std::vector<uint32_t>> LocalServer::split_users() {
  const auto n = static_cast<uint32_t>(users_.size());
  if (cfg_.clustering == Clustering::detect) {
    std::vector<Eigen::VectorXd> est(n);
    for (uint32_t u = 0; u < n; ++u) est[u] = ridge_estimate(users_[u], cfg_.estimate_ridge);
    for (uint32_t u = 0; u < n; ++u) {
      for (uint32_t v = u + 1; v < n; ++v) {
        if (!linked_[u][v] || users_[u].count == 0 || users_[v].count == 0) continue;
        const double gap = (est[u] - est[v]).norm();
        const double bound = cfg_.split_alpha * (confidence_radius(users_[u].count) +
                                                 confidence_radius(users_[v].count));
        if (gap > bound) linked_[u][v] = linked_[v][u] = false;
      }
    }
  }
  // Connected components, numbered by their smallest user.
  std::vector<std::vector<uint32_t>> parts =
      connected_components(n, [this](uint32_t a, uint32_t b) { return linked_[a][b]; });
  if (cfg_.private_uploads && cfg_.clustering == Clustering::detect) return merge_own(parts);
  return parts;
}

std::vector<std::vector<uint32_t>> LocalServer::merge_own(
    const std::vector<std::vector<uint32_t>>& parts) const {
  // Eq. 4 among this server's own clusters, on the raw statistics it is
  // trusted with: the merges the global server would make between them
  // without privacy, which noisy statistics cannot pass (docs/fclub.md).
  std::vector<MergeView> views;
  views.reserve(parts.size());
  for (const std::vector<uint32_t>& part : parts) {
    Stats sum = Stats::zero(cfg_.dim);
    for (const uint32_t u : part) sum.add(users_[u]);
    views.push_back(merge_view(sum, cfg_, NoiseNorms{}));
  }
  std::vector<std::vector<uint32_t>> merged;
  for (const std::vector<uint32_t>& group : merge_components(views, cfg_.merge_alpha, 0.0)) {
    std::vector<uint32_t> users;
    for (const uint32_t p : group) users.insert(users.end(), parts[p].begin(), parts[p].end());
    std::sort(users.begin(), users.end());
    merged.push_back(std::move(users));
  }
  return merged;
}

std::vector<StatsUpload> LocalServer::start_phase(uint32_t phase) {
  phase_ = phase;
  phase_ticks_ = 0;
  std::vector<StatsUpload> out;
  clusters_.clear();
  for (std::vector<uint32_t>& part : split_users()) {
    Cluster c;
    c.own_noise = c.up = Stats::zero(cfg_.dim);
    c.sync = Stats::zero(cfg_.dim);
    for (uint32_t u : part) c.sync.add(users_[u]);
    const auto index = static_cast<uint32_t>(clusters_.size());
    for (uint32_t u : part) cluster_of_[u] = index;
    c.members = std::move(part);
    // Each member's ledger must allow its records out again (per user: a
    // spent user keeps its cluster from sharing, the others do not pay).
    const bool release = !cfg_.private_uploads || ledgers_.can_release(c.members);
    if (cfg_.private_uploads && release) ledgers_.on_release(c.members);
    c.sharing = release;
    if (release) {
      StatsUpload up;
      up.server = id_;
      up.local_cluster = index;
      up.phase = phase;
      up.seq = 0;
      up.members = cfg_.private_uploads ? 0 : static_cast<uint32_t>(c.members.size());
      up.stats = c.sync;
      if (cfg_.private_uploads) {
        const double count_noise = noise_for(phase, kPhaseStartTree | index, 1, &c.own_noise);
        up.stats.gram += c.own_noise.gram;
        up.stats.moment += c.own_noise.moment;
        up.stats.count = noisy_count(c.sync.count, count_noise);
        c.released_count = up.stats.count;
        const uint64_t raw_count = c.sync.count;
        c.sync = up.stats;
        c.sync.count = raw_count;  // the local's own view counts its raw data
        up.epsilon_spent = ledgers_.worst().epsilon_spent(cfg_.delta);
      }
      out.push_back(std::move(up));
    }
    rebuild_view(c);
    clusters_.push_back(std::move(c));
  }
  return out;
}

bool LocalServer::apply(const StatsDownload& down) {
  if (down.server != id_ || down.local_cluster >= clusters_.size() || down.phase != phase_) {
    return false;
  }
  Cluster& c = clusters_[down.local_cluster];
  if (down.replace) {
    const uint64_t raw = c.sync.count;
    c.sync = down.stats;
    // A private renewal holds this cluster's own noisy count: swap it back
    // for the raw one, which the local has, so only others' counts are noisy.
    if (cfg_.private_uploads) c.sync.count = c.sync.count - c.released_count + raw;
  } else {
    c.sync.add(down.stats);
  }
  rebuild_view(c);
  return true;
}

namespace {

void hash_stats(crypto_generichash_state* h, const Stats& s) {
  crypto_generichash_update(h, reinterpret_cast<const unsigned char*>(s.gram.data()),
                            static_cast<std::size_t>(s.gram.size()) * sizeof(double));
  crypto_generichash_update(h, reinterpret_cast<const unsigned char*>(s.moment.data()),
                            static_cast<std::size_t>(s.moment.size()) * sizeof(double));
  crypto_generichash_update(h, reinterpret_cast<const unsigned char*>(&s.count), sizeof s.count);
}

void hash_u64(crypto_generichash_state* h, uint64_t v) {
  crypto_generichash_update(h, reinterpret_cast<const unsigned char*>(&v), sizeof v);
}

}  // namespace

std::array<uint8_t, 16> LocalServer::state_digest() const {
  crypto_generichash_state h;
  crypto_generichash_init(&h, nullptr, 0, 16);
  hash_u64(&h, phase_);
  hash_u64(&h, local_rounds_);
  hash_u64(&h, phase_ticks_);
  for (uint32_t u = 0; u < ledgers_.n_users(); ++u) {
    const CdpLedger& l = ledgers_.user(u);
    hash_u64(&h, l.worst_old());
    hash_u64(&h, l.depth());
    hash_u64(&h, l.started() ? 1 : 0);
  }
  for (const Stats& u : users_) hash_stats(&h, u);
  for (const std::vector<bool>& row : linked_) {
    for (const bool l : row) hash_u64(&h, l ? 1 : 0);
  }
  for (const Cluster& c : clusters_) {
    for (const uint32_t m : c.members) hash_u64(&h, m);
    for (const Stats* s : {&c.sync, &c.own_noise, &c.up, &c.base}) hash_stats(&h, *s);
    hash_u64(&h, c.uploads);
    hash_u64(&h, c.released_count);
    hash_u64(&h, c.sharing ? 1 : 0);
  }
  std::array<uint8_t, 16> out{};
  crypto_generichash_final(&h, out.data(), out.size());
  return out;
}

}  // namespace p2b::fclub
