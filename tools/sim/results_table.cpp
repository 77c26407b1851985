#include "results_table.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

namespace p2b::sim {
namespace {

using Json = nlohmann::ordered_json;  // keeps the columns' order
using tools::Cell;

struct Column {
  const char* name;
  Cell value;
};

Column integer(const char* name, uint64_t v) {
  return {name, Cell{static_cast<int64_t>(v)}};
}

Column real(const char* name, double v) {
  return {name, Cell{v}};
}

Column text(const char* name, const std::string& v) {
  return {name, Cell{v}};
}

std::vector<Column> provenance(const ResultRow& w) {
  return {text("env", w.env),         text("mode", mode_name(w.mode)),
          text("mapping", w.mapping), text("contexts", w.contexts),
          text("weights", w.weights), text("weights_sha256", w.weights_sha256),
          text("data", w.data),       text("data_sha256", w.data_sha256),
          text("labels", w.labels)};
}

std::vector<Column> settings(const ResultRow& w) {
  const PointSpec& s = w.spec;
  return {integer("users", s.early_users),
          integer("population", w.r.population),
          integer("late_users", w.r.late_users),
          integer("actions", w.actions),
          integer("dim", w.dim),
          integer("codes", w.codes),
          integer("digits", s.digits),
          integer("interactions", s.interactions),
          real("p", s.participation),
          integer("threshold", s.threshold),
          real("neg_rate", s.neg_rate),
          real("alpha", s.alpha),
          integer("crypto", s.crypto ? 1 : 0),
          integer("seed", s.seed)};
}

std::vector<Column> rewards(const ResultRow& w) {
  const PointResult& r = w.r;
  return {real("cold", r.cold.mean),
          real("cold_se", r.cold.stderr_),
          real("warm_nonprivate", r.warm_nonprivate.mean),
          real("warm_nonprivate_se", r.warm_nonprivate.stderr_),
          real("warm_private", r.warm_private.mean),
          real("warm_private_se", r.warm_private.stderr_),
          real("oracle", r.oracle),
          real("best_fixed_arm", r.best_fixed_arm),
          integer("best_fixed_arm_index", r.best_fixed_arm_index),
          real("majority_label", w.env == "multilabel" ? r.majority_arm : NAN),
          integer("nonprivate_model", r.nonprivate_model ? 1 : 0),
          integer("private_model", r.private_model ? 1 : 0)};
}

std::vector<Column> privacy_and_cost(const ResultRow& w) {
  const PointSpec& s = w.spec;
  const PointResult& r = w.r;
  return {integer("reports", r.reports),
          integer("kept", r.kept),
          integer("codes_reported", r.codes_reported),
          integer("codes_released", r.codes_released),
          integer("smallest_crowd", r.smallest_released_crowd),
          real("epsilon_per_user", r.epsilon_per_user),
          real("delta_indicative", r.delta_indicative),
          real("central_epsilon", s.central_epsilon),
          real("central_delta", s.central_epsilon > 0 ? s.central_delta : 0.0),
          real("central_sigma", r.central_sigma),
          integer("central_nodes", r.central_nodes),
          real("seconds", w.seconds),
          real("crypto_floor_seconds", w.crypto_floor_seconds),
          real("peak_rss_mb", w.rss_mb),
          real("early", r.early.mean),
          integer("model_bundle_bytes", r.model_bundle_bytes)};
}

std::vector<Column> columns(const ResultRow& w) {
  std::vector<Column> all;
  for (auto part : {provenance(w), settings(w), rewards(w), privacy_and_cost(w)}) {
    for (Column& c : part) all.push_back(std::move(c));
  }
  return all;
}

// A cell as the JSON holds it: a real rounded as the CSV prints it, null
// when not finite (JSON has neither NaN nor infinity).
Json json_value(const Cell& c) {
  if (const auto* i = std::get_if<int64_t>(&c)) return *i;
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  const double d = std::get<double>(c);
  if (!std::isfinite(d)) return nullptr;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", d);
  return std::strtod(buf, nullptr);
}

}  // namespace

const char* mode_name(Mode m) {
  return m == Mode::paper ? "paper" : "default";
}

tools::ResultTable results_table(const std::vector<ResultRow>& rows) {
  std::vector<std::string> names;
  for (const Column& c : columns(ResultRow{})) names.emplace_back(c.name);
  tools::ResultTable table(names);
  for (const ResultRow& w : rows) {
    std::vector<Cell> cells;
    for (Column& c : columns(w)) cells.push_back(std::move(c.value));
    table.add_row(std::move(cells));
  }
  return table;
}

void write_results_json(const tools::ResultTable& table, const std::string& path) {
  std::ofstream out(path);
  out << "[\n";
  const auto& rows = table.rows();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Json object = Json::object();
    for (std::size_t j = 0; j < rows[i].size(); ++j) {
      object[table.columns()[j]] = json_value(rows[i][j]);
    }
    out << "  " << object.dump() << (i + 1 < rows.size() ? ",\n" : "\n");
  }
  out << "]\n";
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
}

void write_results(const std::string& dir, const std::vector<ResultRow>& rows) {
  const tools::ResultTable table = results_table(rows);
  tools::write_csv(table, dir + "/results.csv");
  write_results_json(table, dir + "/results.json");
}

}  // namespace p2b::sim
