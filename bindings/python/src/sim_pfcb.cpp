// p2b-sim --protocol pfcb in Python: PfcbOptions is pfcb_sim::Options
// itself (each field under its CLI flag's name, '-' written '_'; the words
// the CLI takes for --dist, --setting, --violation-cost, --schedule and
// --log-base), and _run_pfcb calls the same pfcb_sim::run_all() p2b-sim
// does, with Python's progress and logging as its hooks. p2b/sim_pfcb.py
// wraps both as p2b.simulate_pfcb.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "option_properties.hpp"
#include "pfcb_sim/options.hpp"
#include "pfcb_sim/pfcb_run.hpp"
#include "pfcb_sim/run_table.hpp"
#include "run_bridge.hpp"

namespace py = pybind11;

namespace p2b::python {
namespace {

using pfcb_sim::Dist;
using pfcb_sim::Options;

Dist dist_of(const std::string& word) {
  if (word == "uniform") return Dist::uniform;
  if (word == "normal") return Dist::normal;
  throw py::value_error("--dist = " + word + ": must be one of normal, uniform");
}

void bind_lists(py::class_<Options>& c) {
  c.def_property(
      "algorithms", [](const Options& o) { return o.algorithms; },
      [](Options& o, const OneOrMany<std::string>& v) { o.algorithms = text_list(v); },
      "--algorithms: any of nf, fcb, pfcb, pfcb-aligned, pfcb-accept-all");
  c.def_property(
      "dist",
      [](const Options& o) {
        std::vector<std::string> words;
        for (Dist d : o.dists) words.emplace_back(pfcb_sim::dist_name(d));
        return words;
      },
      [](Options& o, const OneOrMany<std::string>& v) {
        std::vector<Dist> dists;
        for (const std::string& w : text_list(v)) dists.push_back(dist_of(w));
        o.dists = dists;
      },
      "--dist: 'uniform', 'normal' or both, a grid axis");
  c.def_property(
      "epsilons", [](const Options& o) { return o.epsilons; },
      [](Options& o, const OneOrMany<double>& v) { o.epsilons = one_or_many(v); },
      "--epsilons: P-FCB's total epsilon, a grid axis [1, 0.3]");
  c.def_property(
      "agents_grid", [](const Options& o) { return o.agents_grid; },
      [](Options& o, const OneOrMany<uint32_t>& v) { o.agents_grid = one_or_many(v); },
      "--agents-grid: n values, a grid axis [10]");
  c.def_property(
      "agents", [](const Options& o) { return o.agents_grid.empty() ? 0U : o.agents_grid.front(); },
      [](Options& o, uint32_t n) { o.agents_grid = {n}; }, "--agents: n, one value [10]");
}

void bind_instance(py::class_<Options>& c) {
  c.def_readwrite("producers", &Options::producers, "--producers: m [30]")
      .def_readwrite("instances", &Options::instances, "--instances [5]")
      .def_readwrite("rounds", &Options::rounds, "--rounds: T [100000]")
      .def_readwrite("every", &Options::every, "--every: curve step (0: rounds/100) [0]")
      .def_readwrite("max_capacity", &Options::max_capacity, "--max-capacity [50]")
      .def_readwrite("alpha", &Options::alpha, "--alpha: quality threshold [0.4]");
  c.def_property(
      "setting",
      [](const Options& o) { return std::string(o.homogeneous ? "homogeneous" : "heterogeneous"); },
      [](Options& o, const std::string& s) {
        if (s != "homogeneous" && s != "heterogeneous")
          throw py::value_error("--setting = " + s + ": must be one of heterogeneous, homogeneous");
        o.homogeneous = s == "homogeneous";
      },
      "--setting: 'heterogeneous' or 'homogeneous'");
  word_property(
      c, "violation_cost", "--violation-cost", [](Options & o) -> auto& { return o.violation; },
      std::map<std::string, pfcb_sim::ViolationCost>{
          {"optimum", pfcb_sim::ViolationCost::optimum},
          {"max-regret", pfcb_sim::ViolationCost::max_regret}},
      "--violation-cost: 'optimum' or 'max-regret'");
}

template <typename T>
void team_field(py::class_<Options>& c, const char* name, T pfcb_sim::TeamSpec::*field,
                const char* doc) {
  c.def_property(
      name, [field](const Options& o) { return o.team.*field; },
      [field](Options& o, T v) { o.team.*field = v; }, doc);
}

void bind_team(py::class_<Options>& c) {
  using pfcb_sim::TeamSpec;
  word_property(
      c, "schedule", "--schedule", [](Options & o) -> auto& { return o.team.schedule; },
      std::map<std::string, CmabSchedule>{{"paper", CmabSchedule::paper},
                                          {"aligned", CmabSchedule::aligned},
                                          {"every-round", CmabSchedule::every_round}},
      "--schedule: 'paper', 'aligned' or 'every-round'");
  word_property(
      c, "log_base", "--log-base", [](Options & o) -> auto& { return o.team.log_base; },
      std::map<std::string, CmabLogBase>{{"2", CmabLogBase::two}, {"e", CmabLogBase::natural}},
      "--log-base: '2' or 'e'");
  team_field(c, "window_start", &TeamSpec::window_start, "--window-start [200]");
  team_field(c, "window_stop", &TeamSpec::window_stop, "--window-stop [40000]");
  team_field(c, "delta", &TeamSpec::delta, "--delta [0.01]");
  team_field(c, "omega1", &TeamSpec::omega1, "--omega1 (inf: accept all) [0.1]");
  team_field(c, "omega2", &TeamSpec::omega2, "--omega2 [10]");
  team_field(c, "explore_rounds", &TeamSpec::explore_rounds, "--explore-rounds [10]");
  team_field(c, "ucb_scale", &TeamSpec::ucb_scale, "--ucb-scale [1]");
  team_field(c, "quality_margin", &TeamSpec::quality_margin, "--quality-margin [0]");
  team_field(c, "public_max_capacity", &TeamSpec::public_max_capacity,
             "--public-max-capacity (0: each producer's own) [0]");
}

// With `out` set, what p2b-sim writes: the tables and summary.json.
void write_outputs(const Options& o, const std::vector<pfcb_sim::RunResult>& runs,
                   const tools::ResultTables& tables) {
  tools::write_tables(tables, o.run.out);
  std::ofstream(o.run.out + "/summary.json") << pfcb_sim::summary_json(o, runs).dump(2) << '\n';
}

// Validates (ValueError naming the field), then runs without the GIL.
py::dict run_pfcb(const Options& o, const py::object& progress, const py::object& log) {
  return run_simulation(pfcb_sim::validate(o), progress, log, [&](const tools::RunHooks& hooks) {
    const std::vector<pfcb_sim::RunResult> runs = pfcb_sim::run_all(o, hooks);
    tools::ResultTables tables = pfcb_sim::result_tables(o, runs);
    if (!o.run.out.empty()) write_outputs(o, runs, tables);
    return tables;
  });
}

}  // namespace

void register_sim_pfcb(py::module_& m) {
  py::class_<Options> c(m, "PfcbOptions",
                        "p2b-sim --protocol pfcb's options: each field is a long flag, '-' "
                        "written '_'; a list field also takes one value.");
  c.def(py::init([] {
    Options o;
    o.run.out.clear();  // Python keeps results in memory unless asked
    return o;
  }));
  bind_common_run(c, "--seeds: runs (realisations) per instance [20]");
  bind_lists(c);
  bind_instance(c);
  bind_team(c);
  m.def("_run_pfcb", &run_pfcb, py::arg("options"), py::arg("progress"), py::arg("log"),
        "pfcb_sim::run: {'runs'|'curves'|'curves_runs'|'summary'|'ratios': {column: values}}; "
        "ValueError on an invalid option.");
  m.def("_pfcb_sim_flags", &pfcb_sim::long_flags, "Every long flag of p2b-sim --protocol pfcb.");
}

}  // namespace p2b::python
