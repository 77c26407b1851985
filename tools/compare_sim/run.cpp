// p2b-sim --protocol compare's run(): the environments, every run on
// o.run.threads threads, the summary and the report.
#include "compare_sim/run.hpp"

#include <cmath>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "compare_sim/run_parts.hpp"
#include "parallel/parallel_for.hpp"

namespace p2b::compare_sim {
namespace {

std::size_t posting_bytes(const Options& o) {
  return pfcb_posting_bytes(static_cast<std::size_t>(o.actions) * o.dim * (o.dim + 1) / 2,
                            static_cast<std::size_t>(o.actions) * o.dim);
}

void say_schedule(const Options& o, const Setup& s, const tools::RunHooks& hooks) {
  char b[512];
  std::snprintf(b, sizeof b,
                "p2b-sim --protocol compare: N=%llu users (early %llu, late %llu), T_u=%u steps "
                "each,",
                static_cast<unsigned long long>(s.population),
                static_cast<unsigned long long>(s.early),
                static_cast<unsigned long long>(s.population - s.early), o.interactions);
  hooks.say(b);
  std::snprintf(b, sizeof b,
                "cohorts in turn, round-robin within a cohort; %u seeds from %llu; "
                "delta=%g",
                o.run.seeds, static_cast<unsigned long long>(o.run.seed), o.delta);
  hooks.say(b);
}

std::vector<Row> run_all(const Options& o, const Setup& s, const tools::RunHooks& hooks) {
  const std::vector<Task> tasks = make_tasks(o, s.slots.size());
  std::vector<Row> rows(tasks.size());
  std::mutex mu;  // the hooks, one worker at a time
  uint64_t done = 0;
  tools::parallel_for(tasks.size(), o.run.threads, [&](std::size_t i) {
    const Task& t = tasks[i];
    const Slot& slot = s.slots[t.slot];
    rows[i] = Row{slot.env, slot.seed, run_task(o, slot, t)};
    const std::lock_guard<std::mutex> lock(mu);
    hooks.report("runs", ++done, tasks.size());
  });
  return rows;
}

nlohmann::json meta_of(const Options& o, const Setup& s) {
  nlohmann::json meta;
  meta["schedule"] =
      "N users in two cohorts (early then late), T_u steps each, round-robin within a cohort";
  meta["users"] = s.population;
  meta["early_users"] = s.early;
  meta["steps_per_user"] = o.interactions;
  meta["seeds"] = o.run.seeds;
  meta["first_seed"] = o.run.seed;
  meta["delta"] = o.delta;
  meta["synthetic"] = {{"dim", o.dim},
                       {"actions", o.actions},
                       {"mapping", o.mapping},
                       {"beta", o.beta},
                       {"noise_sd", o.noise_sd}};
  if (s.multilabel) {
    meta["multilabel"] = {{"data", o.data}, {"dim", o.ml_dim}, {"labels", s.multilabel->n_labels}};
  }
  meta["p2b"] = {{"codes", o.codes}, {"threshold", o.threshold}, {"alpha", o.alpha}};
  meta["fclub"] = {{"servers", o.servers}, {"beta_scale", o.beta_scale}};
  meta["spends"] = o.spends;
  meta["pfcb"] = {{"omega1", o.omega1}, {"omega2", o.omega2}, {"posting_bytes", posting_bytes(o)}};
  return meta;
}

nlohmann::json cell_json(const tools::Cell& c) {
  if (const auto* i = std::get_if<int64_t>(&c)) return *i;
  if (const auto* d = std::get_if<double>(&c)) {
    return std::isinf(*d) ? nlohmann::json("inf") : nlohmann::json(*d);
  }
  return std::get<std::string>(c);
}

}  // namespace

CompareRun run_compare(const Options& o, const tools::RunHooks& hooks) {
  if (const std::string e = validate(o); !e.empty()) throw std::invalid_argument(e);
  const std::unique_ptr<Setup> setup = make_setup(o, hooks);
  say_schedule(o, *setup, hooks);
  hooks.say("P-FCB-style posting (synthetic d=" + std::to_string(o.dim) +
            ", |A|=" + std::to_string(o.actions) + "): " + std::to_string(posting_bytes(o)) + " B");
  const std::vector<Row> rows = run_all(o, *setup, hooks);
  const std::vector<Summary> sum = summarise(rows);
  CompareRun out;
  out.tables = {{"runs", runs_table(rows)}, {"summary", summary_table(sum)}};
  out.meta_json = meta_of(o, *setup).dump();
  for (const std::string& line : report_lines(o, rows, sum, &out.spends_ok)) hooks.say(line);
  return out;
}

tools::ResultTables run(const Options& o, const tools::RunHooks& hooks) {
  return run_compare(o, hooks).tables;
}

std::string results_json(const CompareRun& r) {
  nlohmann::json js = nlohmann::json::parse(r.meta_json);
  js["summary"] = nlohmann::json::array();
  const tools::ResultTable& sum = r.tables.at("summary");
  for (const auto& row : sum.rows()) {
    nlohmann::json obj;
    for (std::size_t c = 0; c < row.size(); ++c) obj[sum.columns()[c]] = cell_json(row[c]);
    js["summary"].push_back(obj);
  }
  return js.dump(2);
}

}  // namespace p2b::compare_sim
