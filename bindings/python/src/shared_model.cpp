// p2b.SharedModel: the C API's shared-parameter model (one theta over
// per-item contexts: FCLUB's and the vertical federation's device side), in
// an arena this object owns. Items are float64, (n_items, d).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
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

// Every field p2b_shared_model_init checks, named as the keyword that sets
// it, so a bad value raises BadConfigError saying which and what range.
void check_fields(const p2b_shared_config& c) {
  require_count("dim", c.dim, 1, p2b_shared_max_dim());
  require_count("max_items", c.max_items, 1, p2b_shared_max_items());
  require_real("alpha", c.alpha, finite_in(c.alpha, 0.0, 1e6), "must be in [0, 1e6]");
  require_real("ridge_lambda", c.ridge_lambda, finite_in(c.ridge_lambda, 1e-6, 1e6),
               "must be in [1e-6, 1e6]");
  require_real("ts_scale", c.ts_scale, finite_in(c.ts_scale, 0.0, 1e6), "must be in [0, 1e6]");
  require_real("tie_rel_tol", c.tie_rel_tol, finite_in(c.tie_rel_tol, 0.0, 1e-2),
               "must be in [0, 0.01]");
  require_count("pending_capacity", c.pending_capacity, 1, p2b_max_pending());
}

// The checks p2b_shared_model_decide makes on each (n_items, d) slice of a
// batch, made on the whole batch first so that a bad slice raises before
// any decision: the item count, then each value's finiteness and size.
void check_item_batch(const py::array_t<double, py::array::c_style>& x, uint32_t max_items) {
  const auto n_items = static_cast<std::size_t>(x.shape(1));
  if (n_items == 0 || n_items > max_items) {
    throw StatusError::with_message(P2B_ERR_ITEM_COUNT, "items: " + std::to_string(n_items) +
                                                            " items per decision: must be in [1, " +
                                                            std::to_string(max_items) + "]");
  }
  const auto u = x.unchecked<3>();
  for (py::ssize_t i = 0; i < u.shape(0); ++i) {
    for (py::ssize_t j = 0; j < u.shape(1); ++j) {
      for (py::ssize_t k = 0; k < u.shape(2); ++k) {
        const double v = u(i, j, k);
        if (std::isfinite(v) && std::fabs(v) <= 1e6) continue;
        const std::string entry = "items[" + std::to_string(i) + ", " + std::to_string(j) + ", " +
                                  std::to_string(k) +
                                  "] = " + py::repr(py::float_(v)).cast<std::string>();
        if (!std::isfinite(v)) {
          throw StatusError::with_message(P2B_ERR_NON_FINITE, entry + ": must be finite");
        }
        throw StatusError::with_message(P2B_ERR_NUMERIC_RANGE, entry + ": must be in [-1e6, 1e6]");
      }
    }
  }
}

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
      bad_field("policy", "'" + policy + "'", "must be 'linucb' or 'lints'");
    }
    if (precision == "f32") {
      cfg.precision = P2B_PRECISION_F32;
    } else if (precision != "f64") {
      bad_field("precision", "'" + precision + "'", "must be 'f64' or 'f32'");
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
    check_fields(cfg);
    std::size_t bytes = 0;
    check(p2b_shared_model_footprint(&cfg, &bytes), "p2b_shared_model_footprint");
    void* mem = arena_.allocate(bytes);
    check(p2b_shared_model_init(mem, arena_.size(), &cfg, &model_), "p2b_shared_model_init");
    footprint_ = bytes;
    dim_ = dim;
    max_items_ = max_items;
  }

  py::tuple decide(const py::handle& items) {
    in_use_.check();
    const auto x = float64_array(items, 2, "items");
    uint32_t item = 0;
    uint64_t id = 0;
    check(p2b_shared_model_decide(model_, x.data(), static_cast<std::size_t>(x.shape(0)),
                                  static_cast<std::size_t>(x.shape(1)), &item, &id),
          "p2b_shared_model_decide");
    return py::make_tuple(item, id);
  }

  // n calls of decide in one, over an (n, n_items, d) array: every slice is
  // checked first, so a bad one raises with the model untouched; the loop
  // runs without the GIL.
  py::tuple decide_many(const py::handle& items) {
    const auto x = float64_array(items, 3, "items");
    if (static_cast<std::size_t>(x.shape(2)) != dim_) {
      throw py::value_error("items: expected shape (n, n_items, " + std::to_string(dim_) +
                            "), got " + std::string(py::str(py::tuple(x.attr("shape")))));
    }
    const auto n = static_cast<std::size_t>(x.shape(0));
    const auto per = static_cast<std::size_t>(x.shape(1));
    if (n > 0) check_item_batch(x, max_items_);
    py::array_t<uint32_t> chosen(static_cast<py::ssize_t>(n));
    py::array_t<uint64_t> ids(static_cast<py::ssize_t>(n));
    uint32_t* item = chosen.mutable_data();
    uint64_t* id = ids.mutable_data();
    p2b_status s = P2B_OK;
    std::size_t row = 0;
    {
      const InUse::Scope busy(&in_use_);
      const py::gil_scoped_release unlocked;
      for (; row < n; ++row) {
        s = p2b_shared_model_decide(model_, x.data() + row * per * dim_, per, dim_, item + row,
                                    id + row);
        if (s != P2B_OK) break;
      }
    }
    // Only the random source can fail here (LinTS); the slices before stay decided.
    if (s != P2B_OK) {
      throw StatusError(s, "p2b_shared_model_decide (items slice " + std::to_string(row) + ")");
    }
    return py::make_tuple(chosen, ids);
  }

  void reward(uint64_t id, double r) {
    in_use_.check();
    check(p2b_shared_model_reward(model_, id, r), "p2b_shared_model_reward");
  }

  void learn(const py::handle& context, double r) {
    in_use_.check();
    const auto x = float64_array(context, 1, "context");
    check(p2b_shared_model_learn(model_, x.data(), static_cast<std::size_t>(x.size()), r),
          "p2b_shared_model_learn");
  }

  py::tuple scores(const py::handle& items) const {
    in_use_.check();
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
    in_use_.check();
    py::array_t<double> t(dim_);
    check(p2b_shared_model_theta(model_, t.mutable_data(), dim_), "p2b_shared_model_theta");
    return t;
  }

  void apply_model(const py::handle& bundle, std::optional<uint64_t> now) {
    in_use_.check();
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
    in_use_.check();
    uint64_t v = 0;
    check(p2b_shared_model_model_version(model_, &v), "p2b_shared_model_model_version");
    return v;
  }

  py::bytes save(const py::handle& key) const {
    in_use_.check();
    return save_state(model_, key, p2b_shared_model_save_size, p2b_shared_model_save,
                      {"p2b_shared_model_save_size", "p2b_shared_model_save"});
  }

  void restore(const py::handle& data, const py::handle& key) {
    in_use_.check();
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
  InUse in_use_;
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
      .def("decide_many", &SharedModel::decide_many, py::arg("items"),
           R"doc(decide over each (n_items, d) slice of an (n, n_items, d) float64 array, in
one call and without the GIL: returns (items, decision_ids), uint32 and uint64
arrays of length n, the same as n calls of decide in order. Every slice is
checked first, so a bad value raises (naming it) with the model unchanged.
While it runs, other calls on this model from other threads raise
RuntimeError.)doc")
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
