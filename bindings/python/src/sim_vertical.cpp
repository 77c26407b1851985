// p2b-sim --protocol vertical in Python: VerticalOptions is vertical::Options
// itself (each field under its CLI flag's name, '-' written '_'), and
// _run_vertical calls the same vertical::run() p2b-sim does, with Python's
// progress and logging as its hooks. p2b/sim_vertical.py wraps both as
// p2b.simulate_vertical.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "option_properties.hpp"
#include "run_bridge.hpp"
#include "vertical/options.hpp"
#include "vertical/run.hpp"

namespace py = pybind11;

namespace p2b::python {
namespace {

using vertical::Options;

void bind_lists(py::class_<Options>& c) {
  c.def_property(
      "partition", [](const Options& o) { return o.partition; },
      [](Options& o, const OneOrMany<uint32_t>& v) { o.partition = one_or_many(v); },
      "--partition: column blocks d_j, party 0 first [20,20,20,20,20]");
  c.def_property(
      "partial", [](const Options& o) { return o.partial; },
      [](Options& o, const OneOrMany<double>& v) { o.partial = one_or_many(v); },
      "--partial: partial models on the first ratio*d columns [0.2,0.8]");
  c.def_property(
      "policies", [](const Options& o) { return o.policies; },
      [](Options& o, const OneOrMany<std::string>& v) { o.policies = text_list(v); },
      "--policies: linucb, lints or both [linucb,lints]");
  c.def_property(
      "cost_dims", [](const Options& o) { return o.cost_dims; },
      [](Options& o, const OneOrMany<uint32_t>& v) { o.cost_dims = one_or_many(v); },
      "--cost-dims: d values of --cost [25,50,100,200,400]");
  c.def_property(
      "cost_actions", [](const Options& o) { return o.cost_actions; },
      [](Options& o, const OneOrMany<uint32_t>& v) { o.cost_actions = one_or_many(v); },
      "--cost-actions: K values of --cost [10,100,500,1000]");
}

void bind_fields(py::class_<Options>& c) {
  c.def_readwrite("env", &Options::env, "--env: 'synthetic' or 'multilabel'")
      .def_readwrite("dim", &Options::dim, "--dim: d, synthetic [100]")
      .def_readwrite("actions", &Options::actions, "--actions: K items per round [10]")
      .def_readwrite("rounds", &Options::rounds, "--rounds: T per run [5000]")
      .def_readwrite("beta", &Options::beta, "--beta: LinUCB's exploration weight [0.5]")
      .def_readwrite("ts_scale", &Options::ts_scale, "--ts-scale: LinTS's v [0.01]")
      .def_readwrite("noise_sd", &Options::noise_sd, "--noise-sd: reward noise sd [0.05]")
      .def_readwrite("tie", &Options::tie, "--tie: tie tolerance of every model [1e-9]")
      .def_readwrite("data", &Options::data, "--data: multi-label ARFF FILE ['']")
      .def_readwrite("labels", &Options::labels, "--labels: auto, first:N, last:N [auto]")
      .def_readwrite("parties", &Options::parties, "--parties: multilabel M [4]")
      .def_readwrite("components", &Options::components, "--components: per party [3]")
      .def_readwrite("cost", &Options::cost, "--cost: the cost grid instead of regret runs")
      .def_readwrite("cost_parties", &Options::cost_parties, "--cost-parties: M [5]")
      .def_readwrite("cost_rounds", &Options::cost_rounds, "--cost-rounds: per point [20]");
}

// Validates (ValueError naming the field), then runs without the GIL; with
// `out` set, also writes the CSVs there as p2b-sim does.
py::dict run_vertical(const Options& o, const py::object& progress, const py::object& log) {
  return run_simulation(vertical::validate(o), progress, log, [&](const tools::RunHooks& hooks) {
    tools::ResultTables tables = vertical::run(o, hooks);
    if (!o.run.out.empty()) tools::write_tables(tables, o.run.out);
    return tables;
  });
}

}  // namespace

void register_sim_vertical(py::module_& m) {
  py::class_<Options> c(m, "VerticalOptions",
                        "p2b-sim --protocol vertical's options: each field is a long flag, '-' "
                        "written '_'; a list field also takes one value.");
  c.def(py::init([] {
    Options o;
    o.run.out.clear();  // Python keeps results in memory unless asked
    return o;
  }));
  bind_common_run(c, "--seeds: runs per policy, seeds seed .. seed+seeds-1 [5]");
  bind_lists(c);
  bind_fields(c);
  m.def("_run_vertical", &run_vertical, py::arg("options"), py::arg("progress"), py::arg("log"),
        "vertical::run: {'results'|'curves'} or {'cost'}: {column: values}; ValueError on an "
        "invalid option or data file.");
  m.def("_vertical_sim_flags", &vertical::long_flags,
        "Every long flag of p2b-sim --protocol vertical.");
}

}  // namespace p2b::python
