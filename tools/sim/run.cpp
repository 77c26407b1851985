#include "run.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "data/weights_file.hpp"
#include "sim/codebook_source.hpp"
#include "sim/deployment.hpp"
#include "sim/environment.hpp"
#include "sim/file_digest.hpp"
#include "sim/mapping_oracle.hpp"
#include "sim/multilabel_env.hpp"
#include "sim/results_table.hpp"
#include "sim/run_lines.hpp"
#include "sim/synthetic_env.hpp"

namespace p2b::sim {
namespace {

using Clock = std::chrono::steady_clock;

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux reports KiB
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// run_point's progress comes from its workers (one at a time, under its
// lock) as often as they finish a batch; the hooks get it at most every
// quarter second, and always the last call, which ends the bar.
class ThrottledProgress {
 public:
  ThrottledProgress(const tools::RunHooks& hooks, std::string stage)
      : hooks_(hooks), stage_(std::move(stage)) {}

  void operator()(const char*, double done, double total) {
    const Clock::time_point now = Clock::now();
    if (done < total && now - last_ < std::chrono::milliseconds(250)) return;
    last_ = now;
    hooks_.report(stage_, static_cast<uint64_t>(done), static_cast<uint64_t>(total));
  }

 private:
  const tools::RunHooks& hooks_;
  std::string stage_;
  Clock::time_point last_{};
};

// The data behind the environments, read once per run (weights) or per d
// (a multi-label set); the environments themselves are per grid point.
struct EnvInputs {
  std::optional<data::Weights> weights;
  std::optional<data::MultiLabelSet> multilabel;
};

// Everything one seed's grid shares.
struct RunContext {
  const SimOptions& o;
  const tools::RunHooks& hooks;
  EnvInputs inputs;
  ResultRow provenance;             // what produced the rows (hashes read once)
  double crypto_us = 0.0;           // one report's crypto, measured once
  std::set<std::string> described;  // environments whose figures were said
  std::vector<ResultRow> rows;
};

// One grid point's coordinates.
struct GridPoint {
  uint32_t dim, actions;
  uint64_t users;
  uint32_t interactions;
  Mode mode;
  double central_epsilon;
};

void load_weights(RunContext* c) {
  const SimOptions& o = c->o;
  const auto layout = o.weights_layout == "actions-by-dim"   ? data::WeightsLayout::actions_by_dim
                      : o.weights_layout == "dim-by-actions" ? data::WeightsLayout::dim_by_actions
                                                             : data::WeightsLayout::auto_detect;
  c->inputs.weights =
      data::load_weights(o.weights, data::WeightsShape{o.actions.front(), o.dims.front(), layout});
  c->hooks.say(format("weights: %s read as %s (|A| = %zu, d = %zu)", o.weights.c_str(),
                      c->inputs.weights->layout.c_str(), c->inputs.weights->n_actions,
                      c->inputs.weights->dim));
}

ResultRow provenance_of(const SimOptions& o) {
  ResultRow p;
  if (o.env == "synthetic") {
    p.contexts = o.contexts == ContextLaw::simplex ? "simplex" : "uniform";
    if (!o.weights.empty()) {
      p.weights = o.weights;
      p.weights_sha256 = file_sha256(o.weights);
    }
  } else {
    p.data = o.data;
    p.data_sha256 = file_sha256(o.data);
    p.labels = o.labels;
  }
  return p;
}

std::unique_ptr<Environment> make_environment(RunContext* c, const GridPoint& g,
                                              uint64_t population) {
  const SimOptions& o = c->o;
  if (c->inputs.multilabel) {
    return make_multilabel_environment(o, g.interactions, *c->inputs.multilabel, population,
                                       c->hooks);
  }
  EnvParams ep;
  ep.dim = g.dim;
  ep.n_actions = g.actions;
  ep.beta = o.beta;
  ep.noise_variance = o.noise_sd * o.noise_sd;
  ep.seed = o.run.seed;
  ep.contexts = o.contexts;
  ep.mapping = mapping_for(o, g.mode);
  if (!c->inputs.weights) return std::make_unique<SyntheticEnvironment>(SyntheticEnv(ep));
  return std::make_unique<SyntheticEnvironment>(
      SyntheticEnv(ep, c->inputs.weights->w, c->inputs.weights->b));
}

// The figures of a synthetic environment, once per (mapping, |A|, d): what
// the loaded or drawn mapping can pay before any policy runs.
void describe_mapping_once(RunContext* c, const Environment& env, Mode mode) {
  const char* map = mapping_name(mapping_for(c->o, mode));
  const std::string key =
      std::string(map) + "/" + std::to_string(env.n_actions()) + "/" + std::to_string(env.dim());
  if (!c->described.insert(key).second) return;
  constexpr uint64_t kContexts = 100000;
  const MappingFigures f = mapping_figures(env, kContexts, c->o.run.seed);
  c->hooks.say(
      format("mapping %s |A|=%u d=%u over %llu contexts: oracle %.5f (se %.5f), best arm %u %.5f, "
             "mean arm %.5f",
             map, env.n_actions(), env.dim(), static_cast<unsigned long long>(f.contexts), f.oracle,
             f.oracle_se, f.best_arm_index, f.best_arm, f.mean_arm));
}

PointSpec spec_of(const SimOptions& o, const GridPoint& g) {
  PointSpec spec;
  spec.central_epsilon = g.central_epsilon;
  spec.central_delta = o.central_delta;
  spec.central_horizon = o.central_horizon;
  spec.central_release = o.central_release;
  spec.mode = g.mode;
  spec.early_users = g.users;
  spec.early_fraction = o.early_fraction;
  spec.interactions = g.interactions;
  spec.digits = o.digits;
  spec.participation = o.participation;
  spec.neg_rate = o.neg_rate;
  spec.alpha = o.alpha;
  spec.threshold = o.threshold;
  spec.crypto = o.crypto;
  spec.seed = o.run.seed;
  spec.threads = o.run.threads;
  return spec;
}

void run_one_point(RunContext* c, const GridPoint& g, const Codebook& cb) {
  const SimOptions& o = c->o;
  const auto population = static_cast<uint64_t>(static_cast<double>(g.users) / o.early_fraction);
  const auto env = make_environment(c, g, population);
  if (o.env == "synthetic") describe_mapping_once(c, *env, g.mode);
  const PointSpec spec = spec_of(o, g);
  ThrottledProgress progress(
      c->hooks,
      format("%s |A|=%u d=%u u=%llu t=%u ce=%g", mode_name(g.mode), env->n_actions(), g.dim,
             static_cast<unsigned long long>(g.users), g.interactions, g.central_epsilon));
  const Clock::time_point t0 = Clock::now();
  const PointResult r = run_point(spec, *env, cb.centroids, cb.k, std::ref(progress));
  ResultRow row = c->provenance;
  row.env = o.env;
  row.mode = g.mode;
  row.mapping = o.env == "synthetic" ? mapping_name(mapping_for(o, g.mode)) : "";
  row.actions = env->n_actions();
  row.dim = g.dim;
  row.codes = cb.k;
  row.spec = spec;
  row.r = r;
  row.seconds = seconds_since(t0);
  row.crypto_floor_seconds =
      static_cast<double>(r.reports) * c->crypto_us * 1e-6 / std::max(1U, o.run.threads);
  row.rss_mb = peak_rss_mb();
  for (const std::string& line : row_lines(row)) c->hooks.say(line);
  c->rows.push_back(std::move(row));
}

// The grid for one d: |A| x u x t x modes x central epsilons.
void run_dim(RunContext* c, uint32_t dim) {
  const SimOptions& o = c->o;
  const Codebook cb = codebook_for(o, dim, c->hooks);
  if (o.env == "multilabel") c->inputs.multilabel = load_multilabel_set(o, dim, c->hooks);
  // A multi-label set's labels are the actions: one pass.
  const std::vector<uint32_t> actions =
      o.env == "multilabel" ? std::vector<uint32_t>{o.actions.front()} : o.actions;
  for (uint32_t a : actions) {
    for (uint64_t u : o.users) {
      for (uint32_t t : o.interactions) {
        for (Mode mode : o.modes) {
          for (double ce : o.central_epsilons)
            run_one_point(c, GridPoint{dim, a, u, t, mode, ce}, cb);
        }
      }
    }
  }
}

std::vector<ResultRow> run_seed(const SimOptions& o, const tools::RunHooks& hooks) {
  RunContext c{o, hooks, {}, {}, 0.0, {}, {}};
  for (const std::string& line : settings_lines(o)) hooks.say(line);
  if (!o.weights.empty()) load_weights(&c);  // before any training: a bad file fails fast
  c.provenance = provenance_of(o);
  if (o.crypto) {
    c.crypto_us = Deployment().report_crypto_us(400);
    hooks.say(format("crypto: %.1f us of one core per report (seal both layers, open both)",
                     c.crypto_us));
  }
  hooks.say(row_header());
  for (uint32_t dim : o.dims) run_dim(&c, dim);
  for (const std::string& line : privacy_lines(c.rows, o)) hooks.say(line);
  return std::move(c.rows);
}

}  // namespace

tools::ResultTables run(const SimOptions& o, const tools::RunHooks& hooks) {
  const std::string error = validate(o);
  if (!error.empty()) throw std::invalid_argument(error);
  if (o.run.seeds > 1) {
    hooks.say(format("seeds: %u, the grid once for each of %llu to %llu", o.run.seeds,
                     static_cast<unsigned long long>(o.run.seed),
                     static_cast<unsigned long long>(o.run.seed + o.run.seeds - 1)));
  }
  std::vector<ResultRow> rows;
  for (uint32_t i = 0; i < o.run.seeds; ++i) {
    SimOptions one = o;  // each seed reruns the whole grid, codebooks included
    one.run.seed = o.run.seed + i;
    one.run.seeds = 1;
    std::vector<ResultRow> seed_rows = run_seed(one, hooks);
    rows.insert(rows.end(), seed_rows.begin(), seed_rows.end());
  }
  tools::ResultTables tables;
  tables["results"] = results_table(rows);
  return tables;
}

}  // namespace p2b::sim
