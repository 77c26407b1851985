#include "results_table.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace p2b::sim {
namespace {

using Json = nlohmann::ordered_json;  // keeps the columns' order

// One cell: the text the CSV prints and the value the JSON holds.
struct Cell {
  const char* name;
  std::string text;
  Json value;
};

Cell text(const char* name, const std::string& v) {
  return {name, v, v};
}

Cell integer(const char* name, uint64_t v) {
  return {name, std::to_string(v), v};
}

// A real printed with `format`; the JSON gets the printed value back, or
// null when it is not finite (JSON has no NaN or infinity).
Cell real(const char* name, const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return {name, buf, std::isfinite(v) ? Json(std::strtod(buf, nullptr)) : Json(nullptr)};
}

std::vector<Cell> cells(const ResultRow& w) {
  const PointSpec& s = w.spec;
  const PointResult& r = w.r;
  return {
      text("env", w.env),
      text("mode", mode_name(w.mode)),
      text("mapping", w.mapping),
      text("contexts", w.contexts),
      text("weights", w.weights),
      text("weights_sha256", w.weights_sha256),
      text("data", w.data),
      text("data_sha256", w.data_sha256),
      text("labels", w.labels),
      integer("users", s.early_users),
      integer("population", r.population),
      integer("late_users", r.late_users),
      integer("actions", w.actions),
      integer("dim", w.dim),
      integer("codes", w.codes),
      integer("digits", s.digits),
      integer("interactions", s.interactions),
      real("p", "%.3f", s.participation),
      integer("threshold", s.threshold),
      real("neg_rate", "%.3f", s.neg_rate),
      real("alpha", "%.3f", s.alpha),
      integer("crypto", s.crypto ? 1 : 0),
      integer("seed", s.seed),
      real("cold", "%.6f", r.cold.mean),
      real("cold_se", "%.6f", r.cold.stderr_),
      real("warm_nonprivate", "%.6f", r.warm_nonprivate.mean),
      real("warm_nonprivate_se", "%.6f", r.warm_nonprivate.stderr_),
      real("warm_private", "%.6f", r.warm_private.mean),
      real("warm_private_se", "%.6f", r.warm_private.stderr_),
      real("oracle", "%.6f", r.oracle),
      real("best_fixed_arm", "%.6f", r.best_fixed_arm),
      integer("best_fixed_arm_index", r.best_fixed_arm_index),
      real("majority_label", "%.6f", w.env == "multilabel" ? r.majority_arm : NAN),
      integer("nonprivate_model", r.nonprivate_model ? 1 : 0),
      integer("private_model", r.private_model ? 1 : 0),
      integer("reports", r.reports),
      integer("kept", r.kept),
      integer("codes_reported", r.codes_reported),
      integer("codes_released", r.codes_released),
      integer("smallest_crowd", r.smallest_released_crowd),
      real("epsilon_per_user", "%.4f", r.epsilon_per_user),
      real("delta_indicative", "%.3g", r.delta_indicative),
      real("central_epsilon", "%.3g", s.central_epsilon),
      real("central_delta", "%.3g", s.central_epsilon > 0 ? s.central_delta : 0.0),
      real("central_sigma", "%.4g", r.central_sigma),
      integer("central_nodes", r.central_nodes),
      real("seconds", "%.1f", w.seconds),
      real("crypto_floor_seconds", "%.1f", w.crypto_floor_seconds),
      real("peak_rss_mb", "%.0f", w.rss_mb),
  };
}

// RFC 4180 quoting, needed once file paths are columns.
std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

void write_csv(std::ostream& out, const std::vector<ResultRow>& rows) {
  const std::vector<Cell> names = cells(ResultRow{});
  for (std::size_t i = 0; i < names.size(); ++i) out << (i ? "," : "") << names[i].name;
  out << '\n';
  for (const ResultRow& w : rows) {
    const std::vector<Cell> row = cells(w);
    for (std::size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << csv_field(row[i].text);
    out << '\n';
  }
}

// An array with one object per line, keyed by the CSV's column names.
void write_json(std::ostream& out, const std::vector<ResultRow>& rows) {
  out << "[\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Json object = Json::object();
    for (Cell& c : cells(rows[i])) object[c.name] = std::move(c.value);
    out << "  " << object.dump() << (i + 1 < rows.size() ? ",\n" : "\n");
  }
  out << "]\n";
}

}  // namespace

const char* mode_name(Mode m) {
  return m == Mode::paper ? "paper" : "default";
}

void write_results(const std::string& dir, const std::vector<ResultRow>& rows) {
  std::ofstream csv(dir + "/results.csv");
  write_csv(csv, rows);
  std::ofstream json(dir + "/results.json");
  write_json(json, rows);
  csv.close();
  json.close();
  if (!csv || !json) throw std::runtime_error("cannot write results to " + dir);
}

}  // namespace p2b::sim
