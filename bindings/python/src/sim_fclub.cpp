// p2b-sim --protocol fclub in Python: FclubOptions is fclub_sim::Options
// itself (each field under its CLI flag's name, '-' written '_'), and
// _run_fclub calls the same fclub_sim::run() p2b-sim does, with Python's
// progress and logging as its hooks. p2b/sim_fclub.py wraps both as
// p2b.simulate_fclub.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "fclub_sim/fclub_run.hpp"
#include "fclub_sim/options.hpp"
#include "option_properties.hpp"
#include "run_bridge.hpp"

namespace py = pybind11;

namespace p2b::python {
namespace {

using fclub_sim::Options;

void bind_lists(py::class_<Options>& c) {
  c.def_property(
      "algorithms", [](const Options& o) { return o.algorithms; },
      [](Options& o, const OneOrMany<std::string>& v) { o.algorithms = text_list(v); },
      "--algorithms: any of linucb-ind, club, sclub, homo, homo-dc, fclub, fclub-dc, "
      "cdp-fclub-dc ([]: all the mode has)");
  c.def_property(
      "dims", [](const Options& o) { return o.dims; },
      [](Options& o, const OneOrMany<uint32_t>& v) { o.dims = one_or_many(v); },
      "--dims: d values, a grid axis [10]");
  c.def_property(
      "epsilons", [](const Options& o) { return o.epsilons; },
      [](Options& o, const OneOrMany<double>& v) { o.epsilons = one_or_many(v); },
      "--epsilons: CDP-FCLUB-DC's epsilon, a grid axis; inf: no noise [1]");
}

void bind_fields(py::class_<Options>& c) {
  c.def_readwrite("mode", &Options::mode, "--mode: 'default' (the paper's maths) or 'reference'")
      .def_readwrite("rounds", &Options::rounds, "--rounds: T [100000]")
      .def_readwrite("every", &Options::every, "--every: regret curve step in rounds [1000]")
      .def_readwrite("users", &Options::users, "--users: N [40]")
      .def_readwrite("servers", &Options::servers, "--servers: local servers L [5]")
      .def_readwrite("clusters", &Options::clusters, "--clusters: distinct theta [5]")
      .def_readwrite("items", &Options::items, "--items: K items per round [10]")
      .def_readwrite("thetas", &Options::thetas, "--thetas: per-user theta FILE (.npy) ['']")
      .def_readwrite("layout", &Options::layout, "--layout: 'auto', 'blocks' or 'shuffled'")
      .def_readwrite("delta", &Options::delta, "--delta: CDP-FCLUB-DC's delta [0.1]")
      .def_readwrite("beta_scale", &Options::beta_scale, "--beta-scale [0.25]")
      .def_readwrite("split_alpha", &Options::split_alpha, "--split-alpha: Eq. 3 [1.5]")
      .def_readwrite("merge_alpha", &Options::merge_alpha, "--merge-alpha: Eq. 4 [2]")
      .def_readwrite("theta_gap", &Options::theta_gap, "--theta-gap [0]")
      .def_readwrite("upload_ratio", &Options::upload_ratio, "--upload-ratio: U [1.01]")
      .def_readwrite("download_ratio", &Options::download_ratio, "--download-ratio: D [1.01]");
}

// Validates (ValueError naming the field), then runs without the GIL; with
// `out` set, also writes the CSVs there as p2b-sim does.
py::dict run_fclub(const Options& o, const py::object& progress, const py::object& log) {
  return run_simulation(fclub_sim::validate(o), progress, log, [&](const tools::RunHooks& hooks) {
    tools::ResultTables tables = fclub_sim::run(o, hooks);
    if (!o.run.out.empty()) tools::write_tables(tables, o.run.out);
    return tables;
  });
}

}  // namespace

void register_sim_fclub(py::module_& m) {
  py::class_<Options> c(m, "FclubOptions",
                        "p2b-sim --protocol fclub's options: each field is a long flag, '-' "
                        "written '_'; a list field also takes one value.");
  c.def(py::init([] {
    Options o;
    o.run.out.clear();  // Python keeps results in memory unless asked
    return o;
  }));
  bind_common_run(c, "--seeds: runs per algorithm, seeds seed .. seed+seeds-1 [10]");
  bind_lists(c);
  bind_fields(c);
  m.def("_run_fclub", &run_fclub, py::arg("options"), py::arg("progress"), py::arg("log"),
        "fclub_sim::run: {'runs'|'curves'|'summary': {column: values}}; ValueError on an "
        "invalid option or data file.");
  m.def("_fclub_sim_flags", &fclub_sim::long_flags, "Every long flag of p2b-sim --protocol fclub.");
}

}  // namespace p2b::python
