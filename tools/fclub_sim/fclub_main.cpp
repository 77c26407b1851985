#include "fclub_sim/fclub_main.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "fclub/federation.hpp"
#include "fclub/wire/fclub_wire.hpp"
#include "fclub_sim/baselines.hpp"
#include "fclub_sim/options.hpp"
#include "fclub_sim/reference_fclub.hpp"
#include "fclub_sim/run_table.hpp"
#include "fclub_sim/world.hpp"
#include "parallel/parallel_for.hpp"
#include "proc/run_command.hpp"
#include "sim/plot_results.hpp"
#include "sim/progress.hpp"

namespace p2b::fclub_sim {

namespace {

// Default mode's FCLUB family on the library (server/fclub).
class FederatedLearner final : public Learner {
 public:
  FederatedLearner(const fclub::FclubConfig& cfg, const std::vector<uint32_t>& per_server,
                   uint64_t seed)
      : fed_(cfg, per_server, noise_key(seed)) {}
  void start_phase(uint32_t phase) override { fed_.start_phase(phase); }
  uint32_t recommend(uint32_t user, const Eigen::MatrixXd& items) override {
    return fed_.recommend(user, items);
  }
  void observe(uint32_t user, const Eigen::VectorXd& x, double y) override {
    fed_.observe(user, x, y);
  }
  Comm comm() const override {
    const fclub::Traffic& t = fed_.traffic();
    return {t.uploads, t.downloads, t.uploads + t.downloads};
  }
  uint32_t clusters() const override { return fed_.global_clusters(); }
  double epsilon() const override { return fed_.epsilon_spent(); }

 private:
  // Simulation only: the servers' noise keys come from the seed so runs
  // repeat; a deployment draws them from a CSPRNG (p2b-keygen --fclub).
  static fclub::TreeSeed noise_key(uint64_t seed) {
    fclub::TreeSeed k{};
    for (int i = 0; i < 8; ++i) k[i] = static_cast<uint8_t>(seed >> (8 * i));
    k[8] = 0xfc;
    return k;
  }
  fclub::Federation fed_;
};

struct Point {
  uint32_t dim;
  double epsilon;
};

std::unique_ptr<Learner> make_learner(const Options& o, const std::string& name, const World& w,
                                      const Point& p, uint64_t seed) {
  const uint32_t d = p.dim;
  const std::vector<uint32_t> per_server = w.users_per_server();
  if (o.mode == "reference") {
    if (name == "linucb-ind") {
      return make_linucb_ind(d, o.users,
                             {2.0, false, [d](uint64_t n) { return reference_beta(15.0, d, n); }});
    }
    if (name == "club") {
      return make_club(d, per_server,
                       {2.0, false, [d](uint64_t n) { return reference_beta(0.25, d, n); }}, 0.25,
                       1.0);
    }
    if (name == "sclub") {
      return make_sclub(d, per_server,
                        {2.0, false, [d](uint64_t n) { return reference_beta(1.5, d, n); }},
                        SclubParams{});
    }
    ReferenceSpec r;
    r.dim = d;
    r.users_per_server = per_server;
    r.cdp = name == "cdp-fclub-dc";
    r.homogeneous = name == "homo-dc";
    r.epsilon = p.epsilon;
    r.delta = o.delta;
    r.seed = seed;
    return make_reference_fclub(r);
  }
  fclub::FclubConfig cfg;
  cfg.dim = d;
  cfg.n_servers = o.servers;
  cfg.beta_scale = o.beta_scale;
  cfg.split_alpha = o.split_alpha;
  cfg.merge_alpha = o.merge_alpha;
  cfg.upload_ratio = o.upload_ratio;
  cfg.download_ratio = o.download_ratio;
  const Scoring s{cfg.ridge, true, [cfg](uint64_t n) {
                    return default_beta(cfg.beta_scale, cfg.beta_delta, cfg.ridge, cfg.dim, n);
                  }};
  if (name == "linucb-ind") return make_linucb_ind(d, o.users, s);
  if (name == "club") return make_club(d, per_server, s, cfg.split_alpha, cfg.estimate_ridge);
  if (name == "sclub") {
    SclubParams sp;
    sp.split_alpha = cfg.split_alpha;
    sp.merge_alpha = cfg.split_alpha / 2.0;
    sp.estimate_ridge = cfg.estimate_ridge;
    return make_sclub(d, per_server, s, sp);
  }
  if (name == "homo" || name == "homo-dc") cfg.clustering = fclub::Clustering::single_global;
  if (name == "homo" || name == "fclub") cfg.upload_ratio = cfg.download_ratio = 1.0;
  if (name == "cdp-fclub-dc") {
    cfg.private_uploads = true;
    cfg.epsilon = p.epsilon;
    cfg.delta = o.delta;
    cfg.min_theta_gap = o.theta_gap;
    const uint64_t phases =
        static_cast<uint64_t>(std::ceil(std::log2(static_cast<double>(o.rounds) + 1.0)));
    cfg.max_phases = static_cast<uint32_t>(std::max<uint64_t>(phases, 1));
  }
  if (const char* why = fclub::check_config(cfg)) throw std::runtime_error(why);
  return std::make_unique<FederatedLearner>(cfg, per_server, seed);
}

RunResult run_one(const Options& o, const std::string& name, const Point& p, uint64_t seed,
                  std::atomic<uint64_t>* done) {
  WorldSpec ws;
  ws.dim = p.dim;
  ws.users = o.users;
  ws.clusters = o.clusters;
  ws.servers = o.servers;
  ws.items = o.items;
  ws.shuffle_users = o.layout == "shuffled";
  ws.thetas_file = o.thetas;
  ws.seed = seed;
  const World world(ws);
  std::unique_ptr<Learner> learner = make_learner(o, name, world, p, seed);
  RunResult r;
  r.algorithm = name;
  r.dim = p.dim;
  r.epsilon = name == "cdp-fclub-dc" ? p.epsilon : 0.0;
  r.seed = seed;
  Round round;
  double regret = 0.0;
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t t = 1; t <= o.rounds; ++t) {
    if (const uint32_t s = fclub::Federation::phase_starting_at(t)) learner->start_phase(s);
    world.draw(t, &round);
    const uint32_t k = learner->recommend(round.user, round.items);
    const Eigen::VectorXd x = round.items.row(k).transpose();
    const double mean = world.expected(round.user, x);
    regret += world.best(round.user, round.items) - mean;
    learner->observe(round.user, x, round.coin < mean ? 1.0 : 0.0);
    if (t % o.every == 0 || t == o.rounds) r.curve.emplace_back(t, regret);
    if ((t & 1023) == 0) done->fetch_add(1024, std::memory_order_relaxed);
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.regret = regret;
  r.us_per_round = 1e6 * secs / static_cast<double>(o.rounds);
  r.comm = learner->comm();
  // What those messages weigh on the wire: P2BU and P2BD have one sealed
  // length per d (docs/formats.md).
  r.bytes = r.comm.uploads * fclub::upload_wire_size(p.dim) +
            r.comm.downloads * fclub::download_wire_size(p.dim);
  r.clusters = learner->clusters();
  r.epsilon_spent = learner->epsilon();
  r.distinct_thetas = world.distinct_thetas();
  return r;
}

}  // namespace

int fclub_main(int argc, char** argv) {
  Options o;
  if (const int st = parse_options(argc, argv, &o); st >= 0) return st;
  std::vector<Point> points;
  for (uint32_t d : o.dims) {
    for (double e : o.epsilons) points.push_back({d, e});
  }
  struct Task {
    std::string name;
    Point point;
    uint64_t seed;
  };
  std::vector<Task> tasks;
  for (const Point& p : points) {
    for (const std::string& a : o.algorithms) {
      // Only the private algorithm depends on epsilon: others run once per d.
      if (a != "cdp-fclub-dc" && p.epsilon != o.epsilons.front()) continue;
      for (uint32_t s = 0; s < o.seeds; ++s) tasks.push_back({a, p, o.seed + s});
    }
  }
  try {
    const World probe([&] {
      WorldSpec ws;
      ws.dim = o.dims.front();
      ws.users = o.users;
      ws.clusters = o.clusters;
      ws.servers = o.servers;
      ws.thetas_file = o.thetas;
      return ws;
    }());
    std::printf(
        "fclub %s mode: %u users on %u servers, %u distinct theta, K=%u, T=%llu, %u seeds, %zu "
        "runs\n",
        o.mode.c_str(), o.users, o.servers, probe.distinct_thetas(), o.items,
        static_cast<unsigned long long>(o.rounds), o.seeds, tasks.size());
    std::printf("wire: P2BU %zu B, P2BD %zu B at d=%u\n", fclub::upload_wire_size(o.dims.front()),
                fclub::download_wire_size(o.dims.front()), o.dims.front());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-sim: %s\n", e.what());
    return 2;
  }
  std::vector<RunResult> results(tasks.size());
  std::atomic<uint64_t> done{0};
  const double total = static_cast<double>(o.rounds) * static_cast<double>(tasks.size());
  sim::ProgressThread bar("fclub runs", total, done, o.quiet);
  try {
    tools::parallel_for(tasks.size(), o.threads, [&](std::size_t i) {
      results[i] = run_one(o, tasks[i].name, tasks[i].point, tasks[i].seed, &done);
    });
  } catch (const std::exception& e) {
    bar.stop();
    std::fprintf(stderr, "\np2b-sim: %s\n", e.what());
    return 1;
  }
  bar.stop();
  if (!o.quiet) sim::progress("fclub runs", total, total);
  std::filesystem::create_directories(o.out_dir);
  write_runs(o, results);
  print_summary(o, results);
  if (o.plot && !sim::plot_results(P2B_PLOT_FCLUB, o.out_dir)) return 1;
  return 0;
}

}  // namespace p2b::fclub_sim
