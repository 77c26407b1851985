// The simulators of p2b-sim, in process. P2B's own experiment is driven point
// by point through tools/sim (run_point, the codebook p2b-sim trains), so
// Python gets every figure as a number; the other protocols run their
// p2b-sim entry points with a command line and Python reads the CSVs they
// write (p2b/simulate.py).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "compare_sim/compare_main.hpp"
#include "fclub_sim/fclub_main.hpp"
#include "pfcb_sim/pfcb_main.hpp"
#include "sim/codebook_source.hpp"
#include "sim/environment.hpp"
#include "sim/experiment.hpp"
#include "sim/multilabel_env.hpp"
#include "sim/sim_options.hpp"
#include "sim/synthetic_env.hpp"
#include "vertical/vertical_main.hpp"

namespace py = pybind11;

namespace p2b::python {
namespace {

py::array_t<float> sim_codebook(uint32_t dim, uint32_t digits, uint32_t codes, uint64_t seed,
                                unsigned threads, const std::string& cache_dir) {
  sim::SimOptions o;
  o.digits = digits;
  o.codes = codes;
  o.seed = seed;
  o.threads = threads;
  o.quiet = true;
  o.out_dir = cache_dir;
  sim::Codebook cb;
  {
    const py::gil_scoped_release unlocked;
    cb = sim::codebook_for(o, dim);
  }
  py::array_t<float> out({static_cast<py::ssize_t>(cb.k), static_cast<py::ssize_t>(dim)});
  std::memcpy(out.mutable_data(), cb.centroids.data(), cb.centroids.size() * sizeof(float));
  return out;
}

sim::Mode mode_of(const std::string& s) {
  if (s == "paper") return sim::Mode::paper;
  if (s == "default") return sim::Mode::standard;
  throw py::value_error("mode: expected 'paper' or 'default'");
}

py::dict sim_point(const py::handle& centroids, uint32_t actions, uint64_t users,
                   uint32_t interactions, const std::string& mode, const std::string& mapping,
                   const std::string& contexts, double beta, double noise_sd, uint64_t seed,
                   unsigned threads, uint32_t digits, double participation, uint32_t threshold,
                   double neg_rate, double alpha, double early_fraction, bool crypto,
                   double central_epsilon, double central_delta, uint64_t central_horizon,
                   const std::string& env_kind, const std::string& data_path,
                   const std::string& labels) {
  if (env_kind != "synthetic" && env_kind != "multilabel") {
    throw py::value_error("env: expected 'synthetic' or 'multilabel'");
  }
  if (env_kind == "multilabel" && data_path.empty()) {
    throw py::value_error("env='multilabel' needs data= (a multi-label ARFF file)");
  }
  const auto cb = float32_array(centroids, 2, "centroids");
  sim::EnvParams ep;
  ep.dim = static_cast<uint32_t>(cb.shape(1));
  ep.n_actions = actions;
  ep.beta = beta;
  ep.noise_variance = noise_sd * noise_sd;
  ep.seed = seed;
  if (contexts == "uniform") {
    ep.contexts = sim::ContextLaw::normalised_uniform;
  } else if (contexts != "simplex") {
    throw py::value_error("contexts: expected 'simplex' or 'uniform'");
  }
  sim::SimOptions o;
  if (mapping == "linear") {
    o.mapping = sim::Mapping::linear;
  } else if (mapping == "softmax") {
    o.mapping = sim::Mapping::softmax;
  } else if (mapping != "auto") {
    throw py::value_error("mapping: expected 'auto', 'linear' or 'softmax'");
  }
  sim::PointSpec spec;
  spec.mode = mode_of(mode);
  ep.mapping = sim::mapping_for(o, spec.mode);
  spec.early_users = users;
  spec.early_fraction = early_fraction;
  spec.interactions = interactions;
  spec.digits = digits;
  spec.participation = participation;
  spec.neg_rate = neg_rate;
  spec.alpha = alpha;
  spec.threshold = threshold;
  spec.crypto = crypto;
  spec.central_epsilon = central_epsilon;
  spec.central_delta = central_delta;
  spec.central_horizon = central_horizon;
  spec.seed = seed;
  spec.threads = threads;
  const std::vector<float> c(cb.data(), cb.data() + cb.size());
  const auto k = static_cast<uint32_t>(cb.shape(0));
  sim::PointResult r;
  uint32_t n_actions = actions;
  std::string data_error;
  {
    const py::gil_scoped_release unlocked;
    try {
      std::unique_ptr<sim::Environment> env;
      if (env_kind == "multilabel") {
        // The data set's rows are the contexts and its labels the actions,
        // reduced to the codebook's d as p2b-sim --env multilabel does.
        sim::SimOptions o_ml;
        o_ml.env = env_kind;
        o_ml.data = data_path;
        o_ml.labels = labels;
        o_ml.seed = seed;
        const data::MultiLabelSet set = sim::load_multilabel_set(o_ml, ep.dim);
        const auto population = static_cast<uint64_t>(static_cast<double>(users) / early_fraction);
        env = sim::make_multilabel_environment(o_ml, interactions, set, population);
      } else {
        env = std::make_unique<sim::SyntheticEnvironment>(sim::SyntheticEnv(ep));
      }
      n_actions = env->n_actions();
      r = sim::run_point(spec, *env, c, k);
    } catch (const data::DataError& e) {
      data_error = e.what();
    } catch (const data::ArffError& e) {
      data_error = e.what();
    }
  }
  if (!data_error.empty()) throw py::value_error(data_error);
  py::dict d;
  d["actions"] = n_actions;
  if (env_kind == "multilabel") d["majority_label"] = r.majority_arm;
  d["mapping"] = sim::mapping_name(ep.mapping);
  d["population"] = r.population;
  d["late_users"] = r.late_users;
  d["cold"] = r.cold.mean;
  d["cold_se"] = r.cold.stderr_;
  d["warm_nonprivate"] = r.warm_nonprivate.mean;
  d["warm_nonprivate_se"] = r.warm_nonprivate.stderr_;
  d["warm_private"] = r.warm_private.mean;
  d["warm_private_se"] = r.warm_private.stderr_;
  d["early"] = r.early.mean;
  d["oracle"] = r.oracle;
  d["best_fixed_arm"] = r.best_fixed_arm;
  d["best_fixed_arm_index"] = r.best_fixed_arm_index;
  d["nonprivate_model"] = r.nonprivate_model;
  d["private_model"] = r.private_model;
  d["reports"] = r.reports;
  d["kept"] = r.kept;
  d["codes_reported"] = r.codes_reported;
  d["codes_released"] = r.codes_released;
  d["smallest_crowd"] = r.smallest_released_crowd;
  d["epsilon_per_user"] = r.epsilon_per_user;
  d["delta_indicative"] = r.delta_indicative;
  d["central_sigma"] = r.central_sigma;
  d["model_bundle_bytes"] = r.model_bundle_bytes;
  d["seconds"] = r.seconds_early + r.seconds_server + r.seconds_late;
  return d;
}

// argv[0] is the program name; the protocol's main parses the rest.
int sim_main(const std::string& protocol, const std::vector<std::string>& args) {
  int (*entry)(int, char**) = nullptr;
  if (protocol == "vertical") entry = &vertical::vertical_main;
  if (protocol == "fclub") entry = &fclub_sim::fclub_main;
  if (protocol == "pfcb") entry = &pfcb_sim::pfcb_main;
  if (protocol == "compare") entry = &compare_sim::compare_main;
  if (entry == nullptr) throw py::value_error("unknown protocol '" + protocol + "'");
  std::vector<std::string> owned{"p2b-sim", "--protocol", protocol};
  owned.insert(owned.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(owned.size() + 1);
  for (std::string& s : owned) argv.push_back(s.data());
  argv.push_back(nullptr);
  const py::gil_scoped_release unlocked;
  const int rc = entry(static_cast<int>(owned.size()), argv.data());
  std::fflush(stdout);
  return rc;
}

}  // namespace

void register_simulators(py::module_& m) {
  m.def("_sim_codebook", &sim_codebook, py::arg("dim"), py::arg("digits"), py::arg("codes"),
        py::arg("seed"), py::arg("threads"), py::arg("cache_dir"),
        "The codebook p2b-sim uses for d (trained, or read from cache_dir/codebooks).");
  m.def("_sim_p2b_point", &sim_point, py::arg("centroids"), py::arg("actions"), py::arg("users"),
        py::arg("interactions"), py::arg("mode"), py::arg("mapping"), py::arg("contexts"),
        py::arg("beta"), py::arg("noise_sd"), py::arg("seed"), py::arg("threads"),
        py::arg("digits"), py::arg("participation"), py::arg("threshold"), py::arg("neg_rate"),
        py::arg("alpha"), py::arg("early_fraction"), py::arg("crypto"), py::arg("central_epsilon"),
        py::arg("central_delta"), py::arg("central_horizon"), py::arg("env"), py::arg("data"),
        py::arg("labels"),
        "One point of p2b-sim's P2B experiment (tools/sim/experiment.hpp run_point).");
  m.def("_sim_main", &sim_main, py::arg("protocol"), py::arg("args"),
        "Runs p2b-sim --protocol PROTOCOL ARGS... in process; returns its exit code.");
}

}  // namespace p2b::python
