#include "multilabel_env.hpp"

#include <cstdio>
#include <numeric>
#include <utility>

#include "data/arff.hpp"

namespace p2b::sim {

MultiLabelEnvironment::MultiLabelEnvironment(data::MultiLabelSet set, uint64_t population,
                                             uint32_t interactions, uint64_t seed)
    : set_(std::move(set)), interactions_(interactions) {
  if (population * interactions <= set_.rows) {
    order_.resize(set_.rows);
    std::iota(order_.begin(), order_.end(), 0U);
    Draws draws(seed);
    for (std::size_t i = order_.size(); i > 1; --i) {
      std::swap(order_[i - 1], order_[draws.bits() % i]);
    }
  }
}

void MultiLabelEnvironment::step(uint64_t user, uint32_t s, Draws& draws, float* x,
                                 double* p) const {
  // One draw either way, so every setting consumes the stream alike.
  const uint64_t r = draws.bits();
  const std::size_t row = order_.empty() ? r % set_.rows : order_[user * interactions_ + s];
  for (std::size_t j = 0; j < set_.dim; ++j) x[j] = set_.contexts[row * set_.dim + j];
  for (std::size_t a = 0; a < set_.n_labels; ++a) p[a] = set_.labels[row * set_.n_labels + a];
}

data::MultiLabelSet load_multilabel_set(const SimOptions& o, uint32_t dim,
                                        const tools::RunHooks& hooks) {
  data::MultiLabelSet set =
      data::make_multilabel_set(data::load_arff(o.data), data::LabelSpec::parse(o.labels), dim);
  char line[256];
  std::snprintf(line, sizeof line,
                "%zu rows, %zu labels (cardinality %.2f, %zu rows without a label)", set.rows,
                set.n_labels, set.stats.cardinality, set.stats.rows_without_label);
  hooks.say("data: " + o.data + ": " + line + "; " + set.note);
  return set;
}

std::unique_ptr<Environment> make_multilabel_environment(const SimOptions& o, uint32_t interactions,
                                                         const data::MultiLabelSet& set,
                                                         uint64_t population,
                                                         const tools::RunHooks& hooks) {
  auto env = std::make_unique<MultiLabelEnvironment>(set, population, interactions, o.run.seed);
  hooks.say("data: " + std::to_string(population) + " users x " + std::to_string(interactions) +
            " rows each: " +
            (env->resampling() ? "more than the data set holds, rows drawn with replacement"
                               : "disjoint slices of a seeded shuffle (as the reference code)"));
  return env;
}

data::MultiLabelSet load_multilabel_set(const SimOptions& o, uint32_t dim) {
  return load_multilabel_set(o, dim, tools::terminal_hooks(o.run.quiet));
}

std::unique_ptr<Environment> make_multilabel_environment(const SimOptions& o, uint32_t interactions,
                                                         const data::MultiLabelSet& set,
                                                         uint64_t population) {
  return make_multilabel_environment(o, interactions, set, population,
                                     tools::terminal_hooks(o.run.quiet));
}

}  // namespace p2b::sim
