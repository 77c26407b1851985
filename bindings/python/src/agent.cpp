// p2b.Agent: one device agent in an arena this object owns (the C API never
// allocates). Arrays in are checked for dtype and rank here; lengths are left
// to the C API, so a wrong length raises the status the C caller would get.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arena.hpp"
#include "arrays.hpp"
#include "bindings.hpp"
#include "config_fields.hpp"
#include "in_use.hpp"
#include "p2b.h"
#include "saved_state.hpp"
#include "status_error.hpp"

namespace py = pybind11;

namespace p2b::python {
namespace {

uint32_t policy_code(const std::string& name) {
  if (name == "linucb") return P2B_POLICY_LINUCB;
  if (name == "lints") return P2B_POLICY_LINTS;
  bad_field("policy", "'" + name + "'", "must be 'linucb' or 'lints'");
}

// Every field p2b_agent_init checks, named as the keyword that sets it, so
// a bad value raises BadConfigError saying which and what range.
void check_fields(const p2b_config& c) {
  require_count("dim (the centroids' columns)", c.dim, 1, p2b_max_dim());
  require_count("n_codes (the centroids' rows)", c.n_codes, 1, p2b_max_codes());
  require_count("n_actions", c.n_actions, 1, p2b_max_actions());
  require_real("alpha", c.alpha, finite_in(c.alpha, 0.0, 1e6), "must be in [0, 1e6]");
  require_real("ridge_lambda", c.ridge_lambda, finite_in(c.ridge_lambda, 1e-6, 1e6),
               "must be in [1e-6, 1e6]");
  require_real("ts_scale", c.ts_scale, finite_in(c.ts_scale, 0.0, 1e6), "must be in [0, 1e6]");
  require_count("round_digits", c.round_digits, 1, p2b_max_digits());
  require_count("window", c.window, 1, p2b_max_window());
  require_real("participation", c.participation, c.participation > 0.0 && c.participation < 1.0,
               "must be in (0, 1)");
  require_real("neg_rate", c.neg_rate, finite_in(c.neg_rate, 0.0, 1.0), "must be in [0, 1]");
  require_real("epsilon_budget", c.epsilon_budget, c.epsilon_budget > 0.0,
               "must be > 0 (inf: unlimited)");
  require_count("pending_capacity", c.pending_capacity, 1, p2b_max_pending());
  require_count("outbox_capacity", c.outbox_capacity, 1, p2b_max_outbox());
}

class Agent {
 public:
  Agent(const py::handle& centroids, uint32_t n_actions, const py::handle& shuffler_pk,
        const py::handle& analyzer_pk, const py::handle& analyzer_verify_key,
        const std::string& policy, std::optional<double> alpha, std::optional<double> ridge_lambda,
        std::optional<double> ts_scale, std::optional<uint32_t> round_digits,
        std::optional<uint32_t> window, std::optional<double> participation,
        std::optional<double> neg_rate, std::optional<double> epsilon_budget,
        std::optional<uint32_t> pending_capacity, std::optional<uint32_t> outbox_capacity,
        std::optional<uint64_t> seed, bool accept_baseline_models, uint64_t min_model_version) {
    const auto cb = float32_array(centroids, 2, "centroids");
    const auto shuffler = byte_vector(shuffler_pk, P2B_KEY_BYTES, "shuffler_public_key");
    const auto analyzer = byte_vector(analyzer_pk, P2B_KEY_BYTES, "analyzer_public_key");
    const auto verify = byte_vector(analyzer_verify_key, P2B_KEY_BYTES, "analyzer_verify_key");
    p2b_config cfg;
    check(p2b_config_default(&cfg), "p2b_config_default");
    cfg.dim = static_cast<uint32_t>(cb.shape(1));
    cfg.n_codes = static_cast<uint32_t>(cb.shape(0));
    cfg.centroids = cb.data();
    cfg.n_actions = n_actions;
    cfg.policy = policy_code(policy);
    cfg.alpha = alpha.value_or(cfg.alpha);
    cfg.ridge_lambda = ridge_lambda.value_or(cfg.ridge_lambda);
    cfg.ts_scale = ts_scale.value_or(cfg.ts_scale);
    cfg.round_digits = round_digits.value_or(cfg.round_digits);
    cfg.window = window.value_or(cfg.window);
    cfg.participation = participation.value_or(cfg.participation);
    cfg.neg_rate = neg_rate.value_or(cfg.neg_rate);
    cfg.epsilon_budget = epsilon_budget.value_or(cfg.epsilon_budget);
    cfg.pending_capacity = pending_capacity.value_or(cfg.pending_capacity);
    cfg.outbox_capacity = outbox_capacity.value_or(cfg.outbox_capacity);
    if (seed) {
      cfg.rng_mode = P2B_RNG_SEEDED;
      cfg.seed = *seed;
    }
    cfg.shuffler_public_key = shuffler.data();
    cfg.analyzer_public_key = analyzer.data();
    cfg.analyzer_verify_key = verify.data();
    cfg.accept_baseline_models = accept_baseline_models ? 1 : 0;
    cfg.min_model_version = min_model_version;
    check_fields(cfg);
    check(p2b_agent_footprint(&cfg, &footprint_), "p2b_agent_footprint");
    void* mem = arena_.allocate(footprint_);
    check(p2b_agent_init(mem, arena_.size(), &cfg, &agent_), "p2b_agent_init");
    config_ =
        py::dict(py::arg("dim") = cfg.dim, py::arg("n_actions") = cfg.n_actions,
                 py::arg("n_codes") = cfg.n_codes, py::arg("policy") = policy,
                 py::arg("alpha") = cfg.alpha, py::arg("ridge_lambda") = cfg.ridge_lambda,
                 py::arg("ts_scale") = cfg.ts_scale, py::arg("round_digits") = cfg.round_digits,
                 py::arg("window") = cfg.window, py::arg("participation") = cfg.participation,
                 py::arg("neg_rate") = cfg.neg_rate, py::arg("epsilon_budget") = cfg.epsilon_budget,
                 py::arg("pending_capacity") = cfg.pending_capacity,
                 py::arg("outbox_capacity") = cfg.outbox_capacity, py::arg("seed") = seed,
                 py::arg("accept_baseline_models") = accept_baseline_models,
                 py::arg("min_model_version") = min_model_version);
    dim_ = cfg.dim;
    n_actions_ = cfg.n_actions;
  }

  py::tuple decide(const py::handle& x) {
    in_use_.check();
    const auto v = float32_array(x, 1, "context");
    uint32_t action = 0;
    uint64_t id = 0;
    check(p2b_agent_decide(agent_, v.data(), static_cast<std::size_t>(v.size()), &action, &id),
          "p2b_agent_decide");
    return py::make_tuple(action, id);
  }

  // n calls of decide in one: every row is checked first, so a bad row
  // raises with the agent untouched; the loop runs without the GIL.
  py::tuple decide_many(const py::handle& contexts) {
    const auto x = float32_rows(contexts, dim_, "contexts");
    const auto n = static_cast<std::size_t>(x.shape(0));
    check_context_rows(x.data(), n, dim_, "contexts");
    py::array_t<uint32_t> actions(static_cast<py::ssize_t>(n));
    py::array_t<uint64_t> ids(static_cast<py::ssize_t>(n));
    uint32_t* action = actions.mutable_data();
    uint64_t* id = ids.mutable_data();
    p2b_status s = P2B_OK;
    std::size_t row = 0;
    {
      const InUse::Scope busy(&in_use_);
      const py::gil_scoped_release unlocked;
      for (; row < n; ++row) {
        s = p2b_agent_decide(agent_, x.data() + row * dim_, dim_, action + row, id + row);
        if (s != P2B_OK) break;
      }
    }
    // Only the random source can fail here (LinTS); the rows before stay decided.
    if (s != P2B_OK) {
      throw StatusError(s, "p2b_agent_decide (contexts row " + std::to_string(row) + ")");
    }
    return py::make_tuple(actions, ids);
  }

  void reward(uint64_t id, float r) {
    in_use_.check();
    check(p2b_agent_reward(agent_, id, r), "p2b_agent_reward");
  }

  void learn(const py::handle& x, uint32_t action, float r) {
    in_use_.check();
    const auto v = float32_array(x, 1, "context");
    check(p2b_agent_learn(agent_, v.data(), static_cast<std::size_t>(v.size()), action, r),
          "p2b_agent_learn");
  }

  void forget() {
    in_use_.check();
    check(p2b_agent_forget(agent_), "p2b_agent_forget");
  }

  py::tuple scores(const py::handle& x) {
    in_use_.check();
    const auto v = float32_array(x, 1, "context");
    py::array_t<float> mean(n_actions_), width(n_actions_);
    check(p2b_agent_scores(agent_, v.data(), static_cast<std::size_t>(v.size()),
                           mean.mutable_data(), width.mutable_data(), n_actions_),
          "p2b_agent_scores");
    return py::make_tuple(mean, width);
  }

  // None when there is nothing (more) to send: NO_REPORT or BUDGET_EXHAUSTED.
  py::object poll_envelope() {
    in_use_.check();
    uint8_t env[P2B_ENVELOPE_BYTES];
    std::size_t n = 0;
    const p2b_status s = p2b_agent_poll_envelope(agent_, env, sizeof env, &n);
    if (s == P2B_NO_REPORT || s == P2B_BUDGET_EXHAUSTED) return py::none();
    check(s, "p2b_agent_poll_envelope");
    return to_bytes(env, n);
  }

  py::object poll_tuple() {
    in_use_.check();
    p2b_tuple t{};
    const p2b_status s = p2b_agent_poll_tuple(agent_, &t);
    if (s == P2B_NO_REPORT || s == P2B_BUDGET_EXHAUSTED) return py::none();
    check(s, "p2b_agent_poll_tuple");
    return py::make_tuple(t.code, t.action, t.reward);
  }

  uint32_t encode(const py::handle& x) const {
    in_use_.check();
    const auto v = float32_array(x, 1, "context");
    uint32_t code = 0;
    check(p2b_agent_encode(agent_, v.data(), static_cast<std::size_t>(v.size()), &code),
          "p2b_agent_encode");
    return code;
  }

  py::array_t<float> centroid(uint32_t code) const {
    in_use_.check();
    py::array_t<float> out(dim_);
    check(p2b_agent_centroid(agent_, code, out.mutable_data(), dim_), "p2b_agent_centroid");
    return out;
  }

  py::dict fingerprints() const {
    in_use_.check();
    p2b_fingerprints f{};
    check(p2b_agent_fingerprints(agent_, &f), "p2b_agent_fingerprints");
    return py::dict(
        py::arg("shuffler") = to_bytes(f.shuffler, sizeof f.shuffler),
        py::arg("analyzer") = to_bytes(f.analyzer, sizeof f.analyzer),
        py::arg("analyzer_verify") = to_bytes(f.analyzer_verify, sizeof f.analyzer_verify),
        py::arg("codebook") = to_bytes(f.codebook, sizeof f.codebook));
  }

  py::dict privacy() const {
    in_use_.check();
    p2b_privacy p{};
    check(p2b_agent_privacy(agent_, &p), "p2b_agent_privacy");
    return py::dict(py::arg("epsilon_per_report") = p.epsilon_per_report,
                    py::arg("epsilon_spent") = p.epsilon_spent,
                    py::arg("epsilon_budget") = p.epsilon_budget, py::arg("reports") = p.reports,
                    py::arg("windows_closed") = p.windows_closed,
                    py::arg("dropped_outbox_full") = p.dropped_outbox_full,
                    py::arg("exhausted") = p.exhausted != 0);
  }

  // A as (K, d, d) and b as (K, d); the C API's matrices are column-major.
  py::tuple export_stats() const {
    in_use_.check();
    std::vector<double> a(static_cast<std::size_t>(n_actions_) * dim_ * dim_);
    std::vector<double> b(static_cast<std::size_t>(n_actions_) * dim_);
    check(p2b_agent_export(agent_, a.data(), b.data(), n_actions_, dim_), "p2b_agent_export");
    py::array_t<double> pa({n_actions_, dim_, dim_});
    py::array_t<double> pb({n_actions_, dim_});
    auto ma = pa.mutable_unchecked<3>();
    for (uint32_t k = 0; k < n_actions_; ++k) {
      for (uint32_t i = 0; i < dim_; ++i) {
        for (uint32_t j = 0; j < dim_; ++j) {
          ma(k, i, j) = a[(static_cast<std::size_t>(k) * dim_ + j) * dim_ + i];
        }
      }
    }
    std::memcpy(pb.mutable_data(), b.data(), b.size() * sizeof(double));
    return py::make_tuple(pa, pb);
  }

  void import_stats(const py::handle& a, const py::handle& b, const std::string& form) {
    in_use_.check();
    const auto pa = float64_array(a, 3, "a");
    const auto pb = float64_array(b, 2, "b");
    const auto k = static_cast<uint32_t>(pa.shape(0));
    const auto d = static_cast<uint32_t>(pa.shape(1));
    if (pa.shape(2) != d || pb.shape(0) != k || pb.shape(1) != d) {
      throw py::value_error("a must be (K, d, d) and b (K, d)");
    }
    uint32_t f = P2B_STATS_GRAM;
    if (form == "cholesky") {
      f = P2B_STATS_CHOLESKY;
    } else if (form != "gram") {
      throw py::value_error("form: expected 'gram' or 'cholesky'");
    }
    std::vector<double> col(static_cast<std::size_t>(k) * d * d);
    const auto ua = pa.unchecked<3>();
    for (uint32_t m = 0; m < k; ++m) {
      for (uint32_t i = 0; i < d; ++i) {
        for (uint32_t j = 0; j < d; ++j)
          col[(static_cast<std::size_t>(m) * d + j) * d + i] = ua(m, i, j);
      }
    }
    check(p2b_agent_import(agent_, col.data(), pb.data(), k, d, f), "p2b_agent_import");
  }

  void apply_model(const py::handle& bundle, std::optional<uint64_t> now) {
    in_use_.check();
    const auto b = byte_vector(bundle, 0, "bundle");
    if (now) {
      check(p2b_agent_apply_model_at(agent_, b.data(), b.size(), *now), "p2b_agent_apply_model_at");
    } else {
      check(p2b_agent_apply_model(agent_, b.data(), b.size()), "p2b_agent_apply_model");
    }
  }

  uint64_t model_version(std::optional<std::string> kind) const {
    in_use_.check();
    uint64_t v = 0;
    if (!kind) {
      check(p2b_agent_model_version(agent_, &v), "p2b_agent_model_version");
      return v;
    }
    uint32_t k = P2B_MODEL_PRIVATE;
    if (*kind == "raw_baseline") {
      k = P2B_MODEL_RAW_BASELINE;
    } else if (*kind != "private") {
      throw py::value_error("kind: expected 'private' or 'raw_baseline'");
    }
    check(p2b_agent_model_version_of(agent_, k, &v), "p2b_agent_model_version_of");
    return v;
  }

  void apply_key_list(const py::handle& list, uint64_t now) {
    in_use_.check();
    const auto b = byte_vector(list, 0, "key list");
    check(p2b_agent_apply_key_list(agent_, b.data(), b.size(), now), "p2b_agent_apply_key_list");
  }

  uint64_t key_list_version() const {
    in_use_.check();
    uint64_t v = 0;
    check(p2b_agent_key_list_version(agent_, &v), "p2b_agent_key_list_version");
    return v;
  }

  py::bytes save(const py::handle& key) const {
    in_use_.check();
    return save_state(agent_, key, p2b_agent_save_size, p2b_agent_save,
                      {"p2b_agent_save_size", "p2b_agent_save"});
  }

  void restore(const py::handle& data, const py::handle& key) {
    in_use_.check();
    restore_state(agent_, data, key, p2b_agent_restore, "p2b_agent_restore");
  }

  py::bytes save_encrypted(const py::handle& key) const {
    in_use_.check();
    return save_state(agent_, key, p2b_agent_save_encrypted_size, p2b_agent_save_encrypted,
                      {"p2b_agent_save_encrypted_size", "p2b_agent_save_encrypted"});
  }

  void restore_encrypted(const py::handle& data, const py::handle& key) {
    in_use_.check();
    restore_state(agent_, data, key, p2b_agent_restore_encrypted, "p2b_agent_restore_encrypted");
  }

  std::size_t footprint() const { return footprint_; }
  uint32_t dim() const { return dim_; }
  uint32_t n_actions() const { return n_actions_; }
  py::dict config() const { return config_; }

 private:
  Arena arena_;
  p2b_agent* agent_ = nullptr;
  std::size_t footprint_ = 0;
  uint32_t dim_ = 0, n_actions_ = 0;
  py::dict config_;
  InUse in_use_;
};

}  // namespace

void register_agent(py::module_& m) {
  py::class_<Agent>(m, "Agent", R"doc(
A P2B device agent: a local contextual bandit (LinUCB or linear Thompson
sampling) that releases sealed (code, action, reward) reports under the P2B
protocol. It wraps the C API (p2b.h); this object owns the agent's arena.

centroids is the k x d float32 codebook (p2b.parse_codebook or
p2b.train_codebook); d is its second dimension. The three keys are the
deployment's 32-byte public keys (p2b.keygen). Keyword arguments left as
None keep the C library's defaults (p2b_config_default). seed=None draws
from the system CSPRNG; an integer makes decisions and reports repeat.
Every non-OK status raises a p2b.P2BError subclass; a call that raises
leaves the agent as it was.)doc")
      .def(py::init<const py::handle&, uint32_t, const py::handle&, const py::handle&,
                    const py::handle&, const std::string&, std::optional<double>,
                    std::optional<double>, std::optional<double>, std::optional<uint32_t>,
                    std::optional<uint32_t>, std::optional<double>, std::optional<double>,
                    std::optional<double>, std::optional<uint32_t>, std::optional<uint32_t>,
                    std::optional<uint64_t>, bool, uint64_t>(),
           py::arg("centroids"), py::arg("n_actions"), py::kw_only(),
           py::arg("shuffler_public_key"), py::arg("analyzer_public_key"),
           py::arg("analyzer_verify_key"), py::arg("policy") = "linucb",
           py::arg("alpha") = py::none(), py::arg("ridge_lambda") = py::none(),
           py::arg("ts_scale") = py::none(), py::arg("round_digits") = py::none(),
           py::arg("window") = py::none(), py::arg("participation") = py::none(),
           py::arg("neg_rate") = py::none(), py::arg("epsilon_budget") = py::none(),
           py::arg("pending_capacity") = py::none(), py::arg("outbox_capacity") = py::none(),
           py::arg("seed") = py::none(), py::arg("accept_baseline_models") = false,
           py::arg("min_model_version") = 0)
      .def("decide", &Agent::decide, py::arg("context"),
           "Picks an action for a float32 context of length d: returns (action, decision_id).")
      .def("decide_many", &Agent::decide_many, py::arg("contexts"),
           R"doc(Decides for each row of an (n, d) array of contexts, float32 (float64 is
converted), in one call and without the GIL: returns (actions, decision_ids),
uint32 and uint64 arrays of length n, the same as n calls of decide in row
order. Every row is checked before any is decided, so a NaN or negative
entry raises (naming the row and column) with the agent unchanged. While it
runs, other calls on this agent from other threads raise RuntimeError.)doc")
      .def("reward", &Agent::reward, py::arg("decision_id"), py::arg("reward"),
           "Feeds back the reward in [0, 1] of an earlier decision.")
      .def("learn", &Agent::learn, py::arg("context"), py::arg("action"), py::arg("reward"),
           "Learns from a (context, action, reward) the agent did not decide (p2b_agent_learn).")
      .def("forget", &Agent::forget,
           "Erases what the agent learnt and its pending reports (p2b_agent_forget).")
      .def("scores", &Agent::scores, py::arg("context"),
           "Each action's theta.x and sqrt(x^T A^-1 x): (mean, width), float32; LinUCB plays "
           "argmax mean + alpha * width.")
      .def("poll_envelope", &Agent::poll_envelope,
           "The next sealed report (bytes of p2b.ENVELOPE_BYTES), or None when there is none.")
      .def("poll_tuple", &Agent::poll_tuple,
           "The next report in clear as (code, action, reward), or None (simulation only).")
      .def("encode", &Agent::encode, py::arg("context"), "The k-means code of a context.")
      .def("centroid", &Agent::centroid, py::arg("code"), "The centroid of a code, float32.")
      .def("fingerprints", &Agent::fingerprints,
           "The 16-byte fingerprints of the keys and the codebook the agent holds.")
      .def("privacy", &Agent::privacy,
           "The privacy figures: epsilon per report, spent, budget, reports, windows closed...")
      .def("export_stats", &Agent::export_stats,
           "The per-action statistics (A, b): A as (K, d, d) and b as (K, d), float64.")
      .def("import_stats", &Agent::import_stats, py::arg("a"), py::arg("b"),
           py::arg("form") = "gram",
           "Replaces the statistics by A (K, d, d; 'gram' or lower 'cholesky') and b (K, d).")
      .def("apply_model", &Agent::apply_model, py::arg("bundle"), py::arg("now") = py::none(),
           "Applies a signed warm-start model bundle; now (Unix seconds) checks its expiry.")
      .def("model_version", &Agent::model_version, py::arg("kind") = py::none(),
           "The version of the last model applied (of a kind: 'private' or 'raw_baseline').")
      .def("apply_key_list", &Agent::apply_key_list, py::arg("key_list"), py::arg("now"),
           "Applies a signed shuffler-key list (p2b-keylist) at Unix time now.")
      .def("key_list_version", &Agent::key_list_version,
           "The version of the last key list applied (0: none).")
      .def("save", &Agent::save, py::arg("key"),
           "The agent's state, MACed under a 32-byte key (p2b_agent_save).")
      .def("restore", &Agent::restore, py::arg("state"), py::arg("key"),
           "Restores a state saved under the same key and configuration; all or nothing.")
      .def("save_encrypted", &Agent::save_encrypted, py::arg("key"),
           "The agent's state, encrypted and authenticated under a 32-byte key.")
      .def("restore_encrypted", &Agent::restore_encrypted, py::arg("state"), py::arg("key"),
           "Restores a state from save_encrypted(); all or nothing.")
      .def_property_readonly("footprint", &Agent::footprint,
                             "Bytes of the arena (p2b_agent_footprint).")
      .def_property_readonly("dim", &Agent::dim, "The context dimension d.")
      .def_property_readonly("n_actions", &Agent::n_actions, "The number of actions K.")
      .def_property_readonly("config", &Agent::config,
                             "The configuration the agent was made with, as a dict.");
}

}  // namespace p2b::python
