// The paper's multi-label experiment with bandit feedback (section 5.2): a
// user's contexts are rows of a multi-label data set, the actions are its
// labels, and choosing a true label is rewarded. Users get disjoint slices of
// a seeded shuffle of the rows while rows last (the reference code's split);
// larger populations draw rows with replacement.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cli/run_hooks.hpp"
#include "data/multilabel.hpp"
#include "environment.hpp"
#include "sim_options.hpp"

namespace p2b::sim {

class MultiLabelEnvironment final : public Environment {
 public:
  MultiLabelEnvironment(data::MultiLabelSet set, uint64_t population, uint32_t interactions,
                        uint64_t seed);
  uint32_t dim() const override { return static_cast<uint32_t>(set_.dim); }
  uint32_t n_actions() const override { return static_cast<uint32_t>(set_.n_labels); }
  void step(uint64_t user, uint32_t s, Draws& draws, float* x, double* p) const override;
  bool resampling() const { return order_.empty(); }
  const data::MultiLabelSet& set() const { return set_; }

 private:
  data::MultiLabelSet set_;
  uint32_t interactions_;
  std::vector<uint32_t> order_;  // row of (user, step) = order_[user * t + step]
};

// Loads --data with --labels, reduces to `dim` and says what it found.
data::MultiLabelSet load_multilabel_set(const SimOptions& o, uint32_t dim,
                                        const tools::RunHooks& hooks);

// The environment of one population over `set`; says how rows are dealt.
// `interactions`: t rows per user.
std::unique_ptr<Environment> make_multilabel_environment(const SimOptions& o, uint32_t interactions,
                                                         const data::MultiLabelSet& set,
                                                         uint64_t population,
                                                         const tools::RunHooks& hooks);

// The same two, saying it on the terminal (unless o.run.quiet), for callers
// that have no hooks of their own.
data::MultiLabelSet load_multilabel_set(const SimOptions& o, uint32_t dim);
std::unique_ptr<Environment> make_multilabel_environment(const SimOptions& o, uint32_t interactions,
                                                         const data::MultiLabelSet& set,
                                                         uint64_t population);

}  // namespace p2b::sim
