// The parts of p2b-sim --protocol compare's run(), one job per file: the
// environments (slots.cpp), the runs (tasks.cpp), their summary over seeds
// (summary.cpp), the tables (result_tables.cpp) and the printed report
// (report.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/result_table.hpp"
#include "cli/run_hooks.hpp"
#include "compare_sim/options.hpp"
#include "compare_sim/protocols.hpp"
#include "compare_sim/world.hpp"
#include "data/multilabel.hpp"
#include "sim/codebook_source.hpp"
#include "sim/environment.hpp"

namespace p2b::compare_sim {

// One environment instance: a name, a seed and the users' world.
struct Slot {
  std::string env;
  uint64_t seed = 0;
  std::unique_ptr<sim::Environment> environment;
  World world;
  const sim::Codebook* codebook = nullptr;
};

// Every environment of the run, each drawn once per seed.
struct Setup {
  uint64_t population = 0;                         // N
  uint64_t early = 0;                              // the early cohort
  std::map<std::string, sim::Codebook> codebooks;  // one per environment, shared by its seeds
  std::optional<data::MultiLabelSet> multilabel;
  std::vector<Slot> slots;
};

// Throws std::invalid_argument when the data set's labels do not fit
// FCLUB's wire, std::runtime_error when it cannot be read.
std::unique_ptr<Setup> make_setup(const Options& o, const tools::RunHooks& hooks);

struct Task {
  std::size_t slot;
  std::string protocol;
  double knob;
  int cost;                // rough, for ordering: the slowest first keeps both threads busy
  double target = 0.0;     // --spends: the spend the knob was solved for
  uint32_t threshold = 0;  // p2b: its crowd threshold (0: --threshold)
};

struct Row {
  std::string env;
  uint64_t seed = 0;
  Outcome out;
};

std::vector<Task> make_tasks(const Options& o, std::size_t slots);
Outcome run_task(const Options& o, const Slot& slot, const Task& t);

// The seeds' rows of one (env, protocol, target or knob), averaged.
struct Summary {
  std::string env, protocol;
  double knob = 0, target = 0;  // with a target, the knob is the mean over seeds (FCLUB's vary)
  uint32_t seeds = 0, threshold = 0;
  double reward_all = 0, reward_all_sd = 0, reward_late = 0, reward_late_sd = 0;
  double epsilon = 0, delta = 0;                                 // the largest over seeds
  double user_epsilon = 0, user_delta = 0, formula_epsilon = 0;  // the largest over seeds
  double ledger_units = 0, merges = 0;                           // means
  double msgs_up = 0, msgs_down = 0, bytes_up = 0, bytes_down = 0, detail = 0, seconds = 0;
};

std::vector<Summary> summarise(const std::vector<Row>& rows);

tools::ResultTable runs_table(const std::vector<Row>& rows);
tools::ResultTable summary_table(const std::vector<Summary>& sum);

// The printed report after the runs: the summary table, the units and
// adversaries, the oracle, the cross-checks. `spends_ok` is cleared when a
// --spends run's ledger missed its target (each miss said as a line).
std::vector<std::string> report_lines(const Options& o, const std::vector<Row>& rows,
                                      const std::vector<Summary>& sum, bool* spends_ok);

// "inf" for infinity, else %.6g: how the report prints a knob or an epsilon.
std::string num(double v);

}  // namespace p2b::compare_sim
