#include "statistics.hpp"

namespace p2b::analyzer {

Statistics::Statistics(uint32_t dim, uint32_t n_actions)
    : dim_(dim),
      n_actions_(n_actions),
      gram_(static_cast<std::size_t>(n_actions) * dim * dim, 0.0),
      reward_(static_cast<std::size_t>(n_actions) * dim, 0.0),
      count_(n_actions, 0) {}

void Statistics::add(uint32_t arm, const double* x, double reward) {
  double* g = gram(arm);
  double* s = reward_sum(arm);
  for (uint32_t j = 0; j < dim_; ++j) {
    for (uint32_t i = 0; i < dim_; ++i) g[static_cast<std::size_t>(j) * dim_ + i] += x[i] * x[j];
    s[j] += reward * x[j];
  }
  ++count_[arm];
}

uint64_t Statistics::total_count() const {
  uint64_t n = 0;
  for (uint64_t c : count_) n += c;
  return n;
}

void Statistics::model_arrays(double lambda, std::vector<double>* a, std::vector<double>* b) const {
  *a = gram_;
  *b = reward_;
  for (uint32_t arm = 0; arm < n_actions_; ++arm) {
    double* a_arm = a->data() + arm_offset(arm) * dim_;
    for (uint32_t i = 0; i < dim_; ++i) a_arm[static_cast<std::size_t>(i) * dim_ + i] += lambda;
  }
}

bool Statistics::operator==(const Statistics& o) const {
  return dim_ == o.dim_ && n_actions_ == o.n_actions_ && gram_ == o.gram_ && reward_ == o.reward_ &&
         count_ == o.count_;
}

}  // namespace p2b::analyzer
