#include "fclub_sim/baselines.hpp"

#include <cmath>

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

}  // namespace

std::unique_ptr<Learner> make_linucb_ind(uint32_t dim, uint32_t users, const Scoring& s) {
  return std::make_unique<LinUcbInd>(dim, users, s);
}

std::unique_ptr<Learner> make_club(uint32_t dim, const std::vector<uint32_t>& users_per_server,
                                   const Scoring& s, double split_alpha, double estimate_ridge) {
  return std::make_unique<Club>(dim, users_per_server, s, split_alpha, estimate_ridge);
}

}  // namespace p2b::fclub_sim
