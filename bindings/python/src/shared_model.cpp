// p2b.SharedModel: the C API's shared-parameter model (one theta over
// per-item contexts: FCLUB's and the vertical federation's device side), in
// an arena this object owns. Items are float64, (n_items, d).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arena.hpp"
#include "arrays.hpp"
#include "bindings.hpp"
#include "p2b.h"
#include "saved_state.hpp"
#include "status_error.hpp"

namespace py = pybind11;

namespace p2b::python {
namespace {

class SharedModel {
 public:
  SharedModel(uint32_t dim, uint32_t max_items, const std::string& policy,
              std::optional<double> alpha, std::optional<double> ridge_lambda,
              std::optional<double> ts_scale, std::optional<double> tie_rel_tol,
              std::optional<uint32_t> pending_capacity, const std::string& precision,
              std::optional<uint64_t> seed, const py::object& analyzer_verify_key,
              uint64_t min_model_version) {
    p2b_shared_config cfg;
    check(p2b_shared_config_default(&cfg), "p2b_shared_config_default");
    cfg.dim = dim;
    cfg.max_items = max_items;
    if (policy == "lints") {
      cfg.policy = P2B_POLICY_LINTS;
    } else if (policy != "linucb") {
      throw py::value_error("policy: expected 'linucb' or 'lints', got '" + policy + "'");
    }
    if (precision == "f32") {
      cfg.precision = P2B_PRECISION_F32;
    } else if (precision != "f64") {
      throw py::value_error("precision: expected 'f64' or 'f32'");
    }
    cfg.alpha = alpha.value_or(cfg.alpha);
    cfg.ridge_lambda = ridge_lambda.value_or(cfg.ridge_lambda);
    cfg.ts_scale = ts_scale.value_or(cfg.ts_scale);
    cfg.tie_rel_tol = tie_rel_tol.value_or(cfg.tie_rel_tol);
    cfg.pending_capacity = pending_capacity.value_or(cfg.pending_capacity);
    if (seed) {
      cfg.rng_mode = P2B_RNG_SEEDED;
      cfg.seed = *seed;
    }
    std::vector<uint8_t> verify;
    if (!analyzer_verify_key.is_none()) {
      verify = byte_vector(analyzer_verify_key, P2B_KEY_BYTES, "analyzer_verify_key");
      cfg.analyzer_verify_key = verify.data();
    }
    cfg.min_model_version = min_model_version;
    std::size_t bytes = 0;
    check(p2b_shared_model_footprint(&cfg, &bytes), "p2b_shared_model_footprint");
    void* mem = arena_.allocate(bytes);
    check(p2b_shared_model_init(mem, arena_.size(), &cfg, &model_), "p2b_shared_model_init");
    footprint_ = bytes;
    dim_ = dim;
    max_items_ = max_items;
  }

  py::tuple decide(const py::handle& items) {
    const auto x = float64_array(items, 2, "items");
    uint32_t item = 0;
    uint64_t id = 0;
    check(p2b_shared_model_decide(model_, x.data(), static_cast<std::size_t>(x.shape(0)),
                                  static_cast<std::size_t>(x.shape(1)), &item, &id),
          "p2b_shared_model_decide");
    return py::make_tuple(item, id);
  }

  void reward(uint64_t id, double r) {
    check(p2b_shared_model_reward(model_, id, r), "p2b_shared_model_reward");
  }

  void learn(const py::handle& context, double r) {
    const auto x = float64_array(context, 1, "context");
    check(p2b_shared_model_learn(model_, x.data(), static_cast<std::size_t>(x.size()), r),
          "p2b_shared_model_learn");
  }

  py::tuple scores(const py::handle& items) const {
    const auto x = float64_array(items, 2, "items");
    const py::ssize_t n = x.shape(0);
    py::array_t<double> mean(n), width(n), total(n);
    check(p2b_shared_model_scores(model_, x.data(), static_cast<std::size_t>(n),
                                  static_cast<std::size_t>(x.shape(1)), mean.mutable_data(),
                                  width.mutable_data(), total.mutable_data()),
          "p2b_shared_model_scores");
    return py::make_tuple(mean, width, total);
  }

  py::array_t<double> theta() const {
    py::array_t<double> t(dim_);
    check(p2b_shared_model_theta(model_, t.mutable_data(), dim_), "p2b_shared_model_theta");
    return t;
  }

  void apply_model(const py::handle& bundle, std::optional<uint64_t> now) {
    const auto b = byte_vector(bundle, 0, "bundle");
    if (now) {
      check(p2b_shared_model_apply_model_at(model_, b.data(), b.size(), *now),
            "p2b_shared_model_apply_model_at");
    } else {
      check(p2b_shared_model_apply_model(model_, b.data(), b.size()),
            "p2b_shared_model_apply_model");
    }
  }

  uint64_t model_version() const {
    uint64_t v = 0;
    check(p2b_shared_model_model_version(model_, &v), "p2b_shared_model_model_version");
    return v;
  }

  py::bytes save(const py::handle& key) const {
    return save_state(model_, key, p2b_shared_model_save_size, p2b_shared_model_save,
                      {"p2b_shared_model_save_size", "p2b_shared_model_save"});
  }

  void restore(const py::handle& data, const py::handle& key) {
    restore_state(model_, data, key, p2b_shared_model_restore, "p2b_shared_model_restore");
  }

  std::size_t footprint() const { return footprint_; }
  uint32_t dim() const { return dim_; }
  uint32_t max_items() const { return max_items_; }

 private:
  Arena arena_;
  p2b_shared_model* model_ = nullptr;
  std::size_t footprint_ = 0;
  uint32_t dim_ = 0, max_items_ = 0;
};

}  // namespace

void register_shared_model(py::module_& m) {
  py::class_<SharedModel>(m, "SharedModel", R"doc(
The C API's shared-parameter model: one ridge model theta for all items,
scoring per-item float64 contexts (n_items, d) and picking one (LinUCB or
linear Thompson sampling); FCLUB's and the vertical federation's device
side. Keywords left as None keep the C defaults (p2b_shared_config_default);
seed=None draws from the system CSPRNG. analyzer_verify_key (32 bytes)
enables signed warm starts (p2b.sign_shared_model). Error statuses raise
p2b.P2BError subclasses; a call that raises changes nothing.)doc")
      .def(py::init<uint32_t, uint32_t, const std::string&, std::optional<double>,
                    std::optional<double>, std::optional<double>, std::optional<double>,
                    std::optional<uint32_t>, const std::string&, std::optional<uint64_t>,
                    const py::object&, uint64_t>(),
           py::arg("dim"), py::arg("max_items"), py::kw_only(), py::arg("policy") = "linucb",
           py::arg("alpha") = py::none(), py::arg("ridge_lambda") = py::none(),
           py::arg("ts_scale") = py::none(), py::arg("tie_rel_tol") = py::none(),
           py::arg("pending_capacity") = py::none(), py::arg("precision") = "f64",
           py::arg("seed") = py::none(), py::arg("analyzer_verify_key") = py::none(),
           py::arg("min_model_version") = 0)
      .def("decide", &SharedModel::decide, py::arg("items"),
           "Scores (n_items, d) float64 contexts and picks one: returns (item, decision_id).")
      .def("reward", &SharedModel::reward, py::arg("decision_id"), py::arg("reward"),
           "Learns the reward of a decision: A += x x^T, b += r x for its item.")
      .def("learn", &SharedModel::learn, py::arg("context"), py::arg("reward"),
           "Learns a logged (context, reward) no decision produced.")
      .def("scores", &SharedModel::scores, py::arg("items"),
           "Per item: (theta.x, sqrt(x^T A^-1 x), mean + alpha * width), float64 arrays.")
      .def("theta", &SharedModel::theta, "theta = A^-1 b, float64 of length d.")
      .def("apply_model", &SharedModel::apply_model, py::arg("bundle"), py::arg("now") = py::none(),
           "Applies a signed warm start (p2b.sign_shared_model); now (Unix s) checks expiry.")
      .def("model_version", &SharedModel::model_version,
           "The version of the last warm start applied (0: none).")
      .def("save", &SharedModel::save, py::arg("key"), "The state, MACed under a 32-byte key.")
      .def("restore", &SharedModel::restore, py::arg("state"), py::arg("key"),
           "Restores a state saved under the same key and configuration; all or nothing.")
      .def_property_readonly("footprint", &SharedModel::footprint, "Bytes of the arena.")
      .def_property_readonly("dim", &SharedModel::dim, "The context dimension d.")
      .def_property_readonly("max_items", &SharedModel::max_items,
                             "The most items one decision may score.");
}

}  // namespace p2b::python
