// p2b-sim: the P2B paper's experiments (section 5) on the library's own code.
// For every point of a grid (modes x |A| x d x u) it runs early users who
// share through P2B, then late users cold, warm from a non-private model and
// warm from the private one, and writes CSV, JSON and (with --plot) PNGs.
#include <sys/resource.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "compare_sim/compare_main.hpp"
#include "data/weights_file.hpp"
#include "fclub_sim/fclub_main.hpp"
#include "p2b.h"
#include "pfcb_sim/pfcb_main.hpp"
#include "proc/run_command.hpp"
#include "sim/codebook_source.hpp"
#include "sim/deployment.hpp"
#include "sim/environment.hpp"
#include "sim/experiment.hpp"
#include "sim/file_digest.hpp"
#include "sim/mapping_oracle.hpp"
#include "sim/multilabel_env.hpp"
#include "sim/plot_results.hpp"
#include "sim/progress.hpp"
#include "sim/protocol_flag.hpp"
#include "sim/results_table.hpp"
#include "sim/sim_options.hpp"
#include "sim/synthetic_env.hpp"
#include "vertical/vertical_main.hpp"

namespace {

using p2b::sim::Mode;
using p2b::sim::mode_name;
using p2b::sim::PointResult;
using p2b::sim::PointSpec;
using p2b::sim::ResultRow;
using p2b::sim::SimOptions;

std::string list_text(const std::vector<uint32_t>& v) {
  std::string s;
  for (uint32_t x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux reports KiB
}

void print_row_header() {
  std::printf("%-8s %8s %4s %3s %4s %9s %9s %9s %9s %9s %8s %8s %7s %6s %6s\n", "mode", "users",
              "|A|", "d", "t", "cold", "warm-np", "warm-p", "oracle", "fixed-arm", "reports",
              "kept", "eps", "c-eps", "secs");
}

// A warm column whose devices received no model runs cold; '*' marks it.
void print_row(const ResultRow& w, bool progress_shown) {
  const PointResult& r = w.r;
  if (progress_shown) std::fprintf(stderr, "\r%*s\r", 78, "");
  std::printf(
      "%-8s %8llu %4u %3u %4u %9.5f %8.5f%c %8.5f%c %9.5f %9.5f %8llu %8llu %7.4f %6.3g %6.1f\n",
      mode_name(w.mode), static_cast<unsigned long long>(w.spec.early_users), w.actions, w.dim,
      w.spec.interactions, r.cold.mean, r.warm_nonprivate.mean, r.nonprivate_model ? ' ' : '*',
      r.warm_private.mean, r.private_model ? ' ' : '*', r.oracle, r.best_fixed_arm,
      static_cast<unsigned long long>(r.reports), static_cast<unsigned long long>(r.kept),
      r.epsilon_per_user, w.spec.central_epsilon, w.seconds);
  if (w.env == "multilabel") std::printf("%-8s majority label %.5f\n", "", r.majority_arm);
  std::fflush(stdout);
}

// What the run cost: CPU time, simulated users per CPU-second (every user
// of the population is simulated once early or three times late; the
// reference code manages about 350 per core), and the crypto floor.
void print_speed(const std::vector<ResultRow>& rows, double wall, unsigned threads) {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                     static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  double users = 0, floor = 0, point_seconds = 0;
  for (const ResultRow& w : rows) {
    users += static_cast<double>(w.r.population);
    floor += w.crypto_floor_seconds;
    point_seconds += w.seconds;
  }
  std::printf(
      "speed: %.1f s wall, %.1f s CPU on %u threads: %.0f users/s per core "
      "(the reference code: about 350)\n",
      wall, cpu, threads, cpu > 0 ? users / cpu : 0.0);
  if (floor > 0) {
    std::printf(
        "crypto floor: %.1f s (reports x cost / %u threads); the points took %.1f s, "
        "%.2fx the floor\n",
        floor, threads, point_seconds, point_seconds / floor);
    // The same ratio in CPU time, which other load on the machine does not
    // change: what the run spent beside its crypto, as a share of it.
    const double floor_cpu = floor * threads;
    std::printf(
        "crypto CPU floor: %.1f CPU-s (reports x cost); the run used %.1f CPU-s, %.2fx the floor\n",
        floor_cpu, cpu, cpu / floor_cpu);
  }
}

// One privacy line per grid point: delta depends on the smallest crowd that
// point's shuffler released, so the last point's delta says nothing of the others.
void print_privacy(const std::vector<ResultRow>& rows, double participation) {
  bool starred = false;
  for (const ResultRow& w : rows) starred |= !w.r.nonprivate_model || !w.r.private_model;
  if (starred) std::printf("*: no model reached these devices, so they ran cold (the cold row)\n");
  if (rows.front().env == "multilabel") {
    std::printf("majority label: always play the label most often true for the early users\n");
  }
  std::printf(
      "privacy per point: epsilon per user (one report at most, p=%.2f); delta ~ exp(-l(1-p)^2) "
      "with l the smallest crowd released (Omega-constant taken as 1):\n",
      participation);
  for (const ResultRow& w : rows) {
    const PointResult& r = w.r;
    std::printf("  %-7s |A|=%u d=%u u=%llu t=%u", mode_name(w.mode), w.actions, w.dim,
                static_cast<unsigned long long>(w.spec.early_users), w.spec.interactions);
    if (w.spec.central_epsilon > 0) std::printf(" central-eps=%g", w.spec.central_epsilon);
    if (r.codes_released == 0) {
      std::printf(": epsilon %.4f; nothing released (every crowd under l=%u)\n", r.epsilon_per_user,
                  w.spec.threshold);
    } else {
      std::printf(": epsilon %.4f; smallest crowd %llu -> delta ~ %.3g\n", r.epsilon_per_user,
                  static_cast<unsigned long long>(r.smallest_released_crowd), r.delta_indicative);
    }
  }
}

// The figures of a synthetic environment, once per (mapping, |A|, d): what
// the loaded or drawn mapping can pay before any policy runs.
void print_mapping_once(const SimOptions& o, const p2b::sim::Environment& env, Mode mode,
                        std::set<std::string>* described) {
  const char* map = p2b::sim::mapping_name(p2b::sim::mapping_for(o, mode));
  const std::string key =
      std::string(map) + "/" + std::to_string(env.n_actions()) + "/" + std::to_string(env.dim());
  if (!described->insert(key).second) return;
  constexpr uint64_t kContexts = 100000;
  const p2b::sim::MappingFigures f = p2b::sim::mapping_figures(env, kContexts, o.seed);
  std::printf(
      "mapping %s |A|=%u d=%u over %llu contexts: oracle %.5f (se %.5f), best arm %u %.5f, "
      "mean arm %.5f\n",
      map, env.n_actions(), env.dim(), static_cast<unsigned long long>(f.contexts), f.oracle,
      f.oracle_se, f.best_arm_index, f.best_arm, f.mean_arm);
}

// The innermost grid: t x modes x central epsilons.
struct GridPoint {
  uint32_t interactions;
  Mode mode;
  double central_epsilon;
};
std::vector<GridPoint> points(const SimOptions& o) {
  std::vector<GridPoint> out;
  for (uint32_t t : o.interactions) {
    for (Mode mode : o.modes) {
      for (double e : o.central_epsilons) out.push_back(GridPoint{t, mode, e});
    }
  }
  return out;
}

// The data behind the environments, read once per run (weights) or per d
// (a multi-label set); the environments themselves are per grid point.
struct EnvInputs {
  std::optional<p2b::data::Weights> weights;
  std::optional<p2b::data::MultiLabelSet> multilabel;
};

std::unique_ptr<p2b::sim::Environment> make_environment(const SimOptions& o, const EnvInputs& in,
                                                        uint32_t actions, uint32_t dim,
                                                        uint64_t population, Mode mode,
                                                        uint32_t interactions) {
  if (in.multilabel) {
    return p2b::sim::make_multilabel_environment(o, interactions, *in.multilabel, population);
  }
  p2b::sim::EnvParams ep;
  ep.dim = dim;
  ep.n_actions = actions;
  ep.beta = o.beta;
  ep.noise_variance = o.noise_sd * o.noise_sd;
  ep.seed = o.seed;
  ep.contexts = o.contexts;
  ep.mapping = p2b::sim::mapping_for(o, mode);
  if (!in.weights) {
    return std::make_unique<p2b::sim::SyntheticEnvironment>(p2b::sim::SyntheticEnv(ep));
  }
  return std::make_unique<p2b::sim::SyntheticEnvironment>(
      p2b::sim::SyntheticEnv(ep, in.weights->w, in.weights->b));
}

}  // namespace

int main(int argc, char** argv) {
  // Seed 003's vertical federation has its own options (docs/simulator.md).
  if (p2b::sim::wants_protocol(argc, argv, "vertical"))
    return p2b::vertical::vertical_main(argc, argv);
  // Seed 001's FCLUB likewise (docs/simulator.md#fclub).
  if (p2b::sim::wants_protocol(argc, argv, "fclub")) return p2b::fclub_sim::fclub_main(argc, argv);
  // Seed 004's P-FCB (docs/simulator.md#p-fcb).
  if (p2b::sim::wants_protocol(argc, argv, "pfcb")) return p2b::pfcb_sim::pfcb_main(argc, argv);
  // All the seed protocols side by side (docs/simulator.md#compare).
  if (p2b::sim::wants_protocol(argc, argv, "compare")) {
    return p2b::compare_sim::compare_main(argc, argv);
  }
  SimOptions o;
  const int parsed = p2b::sim::parse_sim_options(argc, argv, &o);
  if (parsed >= 0) return parsed;
  try {
    const auto t_start = std::chrono::steady_clock::now();
    std::printf(
        "p2b-sim %s: env=%s t=%s k=%u q=%u p=%.2f l=%u neg_rate=%.2f alpha=%.2f seed=%llu "
        "threads=%u%s\n",
        p2b_version_string(), o.env.c_str(), list_text(o.interactions).c_str(), o.codes, o.digits,
        o.participation, o.threshold, o.neg_rate, o.alpha, static_cast<unsigned long long>(o.seed),
        o.threads, o.crypto ? "" : " --no-crypto (reports NOT sealed: plaintext tuples)");
    if (o.env == "synthetic") {
      const char* map = !o.mapping ? "auto (paper: linear, default: softmax)"
                        : *o.mapping == p2b::sim::Mapping::linear ? "linear Wx+b"
                                                                  : "softmax(Wx+b)";
      std::printf("environment: rbar = %.3g*map + N(0, %.3g^2), clipped, map %s; contexts %s; %s\n",
                  o.beta, o.noise_sd, map,
                  o.contexts == p2b::sim::ContextLaw::simplex ? "uniform on the simplex"
                                                              : "normalised U(0,1)^d",
                  o.weights.empty() ? "W, b Glorot-uniform from the seed"
                                    : ("W, b from " + o.weights).c_str());
    }
    std::fflush(stdout);
    std::filesystem::create_directories(o.out_dir);
    EnvInputs inputs;
    if (!o.weights.empty()) {  // before any training, so a bad file fails fast
      const auto layout =
          o.weights_layout == "actions-by-dim"   ? p2b::data::WeightsLayout::actions_by_dim
          : o.weights_layout == "dim-by-actions" ? p2b::data::WeightsLayout::dim_by_actions
                                                 : p2b::data::WeightsLayout::auto_detect;
      inputs.weights = p2b::data::load_weights(
          o.weights, p2b::data::WeightsShape{o.actions.front(), o.dims.front(), layout});
      std::printf("weights: %s read as %s (|A| = %zu, d = %zu)\n", o.weights.c_str(),
                  inputs.weights->layout.c_str(), inputs.weights->n_actions, inputs.weights->dim);
    }
    // What produced the rows (hashes read once: files are not re-read per point).
    ResultRow provenance;
    if (o.env == "synthetic") {
      provenance.contexts = o.contexts == p2b::sim::ContextLaw::simplex ? "simplex" : "uniform";
      if (!o.weights.empty()) {
        provenance.weights = o.weights;
        provenance.weights_sha256 = p2b::sim::file_sha256(o.weights);
      }
    } else {
      provenance.data = o.data;
      provenance.data_sha256 = p2b::sim::file_sha256(o.data);
      provenance.labels = o.labels;
    }
    // The per-report crypto cost, measured once: the floor of a sealed run.
    const double crypto_us = o.crypto ? p2b::sim::Deployment().report_crypto_us(400) : 0.0;
    if (o.crypto) {
      std::printf("crypto: %.1f us of one core per report (seal both layers, open both)\n",
                  crypto_us);
    }
    std::vector<ResultRow> rows;
    std::set<std::string> described;  // environments whose figures were printed
    print_row_header();
    for (uint32_t dim : o.dims) {
      const p2b::sim::Codebook cb = p2b::sim::codebook_for(o, dim);
      if (o.env == "multilabel") inputs.multilabel = p2b::sim::load_multilabel_set(o, dim);
      for (uint32_t actions : o.actions) {
        for (uint64_t users : o.users) {
          const auto population =
              static_cast<uint64_t>(static_cast<double>(users) / o.early_fraction);
          for (const auto& [interactions, mode, central_epsilon] : points(o)) {
            const auto env =
                make_environment(o, inputs, actions, dim, population, mode, interactions);
            if (o.env == "synthetic") print_mapping_once(o, *env, mode, &described);
            PointSpec spec;
            spec.central_epsilon = central_epsilon;
            spec.central_delta = o.central_delta;
            spec.central_horizon = o.central_horizon;
            spec.central_release = o.central_release;
            spec.mode = mode;
            spec.early_users = users;
            spec.early_fraction = o.early_fraction;
            spec.interactions = interactions;
            spec.digits = o.digits;
            spec.participation = o.participation;
            spec.neg_rate = o.neg_rate;
            spec.alpha = o.alpha;
            spec.threshold = o.threshold;
            spec.crypto = o.crypto;
            spec.seed = o.seed;
            spec.threads = o.threads;
            const auto t0 = std::chrono::steady_clock::now();
            char stage[64];
            std::snprintf(stage, sizeof stage, "%s |A|=%u d=%u u=%llu t=%u ce=%g", mode_name(mode),
                          env->n_actions(), dim, static_cast<unsigned long long>(users),
                          interactions, central_epsilon);
            const PointResult r = p2b::sim::run_point(
                spec, *env, cb.centroids, cb.k,
                o.quiet ? p2b::sim::Progress{} : [&](const char*, double done, double total) {
                  p2b::sim::progress(stage, done, total);
                });
            const double secs =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            const std::string mapping =
                o.env == "synthetic" ? p2b::sim::mapping_name(p2b::sim::mapping_for(o, mode)) : "";
            ResultRow row = provenance;
            row.env = o.env;
            row.mode = mode;
            row.mapping = mapping;
            row.actions = env->n_actions();
            row.dim = dim;
            row.codes = cb.k;
            row.spec = spec;
            row.r = r;
            row.seconds = secs;
            row.crypto_floor_seconds =
                static_cast<double>(r.reports) * crypto_us * 1e-6 / std::max(1U, o.threads);
            row.rss_mb = peak_rss_mb();
            rows.push_back(std::move(row));
            print_row(rows.back(), !o.quiet);
          }
        }
        if (o.env == "multilabel") break;  // the labels are the actions: one pass
      }
    }
    p2b::sim::write_results(o.out_dir, rows);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    print_privacy(rows, o.participation);
    for (const ResultRow& w : rows) {
      if (w.spec.central_epsilon <= 0 || w.spec.central_epsilon != o.central_epsilons.back()) {
        continue;
      }
      std::printf(
          "central DP: epsilon %g, delta %g over %llu releases: sigma %.4g per tree node; the "
          "simulated release sums %u nodes%s\n",
          w.spec.central_epsilon, w.spec.central_delta,
          static_cast<unsigned long long>(w.spec.central_horizon), w.r.central_sigma,
          w.r.central_nodes, w.spec.central_release ? "" : " (the noisiest of the horizon)");
      break;
    }
    std::printf(
        "results: %s/results.csv and results.json (%zu points) in %.1f s, peak RSS %.0f MB\n",
        o.out_dir.c_str(), rows.size(), secs, peak_rss_mb());
    print_speed(rows, secs, o.threads);
    if (o.plot && !p2b::sim::plot_results(o.plot_script, o.out_dir)) return 1;
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\np2b-sim: error: %s\n", e.what());
    return 1;
  }
}
