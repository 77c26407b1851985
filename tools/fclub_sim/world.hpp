// FCLUB's synthetic world (the authors' Environment): users with one of m
// preference vectors, K fresh items a round x = [g/||g||/sqrt2, 1/sqrt2]
// with g ~ N(0, I_{d-1}) (so x^T theta lies in [0, 1]), a uniformly drawn
// user a round and a Bernoulli(x^T theta) reward. Every algorithm of a run
// sees the same users, items and reward coins (common random numbers).
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

namespace p2b::fclub_sim {

struct WorldSpec {
  uint32_t dim = 10;
  uint32_t users = 40;
  uint32_t clusters = 5;  // distinct theta when generated
  uint32_t servers = 5;
  uint32_t items = 10;        // K
  bool shuffle_users = true;  // spread clusters over servers; false: blocks, as the authors' files
  std::string thetas_file;    // .npy (users x dim): per-user theta, used as given
  uint64_t seed = 1;
};

struct Round {
  uint32_t user = 0;
  Eigen::MatrixXd items;  // K x d
  double coin = 0.0;      // uniform in [0, 1): reward = coin < x^T theta
};

class World {
 public:
  explicit World(const WorldSpec& spec);  // throws std::runtime_error on a bad file
  void draw(uint64_t t, Round* r) const;  // deterministic in (seed, t)
  double expected(uint32_t user, const Eigen::VectorXd& x) const { return theta_[user].dot(x); }
  double best(uint32_t user, const Eigen::MatrixXd& items) const;
  std::vector<uint32_t> users_per_server() const;
  uint32_t distinct_thetas() const { return distinct_; }
  const WorldSpec& spec() const { return spec_; }

 private:
  WorldSpec spec_;
  std::vector<Eigen::VectorXd> theta_;  // by user, in server order
  uint32_t distinct_ = 0;
};

// x = [g/||g||/sqrt2, 1/sqrt2] from d-1 standard normals.
Eigen::VectorXd unit_half_vector(const double* normals, uint32_t dim);

}  // namespace p2b::fclub_sim
