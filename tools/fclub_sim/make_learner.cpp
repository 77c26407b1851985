#include "fclub_sim/make_learner.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "fclub/federation.hpp"
#include "fclub_sim/baselines.hpp"
#include "fclub_sim/reference_fclub.hpp"

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

// The authors' code: their beta constants per baseline, their FCLUB-DC.
std::unique_ptr<Learner> reference_learner(const Options& o, const std::string& name,
                                           const std::vector<uint32_t>& per_server, uint32_t d,
                                           double epsilon, uint64_t seed) {
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
  r.epsilon = epsilon;
  r.delta = o.delta;
  r.seed = seed;
  return make_reference_fclub(r);
}

fclub::FclubConfig default_config(const Options& o, uint32_t d) {
  fclub::FclubConfig cfg;
  cfg.dim = d;
  cfg.n_servers = o.servers;
  cfg.beta_scale = o.beta_scale;
  cfg.split_alpha = o.split_alpha;
  cfg.merge_alpha = o.merge_alpha;
  cfg.upload_ratio = o.upload_ratio;
  cfg.download_ratio = o.download_ratio;
  return cfg;
}

// The paper's maths: one beta for every algorithm, the library's Federation.
std::unique_ptr<Learner> default_learner(const Options& o, const std::string& name,
                                         const std::vector<uint32_t>& per_server, uint32_t d,
                                         double epsilon, uint64_t seed) {
  fclub::FclubConfig cfg = default_config(o, d);
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
    cfg.epsilon = epsilon;
    cfg.delta = o.delta;
    cfg.min_theta_gap = o.theta_gap;
    const uint64_t phases =
        static_cast<uint64_t>(std::ceil(std::log2(static_cast<double>(o.rounds) + 1.0)));
    cfg.max_phases = static_cast<uint32_t>(std::max<uint64_t>(phases, 1));
  }
  if (const char* why = fclub::check_config(cfg)) throw std::runtime_error(why);
  return std::make_unique<FederatedLearner>(cfg, per_server, seed);
}

}  // namespace

std::unique_ptr<Learner> make_learner(const Options& o, const std::string& name, const World& w,
                                      uint32_t dim, double epsilon, uint64_t seed) {
  const std::vector<uint32_t> per_server = w.users_per_server();
  if (o.mode == "reference") return reference_learner(o, name, per_server, dim, epsilon, seed);
  return default_learner(o, name, per_server, dim, epsilon, seed);
}

}  // namespace p2b::fclub_sim
