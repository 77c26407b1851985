// Per-arm sufficient statistics of ridge regression, kept as plain sums with
// no prior: G_a = sum x x^T, s_a = sum r x, and n_a reports. Sums merge by
// addition, so two shards (or a future PostgreSQL backend fed by several
// analyzers) combine exactly; the ridge prior is added only when a model is
// signed, A_a = lambda I + G_a and b_a = s_a.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace p2b::analyzer {

class Statistics {
 public:
  Statistics() = default;
  Statistics(uint32_t dim, uint32_t n_actions);

  uint32_t dim() const { return dim_; }
  uint32_t n_actions() const { return n_actions_; }

  // One report: G_arm += x x^T, s_arm += reward x, n_arm += 1.
  void add(uint32_t arm, const double* x, double reward);

  // Column-major dim x dim (symmetric) and dim-vector views of one arm.
  const double* gram(uint32_t arm) const { return gram_.data() + arm_offset(arm) * dim_; }
  double* gram(uint32_t arm) { return gram_.data() + arm_offset(arm) * dim_; }
  const double* reward_sum(uint32_t arm) const { return reward_.data() + arm_offset(arm); }
  double* reward_sum(uint32_t arm) { return reward_.data() + arm_offset(arm); }
  uint64_t count(uint32_t arm) const { return count_[arm]; }
  void set_count(uint32_t arm, uint64_t n) { count_[arm] = n; }
  uint64_t total_count() const;

  // The signed model's arrays in build_model_bundle's layout, prior included.
  void model_arrays(double lambda, std::vector<double>* a, std::vector<double>* b) const;

  bool operator==(const Statistics& o) const;
  bool operator!=(const Statistics& o) const { return !(*this == o); }

 private:
  std::size_t arm_offset(uint32_t arm) const { return static_cast<std::size_t>(arm) * dim_; }

  uint32_t dim_ = 0;
  uint32_t n_actions_ = 0;
  std::vector<double> gram_;
  std::vector<double> reward_;
  std::vector<uint64_t> count_;
};

}  // namespace p2b::analyzer
