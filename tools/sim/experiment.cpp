#include "experiment.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>

#include "analyzer/central_dp.hpp"
#include "analyzer/statistics.hpp"
#include "c_agent.hpp"
#include "deployment.hpp"
#include "parallel/parallel_for.hpp"
#include "seeds.hpp"
#include "shuffler/shuffle.hpp"

namespace p2b::sim {
namespace {

constexpr uint64_t kChunkUsers = 1024;
// Independent random streams, so that e.g. the late users' draws do not
// depend on how many early users there were.
enum Stream : uint64_t { kUserDraws = 1, kDeviceRng, kMatch, kShuffle, kLateRng };
constexpr uint64_t kCentralNoise = 100;  // clear of kLateRng + 1, + 2

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The shuffler's randomness from a seeded stream: a simulation must repeat.
class SeededRandomness final : public shuffler::Randomness {
 public:
  explicit SeededRandomness(uint64_t seed) : draws_(seed) {}
  uint32_t uniform(uint32_t n) override {
    // Rejection keeps it unbiased, like randombytes_uniform.
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t v = 0;
    do v = draws_.bits();
    while (v >= limit);
    return static_cast<uint32_t>(v % n);
  }
  double unit_open0() override { return 1.0 - draws_.uniform(); }

 private:
  Draws draws_;
};

struct Shape {
  uint32_t dim;  // the agent's context length
  uint32_t actions;
  const float* centroids;
  uint32_t n_codes;
};

p2b_config device_config(const PointSpec& s, const Shape& shape, const Deployment& dep) {
  p2b_config cfg;
  check(p2b_config_default(&cfg), "config");
  cfg.dim = shape.dim;
  cfg.n_actions = shape.actions;
  cfg.alpha = s.alpha;
  cfg.round_digits = s.digits;
  cfg.window = s.interactions;
  cfg.participation = s.participation;
  cfg.neg_rate = s.neg_rate;
  cfg.centroids = shape.centroids;
  cfg.n_codes = shape.n_codes;
  cfg.rng_mode = P2B_RNG_SEEDED;
  dep.configure(&cfg);
  return cfg;
}

// What one user did: contexts, actions and rewards of every step.
struct History {
  std::vector<float> x;
  std::vector<uint32_t> action;
  std::vector<float> reward;
};

struct UserOutcome {
  double reward_sum = 0;
  double oracle_sum = 0;
};

// One user's t interactions on `agent`. With `scalar`, the agent sees the
// 1-D context [1]: the paper mode's scalar code after the device's
// normalisation to sum 1 (every code, 0 included, becomes [1]). `arm_sums`,
// when given, accumulates every arm's expected reward at every step.
UserOutcome play_user(p2b_agent* agent, const Environment& env, const PointSpec& s, uint64_t user,
                      bool scalar, History* h, double* arm_sums = nullptr) {
  const uint32_t d = env.dim();
  std::vector<float> x(d);
  std::vector<double> p(env.n_actions());
  const float one = 1.0F;
  Draws draws(mix_seed(s.seed, kUserDraws, user));
  UserOutcome out;
  for (uint32_t step = 0; step < s.interactions; ++step) {
    const uint32_t best = env.step_and_best(user, step, draws, x.data(), p.data());
    uint32_t action = 0;
    uint64_t id = 0;
    check(scalar ? p2b_agent_decide(agent, &one, 1, &action, &id)
                 : p2b_agent_decide(agent, x.data(), d, &action, &id),
          "decide");
    const float r = draws.uniform() < p[action] ? 1.0F : 0.0F;
    check(p2b_agent_reward(agent, id, r), "reward");
    out.reward_sum += r;
    out.oracle_sum += p[best];
    if (arm_sums != nullptr) {
      for (uint32_t a = 0; a < env.n_actions(); ++a) arm_sums[a] += p[a];
    }
    if (h != nullptr) {
      h->x.insert(h->x.end(), x.begin(), x.end());
      h->action.push_back(action);
      h->reward.push_back(r);
    }
  }
  return out;
}

void normalised(const float* x, uint32_t d, double* out) {
  double sum = 0;
  for (uint32_t i = 0; i < d; ++i) sum += x[i];
  for (uint32_t i = 0; i < d; ++i) out[i] = sum > 0 ? x[i] / sum : 1.0 / d;
}

// The non-private baseline shares the same sampled tuple, but with its raw
// context: the step of the user's history whose (code, action, reward) the
// device reported (ties, which the report cannot tell apart, by a draw).
// Encoding is most of the cost, so a step is encoded only when another step
// shares its (action, reward): a lone candidate is the reported step, since
// the report came from one of them.
uint32_t matching_step(p2b_agent* device, const History& h, uint32_t d, const SharedTuple& t,
                       Draws& draws) {
  std::vector<uint32_t> candidates;
  for (uint32_t i = 0; i < h.action.size(); ++i) {
    if (h.action[i] == t.action && h.reward[i] == t.reward) candidates.push_back(i);
  }
  std::vector<uint32_t> hits;
  if (candidates.size() == 1) {
    hits = candidates;
  } else {
    for (uint32_t i : candidates) {
      uint32_t code = 0;
      check(p2b_agent_encode(device, &h.x[static_cast<size_t>(i) * d], d, &code), "encode");
      if (code == t.code) hits.push_back(i);
    }
  }
  if (hits.empty()) throw std::logic_error("a report matches none of its user's interactions");
  return hits[draws.bits() % hits.size()];
}

void add_into(analyzer::Statistics* total, const analyzer::Statistics& part) {
  const std::size_t d = total->dim();
  for (uint32_t a = 0; a < total->n_actions(); ++a) {
    for (std::size_t i = 0; i < d * d; ++i) total->gram(a)[i] += part.gram(a)[i];
    for (std::size_t i = 0; i < d; ++i) total->reward_sum(a)[i] += part.reward_sum(a)[i];
    total->set_count(a, total->count(a) + part.count(a));
  }
}

struct EarlyChunk {
  std::vector<SharedTuple> tuples;
  double reward_sum = 0, reward_sum_sq = 0;  // of per-user mean rewards
  analyzer::Statistics raw;
  std::vector<double> arm_sums;  // expected reward of every arm, summed over steps
};

uint32_t argmax(const std::vector<double>& v) {
  return static_cast<uint32_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

void add_sums(std::vector<double>* total, const std::vector<double>& part) {
  if (total->size() < part.size()) total->resize(part.size(), 0.0);
  for (std::size_t a = 0; a < part.size(); ++a) (*total)[a] += part[a];
}

struct Model {
  std::vector<double> a, b;
};

// The release of the horizon whose noise sums the most tree nodes: the
// largest 2^m - 1 <= horizon, m nodes. A deployment's releases carry 1..m.
uint64_t noisiest_release(uint64_t horizon) {
  uint64_t t = 1;
  while (t * 2 + 1 <= horizon) t = t * 2 + 1;
  return t;
}

// The analyzer's central DP (server/analyzer/central_dp.hpp) on the private
// model, its noise seeded from the run's seed so that a run repeats.
void add_central_noise(const PointSpec& s, const analyzer::Statistics& exact, Model* model,
                       PointResult* res) {
  dp::NoiseSeed seed{};
  for (std::size_t i = 0; i < seed.size(); i += 8) {
    const uint64_t v = mix_seed(s.seed, kCentralNoise, i);
    for (std::size_t j = 0; j < 8; ++j) seed[i + j] = static_cast<uint8_t>(v >> (8 * j));
  }
  const analyzer::CentralDp dp({s.central_epsilon, s.central_delta, s.central_horizon}, seed);
  const uint64_t t =
      s.central_release > 0 ? s.central_release : noisiest_release(s.central_horizon);
  analyzer::NoisyRelease r = dp.release(exact, t, 1.0);
  model->a = std::move(r.a);
  model->b = std::move(r.b);
  res->central_sigma = dp.sigma();
  res->central_nodes = r.nodes;
}

// Sums of per-user mean rewards, merged in chunk order.
struct Tally {
  double sum = 0, sum_sq = 0, oracle = 0;
  uint64_t users = 0;
  std::vector<double> arm_sums;  // filled only where asked for (the cold run)
  void add(const UserOutcome& u, uint32_t t) {
    const double m = u.reward_sum / t;
    sum += m;
    sum_sq += m * m;
    oracle += u.oracle_sum / t;
    ++users;
  }
  void add(const Tally& o) {
    sum += o.sum;
    sum_sq += o.sum_sq;
    oracle += o.oracle;
    users += o.users;
    add_sums(&arm_sums, o.arm_sums);
  }
  Estimate estimate() const {
    Estimate e;
    if (users == 0) return e;
    e.mean = sum / users;
    const double var = std::max(0.0, sum_sq / users - e.mean * e.mean);
    e.stderr_ = users > 1 ? std::sqrt(var / (users - 1)) : 0.0;
    return e;
  }
};

}  // namespace

namespace {

// What every phase of one point shares: the inputs, the deployment, the
// progress counter (called from the workers, one at a time) and the result.
struct PointRun {
  const PointSpec& s;
  const Environment& env;
  const std::vector<float>& codebook;
  uint32_t n_codes;
  const Progress& progress;
  uint32_t d = env.dim();
  uint32_t k_arms = env.n_actions();
  Deployment dep;
  std::mutex progress_mutex;
  uint64_t progress_done = 0;
  PointResult res;

  void advance(uint64_t n) {
    if (!progress) return;
    const std::lock_guard<std::mutex> lock(progress_mutex);
    progress_done += n;
    progress("users", static_cast<double>(progress_done),
             static_cast<double>(s.early_users + 3 * res.late_users));
  }
};

// One chunk of early users: cold agents that play, report through P2B, and
// give each reported tuple's raw interaction to the non-private pool.
void run_early_chunk(PointRun& p, const p2b_config& early_cfg, std::size_t c, EarlyChunk* out) {
  const PointSpec& s = p.s;
  const uint32_t d = p.d;
  p2b_config cfg = early_cfg;
  cfg.seed = mix_seed(s.seed, kDeviceRng, c);
  CAgent device(cfg);
  Draws match(mix_seed(s.seed, kMatch, c));
  out->raw = analyzer::Statistics(d, p.k_arms);
  out->arm_sums.assign(p.k_arms, 0.0);
  History h;
  std::vector<double> xd(d);
  const uint64_t first = c * kChunkUsers;
  const uint64_t last = std::min<uint64_t>(s.early_users, first + kChunkUsers);
  for (uint64_t u = first; u < last; ++u) {
    check(p2b_agent_forget(device.get()), "forget");
    h = History{};
    const UserOutcome o = play_user(device.get(), p.env, s, u, false, &h, out->arm_sums.data());
    const double m = o.reward_sum / s.interactions;
    out->reward_sum += m;
    out->reward_sum_sq += m * m;
    const std::size_t before = out->tuples.size();
    p.dep.collect(device.get(), s.crypto, &out->tuples);
    for (std::size_t i = before; i < out->tuples.size(); ++i) {
      const uint32_t step = matching_step(device.get(), h, d, out->tuples[i], match);
      normalised(&h.x[static_cast<size_t>(step) * d], d, xd.data());
      out->raw.add(h.action[step], xd.data(), h.reward[step]);
    }
  }
  p.advance(last - first);
}

// The early phase's output, pooled in chunk order.
struct EarlyPool {
  analyzer::Statistics raw;
  std::vector<SharedTuple> tuples;
  std::vector<double> arm_sums;
};

EarlyPool run_early(PointRun& p) {
  const Shape early_shape{p.d, p.k_arms, p.codebook.data(), p.n_codes};
  const p2b_config early_cfg = device_config(p.s, early_shape, p.dep);
  const std::size_t n_chunks = (p.s.early_users + kChunkUsers - 1) / kChunkUsers;
  std::vector<EarlyChunk> early(n_chunks);
  tools::parallel_for(n_chunks, p.s.threads,
                      [&](std::size_t c) { run_early_chunk(p, early_cfg, c, &early[c]); });
  EarlyPool pool{analyzer::Statistics(p.d, p.k_arms), {}, std::vector<double>(p.k_arms, 0.0)};
  Tally early_tally;
  for (EarlyChunk& c : early) {
    early_tally.sum += c.reward_sum;
    early_tally.sum_sq += c.reward_sum_sq;
    add_into(&pool.raw, c.raw);
    add_sums(&pool.arm_sums, c.arm_sums);
    pool.tuples.insert(pool.tuples.end(), c.tuples.begin(), c.tuples.end());
    c = EarlyChunk{};
  }
  early_tally.users = p.s.early_users;
  p.res.early = early_tally.estimate();
  p.res.reports = pool.tuples.size();
  return pool;
}

// The shuffler: shuffle, drop crowds under l; the crowds and the privacy
// figures they give. Returns the kept tuples' indices, in shuffled order.
std::vector<std::size_t> shuffle_and_threshold(PointRun& p,
                                               const std::vector<SharedTuple>& tuples) {
  PointResult& res = p.res;
  std::vector<uint32_t> crowd_ids(tuples.size());
  for (std::size_t i = 0; i < tuples.size(); ++i) crowd_ids[i] = tuples[i].code;
  SeededRandomness shuffle_rng(mix_seed(p.s.seed, kShuffle, 0));
  std::vector<std::size_t> kept = shuffler::shuffle_and_threshold(
      crowd_ids, shuffler::ThresholdPolicy{p.s.threshold, 0.0}, shuffle_rng);
  res.kept = kept.size();
  std::map<uint32_t, uint64_t> reported, released;
  for (uint32_t c : crowd_ids) ++reported[c];
  for (std::size_t i : kept) ++released[crowd_ids[i]];
  res.codes_reported = static_cast<uint32_t>(reported.size());
  res.codes_released = static_cast<uint32_t>(released.size());
  for (const auto& [code, n] : released) {
    if (res.smallest_released_crowd == 0 || n < res.smallest_released_crowd) {
      res.smallest_released_crowd = n;
    }
  }
  double eps = 0;
  check(p2b_epsilon_per_report(p.s.participation, &eps), "epsilon");
  res.epsilon_per_user = eps;  // one window of t interactions: at most one report
  const double q = 1 - p.s.participation;
  res.delta_indicative = res.smallest_released_crowd == 0
                             ? 0.0
                             : std::exp(-static_cast<double>(res.smallest_released_crowd) * q * q);
  return kept;
}

// The analyzer, in shuffled order: decode each code as the device would see
// it (centroid, or the 1-D scalar code) and add it to the arm's sums; with
// central DP, clipped and noised.
Model private_model(PointRun& p, const std::vector<SharedTuple>& tuples,
                    const std::vector<std::size_t>& kept) {
  const bool paper = p.s.mode == Mode::paper;
  const uint32_t pd = paper ? 1 : p.d;
  analyzer::Statistics priv(pd, p.k_arms);
  std::vector<double> feature(pd, 1.0);
  const bool central = p.s.central_epsilon > 0;
  for (std::size_t i : kept) {
    const SharedTuple& t = tuples[i];
    if (!paper) normalised(&p.codebook[static_cast<size_t>(t.code) * p.d], p.d, feature.data());
    double reward = t.reward;
    if (central) analyzer::CentralDp::clip_report(feature.data(), pd, &reward);
    priv.add(t.action, feature.data(), reward);
  }
  Model m;
  if (central) {
    add_central_noise(p.s, priv, &m, &p.res);
  } else {
    priv.model_arrays(1.0, &m.a, &m.b);
  }
  return m;
}

// The late devices' configurations: they do not report, so they carry a
// one-code codebook (encoding is then free); models are signed for it.
struct LateConfigs {
  std::vector<float> flat_d;
  float flat_1 = 1.0F;
  p2b_config late{}, priv{};
};

void make_late_configs(const PointRun& p, LateConfigs* c) {
  c->flat_d.assign(p.d, 1.0F / static_cast<float>(p.d));
  const Shape late_shape{p.d, p.k_arms, c->flat_d.data(), 1};
  const Shape late_scalar{1, p.k_arms, &c->flat_1, 1};
  c->late = device_config(p.s, late_shape, p.dep);
  c->priv = device_config(p.s, p.s.mode == Mode::paper ? late_scalar : late_shape, p.dep);
}

// The private model reaches devices as a signed bundle: verify and apply it
// once, then hand its statistics to every late device.
void sign_and_verify(PointRun& p, const p2b_config& priv_cfg, Model* priv_model) {
  const uint32_t pd = p.s.mode == Mode::paper ? 1 : p.d;
  CAgent verifier(priv_cfg);
  const std::vector<uint8_t> bundle =
      p.dep.sign_model(verifier.get(), priv_model->a, priv_model->b, 1);
  check(p2b_agent_apply_model(verifier.get(), bundle.data(), bundle.size()), "apply_model");
  if (p.res.kept > 0) p.res.model_bundle_bytes = bundle.size();
  check(p2b_agent_export(verifier.get(), priv_model->a.data(), priv_model->b.data(), p.k_arms, pd),
        "export");
}

// Per-user agents: every late user starts from `model` (null: cold).
Tally per_user(PointRun& p, const p2b_config& base, const Model* model, uint32_t model_dim,
               bool scalar, uint64_t stream, bool arm_sums = false) {
  const PointSpec& s = p.s;
  const std::size_t n_chunks = (p.res.late_users + kChunkUsers - 1) / kChunkUsers;
  std::vector<Tally> parts(n_chunks);
  tools::parallel_for(n_chunks, s.threads, [&](std::size_t c) {
    p2b_config cfg = base;
    cfg.seed = mix_seed(s.seed, stream, c);
    CAgent agent(cfg);
    if (arm_sums) parts[c].arm_sums.assign(p.k_arms, 0.0);
    const uint64_t first = s.early_users + c * kChunkUsers;
    const uint64_t last = std::min<uint64_t>(p.res.population, first + kChunkUsers);
    for (uint64_t u = first; u < last; ++u) {
      check(p2b_agent_forget(agent.get()), "forget");
      if (model != nullptr) {
        check(p2b_agent_import(agent.get(), model->a.data(), model->b.data(), p.k_arms, model_dim,
                               P2B_STATS_GRAM),
              "import");
      }
      parts[c].add(play_user(agent.get(), p.env, s, u, scalar, nullptr,
                             arm_sums ? parts[c].arm_sums.data() : nullptr),
                   s.interactions);
    }
    p.advance(last - first);
  });
  Tally total;
  for (const Tally& part : parts) total.add(part);
  return total;
}

// The paper's shared warm agent: one agent, every late user in turn.
Tally shared(PointRun& p, const p2b_config& base, const Model& model, uint32_t model_dim,
             bool scalar, uint64_t stream) {
  const PointSpec& s = p.s;
  p2b_config cfg = base;
  cfg.seed = mix_seed(s.seed, stream, 0);
  CAgent agent(cfg);
  check(p2b_agent_import(agent.get(), model.a.data(), model.b.data(), p.k_arms, model_dim,
                         P2B_STATS_GRAM),
        "import");
  Tally total;
  for (uint64_t u = s.early_users; u < p.res.population; ++u) {
    total.add(play_user(agent.get(), p.env, s, u, scalar, nullptr), s.interactions);
    if ((u - s.early_users + 1) % kChunkUsers == 0) p.advance(kChunkUsers);
  }
  p.advance(p.res.late_users % kChunkUsers);
  return total;
}

struct WarmTallies {
  Tally nonprivate, priv;
};

// The warm settings; a device that received no model runs cold: its row
// is the cold row. In paper mode this matters: the shared warm agent would
// otherwise keep learning across every late user from an empty model and
// beat the per-user cold agents with no warm start at all.
WarmTallies run_warm(PointRun& p, const LateConfigs& cfgs, const Model& raw_model,
                     const Model& priv_model, const Tally& cold) {
  const PointResult& res = p.res;
  WarmTallies w;
  if (p.s.mode == Mode::paper) {
    // Independent agents, so the two shared runs may go side by side.
    std::vector<Tally> both(2);
    tools::parallel_for(2, p.s.threads, [&](std::size_t i) {
      const bool exists = i == 0 ? res.nonprivate_model : res.private_model;
      if (!exists) {
        both[i] = cold;
        p.advance(res.late_users);
      } else {
        both[i] = i == 0 ? shared(p, cfgs.late, raw_model, p.d, false, kLateRng + 1)
                         : shared(p, cfgs.priv, priv_model, 1, true, kLateRng + 2);
      }
    });
    return {both[0], both[1]};
  }
  auto warm_or_cold = [&](bool exists, const p2b_config& cfg, const Model& model, uint64_t stream) {
    if (exists) return per_user(p, cfg, &model, p.d, false, stream);
    p.advance(res.late_users);
    Tally same_as_cold = cold;
    return same_as_cold;
  };
  w.nonprivate = warm_or_cold(res.nonprivate_model, cfgs.late, raw_model, kLateRng + 1);
  w.priv = warm_or_cold(res.private_model, cfgs.priv, priv_model, kLateRng + 2);
  return w;
}

// The late phase's figures: each setting's reward, the oracle and the
// context-free baselines.
void finish(PointRun& p, const Tally& cold, const WarmTallies& warm,
            const std::vector<double>& early_arm_sums) {
  PointResult& res = p.res;
  res.cold = cold.estimate();
  res.warm_nonprivate = warm.nonprivate.estimate();
  res.warm_private = warm.priv.estimate();
  res.oracle = cold.users ? cold.oracle / cold.users : 0.0;
  const double steps = static_cast<double>(cold.users) * p.s.interactions;
  if (steps > 0) {
    res.best_fixed_arm_index = argmax(cold.arm_sums);
    res.best_fixed_arm = cold.arm_sums[res.best_fixed_arm_index] / steps;
    res.majority_arm_index = argmax(early_arm_sums);
    res.majority_arm = cold.arm_sums[res.majority_arm_index] / steps;
  }
}

void check_point(const PointSpec& s, const Environment& env, const std::vector<float>& codebook,
                 uint32_t n_codes) {
  if (codebook.size() != static_cast<size_t>(n_codes) * env.dim()) {
    throw std::invalid_argument("codebook is not n_codes x d");
  }
  if (!(s.early_fraction > 0 && s.early_fraction < 1)) {
    throw std::invalid_argument("early fraction must be in (0, 1)");
  }
}

}  // namespace

PointResult run_point(const PointSpec& s, const Environment& env,
                      const std::vector<float>& codebook, uint32_t n_codes,
                      const Progress& progress) {
  check_point(s, env, codebook, n_codes);
  PointRun p{s, env, codebook, n_codes, progress};
  PointResult& res = p.res;
  res.population = static_cast<uint64_t>(static_cast<double>(s.early_users) / s.early_fraction);
  res.late_users = res.population - s.early_users;
  if (res.late_users == 0) throw std::invalid_argument("no late users: raise --users");

  // ---- early users: cold agents that report through P2B ----
  auto t0 = Clock::now();
  const EarlyPool pool = run_early(p);
  res.seconds_early = since(t0);

  // ---- server: the non-private pool and the P2B path ----
  t0 = Clock::now();
  const std::vector<std::size_t> kept = shuffle_and_threshold(p, pool.tuples);
  Model priv_model = private_model(p, pool.tuples, kept);
  Model raw_model;
  pool.raw.model_arrays(1.0, &raw_model.a, &raw_model.b);
  LateConfigs cfgs;
  make_late_configs(p, &cfgs);
  if (s.crypto) sign_and_verify(p, cfgs.priv, &priv_model);
  res.seconds_server = since(t0);

  // ---- late users: cold, warm non-private, warm private ----
  t0 = Clock::now();
  const Tally cold = per_user(p, cfgs.late, nullptr, p.d, false, kLateRng, true);
  res.nonprivate_model = res.reports > 0;
  res.private_model = res.kept > 0;
  const WarmTallies warm = run_warm(p, cfgs, raw_model, priv_model, cold);
  res.seconds_late = since(t0);
  finish(p, cold, warm, pool.arm_sums);
  return res;
}

}  // namespace p2b::sim
