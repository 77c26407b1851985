#include "fclub_sim/baselines.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "fclub/cluster_stats.hpp"

namespace p2b::fclub_sim {

namespace {

using fclub::Stats;

class LinUcbInd final : public Learner {
 public:
  LinUcbInd(uint32_t dim, uint32_t users, Scoring s)
      : users_(users, Stats::zero(dim)), s_(std::move(s)) {}
  uint32_t recommend(uint32_t user, const Eigen::MatrixXd& items) override {
    const Stats& u = users_[user];
    return linucb_pick(u.gram, u.moment, u.count, s_, items);
  }
  void observe(uint32_t user, const Eigen::VectorXd& x, double y) override {
    users_[user].add_interaction(x, y);
  }

 private:
  std::vector<Stats> users_;
  Scoring s_;
};

class Club final : public Learner {
 public:
  Club(uint32_t dim, const std::vector<uint32_t>& per_server, Scoring s, double alpha, double ridge)
      : s_(std::move(s)), alpha_(alpha), ridge_(ridge), dim_(dim) {
    uint32_t first = 0;
    for (uint32_t n : per_server) {
      for (uint32_t u = 0; u < n; ++u) {
        server_first_.push_back(first);
        server_size_.push_back(n);
      }
      first += n;
    }
    const auto total = static_cast<uint32_t>(server_first_.size());
    users_.assign(total, Stats::zero(dim));
    estimate_.assign(total, Eigen::VectorXd::Zero(dim));
    linked_.assign(total, std::vector<bool>(total, false));
    for (uint32_t u = 0; u < total; ++u) {
      for (uint32_t v = server_first_[u]; v < server_first_[u] + server_size_[u]; ++v) {
        linked_[u][v] = u != v;
      }
    }
  }

  uint32_t recommend(uint32_t user, const Eigen::MatrixXd& items) override {
    Stats sum = Stats::zero(dim_);
    for (uint32_t v : component(user)) sum.add(users_[v]);
    return linucb_pick(sum.gram, sum.moment, sum.count, s_, items);
  }

  void observe(uint32_t user, const Eigen::VectorXd& x, double y) override {
    users_[user].add_interaction(x, y);
    estimate_[user] = fclub::ridge_estimate(users_[user], ridge_);
    for (uint32_t v = 0; v < users_.size(); ++v) {
      if (!linked_[user][v] || users_[v].count == 0) continue;
      const double bound = alpha_ * (fclub::confidence_radius(users_[user].count) +
                                     fclub::confidence_radius(users_[v].count));
      if ((estimate_[user] - estimate_[v]).norm() > bound)
        linked_[user][v] = linked_[v][user] = false;
    }
  }

  uint32_t clusters() const override {
    std::vector<bool> seen(users_.size(), false);
    uint32_t n = 0;
    for (uint32_t u = 0; u < users_.size(); ++u) {
      if (seen[u]) continue;
      ++n;
      for (uint32_t v : component(u)) seen[v] = true;
    }
    return n;
  }

 private:
  std::vector<uint32_t> component(uint32_t user) const {
    std::vector<uint32_t> part{user};
    std::vector<bool> seen(users_.size(), false);
    seen[user] = true;
    const uint32_t lo = server_first_[user], hi = lo + server_size_[user];
    for (std::size_t at = 0; at < part.size(); ++at) {
      for (uint32_t v = lo; v < hi; ++v) {
        if (!seen[v] && linked_[part[at]][v]) {
          seen[v] = true;
          part.push_back(v);
        }
      }
    }
    return part;
  }

  std::vector<uint32_t> server_first_, server_size_;
  std::vector<Stats> users_;
  std::vector<Eigen::VectorXd> estimate_;
  std::vector<std::vector<bool>> linked_;
  Scoring s_;
  double alpha_, ridge_;
  uint32_t dim_;
};

// SCLUB as its authors' code runs it (and the FCLUB authors ship it):
// clusters per local server, phases on the DC schedule, splits every round
// for the arriving user, merges every round between fully checked
// clusters, the highest cluster index never merging.
class Sclub final : public Learner {
 public:
  Sclub(uint32_t dim, const std::vector<uint32_t>& per_server, Scoring s, SclubParams p)
      : s_(std::move(s)), p_(p), dim_(dim) {
    uint32_t first = 0;
    for (uint32_t n : per_server) {
      Server srv;
      Cluster all = empty();
      for (uint32_t u = first; u < first + n; ++u) {
        all.users.push_back(u);
        all.checks.push_back(false);
        server_of_.push_back(static_cast<uint32_t>(servers_.size()));
      }
      srv.clusters.emplace(0, std::move(all));
      servers_.push_back(std::move(srv));
      first += n;
    }
    users_.assign(first, Stats::zero(dim));
    estimate_.assign(first, Eigen::VectorXd::Zero(dim));
    cluster_of_.assign(first, 0);
  }

  void start_phase(uint32_t /*phase*/) override {
    for (Server& srv : servers_) {
      for (auto& [id, c] : srv.clusters) {
        std::fill(c.checks.begin(), c.checks.end(), false);
        c.checked = false;
        c.t_phase = c.sum.count;
        c.theta_phase = c.theta;
      }
    }
  }

  uint32_t recommend(uint32_t user, const Eigen::MatrixXd& items) override {
    const Cluster& c = servers_[server_of_[user]].clusters.at(cluster_of_[user]);
    return linucb_pick(c.sum.gram, c.sum.moment, c.sum.count, s_, items);
  }

  void observe(uint32_t user, const Eigen::VectorXd& x, double y) override {
    ++round_;
    users_[user].add_interaction(x, y);
    estimate_[user] = fclub::ridge_estimate(users_[user], p_.estimate_ridge);
    Server& srv = servers_[server_of_[user]];
    Cluster& c = srv.clusters.at(cluster_of_[user]);
    c.sum.add_interaction(x, y);
    c.theta = fclub::ridge_estimate(c.sum, p_.estimate_ridge);
    split(srv, user);
    merge(srv);
  }

  uint32_t clusters() const override {
    uint32_t n = 0;
    for (const Server& srv : servers_) {
      for (const auto& kv : srv.clusters) n += kv.second.users.empty() ? 0 : 1;
    }
    return n;
  }

 private:
  struct Cluster {
    std::vector<uint32_t> users;
    std::vector<bool> checks;  // by position in `users`
    bool checked = false;
    Stats sum;
    Eigen::VectorXd theta, theta_phase;
    uint64_t t_phase = 0;
  };
  struct Server {
    std::map<int, Cluster> clusters;
  };

  Cluster empty() const {
    Cluster c;
    c.sum = Stats::zero(dim_);
    c.theta = c.theta_phase = Eigen::VectorXd::Zero(dim_);
    return c;
  }

  double t_now() const { return static_cast<double>(round_); }

  void split(Server& srv, uint32_t user) {
    Cluster& c = srv.clusters.at(cluster_of_[user]);
    std::size_t at = 0;
    while (c.users[at] != user) ++at;
    c.checks[at] = true;
    c.checked = std::all_of(c.checks.begin(), c.checks.end(), [](bool b) { return b; });
    const uint64_t tu = users_[user].count;
    bool out =
        (estimate_[user] - c.theta_phase).norm() >
        p_.split_alpha * (fclub::confidence_radius(tu) + fclub::confidence_radius(c.t_phase));
    const double ft = fclub::confidence_radius(round_);
    for (uint32_t v : c.users) {
      if (out) break;
      if (v == user) continue;
      const double gap =
          std::abs(static_cast<double>(tu) - static_cast<double>(users_[v].count)) / t_now();
      out = gap > p_.frequency_alpha * 2.0 * ft;
    }
    if (!out) return;
    int fresh = 0;
    while (srv.clusters.count(fresh) != 0) ++fresh;  // the lowest free index
    Cluster n = empty();
    n.users = {user};
    n.checks = {false};
    n.sum = users_[user];
    n.theta = fclub::ridge_estimate(n.sum, p_.estimate_ridge);
    n.t_phase = c.t_phase;
    n.theta_phase = c.theta_phase;
    c.users.erase(c.users.begin() + static_cast<std::ptrdiff_t>(at));
    c.checks.erase(c.checks.begin() + static_cast<std::ptrdiff_t>(at));
    c.sum.subtract(users_[user]);  // its estimate stays as it was until it learns again
    cluster_of_[user] = fresh;
    srv.clusters.emplace(fresh, std::move(n));
  }

  void merge(Server& srv) {
    const int top = srv.clusters.rbegin()->first;
    const double ft = fclub::confidence_radius(round_);
    for (int c1 = 0; c1 < top - 1; ++c1) {
      auto a = srv.clusters.find(c1);
      if (a == srv.clusters.end() || !a->second.checked || a->second.users.empty()) continue;
      for (int c2 = c1 + 1; c2 < top; ++c2) {
        auto b = srv.clusters.find(c2);
        if (b == srv.clusters.end() || !b->second.checked || b->second.users.empty()) continue;
        Cluster& x = a->second;
        Cluster& y = b->second;
        const double bound = p_.merge_alpha * (fclub::confidence_radius(x.sum.count) +
                                               fclub::confidence_radius(y.sum.count));
        const double px =
            static_cast<double>(x.sum.count) / (static_cast<double>(x.users.size()) * t_now());
        const double py =
            static_cast<double>(y.sum.count) / (static_cast<double>(y.users.size()) * t_now());
        if ((x.theta - y.theta).norm() >= bound || std::abs(px - py) >= p_.frequency_alpha * ft)
          continue;
        for (uint32_t u : y.users) cluster_of_[u] = c1;
        x.users.insert(x.users.end(), y.users.begin(), y.users.end());
        x.checks.insert(x.checks.end(), y.checks.begin(), y.checks.end());
        x.sum.add(y.sum);
        x.theta = fclub::ridge_estimate(x.sum, p_.estimate_ridge);
        srv.clusters.erase(b);
      }
    }
  }

  std::vector<Server> servers_;
  std::vector<uint32_t> server_of_;
  std::vector<int> cluster_of_;
  std::vector<Stats> users_;
  std::vector<Eigen::VectorXd> estimate_;
  Scoring s_;
  SclubParams p_;
  uint32_t dim_;
  uint64_t round_ = 0;
};

}  // namespace

std::unique_ptr<Learner> make_sclub(uint32_t dim, const std::vector<uint32_t>& users_per_server,
                                    const Scoring& s, const SclubParams& p) {
  return std::make_unique<Sclub>(dim, users_per_server, s, p);
}

std::unique_ptr<Learner> make_linucb_ind(uint32_t dim, uint32_t users, const Scoring& s) {
  return std::make_unique<LinUcbInd>(dim, users, s);
}

std::unique_ptr<Learner> make_club(uint32_t dim, const std::vector<uint32_t>& users_per_server,
                                   const Scoring& s, double split_alpha, double estimate_ridge) {
  return std::make_unique<Club>(dim, users_per_server, s, split_alpha, estimate_ridge);
}

}  // namespace p2b::fclub_sim
