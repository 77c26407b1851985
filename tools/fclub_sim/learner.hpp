// What every algorithm of `p2b-sim --protocol fclub` is to the run loop.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>

namespace p2b::fclub_sim {

struct Comm {
  uint64_t uploads = 0;
  uint64_t downloads = 0;
  uint64_t events = 0;  // as the authors' code counts (reference mode), else uploads + downloads
};

class Learner {
 public:
  virtual ~Learner() = default;
  virtual void start_phase(uint32_t /*phase*/) {}
  virtual uint32_t recommend(uint32_t user, const Eigen::MatrixXd& items) = 0;
  virtual void observe(uint32_t user, const Eigen::VectorXd& x, double y) = 0;
  virtual Comm comm() const { return {}; }
  virtual uint32_t clusters() const { return 0; }
  virtual double epsilon() const { return 0.0; }
};

// How a LinUCB index is scored: M = ridge I + V, score = x.theta + beta(n)
// * w, w = sqrt(x^T M^-1 x), or x^T M^-1 x itself in the authors' code.
struct Scoring {
  double ridge = 1.0;
  bool sqrt_width = true;
  std::function<double(uint64_t)> beta;
};

// The authors' beta: 0.5 sqrt(2 ln(2 / a) + d ln(3 + n L^2 / d)), with their
// a = 1.5 (FCLUB-DC), 15 (LinUCB) or 0.25 (CLUB).
double reference_beta(double a, uint32_t dim, uint64_t n, double l = 1.0);
// The paper-style schedule every default-mode algorithm shares.
double default_beta(double scale, double delta, double ridge, uint32_t dim, uint64_t n);

// The index of the best-scoring row of `items` for statistics (gram,
// moment, n); ties go to the lowest row.
uint32_t linucb_pick(const Eigen::MatrixXd& gram, const Eigen::VectorXd& moment, uint64_t n,
                     const Scoring& s, const Eigen::MatrixXd& items);

}  // namespace p2b::fclub_sim
