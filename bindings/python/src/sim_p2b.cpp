// p2b-sim's P2B experiment in Python: P2BOptions is sim::SimOptions itself
// (each field under its CLI flag's name, '-' written '_'), and _run_p2b
// calls the same sim::run() p2b-sim does, with Python's progress and
// logging as its hooks. p2b/sim_p2b.py wraps both as p2b.simulate_p2b.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "bindings.hpp"
#include "data/arff.hpp"
#include "data/multilabel.hpp"
#include "run_bridge.hpp"
#include "sim/results_table.hpp"
#include "sim/run.hpp"
#include "sim/sim_options.hpp"

namespace py = pybind11;

namespace p2b::python {
namespace {

using sim::SimOptions;

// A grid field: one value or a list of them, as the CLI's LIST.
template <typename T>
using OneOrMany = std::variant<T, std::vector<T>>;

template <typename T>
std::vector<T> as_list(const OneOrMany<T>& v) {
  if (const T* one = std::get_if<T>(&v)) return {*one};
  return std::get<std::vector<T>>(v);
}

sim::Mode mode_of(const std::string& s) {
  if (s == "paper") return sim::Mode::paper;
  if (s == "default") return sim::Mode::standard;
  throw py::value_error("mode = '" + s + "': must be paper, default or both (or a list of them)");
}

void set_mode(SimOptions& o, const OneOrMany<std::string>& v) {
  if (const auto* one = std::get_if<std::string>(&v); one && *one == "both") {
    o.modes = {sim::Mode::paper, sim::Mode::standard};
    return;
  }
  std::vector<sim::Mode> modes;
  for (const std::string& s : as_list(v)) modes.push_back(mode_of(s));
  o.modes = modes;
}

std::vector<std::string> get_mode(const SimOptions& o) {
  std::vector<std::string> out;
  for (sim::Mode m : o.modes) out.emplace_back(sim::mode_name(m));
  return out;
}

void set_mapping(SimOptions& o, const std::string& v) {
  if (v == "auto") {
    o.mapping.reset();
  } else if (v == "linear" || v == "softmax") {
    o.mapping = v == "linear" ? sim::Mapping::linear : sim::Mapping::softmax;
  } else {
    throw py::value_error("mapping = '" + v + "': must be auto, linear or softmax");
  }
}

void set_contexts(SimOptions& o, const std::string& v) {
  if (v != "simplex" && v != "uniform") {
    throw py::value_error("contexts = '" + v + "': must be simplex or uniform");
  }
  o.contexts = v == "simplex" ? sim::ContextLaw::simplex : sim::ContextLaw::normalised_uniform;
}

// A list field bound as a property that also takes one value.
template <typename T>
void list_property(py::class_<SimOptions>& c, const char* name, std::vector<T> SimOptions::*field,
                   const char* doc) {
  c.def_property(
      name, [field](const SimOptions& o) { return o.*field; },
      [field](SimOptions& o, const OneOrMany<T>& v) { o.*field = as_list(v); }, doc);
}

// --seeds, --seed, --threads, --out, --plot, --quiet: o.run's fields.
template <typename T>
void run_property(py::class_<SimOptions>& c, const char* name, T tools::CommonRunOptions::*field,
                  const char* doc) {
  c.def_property(
      name, [field](const SimOptions& o) { return o.run.*field; },
      [field](SimOptions& o, T v) { o.run.*field = v; }, doc);
}

void bind_common(py::class_<SimOptions>& c) {
  run_property(c, "seeds", &tools::CommonRunOptions::seeds,
               "--seeds: run the grid once for each seed seed .. seed+seeds-1 [1]");
  run_property(c, "seed", &tools::CommonRunOptions::seed, "--seed: the first seed [1]");
  run_property(c, "threads", &tools::CommonRunOptions::threads, "--threads [2]");
  run_property(c, "out", &tools::CommonRunOptions::out,
               "--out: where trained codebooks are cached ('': not cached) ['']");
  run_property(c, "plot", &tools::CommonRunOptions::plot, "--plot (ignored by simulate_p2b)");
  run_property(c, "quiet", &tools::CommonRunOptions::quiet,
               "--quiet (simulate_p2b: progress=False)");
}

void bind_grid(py::class_<SimOptions>& c) {
  list_property(c, "users", &SimOptions::users, "--users: early (sharing) users u [10000]");
  list_property(c, "actions", &SimOptions::actions, "--actions: |A| [10]");
  list_property(c, "dim", &SimOptions::dims, "--dim: d [10]");
  list_property(c, "interactions", &SimOptions::interactions, "--interactions: t [10]");
  list_property(c, "central_epsilon", &SimOptions::central_epsilons,
                "--central-epsilon: the analyzer's central DP, 0 is off [0]");
  c.def_property("mode", &get_mode, &set_mode,
                 "--mode: 'paper', 'default', 'both' or a list ['paper', 'default']");
}

void bind_protocol(py::class_<SimOptions>& c) {
  c.def_readwrite("codes", &SimOptions::codes, "--codes: codebook size k [1024]")
      .def_readwrite("digits", &SimOptions::digits, "--digits: q [1]")
      .def_readwrite("p", &SimOptions::participation, "--p: participation probability [0.5]")
      .def_readwrite("threshold", &SimOptions::threshold, "--threshold: l [10]")
      .def_readwrite("neg_rate", &SimOptions::neg_rate, "--neg-rate [0.05]")
      .def_readwrite("alpha", &SimOptions::alpha, "--alpha: LinUCB exploration [1]")
      .def_readwrite("early_fraction", &SimOptions::early_fraction, "--early-fraction [0.7]")
      .def_property(
          "no_crypto", [](const SimOptions& o) { return !o.crypto; },
          [](SimOptions& o, bool v) { o.crypto = !v; }, "--no-crypto: skip sealing [False]")
      .def_readwrite("central_delta", &SimOptions::central_delta, "--central-delta [1e-6]")
      .def_readwrite("central_horizon", &SimOptions::central_horizon, "--central-horizon [2^20]")
      .def_readwrite("central_release", &SimOptions::central_release,
                     "--central-release: 0 is the noisiest of the horizon [0]")
      .def_readwrite("codebook", &SimOptions::codebook, "--codebook: a codebook FILE ['']");
}

void bind_environment(py::class_<SimOptions>& c) {
  c.def_readwrite("env", &SimOptions::env, "--env: 'synthetic' or 'multilabel'")
      .def_readwrite("beta", &SimOptions::beta, "--beta: synthetic reward scale [0.1]")
      .def_readwrite("noise_sd", &SimOptions::noise_sd, "--noise-sd [0.001]")
      .def_property(
          "contexts",
          [](const SimOptions& o) {
            return std::string(o.contexts == sim::ContextLaw::simplex ? "simplex" : "uniform");
          },
          &set_contexts, "--contexts: 'simplex' or 'uniform'")
      .def_property(
          "mapping",
          [](const SimOptions& o) {
            return std::string(o.mapping ? sim::mapping_name(*o.mapping) : "auto");
          },
          &set_mapping, "--mapping: 'auto', 'linear' or 'softmax'")
      .def_readwrite("weights", &SimOptions::weights, "--weights: W and b FILE ['']")
      .def_readwrite("weights_layout", &SimOptions::weights_layout, "--weights-layout [auto]")
      .def_readwrite("data", &SimOptions::data, "--data: a multi-label ARFF FILE ['']")
      .def_readwrite("labels", &SimOptions::labels, "--labels [auto]");
}

// Validates (ValueError naming the field), then runs without the GIL.
py::dict run_p2b(const SimOptions& o, const py::object& progress, const py::object& log) {
  return run_simulation(sim::validate(o), progress, log,
                        [&](const tools::RunHooks& hooks) { return sim::run(o, hooks); });
}

}  // namespace

void register_sim_p2b(py::module_& m) {
  py::class_<SimOptions> c(m, "P2BOptions",
                           "p2b-sim's options for the P2B experiment (its default protocol): "
                           "each field is a long flag, '-' written '_'.");
  c.def(py::init<>());
  bind_common(c);
  bind_grid(c);
  bind_protocol(c);
  bind_environment(c);
  m.def("_run_p2b", &run_p2b, py::arg("options"), py::arg("progress"), py::arg("log"),
        "sim::run: {'results': {column: values}}; ValueError on an invalid option or data file.");
  m.def("_p2b_sim_flags", &sim::long_flags, "Every long flag of p2b-sim's P2B experiment.");
}

}  // namespace p2b::python
