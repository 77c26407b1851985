// p2b-sim --protocol compare in Python: CompareOptions is compare_sim::Options
// itself (each field under its CLI flag's name, '-' written '_'), and
// _run_compare calls the same compare_sim::run_compare() p2b-sim does, with
// Python's progress and logging as its hooks. p2b/sim_compare.py wraps both
// as p2b.simulate_compare.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "compare_sim/options.hpp"
#include "compare_sim/run.hpp"
#include "option_properties.hpp"
#include "run_bridge.hpp"

namespace py = pybind11;

namespace p2b::python {
namespace {

using compare_sim::Options;

template <typename T>
void list_property(py::class_<Options>& c, const char* name, std::vector<T> Options::*field,
                   const char* doc) {
  c.def_property(
      name, [field](const Options& o) { return o.*field; },
      [field](Options& o, const OneOrMany<T>& v) { o.*field = one_or_many(v); }, doc);
}

void bind_lists(py::class_<Options>& c) {
  c.def_property(
      "envs", [](const Options& o) { return o.envs; },
      [](Options& o, const OneOrMany<std::string>& v) { o.envs = text_list(v); },
      "--envs: synthetic and/or multilabel [both]");
  c.def_property(
      "protocols", [](const Options& o) { return o.protocols; },
      [](Options& o, const OneOrMany<std::string>& v) { o.protocols = text_list(v); },
      "--protocols: any of local, p2b, fclub, pfcb, o3m, pooled [all]");
  list_property<double>(c, "participations", &Options::participations,
                        "--participations: P2B's p, its epsilon axis [0.1..0.9]");
  list_property<double>(c, "epsilons", &Options::epsilons,
                        "--epsilons: FCLUB's and P-FCB-style's epsilon axis [0.5..8]");
  list_property<double>(c, "spends", &Options::spends,
                        "--spends: equal privacy, epsilon per user over the horizon [off]");
  c.def_property(
      "no_nonprivate_variants", [](const Options& o) { return !o.nonprivate_variants; },
      [](Options& o, bool skip) { o.nonprivate_variants = !skip; },
      "--no-nonprivate-variants: skip FCLUB-DC and P-FCB-style at epsilon = inf [False]");
}

void bind_fields(py::class_<Options>& c) {
  c.def_readwrite("users", &Options::users, "--users: N, both cohorts [2000]")
      .def_readwrite("early_fraction", &Options::early_fraction, "--early-fraction [0.7]")
      .def_readwrite("interactions", &Options::interactions, "--interactions: T_u [10]")
      .def_readwrite("dim", &Options::dim, "--dim: synthetic d [8]")
      .def_readwrite("actions", &Options::actions, "--actions: synthetic |A| [8]")
      .def_readwrite("mapping", &Options::mapping, "--mapping: 'linear' or 'softmax'")
      .def_readwrite("beta", &Options::beta, "--beta: synthetic reward scale [0.1]")
      .def_readwrite("noise_sd", &Options::noise_sd, "--noise-sd [0.001]")
      .def_readwrite("data", &Options::data, "--data: multi-label ARFF FILE ['']")
      .def_readwrite("labels", &Options::labels, "--labels: auto, first:N, last:N [auto]")
      .def_readwrite("ml_dim", &Options::ml_dim, "--ml-dim: multi-label d [4]")
      .def_readwrite("alpha", &Options::alpha, "--alpha: LinUCB alpha [1]")
      .def_readwrite("codes", &Options::codes, "--codes: P2B codebook size k [16]")
      .def_readwrite("threshold", &Options::threshold, "--threshold: P2B crowd l [10]")
      .def_readwrite("delta", &Options::delta, "--delta: every Gaussian mechanism's [1e-5]")
      .def_readwrite("servers", &Options::servers, "--servers: FCLUB local servers [4]")
      .def_readwrite("beta_scale", &Options::beta_scale, "--beta-scale: FCLUB's [0.25]")
      .def_readwrite("omega1", &Options::omega1, "--omega1: P-FCB-style radius [0.1]")
      .def_readwrite("omega2", &Options::omega2, "--omega2: P-FCB-style weight [10]");
}

// Validates (ValueError naming the field), then runs without the GIL; with
// `out` set, also writes the CSVs there as p2b-sim does.
py::dict run_compare(const Options& o, const py::object& progress, const py::object& log) {
  return run_simulation(compare_sim::validate(o), progress, log, [&](const tools::RunHooks& hooks) {
    tools::ResultTables tables = compare_sim::run(o, hooks);
    if (!o.run.out.empty()) tools::write_tables(tables, o.run.out);
    return tables;
  });
}

}  // namespace

void register_sim_compare(py::module_& m) {
  py::class_<Options> c(m, "CompareOptions",
                        "p2b-sim --protocol compare's options: each field is a long flag, '-' "
                        "written '_'; a list field also takes one value.");
  c.def(py::init([] {
    Options o;
    o.run.out.clear();  // Python keeps results in memory unless asked
    return o;
  }));
  bind_common_run(c, "--seeds: seeds seed .. seed+seeds-1 per environment [5]");
  bind_lists(c);
  bind_fields(c);
  m.def("_run_compare", &run_compare, py::arg("options"), py::arg("progress"), py::arg("log"),
        "compare_sim::run: {'runs'|'summary': {column: values}}; ValueError on an invalid "
        "option or data file.");
  m.def("_compare_sim_flags", &compare_sim::long_flags,
        "Every long flag of p2b-sim --protocol compare.");
}

}  // namespace p2b::python
